-- The GPT configurations of Narayanan et al. 2021, "Efficient Large-Scale Language Model
-- Training on GPU Clusters Using Megatron-LM" (SC '21, arXiv 2104.04473), Table 1: 1.7B ... 1T
-- parameters on DGX A100 nodes with their tensor (t) and pipeline (p) sizes, GPU counts and
-- global batch sizes (sequences of 2048 tokens, vocabulary 51200), with the predicted
-- TFLOP/s per GPU and MFU from tw.training.step.
-- The paper's achieved TFLOP/s per GPU (Table 1: 137, 138, 142, 135, 138, 140, 148, 155, 163, 163)
-- are the findings: each row is reproduced when tilewave's hardware TFLOP/s per GPU (recomputed
-- forward included, the paper's convention) is within --tolerance (15%) of it. They are never
-- fitted to. Ends with `N of M findings reproduced`; exits 1 unless all hold.
-- Assumed where Table 1 is silent: micro-batch 1, full activation recomputation (the paper
-- recomputes activations), standard attention (2021, no FlashAttention), dropout 0.1 (Megatron
-- GPT defaults), 1F1B without interleaving, no overlap of communication, fp16, and Megatron-LM's
-- fp32 main_grad accumulation (a hook adds each micro-batch's fp16 gradient into it: 10 bytes per
-- parameter per micro-batch, grad_accumulation = "main_grad").
-- Usage: build/tilewave run scripts/megatron_table.lua [--micro-batch B] [--interleave V] [--format text|csv]
--        [--tolerance F]
local argparse = require "argparse"
local tw = require "tilewave"
local findings = require "tilewave.report.findings"

local p = argparse("megatron_table.lua", "Megatron-LM Table 1 configurations, predicted.")
p:option("--micro-batch", "Micro-batch size."):default("1"):convert(math.tointeger)
p:option("--interleave", "Virtual stages per GPU (interleaved 1F1B)."):default("1"):convert(math.tointeger)
p:option("--format", "Output format."):choices({ "text", "csv" }):default("text")
p:option("--tolerance", "Largest |error| of a row that counts as reproduced (fraction)."):default("0.15")
  :convert(tonumber)
p:option("--plots", "Also draw predicted against achieved TFLOP/s per GPU as SVG into DIR.")
local args = p:parse(arg)
local format = string.format

-- params (B, as printed), heads a, hidden h, layers L, t, p, GPUs, global batch, achieved TFLOP/s
-- per GPU (Table 1)
local TABLE1 = {
  { "1.7B", 24, 2304, 24, 1, 1, 32, 512, 137 },
  { "3.6B", 32, 3072, 30, 2, 1, 64, 512, 138 },
  { "7.5B", 32, 4096, 36, 4, 1, 128, 512, 142 },
  { "18.4B", 48, 6144, 40, 8, 1, 256, 1024, 135 },
  { "39.1B", 64, 8192, 48, 8, 2, 512, 1536, 138 },
  { "76.1B", 80, 10240, 60, 8, 4, 1024, 1792, 140 },
  { "145.6B", 96, 12288, 80, 8, 8, 1536, 2304, 148 },
  { "310.1B", 128, 16384, 96, 8, 16, 1920, 2160, 155 },
  { "529.6B", 128, 20480, 105, 8, 35, 2520, 2520, 163 },
  { "1008.0B", 160, 25600, 128, 8, 64, 3072, 3072, 163 },
}
local tally = findings.new("Narayanan et al. 2021, Table 1")

local header = { "model", "h", "a", "L", "t", "p", "d", "GPUs", "batch", "params", "step", "model TFLOP/s/GPU",
                 "hardware TFLOP/s/GPU (eq. 3)", "paper", "error", "MFU", "HFU", "bubble", "exposed comm", "memory/GPU" }
