--- tilewave.cli.help: the `help` command - the help of tilewave or of one command, on stdout
-- (also what -h and --help print, through tilewave.cli).
local M = {}

--- The command's argparse definition in parser `p`.
function M.define(p)
  local help = p:command("help", "Show the help of tilewave or of one command.")
  help:argument("topic", "Command to show the help of."):args("?")
end

--- The help of parser `p`, or of its command `topic`, written to `out`; returns the exit status
-- (2, with a line on stderr, for an unknown command).
function M.show(p, topic, out)
  if topic == nil then
    out:write(p:get_help(), "\n")
    return 0
  end
  for _, c in ipairs(p._commands) do
    if c._name == topic then
      out:write(c:get_help(), "\n")
      return 0
    end
  end
  local names = {}
  for _, c in ipairs(p._commands) do names[#names + 1] = c._name end
  io.stderr:write(string.format("tilewave: help: unknown command '%s' (commands: %s)\n", topic,
    table.concat(names, ", ")))
  return 2
end

--- Run the command on parsed `args`, writing to `out`; `p` is the parser the arguments came from.
function M.run(args, out, p) return M.show(p, args.topic, out) end

return M
