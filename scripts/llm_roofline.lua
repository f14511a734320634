-- Seed article 004's picture in numbers (after the AWQ paper's roofline, arXiv 2306.00978
-- Fig. 3): every op of LLaMA-2-7B in the context (prefill) stage and the generation (decode)
-- stage on A100 and H100 - arithmetic intensity (FLOP per DRAM byte), the attainable FLOP/s
-- on the roofline min(peak, intensity x bandwidth), and the bound; then how weight-only int8
-- and int4 move decode (intensity up by the bytes saved, time from tw.inference.decode).
-- Findings of seed 004 checked (ends with `N of M findings reproduced`, exits 1 unless all hold):
-- the context stage's linear layers are compute-bound and the generation stage's ops memory-bound on
-- every device; weight-only int8 and int4 raise decode's intensity and its tokens/s.
-- Usage: build/tilewave run scripts/llm_roofline.lua [--model ID] [--prompt N] [--context N] [--hw ID]...
local argparse = require "argparse"
local tw = require "tilewave"
local findings = require "tilewave.report.findings"

local p = argparse("llm_roofline.lua", "Prefill and decode ops of an LLM on the roofline.")
p:option("--model", "Model id."):default("llama-2-7b")
p:option("--prompt", "Prompt tokens (context stage)."):default("1024"):convert(math.tointeger)
p:option("--context", "Tokens in the KV cache (generation stage)."):default("1024"):convert(math.tointeger)
p:option("--hw", "Device id (repeatable)."):count("*")
p:option("--plots", "Also draw the context stage's ops on the roofline as SVG into DIR.")
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

-- per device: the least intense context-stage weight GEMM, the most intense generation-stage op
local least_prefill, most_decode, quant_rows = {}, {}, {}
local function stage(title, ops, spec, dt)
  local peak, bw = spec.peak_flops[dt], spec.mem_bw
  local lo, hi = math.huge, 0
  print(format("\n%s on %s (%s): ridge point %.0f FLOP/B", title, spec.name, dt, peak / bw))
  local rows = {}
  for _, op in ipairs(ops) do
    if op.kind ~= "elementwise" then
      local i = op.flops / op.bytes
      if op.kind == "gemm" then lo = math.min(lo, i) end -- the weight GEMMs (linear layers)
      hi = math.max(hi, i)
      local attain = math.min(peak, i * bw)
      rows[#rows + 1] = { op.name, op.batch > 1 and format("%dx%dx%d x%d", op.m, op.n, op.k, op.batch)
                            or format("%dx%dx%d", op.m, op.n, op.k),
                          format("%.1f", i), format("%.1f", attain / 1e12), format("%.0f%%", 100 * attain / peak),
                          i >= peak / bw and "compute" or "memory" }
    end
  end
  print(tw.report.table({ "op", "M x N x K", "FLOP/B", "attainable TFLOP/s", "of peak", "bound" }, rows))
  return lo, hi, peak / bw
end

print(format("%s: context (prefill) stage of %d tokens and generation (decode) stage at %d tokens of context, batch 1, %s",
  c.name, args.prompt, args.context, "16-bit weights and activations"))
for _, id in ipairs(devices) do
  local spec = assert(tw.hw.load(id))
  local dt = spec.peak_flops.bf16 and "bf16" or "fp16"
  local lo, _, ridge = stage(format("Context stage (prompt %d)", args.prompt),
    tw.transformer.ops(c, { b = 1, s = args.prompt, dtype = dt }), spec, dt)
  local _, hi = stage(format("Generation stage (context %d)", args.context), decode_ops(args.context), spec, dt)
  least_prefill[#least_prefill + 1] = { id = id, i = lo, ridge = ridge }
  most_decode[#most_decode + 1] = { id = id, i = hi, ridge = ridge }

  print(format("\nWeight-only quantization on %s: decode is memory-bound, so fewer weight bytes = faster", spec.name))
  local rows = {}
  for _, w in ipairs { { "bf16" }, { "int8" }, { "int4", 128 } } do
    local ideal = tw.inference.decode { model = c, hw = spec, context = args.context, weight_dtype = w[1],
                                        group = w[2], engine = "ideal" }
    local r = tw.inference.decode { model = c, hw = spec, context = args.context, weight_dtype = w[1], group = w[2] }
    quant_rows[#quant_rows + 1] = { id = id, w = w[1], intensity = r.flops / r.bytes, ideal = ideal.tokens_per_s }
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

local f = findings.new("Seed article 004 (after AWQ, arXiv 2306.00978 Fig. 3)")
print("")
local function all(list, pred)
  local parts, ok = {}, true
  for _, x in ipairs(list) do
    parts[#parts + 1] = format("%s %.1f vs ridge %.0f", x.id, x.i, x.ridge)
    ok = ok and pred(x)
  end
  return ok, table.concat(parts, "; ")
end
local ok1, t1 = all(least_prefill, function(x) return x.i >= x.ridge end)
f:check { claim = format("the context stage (prompt %d) is compute-bound: every linear layer above the ridge point",
            args.prompt),
          published = "compute-bound", predicted = "least intense weight GEMM " .. t1 .. " FLOP/B", tolerance = "at or above the ridge",
          ok = ok1 }
local ok2, t2 = all(most_decode, function(x) return x.i < x.ridge end)
f:check { claim = "the generation stage is memory-bound: every op below the ridge point", published = "memory-bound",
          predicted = "most intense op " .. t2 .. " FLOP/B", tolerance = "below the ridge", ok = ok2 }
local ok3, parts = true, {}
for i = 1, #quant_rows, 3 do
  local b, i8, i4 = quant_rows[i], quant_rows[i + 1], quant_rows[i + 2]
  ok3 = ok3 and i8.intensity > b.intensity and i4.intensity > i8.intensity and i8.ideal > b.ideal and i4.ideal > i8.ideal
  parts[#parts + 1] = format("%s: %.2f -> %.2f -> %.2f FLOP/B, %.0f -> %.0f -> %.0f tok/s", b.id, b.intensity,
    i8.intensity, i4.intensity, b.ideal, i8.ideal, i4.ideal)
end
f:check { claim = "weight-only int8 and int4 raise decode's arithmetic intensity and its tokens/s",
          published = "bf16 < int8 < int4", predicted = table.concat(parts, "; "), tolerance = "strictly increasing",
          ok = ok3 }
if args.plots then
  local plot, figures = require "tilewave.report.plot", require "tilewave.explore.figures"
  local dir = plot.dir(args.plots, "plots")
  local path = dir .. "/llm_roofline.svg"
  plot.svg(figures.roofline(devices, { c }, { b = 1, s = args.prompt, dtype = "bf16" }), path)
  print("wrote " .. path)
end
return f:finish()
