--- tilewave.cost.price_context: the pricing contexts of tilewave.cost.price (a device spec, a
-- dtype, an engine and a GEMM timing bound once, with the prepared core device), cached per
-- spec. Builds no cost: the pricing layer prices with them. Units: s, byte/s, FLOP/s.
-- @module tilewave.cost.price_context
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local engines = require "tilewave.cost.engines"
local kernels = require "tilewave.cost.kernels"
local limits = require "tilewave.cost.limits"

local M = {}

local format = string.format

local WEAK_K = { __mode = "k" }
-- by spec: contexts by a key of their fields, and by the arguments themselves (the engine
-- argument's identity: a shared table, tilewave.cost.engines.shared, a name, or false for nil)
local cache, by_arg = setmetatable({}, WEAK_K), setmetatable({}, WEAK_K)

local TIMING = { kernel = true, isolated = true }

-- remember ctx under the arguments that asked for it
local function remember(spec, eng, dt, timing, ctx)
  local by_eng = by_arg[spec] or setmetatable({}, WEAK_K)
  by_arg[spec] = by_eng
  local by_dt = by_eng[eng or false] or {}
  by_eng[eng or false] = by_dt
  by_dt[dt] = by_dt[dt] or {}
  by_dt[dt][timing] = ctx
  return ctx
end

--- A pricing context for `spec` (resolved), dtype `dt`, engine `eng` (anything
-- tilewave.cost.engines.resolve takes) and GEMM `timing` ("kernel" default or
-- "isolated"). Contexts are cached per spec; an engine table must not change once used.
-- @return `{ spec, dtype, e = {in_bytes, out_bytes}, engine (resolved), dev
--   (core device), bw (elementwise byte/s), kbw (by kernel class), kernel_s, host_s, launch,
--   fusion, peak (FLOP/s), attn_peak (attention MMA FLOP/s) and attn_dtype (its dtype: fp8 in an fp4
--   pass), gemm (architecture GEMM parameters),
--   lim (tilewave.cost.limits.rates) }`
-- @raise `<path>.dtype: ...`, `<path>.engine...: ...`, `<path>.timing: ...`
function M.context(spec, dt, eng, path, timing)
  timing = timing or "kernel"
  local hit = by_arg[spec]
  hit = hit and hit[eng or false]
  hit = hit and hit[dt]
  hit = hit and hit[timing]
  if hit then return hit end
  path = path or "price"
  if not TIMING[timing] then check.one_of(timing, TIMING, path .. ".timing") end
  local e = type(eng) == "table" and eng.name and eng.fusion and eng or engines.resolve(eng, path .. ".engine")
  e = engines.on_host(e, spec) -- a measured host scales host_s (no-op when already scaled: host_op_s set)
  local key = format("%s|%s|%s", tostring(dt), timing, engines.key(e))
  local per = cache[spec]
  if per and per[key] then return remember(spec, eng, dt, timing, per[key]) end
  local g = hw.gemm_params(spec)
  local ks = engines.kernel_s(e, spec.vendor)
  local isolated = timing == "isolated"
  local overhead = isolated and g.call_overhead_s or ks
  -- a split-K GEMM is two kernels: the reduction costs one more kernel's gap and fill
  local dev, sizes = hw.gemm_device(spec, dt, path .. ".dtype", overhead, ks)
  limits.check_arch(spec, g, hw.compute_frac(g, dt))
  local ctx = {
    spec = spec, dtype = dt, e = sizes, engine = e, dev = dev, gemm = g, timing = timing,
    bw = spec.mem_bw * g.mem_frac, kbw = kernels.bandwidths(spec, g), kernel_s = ks,
    launch = isolated and "graph" or e.launch, host_s = isolated and 0 or (e.launch == "host" and e.host_s or 0),
    fusion = e.fusion, peak = spec.peak_flops[dt], lim = limits.rates(spec, spec.peak_flops[dt]),
    -- attention's MMA rate: an FP4 pass runs its attention in FP8 (no FP4 attention kernel in
    -- TensorRT-LLM, vLLM or FlashInfer: their NVFP4 recipes run FMHA in FP8 or bf16)
    attn_peak = dt == "fp4" and spec.peak_flops.fp8 or spec.peak_flops[dt],
    attn_dtype = dt == "fp4" and "fp8" or dt, -- and at that dtype's compute fraction
  }
  per = per or {}
  per[key] = ctx
  cache[spec] = per
  return remember(spec, eng, dt, timing, ctx)
end

return M
