--- tilewave.cli.help: the `help` command - the help of tilewave or of one command, on stdout
-- (also what -h and --help print, through tilewave.cli).
local M = {}

--- The command's argparse definition in parser `p`.
function M.define(p)
  local help = p:command("help", "Show the help of tilewave or of one command (`tilewave help plot roofline`: "
    .. "of a chart of plot).")
  help:argument("topic", "Command (and subcommand) to show the help of."):args("*")
end

--- The help of parser `p`, or of its command `topic` (a name, or a list of names down the
-- subcommands: { "plot", "roofline" }), written to `out`; returns the exit status (2, with a line on
-- stderr, for an unknown command).
function M.show(p, topic, out)
  if type(topic) == "string" then topic = { topic } end
  local cmd, path = p, "tilewave"
  for _, name in ipairs(topic or {}) do
    local found
    for _, c in ipairs(cmd._commands or {}) do
      if c._name == name then found = c break end
    end
    if not found then
      local names = {}
      for _, c in ipairs(cmd._commands or {}) do names[#names + 1] = c._name end
      io.stderr:write(string.format("tilewave: help: unknown command '%s' of %s (%s)\n", name, path,
        #names > 0 and "commands: " .. table.concat(names, ", ") or "it has no subcommands"))
      return 2
    end
    cmd, path = found, path .. " " .. name
  end
  out:write(cmd:get_help(), "\n")
  return 0
end

--- Run the command on parsed `args`, writing to `out`; `p` is the parser the arguments came from.
function M.run(args, out, p) return M.show(p, args.topic, out) end

return M
