-- HBM traffic and memory of standard attention against FlashAttention (Dao et al. 2022,
-- Algorithms 0 and 1, §3.2) over sequence lengths 512 ... 64k, for one layer of a model at
-- batch 1, on a 40 GB and an 80 GB device; and the longest sequence at which a forward pass
-- still fits: weights + KV cache + one layer's attention working set (standard: Q, K, V, O and
-- the N x N matrices S and P of every head; FlashAttention: Q, K, V, O and two statistics).
-- SRAM per SM (the M of the analysis) comes from each spec (smem_per_sm_bytes).
-- Then Dao et al. 2022, Figure 2 (left), as findings (ends with `N of M findings reproduced`,
-- exits 1 unless all hold): GPT-2 medium attention forward + backward (N = 1024, d = 64, 16 heads,
-- batch 64) on an A100 - HBM traffic of standard attention (40.3 GB) and FlashAttention (4.4 GB)
-- within 25%, the speedup (41.7 -> 7.3 ms) in direction and order of magnitude, and the seed
-- article's point that the N x N matrix never reaches HBM (FlashAttention's memory is linear in N).
-- Usage: build/tilewave run scripts/flash_attention.lua [--model ID] [--hw ID]... [--fig2-hw ID]
local argparse = require "argparse"
local tw = require "tilewave"

local p = argparse("flash_attention.lua", "Standard vs FlashAttention: HBM traffic and memory.")
p:option("--model", "Model id (heads and head dim)."):default("llama-2-7b")
p:option("--hw", "Device id (repeatable)."):count("*")
p:option("--fig2-hw", "Device of the Figure 2 findings (the paper's A100)."):default("a100_sxm4_40gb")
p:option("--plots", "Also draw forward + backward HBM traffic against N as SVG into DIR.")
local args = p:parse(arg)
local devices = #args.hw > 0 and args.hw or { "a100_sxm4_40gb", "a100_sxm4_80gb" }
local c = assert(tw.models.load(args.model))
local format, si = string.format, tw.report.si

local function io_of(spec, n)
  return tw.core.attention_io { seq_len = n, head_dim = c.head_dim, heads = c.num_attention_heads, elem_bytes = 2,
                                sram_bytes = spec.smem_per_sm_bytes }
end

-- Bytes needed for a forward pass over n tokens with the given attention working set.
local function need(spec, n, kind)
  local m = tw.inference.memory { model = c, hw = spec, context = n, batch = 1, workspace_bytes = 0,
                                 allow_long_context = true } -- a memory question, past the trained length
  local a = io_of(spec, n)
  return m.weight_bytes + m.kv_bytes + (kind == "flash" and a.flash_mem_bytes or a.standard_mem_bytes)
end

-- Largest n (to the token) whose need fits the device's memory.
local function longest(spec, kind)
  local lo, hi = 1, 1
  while need(spec, hi, kind) <= spec.memory_bytes and hi < 2 ^ 30 do lo, hi = hi, hi * 2 end
  if need(spec, lo, kind) > spec.memory_bytes then return 0 end
  while hi - lo > 1 do
    local mid = (lo + hi) // 2
    if need(spec, mid, kind) <= spec.memory_bytes then lo = mid else hi = mid end
  end
  return lo
end

print(format("%s, one layer: %d heads of %d, batch 1, fp16/bf16", c.name, c.num_attention_heads, c.head_dim))
for _, id in ipairs(devices) do
  local spec = assert(tw.hw.load(id))
  local a0 = io_of(spec, 1024)
  print(format("\n%s: %s memory, SRAM per SM %s -> blocks Bc = %d, Br = %d", spec.name, si(spec.memory_bytes, "B"),
    si(spec.smem_per_sm_bytes, "B"), a0.block_cols, a0.block_rows))
  local rows = {}
  local n = 512
  while n <= 65536 do
    local a = io_of(spec, n)
    rows[#rows + 1] = { tostring(n), si(a.standard_bytes, "B"), si(a.flash_bytes, "B"),
                        format("%.1fx", a.standard_bytes / a.flash_bytes), si(a.standard_mem_bytes, "B"),
                        si(a.flash_mem_bytes, "B"),
                        need(spec, n, "standard") <= spec.memory_bytes and "yes" or "no",
                        need(spec, n, "flash") <= spec.memory_bytes and "yes" or "no" }
    n = n * 2
  end
  print(tw.report.table({ "N", "standard HBM", "flash HBM", "ratio", "standard memory", "flash memory",
                          "standard fits", "flash fits" }, rows))
  print(format("Longest sequence that fits (weights %s + KV cache + attention): standard %d tokens, FlashAttention %d tokens.",
    si(tw.inference.memory { model = c, hw = spec, context = 1 }.weight_bytes, "B"), longest(spec, "standard"),
    longest(spec, "flash")))
end
print("\nStandard attention moves 4Nd + 4N^2 elements per head and holds the N^2 score and probability matrices;")
print("FlashAttention moves 2Nd + 3Nd*ceil(N/Bc) (Theta(N^2 d^2 / M)) and holds O(N): its memory is linear in N,")
print("so only the KV cache and weights limit the sequence length.")