local results, raw = {}, {}
local rows = {}
for _, r in ipairs(TABLE1) do
  local c = tw.models.define { family = "gpt3", name = "GPT " .. r[1], hidden_size = r[3], num_attention_heads = r[2],
    num_hidden_layers = r[4], intermediate_size = 4 * r[3], vocab_size = 51200, max_position_embeddings = 2048 }
  local gpus = r[7]
  local interleave = args.interleave
  if interleave > 1 and (r[4] % (r[6] * interleave) ~= 0) then interleave = 1 end
  local s = tw.training.step { model = c, cluster = "dgx_a100", nodes = gpus // 8, global_batch = r[8], s = 2048,
    t = r[5], p = r[6], micro_batch = args.micro_batch, checkpointing = "full", attention = "standard",
    dropout = 0.1, dtype = "fp16", interleave = interleave, grad_accumulation = "main_grad" }
  local b = s.breakdown
  raw[#raw + 1] = s.hardware_tflops_per_gpu -- the verdicts judge the unrounded prediction
  rows[#rows + 1] = { r[1], tostring(r[3]), tostring(r[2]), tostring(r[4]), tostring(r[5]), tostring(r[6]),
    tostring(s.config.d), tostring(gpus), tostring(r[8]), format("%.1fB", tw.params(c).total / 1e9),
    format("%.2f s", s.step_s), format("%.1f", s.model_tflops_per_gpu), format("%.1f", s.hardware_tflops_per_gpu),
    format("%d", r[9]), findings.rel(s.hardware_tflops_per_gpu, r[9]), format("%.1f%%", 100 * s.mfu), format("%.1f%%", 100 * s.hfu), format("%.1f%%", 100 * b.bubble_s / s.step_s),
    format("%.1f%%", 100 * b.comm_exposed_s / s.step_s), format("%.1f GB%s", s.memory.total / 1e9, s.fits and "" or " (!)") }
end
for i, r in ipairs(TABLE1) do results[i] = { r[1], r[9], raw[i] } end
if args.format == "csv" then
  print(table.concat(header, ","))
  for _, r in ipairs(rows) do print(table.concat(r, ",")) end
  return 0
else
  print("Narayanan et al. 2021, Table 1 configurations on DGX A100 80GB nodes (fp16, s = 2048, v = 51200),")
  print(format("micro-batch %d, full recomputation, standard attention, dropout 0.1, interleave %d; peak 312 TFLOP/s.",
    args.micro_batch, args.interleave))
  print(tw.report.table(header, rows))
  print("\nModel TFLOP/s: tilewave's convention (3 passes of the FLOP the model needs, causal attention over half")
  print("the scores: tilewave.ops.layers). Hardware TFLOP/s: 3 passes of the executed forward plus the recomputed")
  print("forward - with materialized attention and full recomputation, the paper's eq. 3, the convention of its")
  print("achieved TFLOP/s, which the rows are judged on. (!) = predicted not to fit in 80 GB.")
  local abs, sum = 0, 0
  for i, r in ipairs(TABLE1) do
    local e = raw[i] / r[9] - 1
    abs, sum = abs + math.abs(e), sum + e
  end
  print(format("Over the %d rows: MAPE %.1f%%, bias %+.1f%% (predicted hardware TFLOP/s against the paper's).",
    #TABLE1, 100 * abs / #TABLE1, 100 * sum / #TABLE1))
end
print("")
for _, r in ipairs(results) do
  local err = r[3] / r[2] - 1
  tally:check { claim = format("GPT %s achieves %d TFLOP/s per GPU", r[1], r[2]), published = format("%d TFLOP/s", r[2]),
                predicted = format("%.1f TFLOP/s (%s)", r[3], findings.rel(r[3], r[2])),
                tolerance = format("%.0f%%", 100 * args.tolerance), ok = math.abs(err) <= args.tolerance }
end
if args.plots then
  local plot = require "tilewave.report.plot"
  local dir = plot.dir(args.plots, "plots")
  local pub, pred, lo, hi = {}, {}, {}, {}
  for i, r in ipairs(results) do
    local x = tonumber((r[1]:gsub("B$", "")))
    pub[i], pred[i] = { x, r[2] }, { x, r[3] }
    lo[i], hi[i] = { x, r[2] * (1 - args.tolerance) }, { x, r[2] * (1 + args.tolerance) }
  end
  local path = dir .. "/megatron_table1.svg"
  plot.svg({ title = "Narayanan et al. 2021, Table 1: achieved TFLOP/s per GPU on A100 (3072 GPUs at 1T)",
             xlabel = "model size (billion parameters)", ylabel = "rate per GPU (TFLOP/s)", logx = true,
             series = { { title = "published (Table 1)", points = pub, with = "linespoints" },
                        { title = "tilewave (hardware TFLOP/s)", points = pred, with = "linespoints" },
                        { title = format("published -%.0f%%", 100 * args.tolerance), points = lo, dash = true },
                        { title = format("published +%.0f%%", 100 * args.tolerance), points = hi, dash = true } } },
           path)
  print("wrote " .. path)
end
return tally:finish()
