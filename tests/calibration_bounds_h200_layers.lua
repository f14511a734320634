-- Pinned error of the layer forwards and decode steps measured on an H200 (hw/measured/h200_layers_2026-11-22,
-- scripts/probe --sets layers,decode), under the shipped hw/h200_sxm.lua: ctest calibration_bounds_h200_layers.
-- No parameter was fitted to these rows except the SM-side caps' evidence (hw/arch/hopper.lua
-- kernel_sm_bytes_per_cycle, whose values come from the H100): they check how the model carries from the H100
-- to a second GPU. Each bound is the MAPE of the commit that set it plus 10% of it and 0.5 points. The eager
-- decode steps are left out: they are bound by the host CPU's launch rate (16-21 ms here against 19-33 ms on
-- the shared H100's host), which no GPU file describes.
return {
  ["h200_layers_2026-11-22: layers graph standard|eager+graph"] = 0.099,
  ["h200_layers_2026-11-22: layers eager standard|eager"] = 0.105,
  ["h200_layers_2026-11-22: layers graph flash|eager+graph"] = 0.066,
  ["h200_layers_2026-11-22: layers eager flash|eager"] = 0.077,
  ["h200_layers_2026-11-22: decode graph|eager+graph"] = 0.103,
}
