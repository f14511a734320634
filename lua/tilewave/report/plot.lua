--- tilewave.report.plot: draw a chart description as SVG through gnuplot
-- (the Debian package gnuplot-nox; scripts/bootstrap installs it).
--
--   plot.svg({ title = "...", xlabel = "N (elements)", ylabel = "FLOP/s", logx = true,
--              series = { { title = "predicted", points = { { x, y }, ... }, with = "lines" } },
--              marks = { { x = 2048, label = "cliff" } } }, "out.svg")
--
-- A chart is data only; tilewave.explore.figures builds them from the cost layer. Fields: `title`,
-- `xlabel`, `ylabel` (with units, or name the unit in `xunit` / `yunit`: tics then read with SI
-- prefixes, "100 TFLOP/s"), `logx`, `logy` (booleans), `series` (array of `{ title, points = { {x,
-- y [, label]} }, with = "lines" | "points" | "linespoints" | "steps", dash (true: dashed, "dot":
-- dotted), labels (true: print each point's label) }`), `marks` (vertical lines `{ x, label }`),
-- `hmarks` (horizontal `{ y, label }`), `width`, `height` (pixels, default 960 x 600), `key`
-- (gnuplot key position, default "below center horizontal": under the plot area, never beside it),
-- `y2label`, `y2unit` (a second y axis, on the right, for the series with `axis = "y2"`: two units,
-- two axes). A series may also name its `group` (default its title): a group's series share one
-- colour of M.PALETTE, in order of first appearance. The legend lists each title once (a repeated
-- title draws without an entry), and series that coincide point for point are drawn once, their
-- titles joined ("h100_sxm5 = h200_sxm compute ceiling"). Both axes fit the data (gnuplot's
-- autoscale fix, the y axis with 5% of room above and below). The output is deterministic: numbers
-- are written with 17 significant digits, text is not interpreted (noenhanced), and gnuplot's SVG
-- carries no date.
local M = {}

local format, concat, ipairs = string.format, table.concat, ipairs

--- The gnuplot executable (override for tests or other installs).
M.GNUPLOT = "gnuplot"

--- A gnuplot single-quoted string literal of `s`: the only quoting gnuplot leaves alone. Its
-- command-line substitution (a command in backquotes, run by the shell) "can be used anywhere on
-- the gnuplot command line except inside strings delimited by single quotes", and backslashes are
-- ordinary characters there; a single quote is written doubled (gnuplot 5.4 documentation,
-- "Substitution of system commands in backquotes" and "Quote marks"). Macros (@name) are not
-- expanded inside quotes, and the terminal is noenhanced. Control characters (a newline would end
-- the command) become spaces. So no name a user gives - a file, a folder, a device or model id -
-- runs as a command when a chart is drawn (tests/lua/plot_spec.lua).
function M.quote(s)
  return "'" .. tostring(s):gsub("[%c]", " "):gsub("'", "''") .. "'"
end
local quote = M.quote

-- A label column of a datablock line: gnuplot's data reader takes a double-quoted string there
-- and does no substitution (datablock lines are data, not commands), but reads a backslash as an
-- escape: it is written doubled; a double quote inside becomes a single one and control characters
-- spaces, so the label stays one column on one line.
local function data_label(s)
  return '"' .. tostring(s):gsub("[%c]", " "):gsub("\\", "\\\\"):gsub('"', "'") .. '"'
end

local function num(x) return format("%.17g", x) end

local x_tics

