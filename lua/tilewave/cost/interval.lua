--- tilewave.cost.interval: prediction intervals of the pricing layer's times, from the
-- calibration residuals each architecture file records (hw/arch/*.lua, gemm.intervals), widened
-- where they are borrowed and where nothing was measured on the device itself.
local hw = require "tilewave.data.hw"

local M = {}

--- The reference architecture whose calibration residuals other architectures
-- borrow, widened (below): hw/arch/hopper.lua, fitted to
-- ../shared/reference/calibration/h100/.
local REFERENCE_ARCH = "hopper"
-- Borrowed intervals are widened by this power of the reference ratios (2: twice
-- as wide in log space), for parameters carried over from another architecture.
local BORROWED_WIDEN = 2

--- A device with nothing measured on it (its spec has no `measured` table: hw/<id>.lua) takes the
-- interval of its architecture's measured devices (Hopper's from the H100 and H200; another
-- architecture's borrowed as above) widened by this further power in log space. 1.5 covers what
-- one SKU of an architecture differs from the one measured by, in clock under load: the H100 PCIe
-- held 1395 MHz under a bandwidth load at its 350 W cap against the 1620 MHz its peak implies
-- (../shared/reference/hardware_specs.md trap 4, Chips and Cheese), a time 16% longer, and
-- Hopper's GEMM high end 1.35 ^ 1.5 = 1.57 = 1.35 x 1.16 reaches it. Not fitted: no unmeasured
-- device has data to fit to, by definition.
M.UNMEASURED_WIDEN = 1.5

--- Whether device `spec` has measurements behind it (its `measured` table names at least one).
function M.measured(spec)
  return spec.measured ~= nil and next(spec.measured) ~= nil
end

--- The power in log space that widens `spec`'s intervals: 1 for a measured device of an
-- architecture with its own intervals, BORROWED_WIDEN for an architecture that borrows them, times
-- M.UNMEASURED_WIDEN for a device without measurements.
-- @return widen, borrowed (bool), unmeasured (bool)
function M.widening(spec)
  local g = hw.gemm_params(spec)
  local borrowed = g.intervals == nil
  local unmeasured = not M.measured(spec)
  return (borrowed and BORROWED_WIDEN or 1) * (unmeasured and M.UNMEASURED_WIDEN or 1), borrowed, unmeasured
end

--- Prediction interval of a time `t` (s) of estimate class `class` ("gemm",
-- "attention", "forward", "decode", "training") on `spec`: `{ low = s, high = s,
-- borrowed = bool }`. The architecture's gemm.intervals[class] = { low, high }
-- are the 5th and 95th percentiles of measured / predicted over its calibration
-- residuals (hw/arch/*.lua names the data); a GEMM of `dtype` takes gemm_<dtype> where the
-- architecture has one; an architecture without them borrows the reference
-- architecture's, widened; a device with no measurement widens them again (M.widening).
-- `unmeasured` is set when the device has no measurement behind it.
function M.of(spec, class, t, dtype)
  local g = hw.gemm_params(spec)
  local iv = g.intervals and (dtype and g.intervals[class .. "_" .. dtype] or g.intervals[class])
  if not iv then
    local ref = hw.arch_params(REFERENCE_ARCH).intervals
    iv = dtype and ref[class .. "_" .. dtype] or ref[class]
  end
  local widen, borrowed, unmeasured = M.widening(spec)
  return { low = t * iv[1] ^ widen, high = t * iv[2] ^ widen, borrowed = borrowed,
           unmeasured = unmeasured or nil }
end

--- Widen decode interval `iv` (in place) for the host work of engine `eng` in a step of `tpot_s`
-- seconds whose bound is `bound`:
--   host_spread       a host-bound step varies with the host CPU: tpot x (1 -+ host_spread) (the
--                     +-40% the team measured between eager machines, tilewave.cost.engines)
--   cold_token_s      a first call on a freshly built model may add this much host time per token
--                     (Hugging Face generate(): 35-90 ms on H100s, tilewave.cost.engines): iv.high
--                     reaches tpot + cold_token_s
-- @return iv, with `host_spread` / `cold_token_s` set when they widened it (s)
function M.host(iv, tpot_s, eng, bound)
  if bound == "host" and (eng.host_spread or 0) > 0 then
    iv.low = math.min(iv.low, tpot_s * (1 - eng.host_spread))
    iv.high = math.max(iv.high, tpot_s * (1 + eng.host_spread))
    iv.host_spread = eng.host_spread
  end
  if (eng.cold_token_s or 0) > 0 then
    iv.high = math.max(iv.high, tpot_s + eng.cold_token_s)
    iv.cold_token_s = eng.cold_token_s
  end
  return iv
end

return M
