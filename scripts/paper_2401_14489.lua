-- Reproduce "The Case for Co-Designing Model Architectures with Hardware"
-- (Anthony et al. 2024, arXiv 2401.14489) finding by finding: what the paper
-- (or its first author's summary, or the seed article 000) reports, what the
-- tilewave model predicts, and a verdict computed from the two.
--
-- What the paper reports is quoted from ../shared/reference/paper_2401_14489.md,
-- with its confidence tags; [UNVERIFIED] claims are compared but flagged.
-- The paper's kernels are fp16 on A100 (taken as A100 SXM4 40GB, see README).
--
-- Usage: build/tilewave run scripts/paper_2401_14489.lua [--hw ID]
local argparse = require "argparse"
local tw = require "tilewave"
local findings = require "tilewave.report.findings"

local p = argparse("paper_2401_14489.lua", "The co-design paper's findings against the tilewave model.")
p:option("--hw", "Device for the A100 findings."):default("a100_sxm4_40gb")
p:option("--plots", "Also draw the paper's GEMM sweeps (tile, wave, logit) as SVG into DIR.")
local args = p:parse(arg)
local A100 = args.hw
local format = string.format

local function say(...) print(format(...)) end
local tally = findings.new("The co-design paper (arXiv 2401.14489)")
local current
local function heading(n, title) print(); say("== %d. %s ==", n, title); current = title end
-- ok: true (reproduced), false (not reproduced) or "partly" (counted as not reproduced);
-- published: the paper's finding; tolerance: what counts as reproducing it
local function verdict(ok, text, published, tolerance)
  print()
  tally:check { claim = current, published = published, predicted = text, tolerance = tolerance,
                ok = ok == true, note = ok == "partly" and "partly: see the text above" or nil }
end

-- Throughput of one transformer layer (the paper's layer benchmarks: GEMMs,
-- BMMs and the memory-bound ops of the layer; logits excluded), its FLOP counted as the
-- paper's benchmark counts them: every s x s score (tilewave.ops.layers.full_flops, the
-- "full" convention; tilewave's own MFU counts a causal query's half).
local function layer_tflops(cfg, hw, w)
  local r = tw.transformer.estimate(cfg, hw, w)
  local flops = 0
  for _, op in ipairs(r.ops) do
    if op.scope == "layer" then flops = flops + tw.layers.full_flops(op) * op.count end
  end
  return flops / cfg.num_hidden_layers / r.layer_s / 1e12, r
end

local function gpt(h, a, extra)
  local c = { family = "gpt3", hidden_size = h, num_attention_heads = a, num_hidden_layers = 1,
              intermediate_size = 4 * h, vocab_size = 50304 }
  for k, v in pairs(extra or {}) do c[k] = v end
  return tw.models.define(c)
end

say("The Case for Co-Designing Model Architectures with Hardware (arXiv 2401.14489) against tilewave %s",
  tw._VERSION)
say("A100 findings on %s, fp16, b = 4, s = 2048 unless stated; standard attention (the paper's Megatron layers).",
  A100)

