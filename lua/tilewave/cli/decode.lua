--- tilewave.cli.decode: the `decode` command - a decode step (TPOT, tokens/s) and the memory fit
-- (tilewave.inference.decode, .memory) per (batch, context): `--batch 1,8,32 --context 2048,8192`
-- gives one row per pair, batch outermost (tilewave.report.inference_text). A configuration that
-- does not fit gets no time: its shortfall and the nearest that fits (tilewave.explore.memory_fit).
local args_ = require "tilewave.cli.args"

local M = {}

--- The command's argparse definition in parser `p`.
function M.define(p)
  local int_arg, int_list = args_.int_arg, args_.int_list
  local de = p:command("decode", "Predict one decode step (TPOT, tokens/s) and the memory fit of a model on a device.")
  de:argument("model", "Model id, config.json path or a folder holding one.")
  de:option("--hw", "Device id or spec path."):default("h100_sxm5")
  de:option("--context", "Tokens in each sequence's KV cache; a list (2048,8192) gives one row each.")
    :default("2048"):convert(int_list("decode.context"))
  de:option("--batch", "Sequences decoded together; a list (1,8,32) gives one row each."):default("1")
    :convert(int_list("decode.batch"))
  de:option("--weight-dtype", "fp32, bf16, fp16, fp8, int8, int4, mxfp4, nvfp4 (weight-only), q8_0, q4_0, q4_k_m "
    .. "(default: the checkpoint's, as its config.json quantization_config declares, else bf16).")
  de:option("--group", "int4 quantization group size."):convert(int_arg("decode.group"))
  de:option("--kv-dtype", "KV cache dtype."):default("bf16")
  de:option("--t", "Tensor-parallel size."):default("1"):convert(int_arg("decode.t"))
  de:option("--ep", "Expert-parallel size (MoE models; attention data-parallel over batch / ep sequences)."):default("1")
    :convert(int_arg("decode.ep"))
  de:option("--engine", args_.ENGINE_HELP):default("compiled")
  de:option("--decode-attention", "How the decode attention kernel spreads over the SMs: split_kv (FlashDecoding, "
    .. "the engine's default), no_split (one block per sequence and query head: FlashAttention before 2.2), mmha "
    .. "(TensorRT-LLM before 0.8: as no_split, a GQA group's KV cache read once per query head), full (every SM "
    .. "streams)."):choices({ "split_kv", "no_split", "mmha", "xqa", "full" })
  de:option("--speculative", "Speculative decoding: draft=MODEL,k=4,acceptance=0.7 (TPOT per output token).")
    :convert(args_.speculative)
  de:flag("--allow-long-context", "Accept a context above the model's max_position_embeddings (e.g. RoPE scaling).")
  de:option("--format", "Output format (json: one object, or `runs` for lists)."):choices({ "text", "csv", "json" })
    :default("text")
  de:option("--out", "Write the output to FILE (atomically) instead of stdout.")
end

--- Every (a, b) pair of two lists, a outermost.
function M.pairs_of(as, bs)
  local out = {}
  for _, a in ipairs(as) do for _, b in ipairs(bs) do out[#out + 1] = { a, b } end end
  return out
end

--- The memory a serving engine lets weights, KV cache and workspace take, as its scheduler
-- allocates it (tilewave.serve.schedulers: gpu_memory_utilization u on the basis it names) - "total":
-- u of the device's memory (vLLM --gpu-memory-utilization); "static": the same (SGLang
-- --mem-fraction-static); "free": the weights, and u of what they leave
-- (TensorRT-LLM kv_cache_free_gpu_memory_fraction); nil for an engine without a scheduler
-- (standalone: the whole memory).
-- @return nil, or `{ of = function(weight_bytes) -> byte, text = "vllm: gpu_memory_utilization 0.90 of ..." }`
function M.memory_budget(args, spec)
  local tw = require "tilewave"
  local name = type(args.engine) == "string" and args.engine or nil
  local eng = name and require("tilewave.cost.engines").shared(name, "decode.engine")
  if not (eng and eng.scheduler) or not tw.hw.memory(spec) then return nil end
  local sched = require("tilewave.serve.schedulers").resolve(nil, eng.scheduler, spec, "decode.engine")
  local mem, u = tw.hw.memory(spec), sched.gpu_memory_utilization
  local free = sched.memory_basis == "free"
  return {
    of = function(weights) return free and weights + u * math.max(0, mem - weights) or u * mem end,
    text = string.format("%s engine: %s %.2f of %s", eng.name, free and "the KV cache takes" or "gpu_memory_utilization",
      u, free and "the memory the weights leave" or require("tilewave.util.si")(mem, "B")),
  }
end

--- Run the command on parsed `args`, writing to `out`; returns the exit status.
-- @raise `decode.<field>: ...` for bad input
function M.run(args, out)
  local tw = require "tilewave"
  -- the output file checked before anything is priced (tilewave.util.output.check_target)
  local output = require "tilewave.util.output"
  if args.out then output.check_target(args.out, "decode.out") end
  local spec = tw.hw.resolve(args.hw, "decode.hw")
  local combos, runs = M.pairs_of(args.batch, args.context), {}
  local engine = args.engine
  if args.decode_attention then engine = { base = args.engine, decode_attention = args.decode_attention } end
  local budget = M.memory_budget(args, spec)
  for _, bc in ipairs(combos) do
    local o = { model = args.model, hw = args.hw, context = bc[2], batch = bc[1], weight_dtype = args.weight_dtype,
                group = args.group, kv_dtype = args.kv_dtype, t = args.t, engine = engine,
                allow_long_context = args.allow_long_context or nil, ep = args.ep, speculative = args.speculative }
    if budget then
      -- a serving engine gives weights and KV cache only its share of the memory (M.memory_budget):
      -- the fit and the decode result's `fits` both against it
      local q = { model = o.model, hw = o.hw, context = o.context, batch = o.batch, weight_dtype = o.weight_dtype,
                  group = o.group, kv_dtype = o.kv_dtype, t = o.t, ep = o.ep, allow_long_context = o.allow_long_context }
      o.memory_bytes = budget.of(tw.inference.memory(q, "decode").weight_bytes)
    end
    local d = tw.inference.decode(o)
    local m
    if tw.hw.memory(spec) then
      -- a draft's weights and cache count too (tilewave.cost.speculative.memory)
      local sp = o.speculative
      o.engine, o.speculative = nil, sp
      m = sp and require("tilewave.cost.speculative").memory(o) or tw.inference.memory(o)
      if budget then m.budget = budget.text end
    end
    if m and not m.fits then
      -- no time for what does not fit: the shortfall and what would fit instead
      runs[#runs + 1] = { fits = false, memory = m, would_fit = require("tilewave.explore.memory_fit").nearest(o, m),
                          header = d }
    else
      runs[#runs + 1] = { decode = d, memory = m or false }
    end
  end
  local text = require("tilewave.report.inference_text").decode(runs, combos, args.format)
  if args.out then
    output.write_file(args.out, "decode.out", text)
    if args.format == "text" then out:write("wrote ", args.out, "\n") else io.stderr:write("wrote ", args.out, "\n") end
  else
    out:write(text)
  end
  return 0
end

return M
