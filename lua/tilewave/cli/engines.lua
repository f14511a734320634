--- tilewave.cli.engines: `tilewave engines [NAME] [--format text|json]`, the engines (how software
-- runs the kernels; tilewave.cost.engines) with what each assumes and where each figure comes from.
-- One command in the shape every command should take (issue 49): define() its options, run() it.
local M = {}
local format = string.format

--- Add the `engines` command to argparse parser `p`.
function M.define(p)
  local c = p:command("engines", "List the engines (how software runs the kernels: compiled, eager, vllm, sglang, "
    .. "trtllm, ...) with their host costs, scheduler and sources, or show one.")
  c:argument("name", "Engine name (a release such as vllm@0.6.3 names its profile)."):args("?")
  c:option("--format", "Output format."):choices({ "text", "json" }):default("text")
end

-- one engine's lines: name and description, what it assumes (its preset `p` flattened onto its
-- bases: `e`), its source
local function text_of(name, p, e)
  local si = require "tilewave.util.si"
  local parts = {}
  if p.base then parts[#parts + 1] = "base " .. p.base end
  if e.version then parts[#parts + 1] = "release " .. e.version end
  if e.scheduler then parts[#parts + 1] = "scheduler " .. e.scheduler end
  local function num(x) return type(x) == "number" and x > 0 end
  if num(e.token_host_s) then parts[#parts + 1] = "host " .. si(e.token_host_s, "s") .. " per step" end
  if num(e.seq_host_s) then parts[#parts + 1] = si(e.seq_host_s, "s") .. " per sequence" end
  if num(e.host_overlap) then parts[#parts + 1] = format("%.0f%% of it overlapped", 100 * e.host_overlap) end
  if e.graph_sizes then parts[#parts + 1] = "CUDA graphs " .. e.graph_sizes .. " sizes" end
  if num(e.host_s) then parts[#parts + 1] = si(e.host_s, "s") .. " per op launched" end
  if num(e.kernel_s) then parts[#parts + 1] = si(e.kernel_s, "s") .. " per kernel"
  elseif type(e.kernel_s) == "table" then parts[#parts + 1] = "per kernel by vendor" end
  if e.launch then parts[#parts + 1] = "launch " .. e.launch end
  return format("%-10s %s\n           %s\n           source: %s\n", name, p.description or e.description or "",
    table.concat(parts, "; "), p.source or e.source or "(its base's)")
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
      for key, v in pairs(engines.presets[k]) do e[key] = v end
      list[#list + 1] = e
    end
    out:write(require("tilewave.util.json").encode(list), "\n")
    return 0
  end
  for _, k in ipairs(names) do out:write(text_of(k, engines.presets[k], engines.shared(k))) end
  return 0
end

return M
