--- tilewave.cli.models: the `models` command - the model presets (of one family, or one
-- config.json) with their parameter counts (tilewave.models, tilewave.params).
local M = {}
local format = string.format

--- The command's argparse definition in parser `p`.
function M.define(p)
  local mo = p:command("models", "List model presets (of one family), with parameter counts.")
  mo:argument("family", "Family name, or a config.json path or a folder holding one."):args("?")
  mo:option("--format", "Output format (csv and json give the counts as integers)."):choices({ "text", "csv", "json" })
    :default("text")
end

--- Run the command on parsed `args`, writing to `out`; returns the exit status.
-- @raise `models: unknown family ...`, or the config's errors for a config.json
function M.run(args, out)
  local tw = require "tilewave"
  local names = {}
  for name in pairs(tw.models.families) do names[#names + 1] = name end
  table.sort(names)
  local path = args.family and (args.family:match("%.json$") or (not tw.models.families[args.family]
    and require("lfs").attributes(args.family, "mode") == "directory"))
  if args.family and not path and not tw.models.families[args.family] then
    error(format("models: unknown family '%s' (known: %s)", args.family, table.concat(names, ", ")), 0)
  end
  -- a config.json path (or a folder holding one) lists that one model
  local ids = path and { args.family } or tw.analysis.expand(args.family and { args.family } or names)
  local objs = {}
  for _, id in ipairs(ids) do
    local c = tw.models.resolve(id, "models")
    local p = tw.params(c)
    objs[#objs + 1] = { id = c.id or id, family = c.family, name = c.name, params = p.total, active = p.active,
      hidden_size = c.hidden_size, num_attention_heads = c.num_attention_heads,
      num_key_value_heads = c.num_key_value_heads, num_hidden_layers = c.num_hidden_layers,
      intermediate_size = c.intermediate_size, vocab_size = c.vocab_size }
  end
  out:write(require("tilewave.report.listing").models(objs, args.format))
  return 0
end

return M
