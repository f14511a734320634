-- Pinned error of scripts/probe --host --sets decode,hf on one h100 machine lent 2026-11-28
-- (hw/measured/h100_host_2026-11-28): ctest calibration_bounds_h100_host. The folder's host.csv gives its host
-- figure (hw.host_op_s), so the eager and hf engines price on the host they were measured on
-- (tilewave.cost.engines.on_host). Each bound is the MAPE of the commit that set it plus 10% of it and
-- 0.5 points.
local CROSS_ENGINE = "the compiled engine priced against eager PyTorch timings: the gap between engines, a diagnostic, not the model's error (the row's own engine is bounded)"

return {
  ["h100_host_2026-11-28: decode graph|eager+graph"] = 0.077, -- 6.5%
  -- the host_op_ref_s of tilewave.cost.engines was set from this folder and h200_host's: in sample
  ["h100_host_2026-11-28: decode eager|eager"] = 0.172, -- 15.2%
  -- hf's host_s and token_host_s were fitted to these rows: in sample
  ["h100_host_2026-11-28: generate() TPOT|hf"] = 0.078, -- 6.6%
  exempt = {
    ["published *"] = "bounded by tests/calibration_bounds.lua (ctest calibration_bounds), which runs them without a folder",
    ["h100_host_2026-11-28: decode graph|compiled"] = CROSS_ENGINE,
    ["h100_host_2026-11-28: decode eager|compiled"] = CROSS_ENGINE,
  },
}
