--- tilewave.cli.engines: `tilewave engines [NAME] [--format text|json]`, the engines (how software
-- runs the kernels; tilewave.cost.engines) with what each assumes and where each figure comes from.
-- One command in the shape every command should take (issue 49): define() its options, run() it.
local tables = require "tilewave.util.tables"
local M = {}

--- Add the `engines` command to argparse parser `p`.
function M.define(p)
  local c = p:command("engines", "List the engines (how software runs the kernels: compiled, eager, vllm, sglang, "
    .. "trtllm, ...) with their host costs, scheduler and sources, or show one.")
  c:argument("name", "Engine name (a release such as vllm@0.6.3 names its profile)."):args("?")
  c:option("--format", "Output format."):choices({ "text", "json" }):default("text")
end

--- Run it: every preset, or the one named.
-- @raise `engines.name: expected one of ..., got ...`
function M.run(args, out)
  local engines = require "tilewave.cost.engines"
  local names = {}
  for k in pairs(engines.presets) do names[#names + 1] = k end
  table.sort(names)
  if args.name and args.name:find("@", 1, true) then
    local name, why = require("tilewave.cost.engine_versions").lookup(args.name)
    if not name and why then require("tilewave.util.check").fail("engines.name", why, args.name) end
    args.name = name or args.name
  end
  if args.name then
    if not engines.presets[args.name] then
      local known = {}
      for _, k in ipairs(names) do known[k] = true end
      require("tilewave.util.check").fail("engines.name", "expected one of " .. table.concat(names, ", ")
        .. require("tilewave.util.check").did_you_mean(args.name, known), args.name)
    end
    names = { args.name }
  end
  if args.format == "json" then
    local list = require("tilewave.util.json").array()
    for _, k in ipairs(names) do
      local e = { name = k }
      tables.copy(engines.presets[k], e)
      list[#list + 1] = e
    end
    out:write(require("tilewave.util.json").encode(list), "\n")
    return 0
  end
  local text_of = require("tilewave.report.listing").engine
  for _, k in ipairs(names) do out:write(text_of(k, engines.presets[k], engines.shared(k))) end
  return 0
end

return M
