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
  pf:option("--dtype", "Compute dtype."):default("bf16")
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
  for _, bp in ipairs(require("tilewave.cli.decode").pairs_of(args.batch, args.prompt)) do
    -- named as the user typed them before the memory check reads them
    check.positive_int(bp[1], "prefill.batch")
    check.positive_int(bp[2], "prefill.prompt")
    -- weights (in the compute dtype when it is 8-bit: fp8 checkpoints) and the prompt's KV cache
    -- must fit
    local mo = { model = args.model, hw = args.hw, batch = bp[1], context = bp[2], t = args.t,
                 weight_dtype = (args.dtype == "fp8" or args.dtype == "int8") and args.dtype or nil,
                 allow_long_context = args.allow_long_context or nil }
    local m = tw.hw.memory(spec) and tw.inference.memory(mo)
    if m and not m.fits then
      runs[#runs + 1] = { model = m.model, hw = m.hw, batch = bp[1], prompt = bp[2], fits = false, memory = m,
                          would_fit = require("tilewave.explore.memory_fit").nearest(mo, m) }
    else
      local r = tw.inference.prefill { model = args.model, hw = args.hw, batch = bp[1], prompt = bp[2], t = args.t,
                                       dtype = args.dtype, attention = args.attention, engine = args.engine,
                                       allow_long_context = args.allow_long_context or nil }
      runs[#runs + 1] = { model = r.model, hw = r.hw, batch = r.batch, prompt = r.prompt, ttft_s = r.ttft_s,
                          interval = r.interval, tflops = r.tflops, mfu = r.mfu, flops = r.flops,
                          tokens_per_s = r.batch * r.prompt / r.ttft_s, engine = r.engine }
    end
  end
  local how = { dtype = args.dtype, attention = args.attention, t = args.t }
  if args.format == "text" then how.engine = tw.engines.resolve(args.engine, "prefill.engine").name end
  out:write(require("tilewave.report.inference_text").prefill(runs, how, args.format))
  return 0
end

return M
