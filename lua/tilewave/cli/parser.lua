--- tilewave.cli.parser: assembles the argparse parser of `tilewave` from its commands. Each
-- command is a module tilewave.cli.<name> with `define(p)` (its argparse command and options, with
-- their help strings) and `run(args, out, p)` (the exit status); M.COMMANDS lists them in the
-- order `tilewave help` shows them. Converters of arguments: tilewave.cli.args.
local argparse = require "argparse"
local args_ = require "tilewave.cli.args"

local M = {}

--- The commands, in help order; each the module tilewave.cli.<name>.
M.COMMANDS = { "help", "run", "gemm", "roofline", "report", "models", "sweep", "check", "decode", "prefill", "train",
               "calibrate", "plot", "serve", "engines", "hw" }

--- The negative-number marker and its inverse (tilewave.cli.args.NEG, .unmark).
M.NEG, M.unmark = args_.NEG, args_.unmark

--- The command module of `name` (one of M.COMMANDS).
function M.command(name) return require("tilewave.cli." .. name) end

--- The argparse parser of every command. A repeated option is an error everywhere ("option
-- '--hw' must be used at most 1 time"), never its last value silently (argparse overwrites by
-- default).
function M.parser()
  local p = argparse("tilewave", "Performance model of transformer workloads on GPUs: GEMM tile/wave/alignment, "
    .. "roofline, model forward, inference, training, serving, sweeps and regression checks.")
    :epilog("Units: s, byte, FLOP, FLOP/s. See README.md.")
  p:command_target("command")
  p:require_command(true)
  p:flag("--version", "Print the version of tilewave and of its core library, and exit.")
  for _, name in ipairs(M.COMMANDS) do M.command(name).define(p) end
  local function strict(cmd)
    for _, o in ipairs(cmd._options) do o:overwrite(false) end
    for _, c in ipairs(cmd._commands) do strict(c) end
  end
  strict(p)
  return p
end

return M
