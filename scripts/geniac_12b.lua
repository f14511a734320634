-- Seed article 001 (GENIAC, Matsuo lab): a 12.3B Llama-style model with GQA (preset
-- geniac-12b: h 5120, ffn 13824, 40 heads, 8 KV heads, 40 layers, v 100096) trained with
-- Megatron-DeepSpeed. The team shortened the sequence length and turned activation
-- checkpointing off to raise TFLOP/s, and split the model with MP = 1, PP = 6. This script
-- predicts each of those choices on DGX H100 nodes:
--   1. sequence length and activation checkpointing: TFLOP/s and memory per GPU
--   2. every (t, p, micro-batch, checkpointing, ZeRO) ranked, with MP = 1, PP = 6 placed in it
--   3. the 40-layer / 6-stage imbalance
--   4. the co-design rule check of its shapes
-- The article does not give its GPU count, global batch or sequence lengths: the defaults below
-- (3 nodes = 24 GPUs, the smallest H100 node count PP = 6 divides; ~3.1M tokens per step) are
-- assumptions, changeable on the command line.
-- Usage: build/tilewave run scripts/geniac_12b.lua [--nodes N] [--tokens T] [--cluster ID]
local argparse = require "argparse"
local tw = require "tilewave"

local p = argparse("geniac_12b.lua", "The GENIAC 12.3B configuration choices, predicted.")
p:option("--nodes", "Nodes of the cluster."):default("3"):convert(math.tointeger)
p:option("--tokens", "Tokens per optimizer step."):default("3145728"):convert(math.tointeger)
p:option("--cluster", "Cluster id (hw/clusters)."):default("dgx_h100")
local args = p:parse(arg)
local format = string.format
local MODEL = "geniac-12b"
local cl = tw.cluster.resolve(args.cluster)
local gpus = args.nodes * cl.gpus_per_node

local c = tw.models.load(MODEL)
print(format("%s: %s parameters (the article says 12.3B; this config counts %.2fB untied), on %d x %s (%d GPUs)",
  c.name, tw.report.group(tw.params(c).total), tw.params(c).total / 1e9, args.nodes, cl.name, gpus))

local function run(o)
  local q = { model = MODEL, cluster = args.cluster, nodes = args.nodes, zero = 1, micro_batch = 1,
              attention = "flash" }
  for k, v in pairs(o) do q[k] = v end
  q.global_batch = q.global_batch or args.tokens // q.s
  return tw.training.step(q)
end

-- 1. ---------------------------------------------------------------------
print("\n1. Sequence length and activation checkpointing at MP = 1, PP = 6, ZeRO-1, micro-batch 1")
local rows = {}
local base
for _, s in ipairs { 4096, 2048, 1024 } do
  for _, ck in ipairs { "full", "selective", "none" } do
    local r = run { s = s, t = 1, p = 6, checkpointing = ck }
    if s == 4096 and ck == "full" then base = r end
    rows[#rows + 1] = { tostring(s), ck, tostring(r.config.global_batch), format("%.1f", r.hardware_tflops_per_gpu),
      format("%.1f", r.model_tflops_per_gpu), format("%.1f%%", 100 * r.mfu), format("%.0f", r.tokens_per_s),
      format("%.1f GB", r.memory.activations / 1e9), format("%.1f GB", r.memory.total / 1e9),
      r.fits and "yes" or "no" }
  end
end
print(tw.report.table({ "s", "checkpointing", "batch", "hardware TFLOP/s/GPU", "model TFLOP/s/GPU", "MFU", "tokens/s",
                        "activations", "memory/GPU", "fits" }, rows))
local off = run { s = 4096, t = 1, p = 6, checkpointing = "none" }
local short = run { s = 2048, t = 1, p = 6, checkpointing = "full" }
local both = run { s = 2048, t = 1, p = 6, checkpointing = "none" }
print(format("Checkpointing off (s = 4096): tokens/s x%.2f, model TFLOP/s %.1f -> %.1f, activations %.1f -> %.1f GB per GPU.",
  off.tokens_per_s / base.tokens_per_s, base.model_tflops_per_gpu, off.model_tflops_per_gpu,
  base.memory.activations / 1e9, off.memory.activations / 1e9))
print(format("Halving s (checkpointing full): tokens/s x%.2f (attention FLOPs per token fall with s: 4*s*h per layer).",
  short.tokens_per_s / base.tokens_per_s))
print(format("Both: tokens/s x%.2f; hardware TFLOP/s %.1f -> %.1f - recomputation inflates the hardware figure",
  both.tokens_per_s / base.tokens_per_s, base.hardware_tflops_per_gpu, both.hardware_tflops_per_gpu))
print("while slowing the step, so the gain shows in model TFLOP/s and tokens/s. Halving s also halves the")
print("activation memory, which is what lets checkpointing go off on a smaller or busier GPU.")

