-- busted specs for charts: tilewave.report.plot (gnuplot SVG) and `tilewave plot`.
-- Each chart must be well-formed XML (LuaExpat), draw at least three series, carry
-- axis labels with units, and be byte-identical across runs.
local lxp = require "lxp"
local process = dofile("tests/lua/helpers/process.lua")
local plot = require "tilewave.report.plot"
local figures = require "tilewave.explore.figures"

local function read(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end

-- Parse an SVG: the number of drawn plot groups and the text it shows.
local function svg_facts(text)
  local plots, texts, depth_text = {}, {}, 0
  local p = lxp.new {
    StartElement = function(_, name, attrs)
      local id = attrs.id
      if id and id:match("^gnuplot_plot_%d+$") then plots[id] = true end
      if name == "text" then depth_text = depth_text + 1 end
    end,
    EndElement = function(_, name) if name == "text" then depth_text = depth_text - 1 end end,
    CharacterData = function(_, s) if depth_text > 0 then texts[#texts + 1] = s end end,
  }
  assert(p:parse(text))
  assert(p:parse())
  p:close()
  local n = 0
  for _ in pairs(plots) do n = n + 1 end
  return n, table.concat(texts, "|")
end

-- The x-axis tic labels of an SVG: centred labels on the lowest baseline of the plot's tics,
-- `{ x (px), text }` in order. A label is about 0.6 em wide per character (Helvetica 12: 7.2 px).
local function x_tic_labels(text)
  local found, base = {}, 0
  for x, y, body in text:gmatch('<g transform="translate%(([%d.]+),([%d.]+)%)"[^>]-text%-anchor="middle">%s*<text>([^<]*)</text>') do
    found[#found + 1] = { x = tonumber(x), y = tonumber(y), text = body }
    if tonumber(y) > base then base = tonumber(y) end
  end
  local row = {}
  for _, l in ipairs(found) do
    -- the axis title sits below the tics: keep the row of labels nearest to the axis
    if l.y < base - 1 then row[#row + 1] = l end
  end
  if #row == 0 then row = found end
  local y_row = 0
  for _, l in ipairs(row) do if l.y > y_row then y_row = l.y end end
  local out = {}
  for _, l in ipairs(row) do if math.abs(l.y - y_row) < 1 then out[#out + 1] = l end end
  table.sort(out, function(a, b) return a.x < b.x end)
  return out
end

-- The layout of a gnuplot SVG: the plot area (the largest closed rectangle), the legend box (the
-- other one), every text with its box (about 0.6 em a character; rotated ones turned), the legend's
-- entries (the texts of the plot groups below or beside the plot area) and the data's extent (the
-- plot groups' paths and points inside the plot area).
local function layout(text)
  local rects = {}
  for d in text:gmatch("d='([^']-Z)%s*'") do
    local x1, y1, x2, y2 = math.huge, math.huge, -math.huge, -math.huge
    for x, y in d:gmatch("([%d.]+),([%d.]+)") do
      x, y = tonumber(x), tonumber(y)
      x1, y1, x2, y2 = math.min(x1, x), math.min(y1, y), math.max(x2, x), math.max(y2, y)
    end
    rects[#rects + 1] = { x1 = x1, y1 = y1, x2 = x2, y2 = y2, area = (x2 - x1) * (y2 - y1) }
  end
  table.sort(rects, function(a, b) return a.area > b.area end)
  local area, key = rects[1], nil
  for i = 2, #rects do
    local r = rects[i]
    if math.abs(r.x1 - area.x1) > 1 or math.abs(r.y1 - area.y1) > 1 then key = r break end
  end
  local texts, entries = {}, {}
  local data = { x1 = math.huge, x2 = -math.huge, y1 = math.huge, y2 = -math.huge }
  local function in_area(x, y) return x >= area.x1 - 1 and x <= area.x2 + 1 and y >= area.y1 - 1 and y <= area.y2 + 1 end
  for group in (text .. '<g id="gnuplot_plot_'):gmatch('(.-)<g id="gnuplot_plot_') do
    local in_plot = group:match('^%d+"') ~= nil
    for tx, ty, rest, size, anchor, body in group:gmatch('<g transform="translate%(([%d.]+),([%d.]+)%)([^"]*)"[^>]-'
        .. 'font%-size="([%d.]+)"[^>]-text%-anchor="(%a+)">%s*<text>([^<]*)</text>') do
      local x, y, fs, w = tonumber(tx), tonumber(ty), tonumber(size), (utf8.len(body) or #body) * 0.6 * tonumber(size)
      local x1 = anchor == "end" and x - w or anchor == "middle" and x - w / 2 or x
      local box = { x1 = x1, x2 = x1 + w, y1 = y - fs * 0.8, y2 = y + fs * 0.2, text = body }
      if rest:find("rotate") then -- turned a quarter: the run is vertical
        local y0 = anchor == "end" and y or anchor == "middle" and y - w / 2 or y - w
        box = { x1 = x - fs * 0.8, x2 = x + fs * 0.2, y1 = y0, y2 = y0 + w, text = body }
      end
      if body:match("%S") then texts[#texts + 1] = box end
      if in_plot and not in_area(x, y) then entries[#entries + 1] = body:match("^%s*(.-)%s*$") end
    end
    if in_plot then
      for x, y in group:gmatch("([%d.]+),([%d.]+)") do
        x, y = tonumber(x), tonumber(y)
        if in_area(x, y) then
          data.x1, data.x2, data.y1, data.y2 = math.min(data.x1, x), math.max(data.x2, x), math.min(data.y1, y), math.max(data.y2, y)
        end
      end
    end
  end
  return { area = area, key = key, texts = texts, entries = entries, data = data }
end

-- A chart fit for a slide: the legend's entries each once, its box under a quarter of the plot area
-- and inside the picture, no two texts on one another, and the data spanning the axes (not an
-- axis running far past it).
local function check_layout(path, text)
  local l = layout(text)
  local seen = {}
  for _, e in ipairs(l.entries) do
    assert.is_nil(seen[e], path .. ": legend entry '" .. e .. "' twice")
    seen[e] = true
  end
  if l.key then
    local k = l.key
    assert.is_true((k.x2 - k.x1) * (k.y2 - k.y1) <= 0.25 * l.area.area, path .. ": legend over 25% of the plot area")
    assert.is_true(k.x1 >= 0 and k.x2 <= 961, path .. ": legend past the picture's edge")
    -- beside the plot, a legend narrows it: at most a quarter of the picture's width
    if k.x1 >= l.area.x2 then assert.is_true(k.x2 - k.x1 <= 240, path .. ": legend beside the plot, over 25% wide") end
  end
  for i = 1, #l.texts do
    for j = i + 1, #l.texts do
      local a, b = l.texts[i], l.texts[j]
      local overlap = math.min(a.x2, b.x2) - math.max(a.x1, b.x1) > 1 and math.min(a.y2, b.y2) - math.max(a.y1, b.y1) > 1
      assert.is_false(overlap, string.format("%s: texts '%s' and '%s' overlap", path, a.text, b.text))
    end
  end
  local d, a = l.data, l.area
  assert.is_true(d.y2 - d.y1 >= 0.88 * (a.y2 - a.y1), path .. ": the y axis runs far past the data")
  assert.is_true(d.x2 - d.x1 >= 0.5 * (a.x2 - a.x1), path .. ": the x axis runs far past the data")
end

local function check_chart(path, units, min_series)
  local text = read(path)
  check_layout(path, text)
  local n, shown = svg_facts(text)
  assert.is_true(n >= (min_series or 3), path .. ": " .. n .. " series")
  for _, u in ipairs(units) do assert.truthy(shown:find(u, 1, true), path .. " lacks " .. u) end
  -- x tic labels do not overlap: each gap between centres holds half of both labels and a space
  local ticks = x_tic_labels(text)
  for i = 2, #ticks do
    local a, b = ticks[i - 1], ticks[i]
    local need = (utf8.len(a.text) + utf8.len(b.text)) / 2 * 7.2 + 7.2
    assert.is_true(b.x - a.x >= need, string.format("%s: x tic labels '%s' and '%s' overlap (%.0f px apart, %.0f needed)",
      path, a.text, b.text, b.x - a.x, need))
  end
end

describe("charts", function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(require("lfs").mkdir(dir))

  it("writes the gnuplot script with labels, log axes, marks and escaped text", function()
    local s = plot.script({ title = 'say "hi"', xlabel = "x (s)", ylabel = "y (FLOP/s)", logx = true,
      series = { { title = "a", points = { { 1, 2 } } } }, marks = { { x = 3, label = "m" } } }, "o.svg")
    assert.truthy(s:find([[set title 'say "hi"']], 1, true))
    assert.truthy(s:find("set xlabel 'x (s)'", 1, true))
    assert.truthy(s:find("set logscale x 10", 1, true))
    assert.truthy(s:find("set arrow 1 from 3, graph 0 to 3, graph 1", 1, true))
    assert.truthy(s:find("1 2\nEOD", 1, true))
    assert.has_error(function() plot.script({ series = {} }, "o.svg") end, "plot: expected a chart with at least one series")
    -- at most plot.X_TICS_MAX x tics: 0-61.8 ms by 20 ms (61.8 / 5 = 12.4 -> 20), 12 decades by 100x
    s = plot.script({ xunit = "s", series = { { points = { { 0, 1 }, { 0.0618, 2 } } } } }, "o.svg")
    assert.truthy(s:find("set xtics 0.02\n", 1, true) or s:find("set xtics 0.02\n", 1, true))
    s = plot.script({ logx = true, series = { { points = { { 1, 1 }, { 1e12, 2 } } } } }, "o.svg")
    assert.truthy(s:find("set xtics 100\n", 1, true))
    s = plot.script({ logx = true, series = { { points = { { 1, 1 }, { 1e4, 2 } } } } }, "o.svg")
    assert.is_nil(s:find("set xtics", 1, true))
  end)

  it("cuts what does not fit, draws coinciding lines once, one palette colour per device", function()
    local tw = require "tilewave"
    local c = figures.decode("llama-3.1-8b", { "h100_sxm5", "h200_sxm" }, {})
    local fit = tw.inference.memory { model = "llama-3.1-8b", hw = "h100_sxm5", context = 2048 }
    for _, sr in ipairs(c.series) do
      if sr.title == "h100_sxm5 per sequence" or sr.title == "h100_sxm5 aggregate" then
        for _, p in ipairs(sr.points) do assert.is_true(p[1] <= fit.max_batch, sr.title) end
      end
    end
    local s = plot.script(c, "o.svg")
    -- the two ceilings, 3% apart (h200's compute fraction), are one line on a 4-decade axis
    assert.truthy(s:find("title 'h100_sxm5 ≈ h200_sxm compute ceiling (aggregate)'", 1, true))
    assert.is_nil(s:find("title 'h200_sxm compute ceiling", 1, true))
    -- Okabe-Ito: blue for the first device's three lines, vermillion for the second's
    local _, blue = s:gsub("lc rgb '#0072B2'", "")
    local _, red = s:gsub("lc rgb '#D55E00'", "")
    assert.equal(3, blue)
    assert.equal(2, red) -- its ceiling drawn as the first's
    assert.truthy(s:find("set key below center horizontal box", 1, true))
    -- a title given twice is listed once; a second axis for a second unit
    s = plot.script({ y2label = "KV cache in use (%)", series = {
      { title = "a", points = { { 1, 1 }, { 2, 2 } } }, { title = "a", points = { { 1, 2 }, { 2, 3 } } },
      { title = "kv", points = { { 1, 50 }, { 2, 60 } }, axis = "y2" } } }, "o.svg")
    local _, titled = s:gsub("title 'a'", "")
    assert.equal(1, titled)
    assert.truthy(s:find("using 1:2 axes x1y2 with", 1, true))
    assert.truthy(s:find("set y2label 'KV cache in use (%)'", 1, true))
  end)

  it("marks saturation on the throughput plateau, not where a short run's drain shows", function()
    local charts = require "tilewave.report.serve_charts"
    local function run(rate, done) return { rate = rate, throughput = { requests_per_s = done } } end
    -- 600 requests at 4 req/s finish 2.4 s after the last arrival: 3.73 completed per s, 93% of the rate,
    -- far from the 28.7 the deployment tops out at (issue 50: "saturation" at TTFT p50 27 ms)
    local runs = { run(1, 0.95), run(4, 3.73), run(16, 13.4), run(32, 22.3), run(64, 28.7), run(128, 28.9) }
    assert.equal(64, charts.saturation(runs))
    assert.is_nil(charts.saturation { run(1, 0.95), run(4, 3.73), run(16, 15.5) })
  end)

  it("places a model's GEMMs under the roof on a roofline", function()
    local c = figures.roofline({ "h100_sxm5" }, { "llama-2-7b" }, {})
    local roof = c.series[1].points
    -- H100 SXM5 bf16: 989.4e12 FLOP/s over 3.35e12 byte/s = 295.3 FLOP/B (hw/h100_sxm5.lua)
    assert.near(295.3, roof[2][1], 0.1)
    for _, s in ipairs(c.series) do
      if s.title:find("^op: ") then
        for _, p in ipairs(s.points) do
          assert.is_true(p[2] <= math.min(989.4e12, p[1] * 3.35e12) * 1.0001, s.title)
        end
      end
    end
  end)

  it("draws roofline, gemm, sweep and decode charts through the CLI", function()
    local cases = {
      -- each with its title, its axes' units and a series name
      { "plot roofline --hw h100_sxm5,a100_sxm4_80gb --models llama-2-7b,pythia-1b", "roof.svg",
        -- rates on a log axis read with SI prefixes: "100 TFLOP/s", "1 PFLOP/s"
        { "Roofline, bf16: h100_sxm5, a100_sxm4_80gb; ops of 2 model(s) on h100_sxm5", "(FLOP/byte)", "100 TFLOP/s", "1 PFLOP/s" } },
      { "plot gemm --sweep wave --hw h100_sxm5 --measured ../shared/reference/calibration/h100/gemm.csv",
        "wave.svg", { "wave quantization: M = 2304, K = 4096", "N (elements)", "TFLOP/s", "measured" } },
      { "plot gemm --sweep tile --hw a100_sxm4_80gb", "tile.svg",
        { "tile quantization: M = 27648, K = 4096", "N (elements)" } },
      { "plot sweep tests/lua/fixtures/plot/sweep3.lua --x hidden_size --y tflops", "sweep.svg",
        { "achieved rate (TFLOP/s) against hidden_size", "(TFLOP/s)", "l4" } },
      { "plot decode llama-3.1-8b --hw h100_sxm5,l4", "decode.svg",
        { "Decode of llama-3.1-8b, context 2048, compiled engine", " tokens/s", "(sequences)" } },
    }
    for _, c in ipairs(cases) do
      local path = dir .. "/" .. c[2]
      local code, out, err = process.run(c[1] .. " --out " .. path)
      assert.equal(0, code, err)
      assert.truthy(out:find("wrote " .. path, 1, true))
      check_chart(path, c[3])
      local first = read(path)
      assert.equal(0, (process.run(c[1] .. " --out " .. path)))
      assert.equal(first, read(path), c[2] .. " is not deterministic")
    end
  end)

  it("draws the serving and sizing charts: titles, units, series, tics apart, the same bytes twice", function()
    local serve = "serve llama-3-8b --hw h100_sxm5 --rate 2,8 --requests 300 --replay --plots " .. dir .. "/serve"
    local code, out, err = process.run(serve)
    assert.equal(0, code, err)
    -- --plots says what it wrote, after the table
    local tail = "\nwrote " .. dir .. "/serve/serve_latency.svg\nwrote " .. dir .. "/serve/serve_throughput.svg\n"
      .. "wrote " .. dir .. "/serve/serve_timeline.svg\n"
    assert.equal(tail, out:sub(-#tail), out)
    -- a small search (2 GPUs at most, 4 draws of p_meet): every run is in steady state, several times slower
    -- under the sanitizers
    code, _, err = process.run("serve llama-3-8b --search --rate 4 --slo ttft=1s,tpot=50ms --hw h100_sxm5,l40s "
      .. "--max-gpus 2 --samples 4 --plots " .. dir .. "/serve", 300)
    assert.equal(0, code, err)
    local charts = {
      { "serve_latency.svg", { "Latency against load: llama-3-8b on h100_sxm5", "10 ms", "request rate (req/s)",
                               "TTFT p99" }, 4 },
      { "serve_throughput.svg", { "Throughput against load", "ktok/s", "offered" }, 2 },
      { "serve_timeline.svg", { "One run, rate 8 req/s", "10.0 s", "KV cache in use (%)" }, 3 },
      { "size_pareto.svg", { "Deployments serving 4 req/s within the SLO" }, 1 },
      { "size_cost_tpot.svg", { "Cheapest deployment serving 4 req/s against the TPOT target", "USD" }, 1 },
    }
    for _, c in ipairs(charts) do check_chart(dir .. "/serve/" .. c[1], c[2], c[3]) end
    local first = read(dir .. "/serve/serve_latency.svg")
    assert.equal(0, (process.run(serve)))
    assert.equal(first, read(dir .. "/serve/serve_latency.svg"), "serve_latency.svg is not deterministic")
  end)

  it("writes the report's figures and links them", function()
    local code, _, err = process.run("report --models llama-3.1-8b,pythia-1b --plots " .. dir
      .. "/rep --out " .. dir .. "/rep/report.md")
    assert.equal(0, code, err)
    local md = read(dir .. "/rep/report.md")
    assert.truthy(md:find("![Roofline of the ops on h100_sxm5](roofline.svg)", 1, true))
    assert.truthy(md:find("![Decode of llama-3.1-8b on h100_sxm5](decode.svg)", 1, true))
    check_chart(dir .. "/rep/roofline.svg", { "(FLOP/byte)" })
    check_chart(dir .. "/rep/decode.svg", { " tokens/s" })
  end)

  -- issue 66 item 1: gnuplot runs a command in backquotes inside a double-quoted string; every name
  -- a chart carries is single-quoted (plot.quote), and a datablock label is data
  it("runs nothing a title, legend, label or folder holds, and shows the text as given", function()
    -- a command run would run in this directory (gnuplot's): a file name without a slash
    local probe = "PWNED66_" .. os.time()
    local hostile = "a`touch " .. probe .. "` $(touch " .. probe .. ") it's \\ \"q\" @x"
    assert.equal("'a''b `c` \\n'", plot.quote("a'b `c` \\n"))
    assert.equal("'one two'", plot.quote("one\ntwo"))
    local folder = dir .. "/f`touch " .. probe .. "`"
    assert.truthy(require("lfs").mkdir(folder))
    local out = folder .. "/c.svg"
    plot.svg({ title = hostile, xlabel = hostile, ylabel = "y", marks = { { x = 2, label = hostile } },
      series = { { title = hostile, points = { { 1, 1 }, { 2, 2 }, { 3, 3 } } },
                 { title = "l", with = "points", labels = true, points = { { 1, 2, hostile }, { 2, 3, "b" } } } } }, out)
    assert.is_nil(io.open(probe), "a backquoted command ran")
    local _, text = svg_facts(read(out))
    assert.truthy(text:find("a`touch " .. probe .. "` $(touch " .. probe .. ") it's \\ \"q\" @x", 1, true), text)
    -- the label column keeps the text as one column: its double quotes become single ones
    assert.truthy(text:find("it's \\ 'q' @x", 1, true), text)
    -- the CLI's own charts: a --plots folder and a hardware spec file named with backquotes
    local code, _, err = process.run("serve llama-3.1-8b --rate 1,2 --replay --requests 20 --isl 128 --osl 32 --plots '"
      .. dir .. "/p`touch " .. probe .. "`'")
    assert.equal(0, code, err)
    assert.is_nil(io.open(probe), "a --plots folder ran a command")
    code, _, err = process.run("plot roofline --hw 'tests/x`touch " .. probe .. "`.lua' --out " .. dir .. "/r.svg")
    assert.is_nil(io.open(probe), "a hardware spec's name ran a command")
    os.remove(probe)
  end)

  it("names the field on bad input", function()
    local code, out, err = process.run("plot sweep tests/lua/fixtures/plot/sweep3.lua --x vocab_size --out "
      .. dir .. "/x.svg")
    assert.equal(1, code)
    assert.equal("", out)
    assert.truthy(err:find("plot.x: expected a varied field of the sweep, got 'vocab_size'", 1, true))
    code = process.run("plot gemm --sweep diagonal --out " .. dir .. "/x.svg")
    assert.equal(2, code)
  end)
end)
