--- tilewave.cli: the `tilewave` command line (lua-argparse). Its commands are the modules
-- tilewave.cli.<name> that tilewave.cli.parser.COMMANDS lists, each with `define` (its options and
-- their help) and `run`; `tilewave help` lists them from those definitions, and `tilewave help
-- COMMAND` (or COMMAND --help) shows one. Every command writes to the checked stdout
-- (tilewave.util.output); what it prints is formatted in tilewave.report.
--
-- main(argv) returns the exit status:
--   0 success;
--   1 bad input: one line `tilewave: <message>` on stderr naming the field;
--   2 usage error (unknown command or option, missing argument), from argparse;
--   3 internal error: a bug in tilewave, reported as
--     `tilewave: internal error: ..., please report`.
local tw = require "tilewave"
local cli_parser = require "tilewave.cli.parser"
local help = require "tilewave.cli.help"

local M = {}

local output = require "tilewave.util.output"

local format, stderr, stdout = string.format, io.stderr, output.stdout()

M.EXIT_BAD_INPUT, M.EXIT_USAGE, M.EXIT_INTERNAL = 1, 2, 3

--- "-3", "-0.5", "-.5", "-1e9", "-inf": a negative number, never an option name.
local function negative_number(a)
  return a:match("^%-%.?%d") ~= nil or a == "-inf" or a == "-nan"
end

-- Mark negative numbers so that argparse passes them through as values; every
-- string in the parsed arguments gets its "-" back.
local function mark(argv)
  local out = {}
  for i, a in ipairs(argv) do out[i] = negative_number(a) and cli_parser.NEG .. a:sub(2) or a end
  return out
end

local function unmark(v)
  if type(v) == "string" then return cli_parser.unmark(v) end
  if type(v) == "table" then
    for k, x in pairs(v) do v[k] = unmark(x) end
  end
  return v
end

--- Classify an error raised by a command: validation errors are raised as one
-- line with no position (error(msg, 0)); an error carrying the position of a
-- tilewave module is a bug. Returns the message to print and the exit status.
function M.classify(err)
  if type(err) ~= "string" then
    return format("internal error: %s, please report", tostring(err)), M.EXIT_INTERNAL
  end
  local first = err:gsub("\n.*", "")
  -- the library's modules live in <prefix>/lua/tilewave/ (source tree and install alike)
  local module, line, rest = first:match("^.-lua/tilewave/([%w_/]+)%.lua:(%d+): (.*)$")
  if module then
    return format("internal error: %s (tilewave.%s line %s), please report", rest, module:gsub("/", "."), line),
      M.EXIT_INTERNAL
  end
  return first, M.EXIT_BAD_INPUT
end

local function version_text()
  return format("tilewave %s (Lua layer and core library %s, %s)", tw._VERSION, tw._VERSION, _VERSION)
end

--- `tilewave help [COMMAND]`: the help of the parser `p` or of one command, on stdout
-- (tilewave.cli.help.show).
function M.help(p, topic) return help.show(p, topic, stdout) end

local run

--- Run the CLI on `argv` (array of strings); returns the exit status. Standard output is
-- flushed and checked before returning: a write that failed (a full disk, a closed pipe)
-- turns a success into exit 1 with `tilewave: cannot write to stdout: <reason>`.
function M.main(argv)
  local ok, code = pcall(run, argv)
  if not ok then -- a failed write to stdout outside a command (help, version)
    local msg, c = M.classify(code)
    stderr:write("tilewave: ", msg, "\n")
    code = c
  end
  local err = output.flush_stdout()
  if err then
    stderr:write("tilewave: ", err, "\n")
    if code == 0 then code = M.EXIT_BAD_INPUT end
  end
  return code
end

run = function(argv)
  -- `run` passes everything after the script to the script untouched, so its
  -- options are not parsed here.
  if argv[1] == "run" and argv[2] and not argv[2]:match("^%-") then
    local okr, status = pcall(require("tilewave.cli.run").run, { script = argv[2], args = table.move(argv, 3, #argv, 1, {}) })
    if not okr then
      local msg, code = M.classify(status)
      stderr:write("tilewave: ", msg, "\n")
      return code
    end
    return status
  end
  -- `tilewave --version` alone; anywhere else argparse judges it with the other arguments
  if argv[1] == "--version" and #argv == 1 then
    stdout:write(version_text(), "\n")
    return 0
  end
  local p = cli_parser.parser()
  -- -h / --help: the help of the command named (or tilewave's) through the checked stdout
  -- (argparse's own action would print unchecked and exit)
  for _, a in ipairs(argv) do
    if a == "-h" or a == "--help" then
      -- the commands named, down the subcommands (`plot roofline --help`), before the first option
      local topic, cmd = {}, p
      for _, b in ipairs(argv) do
        local found
        for _, c in ipairs(cmd._commands or {}) do
          if c._name == b then found = c break end
        end
        if found then topic[#topic + 1], cmd = b, found elseif #topic > 0 then break end
      end
      return M.help(p, topic)
    end
  end
  local ok, args = p:pparse(mark(argv))
  if not ok then
    stderr:write(format("tilewave: %s (try 'tilewave --help')\n", unmark(args)))
    return M.EXIT_USAGE
  end
  unmark(args)
  if args.version then
    stderr:write("tilewave: --version takes no command or option (tilewave --version) (try 'tilewave --help')\n")
    return M.EXIT_USAGE
  end
  local okr, status = pcall(cli_parser.command(args.command).run, args, stdout, p)
  if not okr then
    local msg, code = M.classify(status)
    stderr:write("tilewave: ", msg, "\n")
    return code
  end
  return status
end

return M