-- 2. ---------------------------------------------------------------------
local s = 2048
print(format("\n2. Every split at s = %d, %d sequences per step, ranked by tokens/s", s, args.tokens // s))
local res = tw.training.search { model = MODEL, cluster = args.cluster, nodes = args.nodes,
                                 global_batch = args.tokens // s, s = s, attention = "flash" }
rows = {}
local place
for i, r in ipairs(res.ranked) do
  local k = r.config
  if not place and k.t == 1 and k.p == 6 then place = i end
  if i <= 12 or (k.t == 1 and k.p == 6 and i == place) then
    rows[#rows + 1] = { tostring(i), tostring(k.t), tostring(k.p), tostring(k.d), tostring(k.micro_batch),
      k.checkpointing, tostring(k.zero), format("%.0f", r.tokens_per_s), format("%.1f", r.model_tflops_per_gpu),
      format("%.1f%%", 100 * r.mfu), format("%.1f GB", r.memory.total / 1e9),
      format("%.1f%%", 100 * r.breakdown.bubble_s / r.step_s) }
  end
end
print(tw.report.table({ "rank", "MP (t)", "PP (p)", "d", "mb", "checkpointing", "ZeRO", "tokens/s", "TFLOP/s/GPU",
                        "MFU", "memory", "bubble" }, rows))
local reasons = {}
for _, x in ipairs(res.rejected) do
  local why = x.reason:gsub("[%d%.]+ GB", "N GB"):gsub("got %d+", "got N"):gsub("= %d+", "= N")
  reasons[why] = (reasons[why] or 0) + 1
end
local keys = {}
for k in pairs(reasons) do keys[#keys + 1] = k end
table.sort(keys)
print(format("%d valid, %d rejected:", #res.ranked, #res.rejected))
for _, k in ipairs(keys) do print(format("  %4d  %s", reasons[k], k)) end
if place then
  local r = res.ranked[place]
  print(format("MP = 1, PP = 6 first appears at rank %d of %d: %.1f%% of the best tokens/s.", place, #res.ranked,
    100 * r.tokens_per_s / res.ranked[1].tokens_per_s))
end

-- 3. ---------------------------------------------------------------------
print("\n3. The 40-layer / 6-stage imbalance")
local r6 = run { s = s, t = 1, p = 6, checkpointing = "none" }
local k6 = r6.config
print(format("40 layers over 6 stages: %d stages of %d layers and a last stage of %d layers + the LM head",
  5, k6.stage_layers, k6.last_stage_layers))
local b6 = r6.breakdown
local head = b6.outside_s / b6.layer_s
local balanced = (40 + head) / 6
print(format("(v = %d x h = %d: embedding, final norm and LM head cost %.2f layers' time, predicted); the slowest",
  c.vocab_size, c.hidden_size, head))
print(format("stage sets the pace: max(7, 5 + %.2f) = %.2f layers against a perfect split of (40 + %.2f)/6 = %.2f,",
  head, math.max(7, 5 + head), head, balanced))
print(format("%.1f%% balanced: the big-vocabulary LM head on the last stage makes 40 layers over 6 stages nearly even.",
  100 * balanced / math.max(7, 5 + head)))
rows = {}
for _, pp in ipairs { 4, 5, 6, 8 } do
  if gpus % pp == 0 then
    local ok, r = pcall(run, { s = s, t = 1, p = pp, checkpointing = "none" })
    if ok then
      rows[#rows + 1] = { tostring(pp), format("%d/%d", r.config.stage_layers, r.config.last_stage_layers),
        format("%.0f", r.tokens_per_s), format("%.1f%%", 100 * r.mfu), format("%.1f%%", 100 * r.breakdown.bubble_s / r.step_s),
        format("%.1f GB", r.memory.total / 1e9), r.fits and "yes" or "no" }
    else
      rows[#rows + 1] = { tostring(pp), "-", "-", "-", "-", "-", (tostring(r):gsub("^training%.", "")) }
    end
  end
end
print(tw.report.table({ "PP", "layers (first/last)", "tokens/s", "MFU", "bubble", "memory/GPU", "fits" }, rows))

-- 4. ---------------------------------------------------------------------
print("\n4. Co-design rules (arXiv 2401.14489) for the GENIAC shapes, b = 1, s = 2048, t = 1, on " .. cl.spec.id)
local v = tw.rules.check(MODEL, { b = 1, s = s, t = 1 }, cl.spec)
if #v == 0 then
  print(format("All met: v = %d = 64 x %d, h/a = %d, b*s = %d; SwiGLU width %d = 2^%d x %d.", c.vocab_size,
    c.vocab_size // 64, c.head_dim, s, c.intermediate_size,
    math.floor(math.log(tw.rules.pow2(c.intermediate_size), 2) + 0.5), c.intermediate_size // tw.rules.pow2(c.intermediate_size)))
else
  for _, x in ipairs(v) do
    print(x.speedup and format("- %s: %s; fix %s (x%.3f, %s)", x.rule, x.expected, x.fix_text, x.speedup, x.metric)
      or format("- %s: %s; %s", x.rule, x.expected, x.fix_text))
  end
end
