--- tilewave.cli.calibrate: `tilewave calibrate`, the model's error on every
-- calibration set, by set and engine (tilewave.explore.accuracy), and a check
-- against pinned bounds so that a change that worsens accuracy fails.
local accuracy = require "tilewave.explore.accuracy"
local csv = require "tilewave.util.csv"
local json = require "tilewave.util.json"
local table_text = require("tilewave.report.format").table

local M = {}
local format = string.format

--- Add the `calibrate` command to argparse parser `p`.
function M.define(p)
  local c = p:command("calibrate", "Model error (MAPE, bias, interval coverage) on each calibration set, by set and "
    .. "engine: the published CSVs and measurement folders in the format of ../shared/reference/calibration/h100.")
  c:argument("dir", "Measurement folders (default: the shared h100 folder and its second_machine).")
    :args("*")
  c:option("--hw", "Device the folders were measured on."):default("h100_sxm5")
  c:flag("--rows", "Print every row (predicted, measured, interval).")
  c:option("--bounds", "A Lua file returning { [\"<set>|<engine>\"] = max MAPE (fraction) }: exit 1 if a set "
    .. "exceeds its bound or a bound matches no set.")
  c:option("--format", "Output format."):choices({ "text", "json" }):default("text")
end

local function pct(x) return format("%.1f%%", 100 * x) end

--- Run `tilewave calibrate` with parsed `args`; writes to `out`; returns the exit status.
function M.run(args, out)
  local dirs = args.dir
  if #dirs == 0 then
    local h100 = csv.shared_dir() .. "/calibration/h100"
    dirs = { h100, h100 .. "/second_machine" }
  end
  local rows = accuracy.published()
  for _, d in ipairs(dirs) do
    local name = d:match("([^/]+)/*$")
    for _, r in ipairs(accuracy.measured(d, args.hw, name)) do rows[#rows + 1] = r end
  end
  local sums = accuracy.summarize(rows)
  if args.format == "json" then
    out:write(json.encode({ sets = sums, rows = args.rows and rows or nil }), "\n")
  else
    if args.rows then
      local t = {}
      for _, r in ipairs(rows) do
        t[#t + 1] = { r.set, r.engine, r.label or "", format("%.4g", r.measured), format("%.4g", r.predicted),
                      format("%+.1f%%", 100 * (r.predicted - r.measured) / r.measured),
                      format("%.4g-%.4g", r.low, r.high) }
      end
      out:write(table_text({ "set", "engine", "row", "measured s", "predicted s", "error", "interval s" }, t), "\n\n")
    end
    local t = {}
    for _, s in ipairs(sums) do
      t[#t + 1] = { s.set, s.engine, tostring(s.n), pct(s.mape), format("%+.1f%%", 100 * s.bias),
                    format("%+.1f%%", 100 * s.worst), pct(s.coverage) }
    end
    out:write(table_text({ "set", "engine", "rows", "MAPE", "bias", "worst", "in interval" }, t), "\n")
  end
  if not args.bounds then return 0 end
  local chunk, err = loadfile(args.bounds, "t", {})
  if not chunk then error("calibrate.bounds: " .. err, 0) end
  local fails, missing = accuracy.check(sums, chunk())
  for _, k in ipairs(missing) do fails[#fails + 1] = format("bound '%s' matches no set", k) end
  for _, f in ipairs(fails) do out:write("FAIL ", f, "\n") end
  if #fails == 0 then out:write("calibration bounds: all met\n") end
  return #fails == 0 and 0 or 1
end

return M
