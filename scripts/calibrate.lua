-- Calibration error of the GEMM model on ../shared/reference/calibration/gemm_calibration.csv.
-- Usage: build/tilewave run scripts/calibrate.lua [CSV]
local tw = require "tilewave"
local cal = require "tilewave.calibration"

local rows = assert(cal.load(arg[1]))
local results, s = cal.evaluate(rows)
local out = {}
for _, x in ipairs(results) do
  local r, e = x.row, x.estimate
  out[#out + 1] = { r.gpu, r.dtype, string.format("%dx%dx%d", r.m, r.n, r.k), string.format("%.1f", r.tflops_measured),
    string.format("%.1f", x.predicted_tflops), string.format("%+.1f%%", 100 * x.error),
    string.format("%dx%d/%d", e.tile.m, e.tile.n, e.split_k), tostring(e.waves), e.bound }
end
print(tw.report.table({ "gpu", "dtype", "MxNxK", "measured", "predicted", "error", "tile/splitK", "waves", "bound" }, out))
print(string.format("\n%d rows, %d skipped (no spec); MAPE %.1f%%, max |error| %.1f%%", s.n, s.skipped, 100 * s.mape, 100 * s.max_abs))
