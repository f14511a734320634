-- Seed article 002's table: data-center GPUs with peak half-precision tensor FLOP/s, memory
-- bandwidth and the ops:byte ratio (peak FLOP/s / bandwidth; A10: 125 TFLOP/s / 600 GB/s = 208),
-- for every device in hw/, plus the ratio at the achievable fractions (the ridge point the
-- GEMM model uses) and at 8-bit where the device has it.
-- An algorithm whose arithmetic intensity is below the ratio is memory-bound on that device;
-- LLM decode (~1 FLOP/B per weight byte at batch 1 in 16 bits) is far below every entry.
-- Findings of seed 002 checked (ends with `N of M findings reproduced`, exits 1 unless all hold):
-- the A10's ratio is ~208; the H200's is below the H100's (more bandwidth, same FLOP/s); LLM
-- decode at batch 1 (~1 FLOP/B) is below every device's ratio.
-- Usage: build/tilewave run scripts/ops_byte_table.lua [--sort ratio|id] [--format text|csv]
local argparse = require "argparse"
local tw = require "tilewave"
local findings = require "tilewave.report.findings"

local p = argparse("ops_byte_table.lua", "Peak FLOP/s, bandwidth and ops:byte of every device.")
p:option("--sort", "Row order."):choices({ "id", "ratio" }):default("id")
p:option("--format", "Output format."):choices({ "text", "csv" }):default("text")
p:option("--plots", "Also draw peak FLOP/s against bandwidth, with lines of equal ops:byte, as SVG into DIR.")
local args = p:parse(arg)

local rows = {}
for _, id in ipairs(tw.hw.list()) do
  local s = assert(tw.hw.load(id))
  local dt = s.peak_flops.bf16 and "bf16" or s.peak_flops.fp16 and "fp16" or "fp32"
  local peak = s.peak_flops[dt]
  local g = tw.hw.gemm_params(s)
  local eight = s.peak_flops.fp8 or s.peak_flops.int8
  rows[#rows + 1] = { id = id, name = s.name, dt = dt, peak = peak, bw = s.mem_bw, ratio = peak / s.mem_bw,
                      ridge = peak * tw.hw.compute_frac(g, dt) / (s.mem_bw * g.mem_frac), eight = eight and eight / s.mem_bw }
end
if args.sort == "ratio" then
  table.sort(rows, function(a, b) if a.ratio ~= b.ratio then return a.ratio > b.ratio end return a.id < b.id end)
end

local out = {}
for _, r in ipairs(rows) do
  out[#out + 1] = { r.id, r.name, r.dt, string.format("%.1f", r.peak / 1e12), string.format("%.0f", r.bw / 1e9),
                    string.format("%.1f", r.ratio), string.format("%.1f", r.ridge),
                    r.eight and string.format("%.1f", r.eight) or "-" }
end
local header = { "id", "device", "dtype", "peak TFLOP/s", "GB/s", "ops:byte", "achievable ridge", "ops:byte 8-bit" }
if args.format == "csv" then
  print(table.concat(header, ","))
  for _, r in ipairs(out) do print(table.concat(r, ",")) end
  return 0
else
  print("Peak dense tensor FLOP/s over memory bandwidth (seed article 002, Table 1; sources in hw/*.lua)")
  print(tw.report.table(header, out))
  print("\nops:byte = FLOP the device can do in the time it moves one byte; below it a kernel is memory-bound.")
  print("'achievable ridge' uses the calibrated compute and bandwidth fractions of the GEMM model.")
end

local by = {}
for _, r in ipairs(rows) do by[r.id] = r end
local lowest = math.huge
for _, r in ipairs(rows) do lowest = math.min(lowest, r.ratio) end
-- batch-1 decode in 16 bits: 2 FLOP per weight over 2 bytes per weight
local decode = 1.0
local f = findings.new("Seed article 002, Table 1")
print("")
f:check { claim = "the NVIDIA A10's ops:byte ratio is about 208 (125 TFLOP/s over 600 GB/s)", published = "208",
          predicted = string.format("%.1f", by.a10.ratio), tolerance = "1%",
          ok = math.abs(by.a10.ratio / 208 - 1) <= 0.01 }
f:check { claim = "the H200's ratio is below the H100's: better suited to memory-bound work", published = "H200 < H100",
          predicted = string.format("H200 %.1f, H100 SXM5 %.1f", by.h200_sxm.ratio, by.h100_sxm5.ratio),
          tolerance = "strictly lower", ok = by.h200_sxm.ratio < by.h100_sxm5.ratio }
f:check { claim = "LLM decode (about 1 FLOP per byte at batch 1) is memory-bound on every device",
          published = "below every ratio", predicted = string.format("%.1f FLOP/B against the lowest ratio %.1f", decode,
            lowest), tolerance = "below the lowest ratio", ok = decode < lowest }
if args.plots then
  local plot = require "tilewave.report.plot"
  local dir = plot.dir(args.plots, "plots")
  local pts = {}
  for _, r in ipairs(rows) do pts[#pts + 1] = { r.bw, r.peak, r.id } end
  table.sort(pts, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[3] < b[3]) end)
  local series = { { title = "devices (16-bit dense peak)", points = pts, with = "points", labels = true } }
  for _, ratio in ipairs { 50, 200, 400 } do
    series[#series + 1] = { title = string.format("ops:byte = %d", ratio), dash = true,
                            points = { { 5e10, 5e10 * ratio }, { 1e13, 1e13 * ratio } } }
  end
  local path = dir .. "/ops_byte.svg"
  plot.svg({ title = "Peak FLOP/s against memory bandwidth (seed article 002)", xlabel = "memory bandwidth (byte/s)",
             ylabel = "peak rate (FLOP/s)", logx = true, logy = true, series = series, xrange = { 5e10, 1e13 } }, path)
  print("wrote " .. path)
end
return f:finish()
