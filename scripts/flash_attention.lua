-- HBM traffic and memory of standard attention against FlashAttention (Dao et al. 2022,
-- Algorithms 0 and 1, §3.2) over sequence lengths 512 ... 64k, for one layer of a model at
-- batch 1, on a 40 GB and an 80 GB device; and the longest sequence at which a forward pass
-- still fits: weights + KV cache + one layer's attention working set (standard: Q, K, V, O and
-- the N x N matrices S and P of every head; FlashAttention: Q, K, V, O and two statistics).
-- SRAM per SM (the M of the analysis) comes from each spec (smem_per_sm_bytes).
-- Usage: build/tilewave run scripts/flash_attention.lua [--model ID] [--hw ID]...
local argparse = require "argparse"
local tw = require "tilewave"

local p = argparse("flash_attention.lua", "Standard vs FlashAttention: HBM traffic and memory.")
p:option("--model", "Model id (heads and head dim)."):default("llama-2-7b")
p:option("--hw", "Device id (repeatable)."):count("*")
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
