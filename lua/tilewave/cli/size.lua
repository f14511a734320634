--- tilewave.cli.size: `tilewave serve MODEL --search --rate R --slo ttft=..,tpot=..`: deployments
-- ranked by cost per million output tokens (tilewave.serve.size): the search's options from the
-- arguments, its charts; the text, CSV and JSON are tilewave.report.size_text's.
local tw = require "tilewave"
local output = require "tilewave.util.output"

local M = {}
local format = string.format

-- "h100_sxm5=2.49,l40s=0.99" -> { h100_sxm5 = 2.49, l40s = 0.99 }: each a device tilewave has (by
-- its id, an alias or any case: the canonical id is kept), once, at a positive price
local function prices(s)
  if not s then return nil end
  local out = {}
  for part in (s .. ","):gmatch("([^,]*),") do
    local id, v = part:match("^([%w_.-]+)=([%d.eE+-]+)$")
    if not id or not tonumber(v) or not (tonumber(v) > 0) then
      error(format("size.prices: expected DEVICE=USD_PER_GPU_HOUR[,...], got '%s'", part), 0)
    end
    local spec, err = tw.hw.load(id)
    if not spec then error("size.prices: " .. err, 0) end
    if out[spec.id] then error(format("size.prices.%s: given twice in '%s'", spec.id, s), 0) end
    out[spec.id] = tonumber(v)
  end
  return out
end

-- "h100,l40s" -> { "h100_sxm5", "l40s" }: at least one device, each once (ids as tw.hw.load reads
-- them)
local function devices(s)
  if not s then return nil end
  local out, seen = {}, {}
  for part in (s .. ","):gmatch("([^,]*),") do
    if part == "" then error(format("size.hw: expected comma-separated device ids, got '%s'", s), 0) end
    local spec, err = tw.hw.load(part)
    if not spec then error("size.hw: " .. err, 0) end
    if seen[spec.id] then error(format("size.hw: %s given twice in '%s'", spec.id, s), 0) end
    seen[spec.id] = true
    out[#out + 1] = spec.id
  end
  return out
end

local function modes_of(s)
  if not s then return nil end
  local out = {}
  for m in s:gmatch("[^,]+") do out[#out + 1] = m end
  return out
end

--- The options of tw.serve.size for parsed arguments `a`.
function M.options(a, w, hws, slo)
  return { model = a.model, workload = w, rate = a.rate[1], slo = slo, hw = hws, max_gpus = a.max_gpus,
    modes = modes_of(a.modes), confidence = a.confidence, samples = a.samples, prices = prices(a.price),
    engine = a.engine, scheduler = a.scheduler, weight_dtype = a.weight_dtype, kv_dtype = a.kv_dtype, seed = a.seed,
    allow_long_context = a.allow_long_context or nil, speculative = a.speculative,
    pp = a.pp ~= 1 and { 1, a.pp } or nil }
end

--- Run the search for parsed arguments `a`.
function M.run(a, out)
  if not a.rate or #a.rate ~= 1 then error("size.rate: expected one --rate R (request/s) with --search", 0) end
  if not a.slo then error("size.slo: expected --slo ttft=DURATION,tpot=DURATION with --search", 0) end
  if a.top < 1 then error(format("size.top: expected positive integer, got %d", a.top), 0) end
  -- the outputs checked before the search, staged, renamed together
  -- (tilewave.util.output.transaction)
  local tx = output.transaction()
  if a.out then tx:add(a.out, "serve.out") end
  local planned = a.plots and require("tilewave.cli.serve").plan_plots(a.plots, { {} }, tx)
  local hws = devices(a.hw)
  local length = require("tilewave.cli.serve").length
  local w = { requests = a.requests, isl = length(a.isl, "serve.isl"), osl = length(a.osl, "serve.osl"),
              dataset = a.dataset, conversation = require("tilewave.cli.serve").conversation(a) }
  if not w.isl and not w.osl and not w.dataset then w.dataset = "sharegpt" end
  local r = tw.serve.size(M.options(a, w, hws, a.slo))
  local text
  -- the charts and the text staged, then renamed together; a failure leaves none behind
  local wrote = tx:run(function()
    if planned and #r.deployments + #r.below_confidence > 0 then
      local plot = require "tilewave.report.plot"
      local charts = require "tilewave.report.serve_charts"
      local dir = plot.dir(planned.dir, "serve.plots")
      local function draw(chart, path) tx:stage(path, "serve.plots", nil, plot.svg_temp(chart, path)) end
      draw(charts.pareto(r), dir .. "/size_pareto.svg")
      if a.slo.tpot_s then
        -- the same search at tighter and looser TPOT targets
        local points = {}
        for _, f in ipairs { 0.5, 0.75, 1, 1.5, 2 } do
          local slo = { ttft_s = a.slo.ttft_s, tpot_s = a.slo.tpot_s * f, percentile = a.slo.percentile }
          local q = f == 1 and r or tw.serve.size(M.options(a, w, hws, slo))
          local best = q.deployments[1]
          points[#points + 1] = { slo.tpot_s, best and best.cost_per_million_output_tokens,
            best and format("%s x%d", best.hw, best.gpus) }
        end
        draw(charts.cost_vs_tpot(points, a.rate[1]), dir .. "/size_cost_tpot.svg")
      end
    end
    text = require("tilewave.report.size_text").render(r, a)
    if a.out then tx:stage(a.out, "serve.out", function(f) f:write(text) end) end
  end)
  if not a.out then out:write(text) end
  local note = not a.out and a.format == "json" and io.stderr or out
  for _, p in ipairs(wrote) do note:write("wrote ", p, "\n") end
  return 0
end

return M
