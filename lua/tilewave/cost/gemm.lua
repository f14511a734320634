--- tilewave.cost.gemm: the public GEMM and roofline predictions (thin
-- wrappers over tilewave.cost.price).
--
-- C[M x N] = A[M x K] . B[K x N], K the reduction; `batch` independent
-- products. Model and sources: src/tw_gemm.h, tw_gemm_estimate() and
-- tw_roofline().
-- @module tw
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local price = require "tilewave.cost.price"

local M = {}

local OPTIONS = { m = true, n = true, k = true, batch = true, dtype = true, hw = true, timing = true, engine = true }

--- Predict one GEMM.
-- @tparam table opts `m`, `n`, `k` (positive integers, <= 2^31-1),
--   `batch` (default 1), `dtype` (default "fp16"; one the device has a peak
--   for), `hw` (device id, path or spec table), `timing` ("kernel" default:
--   the kernel's device time among back-to-back kernels, as CUDA events,
--   profilers and graph replays report it; "isolated": one synchronized call
--   timed by wall clock, the co-design paper's torch.mm timing), `engine`
--   (tilewave.cost.engines; sets the per-kernel cost; default "compiled")
-- @return table `{ time_s (s), tflops (1e12 FLOP/s), flop_rate (FLOP/s),
--   flops (FLOP), bytes (compulsory, byte), dram_bytes (modeled, byte),
--   intensity (FLOP/byte), bound ("compute"|"memory"|"overhead"),
--   compute_s, memory_s, overhead_s (s), tile = {m=, n=}, split_k, stream_k (boolean), tiles,
--   waves, tile_eff, wave_eff, align_eff (each in (0, 1]; align_eff above 1 where only N is off
--   16 bytes and the library runs its TMA kernel: a rate factor on the dtype's other kernels,
--   src/tw_gemm.h n_off_tma_eff), align_bytes,
--   m, n, k, batch, dtype, hw (id), timing, interval = { low, high (s), borrowed }
--   (tilewave.cost.price.interval: 5th-95th percentile of the calibration residuals) }`
-- @raise `gemm.<field>: <expectation>, got <value>`; unknown options;
--   unknown device; a dtype the device does not support.
function M.gemm(opts)
  check.table(opts, "gemm")
  check.options(opts, OPTIONS, "gemm")
  local spec = hw.resolve(opts.hw, "gemm.hw")
  local dt = opts.dtype or "fp16"
  local ctx = price.context(spec, dt, opts.engine, "gemm", opts.timing)
  local batch = opts.batch or 1
  local r = price.gemm(ctx, opts.m, opts.n, opts.k, batch)
  r.m, r.n, r.k, r.batch, r.dtype, r.hw, r.timing = opts.m, opts.n, opts.k, batch, dt, spec.id, ctx.timing
  r.peak_flops = spec.peak_flops[dt]
  r.interval = price.interval(spec, "gemm", r.time_s, r.dtype)
  return r
end

--- Predict many GEMMs in one call (the fast path for sweeps).
-- @tparam table shapes flat list `{ m1, n1, k1, m2, n2, k2, ... }` of integers
-- @tparam table opts `hw`, `dtype` (default "fp16"), `batch` (default 1, shared),
--   `timing`, `engine` as gemm()
-- @return times (array of s), rates (array of FLOP/s)
-- @raise `gemm_many.shapes[i]...` naming the first bad value
function M.gemm_many(shapes, opts)
  check.table(shapes, "gemm_many.shapes")
  check.table(opts, "gemm_many")
  check.options(opts, { dtype = true, hw = true, batch = true, timing = true, engine = true }, "gemm_many")
  local spec = hw.resolve(opts.hw, "gemm_many.hw")
  local ctx = price.context(spec, opts.dtype or "fp16", opts.engine, "gemm_many", opts.timing)
  return price.gemm_many(ctx, shapes, opts.batch or 1)
end

local ROOF = { flops = true, bytes = true, hw = true, dtype = true, compute_frac = true, mem_frac = true,
               achievable = true }

--- Roofline of `flops` (FLOP) moving `bytes` (byte) on `hw` for `dtype`:
-- time = max(flops / (peak * compute_frac), bytes / (bw * mem_frac));
-- arithmetic intensity = flops / bytes; ridge point (ops:byte ratio) =
-- (peak * compute_frac) / (bw * mem_frac). Sources: Williams et al., CACM 2009;
-- NVIDIA GPU Performance Background guide, "Understanding Performance".
-- @tparam table opts `flops`, `bytes` (positive numbers), `hw` (id, path or
--   spec table), `dtype` (default "fp16"), `compute_frac` and `mem_frac`
--   (fractions of peak in (0, 1]; default 1, the datasheet roof), or
--   `achievable = true` to use the architecture's calibrated GEMM fractions.
-- @return table `{ time_s, compute_s, memory_s (s), intensity, ridge
--   (FLOP/byte), bound ("compute"|"memory"), peak_flops (FLOP/s), mem_bw (byte/s) }`
-- @raise `roofline.<field>: <expectation>, got <value>`
function M.roofline(opts)
  check.table(opts, "roofline")
  check.options(opts, ROOF, "roofline")
  local spec = hw.resolve(opts.hw, "roofline.hw")
  local dt = opts.dtype or "fp16"
  hw.gemm_device(spec, dt, "roofline.dtype")
  local cf, mf = opts.compute_frac or 1.0, opts.mem_frac or 1.0
  if opts.achievable then
    local g = hw.gemm_params(spec)
    cf, mf = hw.compute_frac(g, dt), g.mem_frac
  end
  local r = price.roofline { flops = opts.flops, bytes = opts.bytes, peak_flops = spec.peak_flops[dt],
                             compute_frac = cf, mem_bw = spec.mem_bw, mem_frac = mf }
  r.peak_flops, r.mem_bw, r.dtype, r.hw = spec.peak_flops[dt], spec.mem_bw, dt, spec.id
  return r
end

return M
