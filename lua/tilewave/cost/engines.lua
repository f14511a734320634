--- tilewave.cost.engines: how software runs a model's ops as kernels.
--
-- The same model on the same GPU runs at very different speeds under
-- different software. An engine is the small table of what differs:
--   fusion            "fused": one kernel per logical op (norm, rotary, softmax,
--                     activation, residual each one kernel at its compulsory
--                     traffic), or "unfused": one kernel per framework op, as
--                     Hugging Face's eager modules run them (tilewave.cost.kernels)
--   launch            "graph": kernels back to back on the device (CUDA graph or a
--                     queue the host keeps ahead); "host": each kernel waits for
--                     the host to dispatch it, so a kernel costs at least host_s
--   kernel_s          device time per kernel besides its work (the gap between
--                     back-to-back kernels plus a small kernel's fill and drain), s;
--                     a number or a table by vendor { nvidia =, amd =, apple = }
--   host_s            host dispatch time per kernel (launch = "host"), s
--   token_host_s      host work per generated token outside the kernels
--                     (sampling, cache bookkeeping, Python), s
--   cold_token_s      host time per token a first call on a freshly built model may add
--                     (s, >= 0): decode's interval reaches tpot + cold_token_s, the point stays
--                       steady
--   seq_host_s        host work per sequence per step (input preparation, sampling,
--                     detokenization of each sequence's token), s
--   host_spread       relative spread of host time between machines (a fraction): a decode
--                     step bound by the host (bound "host") gets an interval at least
--                     tpot x (1 -+ host_spread)
--   attention         the attention kernel used when the caller names none
--                     ("flash" | "standard"; nil: the caller's default)
--   flash_kernel      which fused attention kernel "flash" means: "cudnn" (default;
--                     cuDNN's SDPA, the backend PyTorch picked on the H100 in
--                     h100/layers.csv, FlashAttention-3 class on Hopper) or "fa2"
--                     (Dao's FlashAttention-2, no Hopper wgmma/TMA); priced at the
--                     architecture's attention_frac or attention_frac_fa2
--   train_flash_kernel the fused attention kernel when its inputs require gradients (training,
--                     M.for_training; nil: flash_kernel): PyTorch's SDPA picks cuDNN's kernel
--                     for inference on Hopper (h100/kernels.csv, under no_grad) but
--                     FlashAttention-2 when gradients are needed (pytorch/torchtitan#1042: training
--                     on H100s dispatches SDPBackend.FLASH_ATTENTION; the H200 train_layer.csv
--                       rows)
--   decode_attention  how the decode attention kernel spreads over the SMs (price.decode_kv_eff):
--                     "split_kv" (default: FlashDecoding splits the context so every SM
--                     streams the KV cache; flash-attn >= 2.2, PyTorch SDPA), "no_split" (one
--                     thread block per sequence and query head: FlashAttention before 2.2),
--                     "mmha" (TensorRT-LLM < 0.8's masked MHA: one block per sequence and query
--                     head, a GQA group's cache read once per query head), "xqa" (TensorRT-LLM
--                     0.8 - 0.11's XQA without multi-block mode: one block per sequence and KV
--                     head over the whole context) or "full" (no occupancy loss: the ideal engine)
--   mem_frac          achievable fraction of DRAM bandwidth for decode's weight
--                     and KV stream (default: the architecture's GEMM mem_frac)
--   compute_frac      achievable fraction of the dense peak in decode (default: the architecture's)
--   dequant           false to make dequantization free (ideal)
--   comm_latency_s    per-step latency of a tensor-parallel collective in decode, s
--   logits            "all" (default: the LM head over every position, as a training or
--                     Hugging Face forward) or "last" (serving engines: only the position
--                     each sequence samples from)
--   scheduler         the serving scheduler the engine runs by default (tilewave.serve.schedulers)
--   host_overlap      share of the per-step host work done while the GPU runs the previous step
--                     ([0, 1]; src/tw_serve.h), async_output (true: the client sees a step's first
--                     and last tokens when the next step ends), graph_sizes (CUDA-graph capture
--                     sizes: "vllm_v0" | "vllm_v1"), version (the releases a profile covers): the
--                     serving engines by release, tilewave.cost.engine_versions
--   frontend_s        s per request the client waits outside the engine's steps (tokenization,
--                     the API server, the hand-off to the engine process, the first chunk's
--                     streaming): added to TTFT and E2E as the client measures them
--                     (src/tw_serve.h policy frontend_s; 0 to 60; default 0: none). No preset sets
--                     it; `calibrate --serving` fits it where a file holds light-load TTFT
--   kernels_per_layer, kernels_fixed
--                     kernel counts of a decode step when the engine's own graph is
--                     known (llama.cpp's ggml nodes); otherwise counted from the ops
--   description, source
-- Users compose engines: `{ base = "eager", launch = "graph" }` is unfused
-- kernels replayed as a CUDA graph; any field may be overridden.
local check = require "tilewave.util.check"
local tables = require "tilewave.util.tables"

local M = {}

--- The default engine of every estimate and the report.
M.DEFAULT = "compiled"

local CAL = "../shared/reference/calibration/"
M.presets = {
  ideal = {
    description = "pure roofline: no kernel or launch cost, weights and KV cache at the datasheet bandwidth, free dequantization",
    fusion = "fused", launch = "graph", kernel_s = 0, host_s = 0, token_host_s = 0,
    mem_frac = 1, compute_frac = 1, dequant = false, comm_latency_s = 0, decode_attention = "full",
    source = "roofline bound (Williams et al. 2009)",
  },
  compiled = {
    description = "fused kernels replayed as a CUDA graph (torch.compile, gpt-fast, TensorRT class)",
    fusion = "fused", launch = "graph", kernel_s = 2.5e-6, host_s = 0, token_host_s = 0,
    mem_frac = 0.77, comm_latency_s = 5e-6, train_flash_kernel = "fa2",
    source = "kernel_s and mem_frac fitted to the gpt-fast A100 rows of " .. CAL .. "decode_calibration.csv " ..
      "(scripts/calibrate.lua --decode --fit; that A100 is power-limited to 330 W, README: 'peak bandwidth about " ..
      "1700 GB/s'); a graph replay leaves 1-2 us between kernels (" .. CAL .. "h100/README.md)",
  },
  fused = {
    description = "fused kernels launched from the host (Megatron-LM / Transformer Engine training class)",
    fusion = "fused", launch = "host", kernel_s = 2.5e-6, host_s = 8e-6, token_host_s = 0,
    comm_latency_s = 10e-6,
    source = "kernel_s as compiled; host_s an assumption (C++ dispatch of a fused module, below eager PyTorch's " ..
      "per-op cost), not calibrated: no rows of such software in the calibration data",
  },
  eager = {
    description = "one kernel per PyTorch op, launched from Python (Hugging Face transformers eager modules)",
    fusion = "unfused", launch = "host", kernel_s = 2.9e-6, host_s = 18e-6, token_host_s = 0,
    comm_latency_s = 10e-6, host_spread = 0.4, train_flash_kernel = "fa2", host_op_ref_s = 19.3e-6,
    source = "kernel lists of " .. CAL .. "h100/kernels.csv; kernel_s fitted to the 9 graph rows (MAPE 2.6%) and " ..
      "host_s to the 5 eager rows (MAPE 9.6%) of " .. CAL .. "h100/decode.csv (llama-2-7b, batch 1-64, context " ..
      "512-8192; grid fit; tilewave calibrate reports the errors); host_spread 0.4: the host CPU's per-launch " ..
      "time differs by about +-40% between machines of this class on eager decode (issue 33, the team's held-out " ..
      "eager decode steps on H100 machines); one machine's rows cannot show it; host_op_ref_s: the probe's " ..
      "module_linear figure (scripts/probe --host) that host_s stands for: on two machines (hw/measured/" ..
      "h100_host_2026-11-28, h200_host_2026-11-28) module_linear / (measured / predicted eager step, median of " ..
      "the batch 1-16 rows) gave 18.6 and 20.0 us; their mean",
  },
  hf = {
    description = "Hugging Face transformers generate(): eager modules plus per-token host work",
    base = "eager", host_s = 20.1e-6, token_host_s = 1.2e-3, cold_token_s = 90e-3,
    source = "transformers 5.17 generate() runs the model's eager modules: their kernels per family "
      .. "(tilewave.cost.kernels; 26 to 96 a layer as profiled in hw/measured/h100_host_2026-11-28/hf_kernels.csv), "
      .. "each costing host_s, plus token_host_s a token outside them: the model-level forward (causal mask, "
      .. "rotary tables, cache bookkeeping, output objects) and generate()'s own (logits processors, stopping "
      .. "check). Fitted to the 26 generate() rows of hw/measured/h100_host_2026-11-28/hf_generate.csv (11 "
      .. "families, 2 to 42 layers, batch 1 and 8; steady: the second call's median per-token gap): TPOT = "
      .. "token_host_s + 0.95 x the eager kernels' time at 18 us, MAPE 4.9%; on that machine (module_linear "
      .. "16.41 us) a module kernel costs 17.1 us, 12% over the hand-written eager steps' 15.3: host_s is 17.1 us "
      .. "at the eager reference figure (host_op_ref_s). cold_token_s: a first call on a freshly built model ran "
      .. "35-45 ms a token slower in 5 of 11 families there, and " .. CAL .. "h100/hf_generate.csv's single calls "
      .. "about 90 ms slower than steady: the interval's top covers them, the point is the steady state",
  },
  -- Serving engines (fused kernels, decode replayed as CUDA graphs, logits of the sampled positions
  -- only, host time per step) by release: tilewave.cost.engine_versions. A plain family name is its
  -- newest profile.
  vllm = { base = "vllm@0.14", description = "vLLM, newest profile (vllm@0.14: v0.14 and later)" },
  sglang = { base = "sglang@0.4", description = "SGLang, newest profile (sglang@0.4: v0.4 and later)" },
  trtllm = { base = "trtllm@1.0", description = "TensorRT-LLM, newest profile (trtllm@1.0: trtllm-serve, v1.0 and later)" },
  ["llama.cpp"] = {
    description = "llama.cpp (ggml graph, one kernel per graph node; CUDA or Metal backend)",
    fusion = "fused", launch = "graph", host_s = 0, token_host_s = 0,
    -- ggml nodes per Llama layer: norm, mul, q/k/v mul_mat 3, rope 2, KV copy 2, attention
    -- (mul_mat, soft_max, mul_mat) 3, out mul_mat 1, add, norm, mul, gate/up mul_mat 2, silu, mul,
    -- down, add
    kernels_per_layer = 20, kernels_fixed = 4,
    -- attention as matrix-vector products over the cache (mul_mat rows = cached tokens): every SM
    -- streams
    decode_attention = "full",
    -- CUDA: the backend replays CUDA graphs (since 2024), leaving little per node; Metal encodes
    -- every node. amd: taken as nvidia's (no ROCm row to fit).
    kernel_s = { nvidia = 0.25e-6, amd = 0.25e-6, apple = 5e-6 },
    mem_frac = 0.78,
    comm_latency_s = 10e-6,
    source = "node count of llama.cpp's Llama graph (llama.cpp build_llama); kernel_s per backend and " ..
      "mem_frac fitted to the llama.cpp rows of " .. CAL .. "decode_calibration.csv (RTX 4090, M2 Ultra)",
  },
}

-- the serving engines by release
tables.copy(require("tilewave.cost.engine_versions").presets, M.presets)

local function kernel_cost(v, p)
  if type(v) == "table" then
    check.options(v, { nvidia = true, amd = true, apple = true }, p)
    for k, x in pairs(v) do check.nonneg(x, p .. "." .. k) end
    return v
  end
  return check.nonneg(v, p)
end

local VENDORS = { nvidia = true, amd = true, apple = true }

-- a host time of an engine, s: at most 10 s (per step, sequence, kernel or call: no serving engine's
-- host work is near it; 1e300 from a file reached the serving core as an out-of-range scale)
local function host_time(v, p) return check.within(v, 0, 10, "a host time in seconds", p) end

local FIELDS = {
  base = true, description = check.string, source = check.string,
  fusion = function(v, p) return check.one_of(v, { fused = true, unfused = true }, p) end,
  launch = function(v, p) return check.one_of(v, { graph = true, host = true }, p) end,
  kernel_s = kernel_cost, host_s = host_time, token_host_s = host_time, seq_host_s = host_time,
  host_spread = function(v, p) return check.within(v, 0, 0.9, "fraction", p) end,
  attention = function(v, p) return check.one_of(v, { flash = true, standard = true }, p) end,
  flash_kernel = function(v, p) return check.one_of(v, { cudnn = true, fa2 = true }, p) end,
  train_flash_kernel = function(v, p) return check.one_of(v, { cudnn = true, fa2 = true }, p) end,
  decode_attention = function(v, p) return check.one_of(v, { split_kv = true, no_split = true, mmha = true, xqa = true,
    full = true }, p) end,
  mem_frac = check.fraction, compute_frac = check.fraction,
  dequant = function(v, p) if type(v) ~= "boolean" then check.fail(p, "expected boolean", v) end end,
  host_op_ref_s = check.positive, host_op_s = check.positive,
  comm_latency_s = host_time, kernels_per_layer = check.nonneg, kernels_fixed = check.nonneg,
  cold_token_s = host_time,
  logits = function(v, p) return check.one_of(v, { all = true, last = true }, p) end,
  scheduler = check.string,
  host_overlap = function(v, p) return check.within(v, 0, 1, "fraction", p) end, version = check.string,
  async_output = function(v, p) if type(v) ~= "boolean" then check.fail(p, "expected true or false", v) end end,
  frontend_s = function(v, p) return check.within(v, 0, 60, "s", p) end,
  prefix_caching = function(v, p) if type(v) ~= "boolean" then check.fail(p, "expected true or false", v) end end,
  graph_sizes = function(v, p) return check.one_of(v, { vllm_v0 = true, vllm_v1 = true }, p) end,
  vendors = function(v, p)
    check.table(v, p)
    for k, x in pairs(v) do
      check.one_of(k, VENDORS, p)
      if x ~= true then check.fail(p .. "." .. k, "expected true", x) end
    end
  end,
}

-- engines.key of resolved tables (by identity), and the presets flattened (by name)
local keys = setmetatable({}, { __mode = "k" })
local resolved = {}

local function flatten(name, path, depth)
  local p = M.presets[name]
  if not p then check.fail(path, "expected one of " .. check.keys(M.presets), name) end
  if depth > 8 then check.fail(path, "expected a preset chain without cycles", name) end
  local out = p.base and flatten(p.base, path, depth + 1) or {}
  tables.copy(p, out)
  out.base = nil
  return out
end

--- Refuse engine `e` (resolved) on device `spec` when the engine names the GPU vendors it runs on
-- (`vendors`, e.g. TensorRT-LLM: NVIDIA only) and the device's is not one of them.
-- @raise `<path>: <engine> runs on <vendors> GPUs only; <device> is <vendor>`
function M.check_device(e, spec, path)
  if e.vendors and not e.vendors[spec.vendor] then
    local vs = {}
    for k in pairs(e.vendors) do vs[#vs + 1] = k end
    table.sort(vs)
    error(string.format("%s: %s runs on %s GPUs only; %s is %s", path, e.name, table.concat(vs, " or "), spec.id,
      tostring(spec.vendor)), 0)
  end
  return e
end

--- Resolve an engine: nil (M.DEFAULT), a preset name, a release (`vllm@0.6`), a path to an engine
-- file (`*.lua`, returning a table with `base`), or a table with an
-- optional `base` preset (default M.DEFAULT) overridden field by field.
-- Returns a fresh table with every field set and `name`: the preset,
-- "<base>+<launch>" when only `launch` was overridden, else "<base>+custom".
-- A table that is already resolved is returned as it is.
-- @raise `<path>: expected one of ...`; `<path>.<field>: <expectation>, got <value>`
function M.resolve(e, path)
  path = path or "engine"
  if e == nil then e = M.DEFAULT end
  if type(e) == "string" and e:match("%.lua$") then
    -- an engine file (tilewave calibrate --serving writes one): a table with `base`, as a table is
    local t, err = require("tilewave.util.sandbox").load(e)
    if not t then error(path .. ": " .. err, 0) end
    local out = M.resolve(t, path)
    out.name, out.file_base = e:match("([^/]+)%.lua$"), type(t.base) == "string" and t.base or nil
    return out
  end
  if type(e) == "string" and e:find("@", 1, true) then
    -- a release: the profile that covers it (tilewave.cost.engine_versions)
    local name, why = require("tilewave.cost.engine_versions").lookup(e)
    if not name then check.fail(path, why or ("expected one of " .. check.keys(M.presets)), e) end
    e = name
  end
  if type(e) == "string" then
    -- a preset is flattened and keyed once; each call gets a fresh copy
    local canon = resolved[e]
    if not canon then
      canon = flatten(e, path, 0)
      canon.name = e
      resolved[e] = canon
    end
    local out = tables.copy(canon)
    keys[out] = M.key(canon)
    return out
  end
  check.table(e, path)
  if e.name and e.fusion and e.launch then return e end -- already resolved
  check.options(e, FIELDS, path)
  local base = e.base or M.DEFAULT
  if type(base) ~= "string" or not M.presets[base] then
    check.fail(path .. ".base", "expected one of " .. check.keys(M.presets), base)
  end
  local out = flatten(base, path .. ".base", 0)
  local changed = {}
  for k, v in pairs(e) do
    if k ~= "base" then
      if type(FIELDS[k]) == "function" then FIELDS[k](v, path .. "." .. k) end
      out[k] = v
      changed[#changed + 1] = k
    end
  end
  -- "eager", "eager+graph" (only the launch changed), "eager+custom" (anything else)
  if #changed == 0 then out.name = base
  elseif #changed == 1 and changed[1] == "launch" then out.name = base .. "+" .. e.launch
  else out.name = base .. "+custom" end
  return out
end

--- The resolved table of a preset (nil: M.DEFAULT), one shared by every caller: read it, never
-- change it (M.resolve gives a copy to change). A table is resolved as M.resolve does.
-- @raise as M.resolve
function M.shared(e, path)
  if e == nil then e = M.DEFAULT end
  if type(e) == "string" and resolved[e] then return resolved[e] end
  local out = M.resolve(e, path)
  return type(e) == "string" and resolved[e] or out
end

--- Engine `e` (resolved) as it runs a training step: its `train_flash_kernel` as `flash_kernel`
-- (a copy; `e` itself when they are the same or none is set).
function M.for_training(e)
  local k = e.train_flash_kernel
  if k == nil or k == (e.flash_kernel or "cudnn") then return e end
  local out = tables.copy(e)
  out.flash_kernel = k
  return out
end

--- The per-kernel device cost of engine `e` on a device of `vendor`, s.
function M.kernel_s(e, vendor)
  local l = e.kernel_s
  if type(l) == "table" then l = l[vendor] or l.nvidia end
  return l or 0
end

-- keys of resolved engines already computed (an engine table is not changed after resolve)

--- A string that identifies a resolved engine's fields (cache keys).
-- Relative spread of host time left once the host is measured: the two probed machines' implied
-- reference figures (host_op_ref_s) differ by 7%; taken twice that, and the rows' own scatter.
local PROBE_SPREAD = 0.15

--- Engine `e` on a machine whose host was measured (`spec.host_op_s`, scripts/probe --host): a
-- launch-"host" engine with a reference figure (`host_op_ref_s`) has its host_s and token_host_s
-- scaled by host_op_s / host_op_ref_s, its host_spread narrowed to 0.15 and `host_op_s` set; any
-- other engine, or a spec without the figure, returns `e` itself.
local on_host_of = setmetatable({}, { __mode = "k" }) -- engine -> { [host_op_s] = scaled copy }
function M.on_host(e, spec)
  local h, ref = spec and spec.host_op_s, e.host_op_ref_s
  if not h or not ref or e.launch ~= "host" or e.host_op_s then return e end
  local per = on_host_of[e] or {}
  on_host_of[e] = per
  if per[h] then return per[h] end
  local c, f = {}, h / ref
  tables.copy(e, c)
  c.host_s, c.token_host_s = (e.host_s or 0) * f, (e.token_host_s or 0) * f
  c.host_spread, c.host_op_s = math.min(e.host_spread or PROBE_SPREAD, PROBE_SPREAD), h
  per[h] = c
  return c
end

function M.key(e)
  if keys[e] then return keys[e] end
  local ks = {}
  for k in pairs(e) do ks[#ks + 1] = k end
  table.sort(ks)
  local parts = {}
  for i, k in ipairs(ks) do
    local v = e[k]
    if type(v) == "table" then v = M.key(v) end
    parts[i] = k .. "=" .. tostring(v)
  end
  keys[e] = table.concat(parts, ";")
  return keys[e]
end

return M
