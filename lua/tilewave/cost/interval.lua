--- tilewave.cost.interval: prediction intervals of the pricing layer's times, from the
-- calibration residuals each architecture file records (hw/arch/*.lua, gemm.intervals).
local hw = require "tilewave.data.hw"

local M = {}

--- The reference architecture whose calibration residuals other architectures
-- borrow, widened (below): hw/arch/hopper.lua, fitted to
-- ../shared/reference/calibration/h100/.
local REFERENCE_ARCH = "hopper"
-- Borrowed intervals are widened by this power of the reference ratios (2: twice
-- as wide in log space), for parameters carried over from another architecture.
local BORROWED_WIDEN = 2

--- Prediction interval of a time `t` (s) of estimate class `class` ("gemm",
-- "attention", "forward", "decode", "training") on `spec`: `{ low = s, high = s,
-- borrowed = bool }`. The architecture's gemm.intervals[class] = { low, high }
-- are the 5th and 95th percentiles of measured / predicted over its calibration
-- residuals (hw/arch/*.lua names the data); a GEMM of `dtype` takes gemm_<dtype> where the
-- architecture has one; an architecture without them borrows the reference
-- architecture's, widened.
function M.of(spec, class, t, dtype)
  local g = hw.gemm_params(spec)
  local iv = g.intervals and (dtype and g.intervals[class .. "_" .. dtype] or g.intervals[class])
  local widen = 1
  if not iv then
    local ref = hw.arch_params(REFERENCE_ARCH).intervals
    iv = dtype and ref[class .. "_" .. dtype] or ref[class]
    widen = BORROWED_WIDEN
  end
  return { low = t * iv[1] ^ widen, high = t * iv[2] ^ widen, borrowed = widen ~= 1 }
end

return M
