--- tilewave.cli.plot: `tilewave plot roofline|gemm|sweep|decode ... --out FILE.svg`,
-- charts of tilewave.explore.figures drawn by tilewave.report.plot (gnuplot, SVG).
-- define() runs for every command line; the charting modules are required by run().
local M = {}
local format = string.format

-- "a,b" -> { "a", "b" }: no empty item, none twice (devices compared by their canonical id)
local function list(s, field)
  local out, seen = {}, {}
  if s == nil or s == "" then return out end
  for item in (s .. ","):gmatch("([^,]*),") do
    item = item:match("^%s*(.-)%s*$")
    if item == "" then error(format("%s: expected comma-separated names, got '%s'", field, s), 0) end
    local key = field == "plot.hw" and require("tilewave.data.hw").canonical(item) or item
    if seen[key] then error(format("%s: %s given twice in '%s'", field, item, s), 0) end
    seen[key] = true
    out[#out + 1] = item
  end
  return out
end

--- Add the `plot` command and its charts to argparse parser `p`.
function M.define(p)
  local engine_help = require("tilewave.cli.args").ENGINE_HELP
  local pl = p:command("plot", "Draw a chart as SVG (gnuplot): roofline, gemm, sweep or decode.")
  pl:command_target("chart")
  pl:require_command(true)
  local r = pl:command("roofline", "Log-log roofline (FLOP/byte against FLOP/s): each device's datasheet and "
    .. "achievable roofs, ridge points, and the ops of --models at their intensity and predicted rate, by role.")
  r:option("--hw", "Comma-separated device ids or spec paths."):default("h100_sxm5")
  r:option("--models", "Comma-separated model ids whose forward-pass ops are placed (b = 4, s = 2048)."):default("")
  r:option("--dtype", "Element type of the roofs and ops."):default("bf16")
  r:option("--engine", engine_help):default("compiled")
  r:option("--out", "SVG file to write."):count(1)
  local g = pl:command("gemm", "A GEMM sweep of the co-design paper: predicted rate, the bound without tile and "
    .. "wave loss, measured points, cliffs marked.")
  g:option("--sweep", "Which sweep."):choices({ "square", "tile", "wave", "logit" }):count(1)
  g:option("--hw", "Device id or spec path (default a100_sxm4_80gb, unlike the other commands: the device the "
    .. "co-design paper's sweeps were measured on)."):default("a100_sxm4_80gb")
  g:option("--dtype", "Element type (default fp16, the paper's)."):default("fp16")
  g:option("--measured", "CSV in the calibration format (m, n, k, dtype, tflops or time_s) to overlay.")
  g:option("--out", "SVG file to write."):count(1)
  local s = pl:command("sweep", "One metric of a sweep against one varied field, one line per device or model.")
  s:argument("spec", "Sweep spec file (as for tilewave sweep).")
  s:option("--x", "Varied field on the x axis."):count(1)
  s:option("--y", "Metric: time_s, tflops, mfu, tokens_per_s, params."):default("tflops")
  s:option("--by", "One line per device (hw) or per combination of the other varied fields (model)."):choices({ "hw", "model" })
    :default("hw")
  s:option("--out", "SVG file to write."):count(1)
  local d = pl:command("decode", "Decode tokens/s per sequence and in aggregate against batch, with where memory "
    .. "runs out and where the step turns compute-bound.")
  d:argument("model", "Model id.")
  d:option("--hw", "Comma-separated device ids or spec paths."):default("h100_sxm5")
  d:option("--context", "Tokens of KV cache per sequence."):default("2048")
  d:option("--weight-dtype", "Weight format (default: the checkpoint's, as its config.json quantization_config "
    .. "declares, else bf16).")
  d:option("--engine", engine_help):default("compiled")
  d:option("--out", "SVG file to write."):count(1)
end

--- Run `tilewave plot` with parsed `args`; returns the exit status.
-- Every row of a --measured CSV: m, n, k positive integers and tflops or time_s a positive
-- number (a negative, missing or malformed figure is refused, naming the row and column).
local function validate_measured(rows, path)
  if #rows == 0 then error(format("plot.measured: %s: expected rows after the header, got none", path), 0) end
  for i, r in ipairs(rows) do
    local where = format("plot.measured: %s: row %d", path, i + 1) -- line i + 1, after the header
    for _, k in ipairs { "m", "n", "k" } do
      local v = tonumber(r[k])
      if not v or v < 1 or v % 1 ~= 0 or v > 2 ^ 31 then
        error(format("%s: %s: expected a positive integer, got %s", where, k, r[k] and ("'" .. r[k] .. "'") or "nothing"), 0)
      end
    end
    local field = r.tflops ~= nil and r.tflops ~= "" and "tflops" or "time_s"
    local v = tonumber(r[field])
    if not v or not (v > 0 and v < math.huge) then
      error(format("%s: %s: expected a positive number, got %s", where, field,
        r[field] and ("'" .. r[field] .. "'") or "nothing (a short row?)"), 0)
    end
  end
end

function M.run(args, out)
  local figures, plot, csv = require "tilewave.explore.figures", require "tilewave.report.plot", require "tilewave.util.csv"
  local chart
  if args.chart == "roofline" then
    chart = figures.roofline(list(args.hw, "plot.hw"), list(args.models, "plot.models"), { dtype = args.dtype, engine = args.engine })
  elseif args.chart == "gemm" then
    local rows
    if args.measured then
      local err
      rows, err = csv.read(args.measured)
      if not rows then error(format("plot.measured: cannot read %s (%s)", args.measured, tostring(err)), 0) end
      validate_measured(rows, args.measured)
    end
    chart = figures.gemm(args.sweep, { hw = args.hw, dtype = args.dtype, measured = rows })
  elseif args.chart == "sweep" then
    local spec = require("tilewave.util.sandbox").load_spec(args.spec)
    chart = figures.sweep(spec, args.x, args.y, args.by)
  else
    local context = math.tointeger(tonumber(args.context))
    if not context or context < 1 then
      error(format("plot.context: expected positive integer, got '%s'", args.context), 0)
    end
    chart = figures.decode(args.model, list(args.hw, "plot.hw"), { context = context, engine = args.engine,
                                                        weight_dtype = args.weight_dtype })
  end
  plot.svg(chart, args.out)
  out:write(format("wrote %s (%d series)\n", args.out, #chart.series))
  return 0
end

return M