--- The colours of the series groups, in order: Okabe and Ito's eight colours for colour-vision
-- deficiencies (M. Okabe, K. Ito, "Color Universal Design (CUD): how to make figures and
-- presentations that are friendly to colorblind people", 2008), black and the pale yellow last.
M.PALETTE = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442" }

-- two series draw the same line: the same style and x values, and y values within `tol` of each
-- other on the axis as drawn (`logy`: in decades); "=" within 0.5%, else "≈" (apart by less than a
-- line's width)
local function coincide(a, b, tol, logy)
  if (a.with or "lines") ~= (b.with or "lines") or (a.dash or false) ~= (b.dash or false) or a.labels or b.labels
     or (a.axis or "y1") ~= (b.axis or "y1") or #a.points ~= #b.points then
    return nil
  end
  local exact = true
  for i, p in ipairs(a.points) do
    local q = b.points[i]
    if p[1] ~= q[1] then return nil end
    local d = logy and (p[2] > 0 and q[2] > 0) and math.abs(math.log(p[2] / q[2], 10)) or math.abs(p[2] - q[2])
    if not (d <= tol) then return nil end
    if math.abs(p[2] - q[2]) > 0.005 * math.max(math.abs(p[2]), math.abs(q[2])) then exact = false end
  end
  return exact and " = " or " ≈ "
end

-- "A = B suffix" from "A suffix" and "B suffix" (the longest common ending at a word), "prefix A =
-- B" from "prefix A" and "prefix B" (the longest common start at a word), else "a = b"
local function joined(a, b, sep)
  local pre = 0
  while pre < #a and pre < #b and a:sub(pre + 1, pre + 1) == b:sub(pre + 1, pre + 1) do pre = pre + 1 end
  local word = a:sub(1, pre):match("^.* ")
  if word and #word > 1 then return a .. sep .. b:sub(#word + 1) end
  local n = 0
  while n < #a and n < #b and a:sub(-n - 1, -n - 1) == b:sub(-n - 1, -n - 1) do n = n + 1 end
  local suffix = a:sub(#a - n + 1)
  local cut = suffix:find(" ", 1, true)
  if not cut then return a .. sep .. b end
  suffix = suffix:sub(cut)
  return a:sub(1, #a - #suffix) .. sep .. b:sub(1, #b - #suffix) .. suffix
end

-- the span of the y values on the axis as drawn (decades on a log axis)
local function y_span(series, logy)
  local lo, hi = math.huge, -math.huge
  for _, s in ipairs(series) do
    for _, p in ipairs(s.points) do
      local y = logy and (p[2] > 0 and math.log(p[2], 10) or nil) or p[2]
      if y then lo, hi = math.min(lo, y), math.max(hi, y) end
    end
  end
  return hi > lo and hi - lo or 0
end

-- the series as drawn: coinciding ones merged, each with its colour and legend title (nil: none)
local function drawn(series, logy)
  local out = {}
  -- 1% of the axis: under 5 px at the default height
  local tol = 0.01 * y_span(series, logy)
  for _, s in ipairs(series) do
    local merged = false
    for _, d in ipairs(out) do
      local sep = coincide(d.s, s, tol, logy)
      if sep then
        if s.title and d.title and not d.title:find(s.title, 1, true) then d.title = joined(d.title, s.title, sep) end
        merged = true
        break
      end
    end
    if not merged then out[#out + 1] = { s = s, title = s.title } end
  end
  local colour, ncol, seen = {}, 0, {}
  for _, d in ipairs(out) do
    local g = d.s.group or d.s.title or ""
    if not colour[g] then
      ncol = ncol + 1
      colour[g] = M.PALETTE[(ncol - 1) % #M.PALETTE + 1]
    end
    d.colour = colour[g]
    if d.title == nil or d.title == "" or seen[d.title] then d.title = nil else seen[d.title] = true end
  end
  return out
end

local STYLE = { lines = "lines lw 2", points = "points pt 7 ps 0.9", linespoints = "linespoints lw 2 pt 7 ps 0.6",
                steps = "steps lw 2" }

--- Most tic labels on the x axis: at 960 px, with the key outside, about 110 px each, room for
-- a label such as "20.0 ms" or "100 TFLOP/s" and a gap (gnuplot spaces tics by the range alone).
M.X_TICS_MAX = 6

-- The x axis's span: xrange, else the points' and marks' extremes; nil when empty or flat.
local function x_span(chart)
  if chart.xrange then return chart.xrange[1], chart.xrange[2] end
  local lo, hi = math.huge, -math.huge
  for _, s in ipairs(chart.series) do
    for _, p in ipairs(type(s.points) == "table" and s.points or {}) do
      local x = tonumber(p[1])
      if x and x == x and (not chart.logx or x > 0) then lo, hi = math.min(lo, x), math.max(hi, x) end
    end
  end
  for _, m in ipairs(chart.marks or {}) do
    local x = tonumber(m.x)
    if x and x == x and (not chart.logx or x > 0) then lo, hi = math.min(lo, x), math.max(hi, x) end
  end
  if not (hi > lo) or hi == math.huge or lo == -math.huge then return nil end
  return lo, hi
end

-- "set xtics" with a step that leaves at most M.X_TICS_MAX labels: 1, 2 or 5 times a power of ten
-- on a linear axis, a power of ten per tic on a log one; nil where gnuplot's own choice fits.
x_tics = function(chart)
  local lo, hi = x_span(chart)
  if not lo then return nil end
  local span = chart.logx and math.log(hi / lo, 10) or hi - lo
  if not (span > 0) or span == math.huge then return nil end
  if chart.logx then
    if span <= M.X_TICS_MAX then return nil end
    return format("set xtics %s", num(10 ^ math.ceil(span / M.X_TICS_MAX)))
  end
  local raw = span / (M.X_TICS_MAX - 1)
  local p10 = 10 ^ math.floor(math.log(raw, 10))
  for _, f in ipairs { 1, 2, 5, 10 } do
    if f * p10 >= raw then return format("set xtics %s", num(f * p10)) end
  end
end

--- The gnuplot script that draws `chart` into the SVG file `path`.
-- @raise `plot: <field>: ...` for a malformed chart
function M.script(chart, path)
  -- 100 lines, one function: the gnuplot script written in the order gnuplot reads it (terminal,
  -- axes, key, series)
  if type(chart) ~= "table" or type(chart.series) ~= "table" or #chart.series == 0 then
    error("plot: expected a chart with at least one series", 0)
  end
  local L = {
    format("set terminal svg size %d,%d dynamic noenhanced font 'Helvetica,12' background rgb 'white'",
      chart.width or 960, chart.height or 600),
    "set output " .. quote(path),
    "set encoding utf8",
    "set title " .. quote(chart.title or ""),
    "set xlabel " .. quote(chart.xlabel or ""),
    "set ylabel " .. quote(chart.ylabel or ""),
    "set grid",
    "set key " .. (chart.key or "below center horizontal") .. " box",
    "set tics out",
    "set style textbox opaque noborder margins 1,1",
    -- the axes end at the data (5% of room above and below it)
    "set autoscale xfix",
    "set autoscale yfix",
    "set offsets 0, 0, graph 0.05, graph 0.05",
  }
  if chart.logx then L[#L + 1] = "set logscale x 10" end
  if chart.logy then L[#L + 1] = "set logscale y 10" end
  if chart.y2label then
    L[#L + 1] = "set y2label " .. quote(chart.y2label)
    L[#L + 1] = "set ytics nomirror"
    L[#L + 1] = "set y2tics"
    L[#L + 1] = "set autoscale y2fix"
    L[#L + 1] = "set y2range [0:*]" -- counts and percentages: from zero
    if chart.y2unit then L[#L + 1] = format("set format y2 %s", quote("%.1s %c" .. chart.y2unit)) end
  end
  -- tics in SI prefixes with their unit ("100 TFLOP/s", not "1e+14"): gnuplot's mantissa %s and
  -- prefix %c; a log axis has whole mantissas at its decades
  for _, ax in ipairs { "x", "y" } do
    local unit = chart[ax .. "unit"]
    if unit then
      L[#L + 1] = format("set format %s %s", ax, quote((chart["log" .. ax] and "%.0s %c" or "%.1s %c") .. unit))
    end
  end
  local xticks = x_tics(chart)
  if xticks then L[#L + 1] = xticks end
  -- the x axis spans the data and the marks, nothing more
  local xlo, xhi = x_span(chart)
  if xlo then L[#L + 1] = format("set xrange [%s:%s]", num(xlo), num(xhi)) end
  if chart.yrange then L[#L + 1] = format("set yrange [%s:%s]", num(chart.yrange[1]), num(chart.yrange[2])) end
  for i, m in ipairs(chart.marks or {}) do
    L[#L + 1] = format("set arrow %d from %s, graph 0 to %s, graph 1 nohead dt 2 lc rgb 'gray40'", i, num(m.x), num(m.x))
    if m.label then
      -- on an opaque box: a line the label crosses stays behind it, the label readable
      L[#L + 1] = format("set label %d %s at %s, graph %s rotate by 90 right offset -0.6,0 font ',10' tc rgb 'gray30' "
        .. "front boxed", i, quote(m.label), num(m.x), num(0.98))
    end
  end
  local off = #(chart.marks or {})
  for i, m in ipairs(chart.hmarks or {}) do
    L[#L + 1] = format("set arrow %d from graph 0, first %s to graph 1, first %s nohead dt 3 lc rgb 'gray40'",
      off + i, num(m.y), num(m.y))
    if m.label then
      L[#L + 1] = format("set label %d %s at graph 0.01, first %s offset 0,0.6 font ',10' tc rgb 'gray30'",
        off + i, quote(m.label), num(m.y))
    end
  end
  local plots = {}
  for i, s in ipairs(chart.series) do
    if type(s.points) ~= "table" or #s.points == 0 then
      error(format("plot: series %d (%s): expected at least one point", i, tostring(s.title)), 0)
    end
  end
  local series = drawn(chart.series, chart.logy)
  if not chart.key then
    -- the legend under the x label, two entries a row where the longest title leaves room for two
    -- (gnuplot sizes a column by the longest title: up to 8 px a character at 12 px, plus the
    -- sample)
    local n, long = 0, 0
    for _, d in ipairs(series) do
      if d.title then n, long = n + 1, math.max(long, utf8.len(d.title) or #d.title) end
    end
    local cols = 2 * (long * 8 + 90) <= 0.9 * (chart.width or 960) and 2 or 1
    L[#L + 1] = format("set key maxcols %d", cols)
    L[#L + 1] = format("set bmargin %d", 4 + math.ceil(n / cols))
  end
  for i, d in ipairs(series) do
    local s = d.s
    L[#L + 1] = format("$d%d << EOD", i)
    for _, p in ipairs(s.points) do L[#L + 1] = format("%s %s", num(p[1]), num(p[2])) end
    L[#L + 1] = "EOD"
    local style = STYLE[s.with or "lines"]
    if not style then error(format("plot: series %d: unknown style '%s'", i, tostring(s.with)), 0) end
    local dt = s.dash == "dot" and " dt 3" or s.dash and " dt 2" or ""
    plots[#plots + 1] = format("$d%d using 1:2%s with %s%s lc rgb '%s' %s", i, s.axis == "y2" and " axes x1y2" or "",
      style, dt, d.colour, d.title and "title " .. quote(d.title) or "notitle")
    if s.labels then
      -- a point's label to its right, except in the right third of the x axis, where it ends at the
      -- point (a label past the plot's right edge is cut off): two blocks of labels, each aligned
      local cut = xlo and (chart.logx and xlo * (xhi / xlo) ^ (2 / 3) or xlo + 2 / 3 * (xhi - xlo)) or math.huge
      for _, side in ipairs { { "l", "left offset 0.5,0.3" }, { "r", "right offset -0.5,0.3" } } do
        local rows = {}
        for _, p in ipairs(s.points) do
          if (tonumber(p[1]) > cut) == (side[1] == "r") then
            rows[#rows + 1] = format("%s %s %s", num(p[1]), num(p[2]), data_label(p[3] or ""))
          end
        end
        if #rows > 0 then
          L[#L + 1] = format("$d%d%s << EOD", i, side[1])
          for _, r in ipairs(rows) do L[#L + 1] = r end
          L[#L + 1] = "EOD"
          plots[#plots + 1] = format("$d%d%s using 1:2:3 with labels %s font ',9' notitle", i, side[1], side[2])
        end
      end
    end
  end
  L[#L + 1] = "plot " .. concat(plots, ", \\\n     ")
  L[#L + 1] = "unset output"
  return concat(L, "\n") .. "\n"
end

--- Create directory `dir` if it does not exist (for `--plots DIR`); returns dir without a trailing
-- slash.
-- @raise `<field>: cannot create DIR (reason)`
function M.dir(dir, field)
  local lfs = require "lfs"
  if dir == "" then
    error(format("%s: expected a folder, got '' (name one: charts are never written into the current folder "
      .. "unasked)", field or "plots"), 0)
  end
  dir = (dir:gsub("/+$", ""))
  if dir == "" then dir = "/" end
  if lfs.attributes(dir, "mode") ~= "directory" then
    local ok, err = lfs.mkdir(dir)
    if not ok then error(format("%s: cannot create %s (%s)", field or "plots", dir, tostring(err)), 0) end
  end
  return dir
end

--- Draw `chart` as SVG into a temporary beside `path`, not renamed: for a command that renames
-- all its outputs at once (tilewave.util.output.transaction).
-- @return the temporary's path
-- @raise as M.svg
function M.svg_temp(chart, path)
  if type(path) ~= "string" or path == "" then error("plot.out: expected an output file path", 0) end
  local output = require "tilewave.util.output"
  output.check_target(path, "plot.out")
  local tmp = format("%s.tmp-%d-%d", path, os.time(), math.random(1, 1e9))
  local text = M.script(chart, tmp)
  local gp = os.tmpname()
  output.write_file(gp, "plot", text)
  local errf = os.tmpname()
  local ok, _, code = os.execute(format("%s %s 2>%s", M.GNUPLOT, gp, errf))
  local ef = io.open(errf)
  local err = ef and ef:read("a") or ""
  if ef then ef:close() end
  os.remove(gp)
  os.remove(errf)
  if not ok then
    os.remove(tmp)
    if code == 127 then
      error("plot: gnuplot not found (install the Debian package gnuplot-nox; scripts/bootstrap does)", 0)
    end
    error(format("plot: gnuplot failed (exit %s): %s", tostring(code), (err:gsub("\n", " "):sub(1, 200))), 0)
  end
  local size = require("lfs").attributes(tmp, "size")
  if not size or size == 0 then
    os.remove(tmp)
    error(format("plot.out: cannot write %s", path), 0)
  end
  return tmp
end

--- Draw `chart` as SVG into `path`: gnuplot draws into a temporary beside it, renamed over it once
-- complete.
-- @return path
-- @raise `plot: gnuplot not found ...` / `plot: gnuplot failed ...` / `plot: cannot write ...`
function M.svg(chart, path)
  local tmp = M.svg_temp(chart, path)
  if not os.rename(tmp, path) then
    os.remove(tmp)
    error(format("plot.out: cannot write %s", path), 0)
  end
  return path
end

return M
