-- Seed article 004's picture in numbers (after the AWQ paper's roofline, arXiv 2306.00978
-- Fig. 3): every op of LLaMA-2-7B in the context (prefill) stage and the generation (decode)
-- stage on A100 and H100 - arithmetic intensity (FLOP per DRAM byte), the attainable FLOP/s
-- on the roofline min(peak, intensity x bandwidth), and the bound; then how weight-only int8
-- and int4 move decode (intensity up by the bytes saved, time from tw.inference.decode).
-- Usage: build/tilewave run scripts/llm_roofline.lua [--model ID] [--prompt N] [--context N] [--hw ID]...
local argparse = require "argparse"
local tw = require "tilewave"

local p = argparse("llm_roofline.lua", "Prefill and decode ops of an LLM on the roofline.")
p:option("--model", "Model id."):default("llama-2-7b")
p:option("--prompt", "Prompt tokens (context stage)."):default("1024"):convert(math.tointeger)
p:option("--context", "Tokens in the KV cache (generation stage)."):default("1024"):convert(math.tointeger)
p:option("--hw", "Device id (repeatable)."):count("*")
local args = p:parse(arg)
local devices = #args.hw > 0 and args.hw or { "a100_sxm4_80gb", "h100_sxm5" }
local c = assert(tw.models.load(args.model))
local format = string.format
local e = { in_bytes = 2, out_bytes = 2 }

-- Decode-stage ops at batch 1: the weight GEMMs at one token, and attention over the KV cache.
local function decode_ops(ctx)
  local ops = {}
  for _, op in ipairs(tw.transformer.ops(c, { b = 1, s = 1 })) do
    if op.kind == "gemm" then ops[#ops + 1] = op end
  end
  local a, kv, hd = c.num_attention_heads, c.num_key_value_heads, c.head_dim
  local score = tw.layers.gemm("attn_score", "attention_score", 1, ctx, hd, c.num_hidden_layers, e, a)
  local aov = tw.layers.gemm("attn_av", "attention_over_value", 1, hd, ctx, c.num_hidden_layers, e, a)
  -- K (or V) of the cache is read once per KV head, shared by a/kv query heads
  score.bytes = (kv * ctx * hd + a * hd + a * ctx) * 2
  aov.bytes = (kv * ctx * hd + a * ctx + a * hd) * 2
  table.insert(ops, #ops, score)
  table.insert(ops, #ops, aov)
  return ops
end

local function stage(title, ops, spec, dt)
  local peak, bw = spec.peak_flops[dt], spec.mem_bw
  print(format("\n%s on %s (%s): ridge point %.0f FLOP/B", title, spec.name, dt, peak / bw))
  local rows = {}
  for _, op in ipairs(ops) do
    if op.kind ~= "elementwise" then
      local i = op.flops / op.bytes
      local attain = math.min(peak, i * bw)
      rows[#rows + 1] = { op.name, op.batch > 1 and format("%dx%dx%d x%d", op.m, op.n, op.k, op.batch)
                            or format("%dx%dx%d", op.m, op.n, op.k),
                          format("%.1f", i), format("%.1f", attain / 1e12), format("%.0f%%", 100 * attain / peak),
                          i >= peak / bw and "compute" or "memory" }
    end
  end
  print(tw.report.table({ "op", "M x N x K", "FLOP/B", "attainable TFLOP/s", "of peak", "bound" }, rows))
end

print(format("%s: context (prefill) stage of %d tokens and generation (decode) stage at %d tokens of context, batch 1, %s",
  c.name, args.prompt, args.context, "16-bit weights and activations"))
for _, id in ipairs(devices) do
  local spec = assert(tw.hw.load(id))
  local dt = spec.peak_flops.bf16 and "bf16" or "fp16"
  stage(format("Context stage (prompt %d)", args.prompt), tw.transformer.ops(c, { b = 1, s = args.prompt, dtype = dt }), spec, dt)
  stage(format("Generation stage (context %d)", args.context), decode_ops(args.context), spec, dt)

  print(format("\nWeight-only quantization on %s: decode is memory-bound, so fewer weight bytes = faster", spec.name))
  local rows = {}
  for _, w in ipairs { { "bf16" }, { "int8" }, { "int4", 128 } } do
    local ideal = tw.inference.decode { model = c, hw = spec, context = args.context, weight_dtype = w[1],
                                        group = w[2], engine = "ideal" }
    local r = tw.inference.decode { model = c, hw = spec, context = args.context, weight_dtype = w[1], group = w[2] }
    rows[#rows + 1] = { w[1] .. (w[2] and ("/g" .. w[2]) or ""), format("%.2f", r.bits_per_weight),
                        format("%.2f", r.flops / r.bytes), format("%.1f", ideal.tokens_per_s),
                        format("%.1f", r.tokens_per_s), format("%.0f", r.achieved_bw / 1e9), r.bound }
  end
  print(tw.report.table({ "weights", "bits/weight", "step FLOP/B", "ideal tok/s", "compiled tok/s", "GB/s", "bound" }, rows))
end
local spec = assert(tw.hw.load(devices[1]))
local dt = spec.peak_flops.bf16 and "bf16" or "fp16"
local worst = 0
for _, op in ipairs(decode_ops(args.context)) do worst = math.max(worst, op.flops / op.bytes) end
print(format("\nOn %s the generation stage's most intense op reaches %.1f FLOP/B, %.0fx below the ridge point;",
  spec.id, worst, spec.peak_flops[dt] / spec.mem_bw / worst))
print("the context stage's GEMMs sit above it. Weight-only int8/int4 raise decode's intensity by the bytes they")
print("save; the dequantization they add runs on the ALUs (tilewave.quant) and the fixed launch cost does not")
print("shrink, so the compiled speedup stays below the byte ratio.")
