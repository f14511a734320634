--- tilewave.gemm: GEMM / batched GEMM predictions through the C core.
--
-- C[M x N] = A[M x K] . B[K x N], K the reduction; `batch` independent
-- products. Model and sources: src/tilewave.h, tw_gemm_estimate().
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local core = require "tilewave.core"

local M = {}

local OPTIONS = { m = true, n = true, k = true, batch = true, dtype = true, hw = true }

--- Predict one GEMM.
-- @tparam table opts `m`, `n`, `k` (positive integers, <= 2^31-1),
--   `batch` (default 1), `dtype` (default "fp16"; one the device has a peak
--   for), `hw` (device id, path or spec table).
-- @return table `{ time_s (s), tflops (1e12 FLOP/s), flop_rate (FLOP/s),
--   flops (FLOP), bytes (compulsory, byte), dram_bytes (modeled, byte),
--   intensity (FLOP/byte), bound ("compute"|"memory"|"overhead"),
--   compute_s, memory_s, overhead_s (s), tile = {m=, n=}, split_k, tiles,
--   waves, tile_eff, wave_eff, align_eff (each in (0, 1]), align_bytes,
--   m, n, k, batch, dtype, hw (id) }`
-- @raise `gemm.<field>: <expectation>, got <value>`; unknown options;
--   unknown device; a dtype the device does not support.
function M.gemm(opts)
  check.table(opts, "gemm")
  check.options(opts, OPTIONS, "gemm")
  local spec = hw.resolve(opts.hw, "gemm.hw")
  local dt = opts.dtype or "fp16"
  local dev, sizes = hw.gemm_device(spec, dt, "gemm.dtype")
  local batch = opts.batch or 1
  local r = core.gemm(dev, { m = opts.m, n = opts.n, k = opts.k, batch = batch,
                             in_bytes = sizes.in_bytes, out_bytes = sizes.out_bytes })
  r.m, r.n, r.k, r.batch, r.dtype, r.hw = opts.m, opts.n, opts.k, batch, dt, spec.id
  r.peak_flops = spec.peak_flops[dt]
  return r
end

--- Predict many GEMMs in one call (the fast path for sweeps).
-- @tparam table shapes flat list `{ m1, n1, k1, m2, n2, k2, ... }` of integers
-- @tparam table opts `hw`, `dtype` (default "fp16"), `batch` (default 1, shared)
-- @return times (array of s), rates (array of FLOP/s)
-- @raise `gemm_many.shapes[i]...` naming the first bad value
function M.gemm_many(shapes, opts)
  check.table(shapes, "gemm_many.shapes")
  check.table(opts, "gemm_many")
  check.options(opts, { dtype = true, hw = true, batch = true }, "gemm_many")
  local spec = hw.resolve(opts.hw, "gemm_many.hw")
  local dt = opts.dtype or "fp16"
  local dev, sizes = hw.gemm_device(spec, dt, "gemm_many.dtype")
  return core.gemm_many(dev, shapes, { batch = opts.batch or 1,
                                       in_bytes = sizes.in_bytes, out_bytes = sizes.out_bytes })
end

return M
