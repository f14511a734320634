-- Calibration error of the GEMM model on ../shared/reference/calibration/gemm_calibration.csv,
-- or (--decode) of the decode model on decode_calibration.csv; --fit re-runs the decode
-- engines' grid fit (kernel_s, mem_frac) and prints the best values.
-- Usage: build/tilewave run scripts/calibrate.lua [--decode [--fit]] [CSV]
local argparse = require "argparse"
local tw = require "tilewave"
local cal = require "tilewave.explore.calibration"
local dcal = require "tilewave.explore.decode_calibration"

local p = argparse("calibrate.lua", "Model error on the calibration sets.")
p:flag("--decode", "The decode set instead of the GEMM set.")
p:flag("--fit", "With --decode: grid-fit the engines' kernel_s and mem_frac.")
p:argument("csv", "CSV path (default: ../shared/reference/calibration/...)."):args("?")
local args = p:parse(arg)

if not args.decode then
  local rows = assert(cal.load(args.csv))
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
  return
end

local rows = assert(dcal.load(args.csv))
if args.fit then
  local function subset(engine)
    local sub = {}
    for _, r in ipairs(rows) do if r.engine == engine then sub[#sub + 1] = r end end
    return sub
  end
  local best
  local sub = subset("compiled")
  for l = 0, 12e-6, 0.25e-6 do
    for mf = 0.70, 0.9999, 0.005 do
      local _, s = dcal.evaluate(sub, function() return { base = "compiled", kernel_s = l, mem_frac = mf } end)
      if not best or s.mape < best.mape then best = { kernel_s = l, mem_frac = mf, mape = s.mape } end
    end
  end
  print(string.format("compiled: kernel_s %.3g s, mem_frac %.3f -> MAPE %.1f%%", best.kernel_s, best.mem_frac, 100 * best.mape))
  best = nil
  sub = subset("llama.cpp")
  for ln = 0, 6e-6, 0.25e-6 do
    for la = 0, 15e-6, 0.25e-6 do
      for mf = 0.70, 0.9999, 0.01 do
        local _, s = dcal.evaluate(sub, function()
          return { base = "llama.cpp", kernel_s = { nvidia = ln, amd = ln, apple = la }, mem_frac = mf }
        end)
        if not best or s.mape < best.mape then best = { ln = ln, la = la, mem_frac = mf, mape = s.mape } end
      end
    end
  end
  print(string.format("llama.cpp: kernel_s nvidia %.3g s, apple %.3g s, mem_frac %.2f -> MAPE %.1f%%", best.ln, best.la,
    best.mem_frac, 100 * best.mape))
  return
end
local results, s = dcal.evaluate(rows)
local out = {}
for _, x in ipairs(results) do
  local r, d = x.row, x.decode
  out[#out + 1] = { r.hw, r.model_id, r.format .. (r.group and ("/g" .. r.group) or ""), r.engine,
    string.format("%.2f", r.measured), string.format("%.2f", x.predicted), string.format("%+.1f%%", 100 * x.error),
    string.format("%.0f", d.achieved_bw / 1e9), d.bound }
end
print(tw.report.table({ "hw", "model", "weights", "engine", "measured tok/s", "predicted", "error", "GB/s", "bound" }, out))
print(string.format("\n%d rows, %d skipped; MAPE %.1f%%, max |error| %.1f%%", s.n, s.skipped, 100 * s.mape, 100 * s.max_abs))
