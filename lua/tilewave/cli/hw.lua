--- tilewave.cli.hw: the `hw` command - the devices with their peaks, or one device with every
-- figure and its source (tilewave.hw).
local M = {}

--- The command's argparse definition in parser `p`.
function M.define(p)
  local h = p:command("hw", "List devices, or show one.")
  h:argument("id", "Device id or spec path."):args("?")
  h:option("--format", "Output format."):choices({ "text", "json" }):default("text")
end

--- Run the command on parsed `args`, writing to `out`; returns the exit status.
-- @raise `hw: ...` for an unknown device or a bad spec file
function M.run(args, out)
  local tw = require "tilewave"
  if args.id then
    local spec = tw.hw.resolve(args.id, "hw")
    if args.format == "json" then
      out:write(tw.report.json(spec), "\n")
    else
      out:write(require("tilewave.report.listing").hw_text(spec, tw.hw.gemm_params(spec)), "\n")
    end
    return 0
  end
  local list = {}
  for _, id in ipairs(tw.hw.list()) do list[#list + 1] = tw.hw.resolve(id, "hw") end
  out:write(require("tilewave.report.listing").hw(list, args.format))
  return 0
end

return M
