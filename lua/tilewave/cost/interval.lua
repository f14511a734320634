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