---------------------------------------------------------------------------
heading(1, "the sizing rules")
print([[Paper (first author's summary [P-author]; Fig. 7 caption for 'up to h/a = 64'):
  1. vocabulary divisible by 64      2. micro-batch b as large as possible
  3. b*s, h/a, h/t divisible by a power of two (64 for full efficiency)
  4. (b*a)/t an integer              5. t as small as possible
  6. SwiGLU: search the width near 8h/3 for a well-shaped value]])
print("Model: tw.rules.check on the GPT-3 family and Pythia presets (b = 4, s = 2048, t = 1):")
local rows, flagged, total, min_speedup = {}, 0, 0, math.huge
for _, fam in ipairs { "gpt3", "gpt_neox" } do
  for _, id in ipairs(tw.analysis.expand { fam }) do
    local v = tw.rules.check(id, { b = 4, s = 2048, dtype = "fp16" }, A100)
    local names, fixes = {}, {}
    for _, x in ipairs(v) do
      names[#names + 1] = x.rule
      fixes[#fixes + 1] = x.speedup and format("%s (x%.3f)", x.fix_text, x.speedup) or x.fix_text
      if x.speedup and x.speedup < min_speedup then min_speedup = x.speedup end
    end
    total = total + 1
    if #v > 0 then flagged = flagged + 1 end
    local c = tw.models.load(id)
    rows[#rows + 1] = { id, tostring(c.vocab_size), tostring(c.head_dim), #names > 0 and table.concat(names, ", ") or "-",
                        table.concat(fixes, "; ") }
  end
end
print(tw.report.table({ "model", "v", "h/a", "violations", "fix (predicted speedup)" }, rows))
local c = tw.models.load("gpt3-2.7b")
local vfix
for _, x in ipairs(tw.rules.check(c, { b = 4, s = 2048, dtype = "fp16" }, A100)) do
  if x.rule == "vocab_64" then vfix = x end
end
verdict(vfix ~= nil and min_speedup > 1, format("%d of %d GPT-3/Pythia shapes break a rule; the smallest predicted " ..
  "gain of a fix is x%.3f (GPT-3's v = 50257 -> 50304: x%.3f forward).", flagged, total, min_speedup,
  vfix and vfix.speedup or 0),
  "v, b*s, h/a and h/t multiples of 64, (b*a)/t an integer; fixing a violation is faster",
  "every fix predicted faster than the shape it fixes")

---------------------------------------------------------------------------
heading(2, "GPT-3 2.7B: 32 heads (h/a = 80) against 20 heads (h/a = 128)")
print("Paper [UNVERIFIED, seed article 000 and abstract]: making the head dimension a multiple of 64 raises")
print("throughput by ~20% at equal size (GPT-Neo, OPT, RedPajama, Pythia copy GPT-3's h/a = 80); 'up to 39%'")
print("for efficient shapes overall.")
rows = {}
local gains = {}
for _, att in ipairs { "standard", "flash" } do
  local t80 = layer_tflops(gpt(2560, 32), A100, { b = 4, s = 2048, dtype = "fp16", attention = att })
  local t128 = layer_tflops(gpt(2560, 20), A100, { b = 4, s = 2048, dtype = "fp16", attention = att })
  local t64 = layer_tflops(gpt(2560, 40), A100, { b = 4, s = 2048, dtype = "fp16", attention = att })
  gains[att] = t128 / t80
  rows[#rows + 1] = { att, format("%.1f", t80), format("%.1f", t64), format("%.1f", t128), format("%+.1f%%", 100 * (t128 / t80 - 1)) }
end
print(tw.report.table({ "attention", "a=32 (h/a 80) TFLOP/s (full s x s count)", "a=40 (h/a 64)", "a=20 (h/a 128)",
  "gain 20 vs 32 heads" }, rows))
local whole80 = tw.transformer.estimate("gpt3-2.7b", A100, { b = 4, s = 2048, dtype = "fp16" })
local whole128 = tw.transformer.estimate(gpt(2560, 20, { num_hidden_layers = 32, vocab_size = 50257 }), A100,
  { b = 4, s = 2048, dtype = "fp16" })
say("Whole model (32 layers, logits, v = 50257): %.1f -> %.1f TFLOP/s (%+.1f%%).", whole80.tflops, whole128.tflops,
  100 * (whole128.tflops / whole80.tflops - 1))
verdict(gains.standard > 1.10 and gains.standard < 1.35, format("predicted layer gain %+.0f%% with the paper's " ..
  "standard attention (claim ~20%%); with FlashAttention %+.0f%%%s", 100 * (gains.standard - 1),
  100 * (gains.flash - 1), gains.flash < gains.standard and ", smaller, as the paper says FlashAttention takes care " ..
  "of the head-size constraint." or ", NOT smaller than without it, against the paper's FlashAttention remark."),
  "~20% more layer throughput with h/a = 128 than 80 at equal size; FlashAttention removes most of it",
  "standard-attention gain within +10% ... +35%, and smaller with FlashAttention")

---------------------------------------------------------------------------
heading(3, "a transformer layer swept over h with a = 128 (b = 4, s = 2048)")
print("Paper [P-fig, Fig. 7/8; P-author]: throughput rises with h/a and drops where h/a loses powers of two;")
print("e.g. h = 8192 (h/a = 64) -> 8320 (h/a = 65).")
rows = {}
local prev, cliffs = nil, {}
local at = {}
for h = 4096, 12288, 128 do
  at[h] = layer_tflops(gpt(h, 128), A100, { b = 4, s = 2048, dtype = "fp16" })
end
for h = 4096, 12288, 128 do
  local t = at[h]
  local mark = ""
  if prev and t < 0.95 * prev then
    mark = format("drop %.0f%%", 100 * (t / prev - 1))
    cliffs[#cliffs + 1] = h
  end
  if h % 1024 == 0 or (h >= 7680 and h <= 8704) then
    rows[#rows + 1] = { tostring(h), tostring(h // 128), tostring(tw.rules.pow2(h // 128)), format("%.1f", t), mark }
  end
  prev = t
end
print(tw.report.table({ "h", "h/a", "2^k | h/a", "layer TFLOP/s", "" }, rows))
local cl = {}
for _, h in ipairs(cliffs) do cl[#cl + 1] = tostring(h) end
say("Predicted drops > 5%% from the previous h: %s.", #cl > 0 and table.concat(cl, ", ") or "none")
-- odd h/a (2-byte aligned head dim) should be local minima of the sweep
local odd, minima = 0, 0
for h = 4096 + 128, 12288 - 128, 128 do
  if (h // 128) % 2 == 1 then
    odd = odd + 1
    if at[h] < at[h - 128] and at[h] < at[h + 128] then minima = minima + 1 end
  end
end
local peak = at[8192] > at[8064] and at[8192] > at[8320]
verdict(peak and minima >= 0.8 * odd, format("h = 8192 -> 8320: %.1f -> %.1f TFLOP/s (%+.0f%%); h/a = 64 is a local " ..
  "maximum %s; %d of %d odd h/a are local minima. The drop is smaller than a GEMM alignment cliff because " ..
  "only the two attention BMMs (K or N = h/a) lose alignment, and with materialized scores they are partly " ..
  "memory-bound.", at[8192], at[8320], 100 * (at[8320] / at[8192] - 1), peak and "(yes)" or "(no)", minima, odd),
  "throughput peaks at h/a = 64 and drops where h/a loses powers of two (h 8192 -> 8320)",
  "h/a = 64 a local maximum and at least 80% of odd h/a local minima")

---------------------------------------------------------------------------
heading(4, "the logit GEMM over vocabulary sizes")
print("Paper [P-author]: pad v to a multiple of 64. GPT-2/3 use v = 50257 (odd); GPT-NeoX pads 50277 -> 50304.")
print("Forward logit GEMM (b*s = 8192) x v x h, h = 2560, and the paper benchmark's transposed form (K = v, N = h):")
rows = {}
local fw = {}
for _, v in ipairs { 50257, 50264, 50272, 50277, 50280, 50288, 50304, 50368, 51200 } do
  local f = tw.gemm { m = 8192, n = v, k = 2560, dtype = "fp16", hw = A100 }
  local q = tw.gemm { m = 8192, n = 2560, k = v, dtype = "fp16", hw = A100 }
  fw[v] = f.tflops
  rows[#rows + 1] = { tostring(v), tostring(tw.rules.pow2(v)), format("%.1f", f.tflops), format("%.3f", f.align_eff),
                      format("%.1f", q.tflops) }
end
print(tw.report.table({ "v", "2^k | v", "forward TFLOP/s", "align eff", "K = v TFLOP/s" }, rows))
local mono = fw[50257] < fw[50264] and fw[50264] < fw[50288] and fw[50288] <= fw[50272] and fw[50272] <= fw[50304] * 1.001
verdict(fw[50304] > 1.2 * fw[50257] and mono, format("v = 50257 -> 50304: %.1f -> %.1f TFLOP/s (x%.2f) on the " ..
  "logit GEMM; by the power of two dividing v: 2^0 %.0f, 2^3 %.0f, 2^4 %.0f, 2^5 %.0f, 2^7 %.0f TFLOP/s.",
  fw[50257], fw[50304], fw[50304] / fw[50257], fw[50257], fw[50264], fw[50288], fw[50272], fw[50304]),
  "pad v to a multiple of 64: v = 50304 runs far faster than 50257",
  "50304 at least 1.2x 50257, rising with the power of two dividing v")

---------------------------------------------------------------------------
heading(5, "SwiGLU widths near 8h/3 for h = 4096 on H100")
print("Measured (ml-engineering, the paper's swiglu-search.py; fp16 torch.bmm [4,4096,d_ff] x [4,d_ff,4096], H100):")
local MEASURED = { [10848] = 395.62, [10880] = 395.52, [10912] = 395.16, [10922] = 272.73, [10944] = 398.38,
                   [11008] = 395.01 }
rows = {}
local pred = {}
local errs = {}
for _, d in ipairs { 10848, 10880, 10912, 10922, 10944, 11008 } do
  local r = tw.gemm { m = 4096, n = 4096, k = d, batch = 4, dtype = "fp16", hw = "h100_sxm5" }
  local kernel = r.flops / (r.time_s - r.overhead_s) / 1e12
  pred[d] = kernel
  errs[#errs + 1] = math.abs(kernel / MEASURED[d] - 1)
  rows[#rows + 1] = { tostring(d), tostring(tw.rules.pow2(d)), format("%.1f", MEASURED[d]), format("%.1f", kernel),
                      format("%+.1f%%", 100 * (kernel / MEASURED[d] - 1)) }
end
print(tw.report.table({ "d_ff", "2^k | d_ff", "measured TFLOP/s", "predicted", "error" }, rows))
-- The paper's search: the best-performing width close to 8h/3. Predicted
-- rates within 1% of the best count as equal (the model's resolution).
local rate = {}
local best_t = 0
for d = 10752, 11136 do
  local r = tw.gemm { m = 4096, n = 4096, k = d, batch = 4, dtype = "fp16", hw = "h100_sxm5" }
  rate[d] = r.flops / (r.time_s - r.overhead_s)
  if rate[d] > best_t then best_t = rate[d] end
end
local pick, target = nil, 8 * 4096 / 3
for d = 10752, 11136 do
  if rate[d] >= 0.99 * best_t and (not pick or math.abs(d - target) < math.abs(pick - target)) then pick = d end
end
local mean = 0
for _, e in ipairs(errs) do mean = mean + e / #errs end
local rel_pred = 1 - pred[10922] / pred[10944]
local rel_meas = 1 - MEASURED[10922] / MEASURED[10944]
say("Search: the width nearest 8h/3 = %.1f within 1%% of the best predicted rate in [10752, 11136] is %d.",
  target, pick)
say("Absolute level: predicted plateau %.0f TFLOP/s against a measured %.0f (%.0f%% of the 989 TFLOP/s dense peak);",
  pred[10944], MEASURED[10944], 100 * MEASURED[10944] / 989.4)
say("mean |error| %.0f%%. The measurement's software and H100 variant are not stated; one possible cause of a",
  100 * mean)
say("plateau at 40%% of peak is a cuBLAS without Hopper-specific kernels. The model is fitted to H100 MAMF rows")
say("(recent software) and does not represent that.")
-- The same misalignment on the calibration H100 (recent PyTorch/cuBLAS): K-only 4-byte alignment,
-- 4096 x 4096 x 4098 against 4096^3, bf16 (../shared/reference/calibration/h100/gemm.csv, align set).
do
  local csv = require "tilewave.util.csv"
  local rows = csv.read(csv.shared_dir() .. "/calibration/h100/gemm.csv")
  local k_only, aligned
  for _, r in ipairs(rows or {}) do
    if r.set == "align" and r.label == "k_only" and r.dtype == "bf16" and r.m == "4096" and r.n == "4096" then
      if r.k == "4098" then k_only = tonumber(r.tflops) elseif r.k == "4096" then aligned = tonumber(r.tflops) end
    end
  end
  if k_only and aligned then
    say("On the calibration H100 the same K-only 4-byte misalignment (4096x4096x4098, bf16) measures %.0f against",
      k_only)
    say("%.0f TFLOP/s aligned: %.0f%% slower. The 32%% above comes from other software; the model follows this one.",
      aligned, 100 * (1 - k_only / aligned))
  end
end
local relative_ok = math.abs(rel_pred - rel_meas) < 0.15 and tw.rules.pow2(pick) >= 32
verdict(relative_ok and (mean < 0.25 or "partly"), format("relative effect: 10922 = " ..
  "2 x 5461 is predicted %.0f%% slower than 10944 (measured %.0f%%); the search picks %d (2^%d | d_ff; measured " ..
  "widths with 2^5 or more are all within 1%% of the best, 10944). The absolute TFLOP/s level is not reproduced " ..
  "(see above).", 100 * rel_pred, 100 * rel_meas, pick, math.floor(math.log(tw.rules.pow2(pick), 2) + 0.5)),
  "d_ff = 10922 (2 x 5461) runs 32% slower than 10944 (measured, fp16 bmm, H100)",
  "slowdown within 15 points of the measured and the search picks a width with 2^5 | d_ff; mean |error| < 25% for a full pass")

---------------------------------------------------------------------------
heading(6, "SM counts per GPU (seed article 000, Appendix A) and wave quantization")
print("The seed article lists H100: 144 SMs - the full GH100 die. Shipping parts: H100 SXM5 132, H100 PCIe 114")
print("(NVIDIA Hopper architecture text). tilewave's hw files, and what one wave of 128x256 tiles holds:")
local SEED = { { "H100", 144, { "h100_sxm5", "h100_pcie" } }, { "A100", 108, { "a100_sxm4_80gb" } },
               { "V100", 80, { "v100_sxm2" } }, { "RTX4090", 128, { "rtx4090" } }, { "RTX3090 Ti", 84, { "rtx3090ti" } },
               { "NVIDIA L4", 58, { "l4" } }, { "Tesla P100 PCIe 16GB", 56, { "p100_pcie" } }, { "Tesla T4", 40, { "t4" } } }
rows = {}
local mismatches = {}
for _, s in ipairs(SEED) do
  for _, id in ipairs(s[3]) do
    local spec = assert(tw.hw.load(id))
    -- a 4096 x 4096 output in 128x256 tiles = 512 tiles: waves and the last wave's fill
    local tiles = (4096 // 128) * (4096 // 256)
    local waves = -(-tiles // spec.sm_count)
    rows[#rows + 1] = { s[1], tostring(s[2]), id, tostring(spec.sm_count),
                        format("%d waves, last %.0f%% full", waves, 100 * (tiles - (waves - 1) * spec.sm_count) / spec.sm_count) }
    if spec.sm_count ~= s[2] then mismatches[#mismatches + 1] = format("%s %d vs %d", id, spec.sm_count, s[2]) end
  end
end
print(tw.report.table({ "seed GPU", "seed SMs", "tilewave hw", "SMs", "512 tiles (4096^2 out, 128x256)" }, rows))
verdict(#mismatches == 2, "the seed table agrees with the datasheets except H100 (" .. table.concat(mismatches, "; ") ..
  "); a wave model built on 144 would misplace every H100 cliff.",
  "seed 000 Appendix A lists SM counts per GPU (H100: 144)",
  "the seed table matches the datasheets except for H100 (the full die)")

---------------------------------------------------------------------------
heading(7, "GEMMs' share of a transformer's time")
print("Paper [P-data, pie charts]: GEMMs take ~68% of a small model's layer time and 94.9% of a large one's")
print("(no FlashAttention; the models' sizes are not stated in the notebook).")
rows = {}
local share = {}
for _, id in ipairs { "pythia-160m", "pythia-410m", "pythia-1.4b", "pythia-6.9b", "gpt-neox-20b", "gpt3-175b" } do
  local r = tw.transformer.estimate(id, A100, { b = 4, s = 2048, dtype = "fp16" })
  local g, t = 0, 0
  for _, op in ipairs(r.ops) do
    if op.scope == "layer" then
      t = t + op.total_s
      g = g + op.gemm_s * op.count -- GEMM/BMM kernels (the softmax of materialized attention excluded)
    end
  end
  share[id] = g / t
  rows[#rows + 1] = { id, format("%.1f%%", 100 * g / t) }
end
print(tw.report.table({ "model", "GEMM share of layer time" }, rows))
verdict(share["pythia-160m"] < 0.8 and share["gpt3-175b"] > 0.9, format("small models spend %.0f%% of layer time in " ..
  "GEMMs, GPT-3 175B %.0f%%: the paper's trend (68%% -> 95%%); the model attributes the rest to softmax over the " ..
  "materialized scores and the norms/residuals.", 100 * share["pythia-160m"], 100 * share["gpt3-175b"]),
  "GEMMs take ~68% of a small model's layer time and 94.9% of a large one's",
  "small model below 80% and GPT-3 175B above 90%")

if args.plots then
  local plot, figures = require "tilewave.report.plot", require "tilewave.explore.figures"
  local dir = plot.dir(args.plots, "plots")
  for _, name in ipairs { "tile", "wave", "logit" } do
    local path = format("%s/paper_%s.svg", dir, name)
    plot.svg(figures.gemm(name, { hw = A100, dtype = "fp16" }), path)
    print("wrote " .. path)
  end
end
return tally:finish()
