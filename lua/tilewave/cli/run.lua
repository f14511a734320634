--- tilewave.cli.run: the `run` command - a Lua script with require "tilewave" available and `arg`
-- set (arg[0] the script, arg[1..] the arguments after it, passed untouched: tilewave.cli does not
-- parse them).
local M = {}

--- The command's argparse definition in parser `p`.
function M.define(p)
  local run = p:command("run", "Run a Lua script with require \"tilewave\" available and arg set.")
  run:argument("script", "Lua script to run.")
  run:argument("args", "Arguments passed to the script as arg[1..]."):args("*")
end

--- Run `args.script` with `args.args`; returns its exit status (an integer it returns, else 0).
-- @raise the script's load or run error, as one line
function M.run(args)
  local script = args.script
  local chunk, err = loadfile(script)
  if not chunk then error(err, 0) end
  local a = { [0] = script }
  for i, v in ipairs(args.args) do a[i] = v end
  _G.arg = a
  local ok, res = pcall(chunk, table.unpack(a))
  if not ok then error(tostring(res), 0) end
  return math.tointeger(res) or 0
end

return M
