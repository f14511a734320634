--- tilewave.cli.prefill: the `prefill` command - the time to first token, the forward pass over
-- the prompt (tilewave.inference.prefill), per (batch, prompt): lists give one row per pair, batch
-- outermost (tilewave.report.inference_text). A prompt whose weights and KV cache do not fit gets
-- no time: its shortfall and the nearest that fits (tilewave.explore.memory_fit).
local args_ = require "tilewave.cli.args"

local M = {}

--- The command's argparse definition in parser `p`.
function M.define(p)
  local pf = p:command("prefill", "Predict the time to first token (TTFT): the forward pass over the prompt.")
  pf:argument("model", "Model id, config.json path or a folder holding one.")
  pf:option("--hw", "Device id or spec path."):default("h100_sxm5")
  pf:option("--prompt", "Prompt tokens per sequence; a list (512,2048) gives one row each."):args(1)
    :convert(args_.int_list("prefill.prompt"))
  pf:option("--batch", "Sequences prefilled together; a list gives one row each."):default("1")
    :convert(args_.int_list("prefill.batch"))
  pf:option("--weight-dtype", "fp32, bf16, fp16, fp8, int8, int4, mxfp4, nvfp4, q8_0, q4_0, q4_k_m (default: the "
    .. "checkpoint's, as its config.json quantization_config declares, else bf16).")
  pf:option("--group", "int4 quantization group size."):convert(args_.int_arg("prefill.group"))
  pf:option("--kv-dtype", "KV cache dtype (the memory fit's)."):default("bf16")
  pf:option("--dtype", "Compute dtype (default: the weight format's: fp8 for fp8 weights where the device has an "
    .. "fp8 peak, else bf16).")
  pf:option("--attention", "flash or standard."):default("flash")
  pf:option("--t", "Tensor-parallel size."):default("1"):convert(args_.int_arg("prefill.t"))
  pf:option("--engine", args_.ENGINE_HELP):default("compiled")
  pf:flag("--allow-long-context", "Accept a prompt above the model's max_position_embeddings (e.g. RoPE scaling).")
  pf:option("--format", "Output format."):choices({ "text", "csv", "json" }):default("text")
end

--- Run the command on parsed `args`, writing to `out`; returns the exit status.
-- @raise `prefill.<field>: ...` for bad input
function M.run(args, out)
  local tw = require "tilewave"
  local check = require "tilewave.util.check"
  if args.prompt == nil then error("prefill.prompt: expected positive integer (--prompt N), got nil", 0) end
  local runs = {}
  local spec = tw.hw.resolve(args.hw, "prefill.hw")
  -- the formats named as the user gave them, before the memory check reads them
  if args.weight_dtype ~= nil or args.group ~= nil then
    require("tilewave.data.quant").format(args.weight_dtype or "bf16", args.group, "prefill.weight_dtype")
  end
  require("tilewave.data.dtype").kv_bytes(args.kv_dtype, "prefill.kv_dtype")
  for _, bp in ipairs(require("tilewave.cli.decode").pairs_of(args.batch, args.prompt)) do
    -- named as the user typed them before the memory check reads them
    check.positive_int(bp[1], "prefill.batch")
    check.positive_int(bp[2], "prefill.prompt")
    -- the weights in their format and the prompt's KV cache must fit
    local mo = { model = args.model, hw = args.hw, batch = bp[1], context = bp[2], t = args.t,
                 weight_dtype = args.weight_dtype, group = args.group, kv_dtype = args.kv_dtype,
                 allow_long_context = args.allow_long_context or nil }
    local m = tw.hw.memory(spec) and tw.inference.memory(mo, "prefill")
    if m and not m.fits then
      runs[#runs + 1] = { model = m.model, hw = m.hw, batch = bp[1], prompt = bp[2], fits = false, memory = m,
                          would_fit = require("tilewave.explore.memory_fit").nearest(mo, m) }
    else
      local r = tw.inference.prefill { model = args.model, hw = args.hw, batch = bp[1], prompt = bp[2], t = args.t,
                                       dtype = args.dtype, attention = args.attention, engine = args.engine,
                                       weight_dtype = args.weight_dtype, group = args.group, kv_dtype = args.kv_dtype,
                                       allow_long_context = args.allow_long_context or nil }
      runs[#runs + 1] = { model = r.model, hw = r.hw, batch = r.batch, prompt = r.prompt, ttft_s = r.ttft_s,
                          interval = r.interval, tflops = r.tflops, mfu = r.mfu, flops = r.flops,
                          tokens_per_s = r.batch * r.prompt / r.ttft_s, engine = r.engine,
                          weight_dtype = r.weight_dtype, weight_dtype_source = r.weight_dtype_source,
                          kv_dtype = r.kv_dtype, dtype = r.dtype }
    end
  end
  local first = runs[1]
  local how = { dtype = first.dtype or args.dtype, attention = args.attention, t = args.t,
                weight_dtype = first.weight_dtype or args.weight_dtype, source = first.weight_dtype_source,
                kv_dtype = args.kv_dtype }
  if args.format == "text" then how.engine = tw.engines.resolve(args.engine, "prefill.engine").name end
  out:write(require("tilewave.report.inference_text").prefill(runs, how, args.format))
  return 0
end

return M
