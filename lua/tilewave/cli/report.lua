--- tilewave.cli.report: the `report` command - the main report (tilewave.analysis.models) of the
-- LLaMA, GPT-NeoX/Pythia and ModernBERT presets (or --models) on one device, as Markdown, CSV or
-- JSON (tilewave.report), with its figures (--plots).
local args_ = require "tilewave.cli.args"

local M = {}
local format = string.format

--- The command's argparse definition in parser `p`.
function M.define(p)
  local int_arg = args_.int_arg
  local rep = p:command("report", "The main report: every preset of the LLaMA, GPT-NeoX/Pythia and ModernBERT "
    .. "families (or --models) on one device: parameters, forward time, TFLOP/s, MFU, slowest GEMMs and why, "
    .. "co-design rule violations with fixes, best nearby shape.")
  rep:option("--hw", "Device id or spec path."):default("h100_sxm5")
  -- the family names as tilewave.data.models lists them (tests/lua/cli_spec.lua checks the two
  -- agree)
  rep:option("--models", "Comma-separated model ids, config.json paths and/or family names (deepseek, gemma2, "
    .. "gemma3, gpt3, gpt_neox, gpt_oss, llama, llama4, mistral, modernbert, phi3, qwen2, qwen3, qwen_moe).")
    :default("llama,gpt_neox,modernbert")
  rep:option("--b", "Micro-batch size b."):default("4"):convert(int_arg("report.b"))
  rep:option("--s", "Sequence length s."):default("2048"):convert(int_arg("report.s"))
  rep:option("--t", "Tensor-parallel size t."):default("1"):convert(int_arg("report.t"))
  rep:option("--dtype", "Element type."):default("bf16")
  rep:option("--attention", "Attention kernel (default standard, unlike prefill and train: the report checks the "
    .. "co-design paper's rules, which price attention as its batched GEMMs QK^T and AV, arXiv 2401.14489).")
    :choices({ "standard", "flash" }):default("standard")
  rep:option("--engine", args_.ENGINE_HELP):default("compiled")
  rep:option("--cluster", "Cluster for the training section (hw/clusters; default: the one built of --hw).")
  rep:option("--format", "Output format."):choices({ "markdown", "csv", "json" }):default("markdown")
  rep:option("--out", "Write the report to FILE instead of stdout.")
  rep:flag("--allow-long-context", "Accept s above a model's max_position_embeddings.")
  rep:option("--plots", "Also draw the report's figures (roofline.svg, decode.svg) into DIR and link them (Markdown).")
end

local function split(list)
  local out = {}
  for item in list:gmatch("[^,%s]+") do out[#out + 1] = item end
  return out
end

-- `report --plots DIR`: the roofline of the report's models and the decode curve of its first
-- decoder, as SVG in DIR; returns { { title, link } } for the Markdown (relative to the report file
-- when it is in DIR).
local function report_figures(res, args, tx)
  local figures, plot = require "tilewave.explore.figures", require "tilewave.report.plot"
  local dir = plot.dir(args.plots, "report.plots")
  local function svg(chart, path) -- into a temporary, renamed with the report itself
    tx:add(path, "report.plots")
    tx:stage(path, "report.plots", nil, plot.svg_temp(chart, path))
  end
  local out_dir = args.out and (args.out:match("^(.*)/[^/]*$") or ".")
  local function link(name) return out_dir == dir and name or dir .. "/" .. name end
  local ids, decoder = {}, nil
  for _, m in ipairs(res.models) do
    ids[#ids + 1] = m.config
    if not decoder and m.inference then decoder = m end
  end
  local w, out = res.workload, {}
  svg(figures.roofline({ res.hw }, ids, { dtype = w.dtype, engine = w.engine, b = w.b, s = w.s, t = w.t }),
    dir .. "/roofline.svg")
  out[#out + 1] = { title = format("Roofline of the ops on %s", res.hw.id), link = link("roofline.svg") }
  if decoder then
    svg(figures.decode(decoder.config, { res.hw }, { context = w.s, engine = w.engine }), dir .. "/decode.svg")
    out[#out + 1] = { title = format("Decode of %s on %s", decoder.id, res.hw.id), link = link("decode.svg") }
  end
  return out
end

--- Run the command on parsed `args`, writing to `out` (or --out, atomically, with the figures);
-- returns the exit status.
-- @raise `report.<field>: ...` for bad input
function M.run(args, out)
  local tw = require "tilewave"
  -- generational collection: the report's searches make many short-lived tables (op lists,
  -- candidate configs, splits), reclaimed young: ~10% faster. (gemm_many's large arrays fare better
  -- incremental.)
  collectgarbage("generational")
  -- the report file checked before the analysis runs (in the figures' directory, made first, if it
  -- is there); it and the figures are renamed together
  if args.plots then require("tilewave.report.plot").dir(args.plots, "report.plots") end
  local tx = require("tilewave.util.output").transaction()
  if args.out then tx:add(args.out, "report.out") end
  local res = tw.analysis.models { models = split(args.models), hw = args.hw, b = args.b, s = args.s, t = args.t,
                                   dtype = args.dtype, attention = args.attention, cluster = args.cluster,
                                   engine = args.engine, allow_long_context = args.allow_long_context or nil }
  local text
  tx:run(function()
    if args.plots then res.figures = report_figures(res, args, tx) end
    if args.format == "json" then text = tw.report.models_json(res)
    elseif args.format == "csv" then text = tw.report.models_csv(res)
    else text = tw.report.models_markdown(res) end
    if args.out then tx:stage(args.out, "report.out", function(f) f:write(text) end) end
  end)
  if not args.out then out:write(text) end
  return 0
end

return M