-- Dao et al. 2022, Figure 2 (left): GPT-2 medium attention, forward + backward, on an A100.
local findings = require "tilewave.report.findings"
local price = require "tilewave.cost.price"
local N, D, HEADS, BATCH = 1024, 64, 16, 64
local spec = assert(tw.hw.load(args.fig2_hw))
local a = price.attention_io { seq_len = N, head_dim = D, heads = HEADS * BATCH, elem_bytes = 2,
                               sram_bytes = spec.smem_per_sm_bytes }
-- The paper's baseline is PyTorch's standard attention, whose Figure 2 breakdown lists Matmul, Mask,
-- Softmax, Dropout, Matmul: beyond Algorithms 0 and 3 it reads and writes the N x N matrix once more
-- for the mask and once for dropout in each direction (2 + 2 + 2 + 2 passes of N^2 fp16 elements),
-- and writes (forward) and reads (backward) a 1-byte dropout mask.
local extra = HEADS * BATCH * (8 * N * N * 2 + 2 * N * N)
local standard = a.standard_bytes + a.standard_bwd_bytes + extra
local flash = a.flash_bytes + a.flash_bwd_bytes
-- FLOP: 4 N^2 d forward and 8 N^2 d backward per head (two and four N x N x d matmuls)
local flops = 12 * N * N * D * HEADS * BATCH
local t_std = tw.roofline { flops = flops, bytes = standard, hw = spec, dtype = "fp16", achievable = true }.time_s
local t_fa = tw.roofline { flops = flops, bytes = flash, hw = spec, dtype = "fp16", achievable = true }.time_s
print(format("\nDao et al. 2022, Figure 2 (left) on %s: GPT-2 medium attention, N = %d, d = %d, %d heads x batch %d,",
  spec.name, N, D, HEADS, BATCH))
print(format("forward + backward; blocks Bc = %d, %d passes. Times are roofline times (achievable fractions).",
  a.block_cols, a.passes))
local f = findings.new("Dao et al. 2022, Figure 2")
f:check { claim = "standard attention moves 40.3 GB of HBM reads and writes", published = "40.3 GB",
          predicted = format("%.1f GB (%s): Algorithms 0 + 3 %.1f GB, mask and dropout %.1f GB", standard / 1e9,
            findings.rel(standard, 40.3e9), (a.standard_bytes + a.standard_bwd_bytes) / 1e9, extra / 1e9),
          tolerance = "25%", ok = math.abs(standard / 40.3e9 - 1) <= 0.25 }
f:check { claim = "FlashAttention moves 4.4 GB", published = "4.4 GB",
          predicted = format("%.2f GB (%s): forward %.2f, backward %.2f", flash / 1e9, findings.rel(flash, 4.4e9),
            a.flash_bytes / 1e9, a.flash_bwd_bytes / 1e9), tolerance = "25%", ok = math.abs(flash / 4.4e9 - 1) <= 0.25 }
local sp, sp_pub = t_std / t_fa, 41.7 / 7.3
f:check { claim = "FlashAttention is faster: 41.7 ms -> 7.3 ms", published = format("x%.1f", sp_pub),
          predicted = format("x%.1f (%.1f ms -> %.1f ms)", sp, t_std * 1e3, t_fa * 1e3),
          tolerance = "faster, within a factor of 10 of the published speedup",
          ok = sp > 1 and math.abs(math.log(sp / sp_pub, 10)) <= 1 }
local a2 = price.attention_io { seq_len = 2 * N, head_dim = D, heads = HEADS * BATCH, elem_bytes = 2,
                                sram_bytes = spec.smem_per_sm_bytes }
f:check { claim = "the N x N matrix never reaches HBM (seed article): FlashAttention's memory is linear in N",
          published = "O(N) memory", predicted = format("N -> 2N: memory x%.3f (standard x%.3f)",
            a2.flash_mem_bytes / a.flash_mem_bytes, a2.standard_mem_bytes / a.standard_mem_bytes),
          tolerance = "exactly x2", ok = a2.flash_mem_bytes == 2 * a.flash_mem_bytes }
if args.plots then
  local plot = require "tilewave.report.plot"
  local dir = plot.dir(args.plots, "plots")
  local std, fa = {}, {}
  local n = 256
  while n <= 16384 do
    local x = price.attention_io { seq_len = n, head_dim = D, heads = HEADS * BATCH, elem_bytes = 2,
                                   sram_bytes = spec.smem_per_sm_bytes }
    std[#std + 1] = { n, x.standard_bytes + x.standard_bwd_bytes + HEADS * BATCH * (8 * n * n * 2 + 2 * n * n) }
    fa[#fa + 1] = { n, x.flash_bytes + x.flash_bwd_bytes }
    n = n * 2
  end
  local path = dir .. "/flash_attention_traffic.svg"
  plot.svg({ title = format("Attention forward + backward HBM traffic, d = %d, %d heads x batch %d, %s", D, HEADS,
                            BATCH, spec.id),
             xlabel = "sequence length N (tokens)", ylabel = "HBM traffic (byte)", logx = true, logy = true,
             series = { { title = "standard (PyTorch: + mask, dropout)", points = std, with = "linespoints" },
                        { title = "FlashAttention", points = fa, with = "linespoints" },
                        { title = "published, Dao et al. Fig. 2 (N = 1024)", points = { { N, 40.3e9 }, { N, 4.4e9 } },
                          with = "points" } } }, path)
  print("wrote " .. path)
end
return f:finish()
