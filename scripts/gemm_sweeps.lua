-- Reproduce the GEMM sweeps of the co-design paper (Anthony et al. 2024, arXiv 2401.14489)
-- with the tilewave GEMM model, for A100 and V100 (or any --hw):
--   square M = N = 2^i, K = 4096                     (throughput vs size; "mn" before)
--   tile  M = 27648, K = 4096, N = 64 ... 510 step 2 (tile quantization, alignment)
--   wave  M = 2304, K = 4096, N = 1536 ... 6144 step 64 (wave quantization)
--   logit M = 8192, K = 51200, N = 14272 ... 14400   (logit GEMM, alignment of h)
-- Prints each predicted curve with tile, waves and efficiencies, the error on the
-- calibration points that fall on it, and every predicted cliff (a drop of more than
-- 20% between neighbouring shapes).
-- The sweeps are tilewave.explore.gemm_sweeps; `tilewave plot gemm --sweep NAME` draws one.
-- Usage: build/tilewave run scripts/gemm_sweeps.lua [--hw ID]... [--sweep NAME] [--dtype DT]
local argparse = require "argparse"
local tw = require "tilewave"
local cal = require "tilewave.explore.calibration"

local p = argparse("gemm_sweeps.lua", "Predict the co-design paper's GEMM sweeps.")
p:option("--hw", "Device id (repeatable)."):count("*")
p:option("--sweep", "Which sweep (mn is square)."):choices({ "all", "square", "mn", "tile", "wave", "logit" }):default("all")
p:option("--dtype", "Element type."):default("fp16")
local args = p:parse(arg)
local devices = #args.hw > 0 and args.hw or { "a100_sxm4_40gb", "v100_sxm2" }

local sweeps = require("tilewave.explore.gemm_sweeps").list

-- Measured points by device id and shape, from the calibration set.
local measured = {}
for _, r in ipairs(cal.load() or {}) do
  if r.hw and r.dt == args.dtype then
    -- "T1" rows are one synchronized torch.mm each: compare with the isolated timing
    measured[string.format("%s/%d/%d/%d", r.hw, r.m, r.n, r.k)] =
      { tflops = r.tflops_measured, timing = r.timing == "T1" and "isolated" or "kernel" }
  end
end

for _, hw in ipairs(devices) do
  local spec = assert(tw.hw.load(hw))
  for _, sw in ipairs(sweeps) do
    if args.sweep == "all" or args.sweep == sw.name or (args.sweep == "mn" and sw.name == "square") then
      print(string.format("\n== %s on %s (%s), %s ==", sw.title, spec.name, hw, args.dtype))
      local rows, prev, cliffs, errs = {}, nil, {}, {}
      for _, s in ipairs(sw.shapes()) do
        local r = tw.gemm { m = s[1], n = s[2], k = s[3], dtype = args.dtype, hw = hw }
        local meas = measured[string.format("%s/%d/%d/%d", hw, s[1], s[2], s[3])]
        local err = ""
        if meas then
          local pr = tw.gemm { m = s[1], n = s[2], k = s[3], dtype = args.dtype, hw = hw, timing = meas.timing }
          err = string.format("%.1f (%+.1f%% %s)", meas.tflops, 100 * (pr.tflops - meas.tflops) / meas.tflops,
            meas.timing)
          errs[#errs + 1] = math.abs(pr.tflops - meas.tflops) / meas.tflops
        end
        rows[#rows + 1] = { tostring(s[1]), tostring(s[2]), tostring(s[3]), string.format("%.1f", r.tflops),
          string.format("%dx%d", r.tile.m, r.tile.n), tostring(r.split_k), tostring(r.tiles), tostring(r.waves),
          string.format("%.3f", r.tile_eff), string.format("%.3f", r.wave_eff), string.format("%.3f", r.align_eff),
          r.bound, err }
        if prev and r.tflops < 0.8 * prev.tflops then
          cliffs[#cliffs + 1] = string.format("%dx%dx%d -> %dx%dx%d: %.1f -> %.1f TFLOP/s (%.0f%%)", prev.m, prev.n, prev.k,
            r.m, r.n, r.k, prev.tflops, r.tflops, 100 * (r.tflops - prev.tflops) / prev.tflops)
        end
        prev = r
      end
      print(tw.report.table({ "M", "N", "K", "TFLOP/s", "tile", "splitK", "tiles", "waves", "tile_eff", "wave_eff",
        "align_eff", "bound", "measured (error)" }, rows))
      if #errs > 0 then
        local sum = 0
        for _, e in ipairs(errs) do sum = sum + e end
        print(string.format("calibration points on this curve: %d, mean |error| %.1f%%", #errs, 100 * sum / #errs))
      end
      print(string.format("predicted cliffs (> 20%% drop between neighbours): %d", #cliffs))
      for _, c in ipairs(cliffs) do print("  " .. c) end
    end
  end
end
