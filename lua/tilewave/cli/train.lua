--- tilewave.cli.train: the `train` command - one training step of a model on a cluster
-- (tilewave.training.step), or every split ranked (--search, tilewave.training.search).
local args_ = require "tilewave.cli.args"

local M = {}
local format = string.format

--- The command's argparse definition in parser `p`.
function M.define(p)
  local int_arg = args_.int_arg
  local trn = p:command("train", "Predict a training step (or --search every split) of a model on a cluster.")
  trn:argument("model", "Model id, config.json path or a folder holding one.")
  trn:option("--cluster", "Cluster id (hw/clusters) or path."):default("dgx_h100")
  trn:option("--nodes", "Nodes."):default("1"):convert(int_arg("train.nodes"))
  trn:option("--global-batch", "Sequences per optimizer step."):default("512"):convert(int_arg("train.global_batch"))
  trn:option("--s", "Sequence length."):default("2048"):convert(int_arg("train.s"))
  trn:option("--t", "Tensor-parallel size."):default("1"):convert(int_arg("train.t"))
  trn:option("--p", "Pipeline-parallel size."):default("1"):convert(int_arg("train.p"))
  trn:option("--micro-batch", "Micro-batch size."):default("1"):convert(int_arg("train.micro_batch"))
  trn:option("--zero", "ZeRO stage 0-3."):default("0"):convert(int_arg("train.zero"))
  trn:option("--ep", "Expert-parallel size (MoE models; divides d and the experts)."):default("1")
    :convert(int_arg("train.ep"))
  trn:option("--checkpointing", "none, selective, full."):default("none")
  trn:option("--attention", "flash or standard."):default("flash")
  trn:option("--engine", args_.ENGINE_HELP):default("compiled")
  trn:flag("--search", "Rank every (t, p, micro-batch, checkpointing, ZeRO) instead.")
  trn:option("--top", "Rows of --search to print."):default("10"):convert(int_arg("train.top"))
  trn:option("--format", "Output format (json: the step, or `ranked` and `rejected` counts with --search)."):choices({ "text", "json" })
    :default("text")
end

-- --search: the ranked splits, or an error naming the most common reasons when none fits
local function search(args, o, out)
  local tw = require "tilewave"
  if args.top < 1 then error(format("train.top: expected positive integer, got %d", args.top), 0) end
  local res = tw.training.search(o)
  if #res.ranked == 0 then
    error(format("train.search: no valid configuration of %s on %d node(s) of %s (%d rejected; %s)",
      args.model, args.nodes, args.cluster, #res.rejected,
      require("tilewave.report.train_text").reasons(res.rejected)), 0)
  end
  if args.format == "json" then
    local top = {}
    for i = 1, math.min(args.top, #res.ranked) do top[i] = res.ranked[i] end
    out:write(tw.report.json { ranked = top, valid = #res.ranked, rejected = #res.rejected }, "\n")
  else
    out:write(require("tilewave.report.train_text").ranked(res, args.top))
  end
  return 0
end

--- Run the command on parsed `args`, writing to `out`; returns the exit status.
-- @raise `train.<field>: ...` for bad input; `train.search: no valid configuration ...`
function M.run(args, out)
  local tw = require "tilewave"
  local o = { model = args.model, cluster = args.cluster, nodes = args.nodes, global_batch = args.global_batch,
              s = args.s, attention = args.attention, engine = args.engine }
  if args.ep > 1 then o.ep = args.ep end
  if args.search then return search(args, o, out) end
  o.t, o.p, o.micro_batch, o.zero, o.checkpointing = args.t, args.p, args.micro_batch, args.zero, args.checkpointing
  o.ep = args.ep
  local r = tw.training.step(o)
  if args.format == "json" then out:write(tw.report.json(r), "\n") return 0 end
  out:write(require("tilewave.report.text").train(r), "\n")
  return 0
end

return M
