--- tilewave.roofline: the roofline bound of a kernel on a device.
--
-- time = max(flops / (peak * compute_frac), bytes / (bw * mem_frac));
-- arithmetic intensity = flops / bytes; ridge point (ops:byte ratio) =
-- (peak * compute_frac) / (bw * mem_frac). Sources: Williams et al., CACM 2009;
-- NVIDIA GPU Performance Background guide, "Understanding Performance".
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local core = require "tilewave.core"

local M = {}

local OPTIONS = { flops = true, bytes = true, hw = true, dtype = true,
                  compute_frac = true, mem_frac = true, achievable = true }

--- Roofline of `flops` (FLOP) moving `bytes` (byte) on `hw` for `dtype`.
-- @tparam table opts `flops`, `bytes` (positive numbers), `hw` (id, path or
--   spec table), `dtype` (default "fp16"), `compute_frac` and `mem_frac`
--   (fractions of peak in (0, 1]; default 1, the datasheet roof), or
--   `achievable = true` to use the architecture's calibrated GEMM fractions.
-- @return table `{ time_s, compute_s, memory_s (s), intensity, ridge
--   (FLOP/byte), bound ("compute"|"memory"), peak_flops (FLOP/s), mem_bw (byte/s) }`
-- @raise `roofline.<field>: <expectation>, got <value>`
function M.roofline(opts)
  check.table(opts, "roofline")
  check.options(opts, OPTIONS, "roofline")
  local spec = hw.resolve(opts.hw, "roofline.hw")
  local dt = opts.dtype or "fp16"
  hw.gemm_device(spec, dt, "roofline.dtype")
  local cf, mf = opts.compute_frac or 1.0, opts.mem_frac or 1.0
  if opts.achievable then
    local g = hw.gemm_params(spec)
    cf, mf = g.compute_frac, g.mem_frac
  end
  local r = core.roofline { flops = opts.flops, bytes = opts.bytes, peak_flops = spec.peak_flops[dt],
                            compute_frac = cf, mem_bw = spec.mem_bw, mem_frac = mf }
  r.peak_flops, r.mem_bw, r.dtype, r.hw = spec.peak_flops[dt], spec.mem_bw, dt, spec.id
  return r
end

return M
