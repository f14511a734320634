-- ctest fit_h200_generalizes (tests/fit_generalizes.sh): the MAPE of a hardware file on a file of the given
-- random half, every row. Usage: tilewave run tests/fit_generalizes.lua SPEC CSV BOUND
-- Prints the MAPE and exits 1 when it is above BOUND (a fraction).
local csv = require "tilewave.util.csv"
local gemm = require("tilewave.cost.gemm").gemm
local spec, file, bound = arg[1], arg[2], tonumber(arg[3])
local n, sum = 0, 0
for _, r in ipairs(csv.read(file)) do
  local t = gemm { m = tonumber(r.m), n = tonumber(r.n), k = tonumber(r.k), dtype = r.dtype, hw = spec }.time_s
  n, sum = n + 1, sum + math.abs(t / tonumber(r.time_s) - 1)
end
print(string.format("%s on %s: %d rows, MAPE %.2f%% (bound %.1f%%)", spec, file, n, 100 * sum / n, 100 * bound))
if n == 0 or sum / n > bound then os.exit(1) end
