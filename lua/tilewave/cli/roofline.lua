--- tilewave.cli.roofline: the `roofline` command - the roofline bound of a kernel of given FLOP and
-- bytes on a device (tilewave.roofline).
local args_ = require "tilewave.cli.args"

local M = {}

--- The command's argparse definition in parser `p`.
function M.define(p)
  local r = p:command("roofline", "Roofline bound of a kernel of given FLOP and bytes.")
  r:option("--flops", "Work, FLOP."):convert(args_.num_arg("roofline.flops")):count(1)
  r:option("--bytes", "DRAM traffic, byte."):convert(args_.num_arg("roofline.bytes")):count(1)
  r:option("--hw", "Device id or spec path."):default("h100_sxm5")
  r:option("--dtype", "Element type (default bf16, fp16 on a device without bf16)."):default(nil)
  r:flag("--achievable", "Use the calibrated achievable fractions instead of datasheet peaks.")
  r:option("--format", "Output format."):choices({ "text", "json" }):default("text")
end

--- Run the command on parsed `args`, writing to `out`; returns the exit status.
-- @raise `roofline.<field>: ...` for bad input
function M.run(args, out)
  local tw = require "tilewave"
  local r = tw.roofline { flops = args.flops, bytes = args.bytes, hw = args.hw,
                          dtype = args_.default_dtype(args, "roofline.hw"), achievable = args.achievable or nil }
  if args.format == "json" then
    out:write(tw.report.json(r), "\n")
  else
    out:write(require("tilewave.report.text").roofline(r, args.flops, args.bytes), "\n")
  end
  return 0
end

return M
