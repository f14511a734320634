--- tilewave.cli.size: `tilewave serve MODEL --search --rate R --slo ttft=..,tpot=..`: deployments ranked by
-- cost per million output tokens (tilewave.serve.size). Formats only.
local tw = require "tilewave"
local si = require "tilewave.util.si"
local output = require "tilewave.util.output"

local M = {}
local format = string.format

-- "h100_sxm5=2.49,l40s=0.99" -> { h100_sxm5 = 2.49, l40s = 0.99 }: each a device tilewave has (by its
-- id, an alias or any case: the canonical id is kept), once, at a positive price
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

-- "h100,l40s" -> { "h100_sxm5", "l40s" }: at least one device, each once (ids as tw.hw.load reads them)
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

local HEADER = { "rank", "hw", "mode", "weights", "GPUs", "t", "replicas", "max seqs", "max req/s", "TTFT p99", "TPOT p99", "p_meet", "tok/s/GPU",
                 "tok/s/user", "$/hour", "$/M out tok" }

-- the search as CSV, numbers in SI units: one row per deployment ranked, then those below the
-- confidence (rank empty)
local CSV_HEADER = { "rank", "hw", "mode", "weight_dtype", "gpus", "t", "replicas", "max_num_seqs", "max_rate_rps", "ttft_s",
                     "tpot_s", "slo_percentile", "p_meet", "output_tokens_per_s_per_gpu", "tokens_per_s_per_user",
                     "usd_per_hour", "usd_per_million_output_tokens", "launch_command" }
local function csv_of(r, a)
  local csv = require "tilewave.util.csv"
  local out = { table.concat(CSV_HEADER, ",") }
  for _, part in ipairs { { r.deployments, true }, { r.below_confidence, false } } do
    for i, d in ipairs(part[1]) do
      if i > a.top then break end
      local q = "p" .. tostring(math.tointeger(d.slo.percentile) or d.slo.percentile)
      local dis = d.mode == "disagg"
      local row = { part[2] and i or "", d.hw, d.mode, d.weight_dtype, d.gpus, dis and format("%d/%d", d.prefill.t, d.decode.t) or d.t,
        dis and format("%dP%dD", d.prefill.replicas, d.decode.replicas) or d.replicas, d.max_num_seqs, d.max_rate_rps,
        d.ttft_s[q], d.tpot_s[q], d.slo.percentile, d.p_meet, d.output_tokens_per_s_per_gpu, d.tokens_per_s_per_user,
        d.cost_per_hour, d.cost_per_million_output_tokens }
      -- one replica's command; disaggregated pools as "prefill: ...; decode: ..."
      local l = d.launch or {}
      row[#row + 1] = l.command or (l.pools and format("prefill: %s; decode: %s", l.pools.prefill.command,
        l.pools.decode.command)) or ""
      for j, c in ipairs(row) do row[j] = csv.field(c) end
      out[#out + 1] = table.concat(row, ",")
    end
  end
  return table.concat(out, "\n") .. "\n"
end

local function rows_of(list, top, start)
  local rows = {}
  for i, d in ipairs(list) do
    if i > top then break end
    local q = "p" .. tostring(math.tointeger(d.slo.percentile) or d.slo.percentile)
    local dis = d.mode == "disagg"
    rows[#rows + 1] = { start and tostring(i) or "-", d.hw, d.mode, d.weight_dtype, tostring(d.gpus),
      dis and format("%d/%d", d.prefill.t, d.decode.t) or tostring(d.t),
      dis and format("%dP%dD", d.prefill.replicas, d.decode.replicas) or tostring(d.replicas), tostring(d.max_num_seqs),
      format("%.1f", d.max_rate_rps), si(d.ttft_s[q], "s"), si(d.tpot_s[q], "s"), format("%.2f", d.p_meet),
      format("%.0f", d.output_tokens_per_s_per_gpu), format("%.1f", d.tokens_per_s_per_user),
      format("%.2f", d.cost_per_hour), format("%.3f", d.cost_per_million_output_tokens) }
  end
  return rows
end

--- Render a tilewave.serve.size result as text (or JSON, or CSV).
function M.render(r, a)
  if a.format == "json" then return tw.report.json(r) .. "\n" end
  if a.format == "csv" then return csv_of(r, a) end
  local slo = r.slo
  local lines = { format("size %s: %g req/s within %s at p%s (%s), cheapest first; p_meet over %d step-cost draws, "
    .. "ranked at >= %.2f", a.model, r.rate,
    table.concat({ slo.ttft_s and ("TTFT <= " .. si(slo.ttft_s, "s")) or nil,
                   slo.tpot_s and ("TPOT <= " .. si(slo.tpot_s, "s")) or nil }, ", "),
    tostring(slo.percentile or 99), a.engine, r.samples, r.confidence) }
  if #r.deployments > 0 then
    lines[#lines + 1] = tw.report.table(HEADER, rows_of(r.deployments, a.top, true))
  else
    lines[#lines + 1] = "no deployment meets the SLO with that confidence"
  end
  if #r.deployments > 0 then
    -- how to start each ranked deployment, in its engine's own flags (tilewave.serve.launch)
    lines[#lines + 1] = "\nlaunch (replace <checkpoint of ...> with the model's Hugging Face repo or path):"
    for i, d in ipairs(r.deployments) do
      if i > a.top then break end
      local l = d.launch or {}
      if l.pools then
        lines[#lines + 1] = format("  %d  prefill x%d: %s", i, l.pools.prefill.copies, l.pools.prefill.command)
        lines[#lines + 1] = format("     decode x%d: %s", l.pools.decode.copies, l.pools.decode.command)
      elseif l.command then
        lines[#lines + 1] = format("  %d  %s%s", i, l.command, l.copies > 1 and format("  (x%d)", l.copies) or "")
      end
      if l.note then lines[#lines + 1] = "     " .. l.note end
    end
  end
  if #r.below_confidence > 0 then
    lines[#lines + 1] = format("\nmeeting the SLO at the point estimate, below p_meet %.2f:", r.confidence)
    lines[#lines + 1] = tw.report.table(HEADER, rows_of(r.below_confidence, a.top, false))
  end
  if #r.rejected > 0 then
    lines[#lines + 1] = "\nleft out:"
    for _, x in ipairs(r.rejected) do
      lines[#lines + 1] = format("  %s%s: %s", x.hw, x.t and (" t = " .. x.t) or "", x.reason)
    end
  end
  if #r.prices > 0 then
    local parts = {}
    for _, p in ipairs(r.prices) do
      parts[#parts + 1] = format("%s $%.3f (%s)", p.hw, p.per_gpu_hour, p.source == "given" and "--price" or p.source)
    end
    lines[#lines + 1] = "\nprices, USD per GPU-hour (each hw file's price: provider, date; --price overrides): "
      .. table.concat(parts, "; ")
  end
  if #r.unpriced > 0 then
    lines[#lines + 1] = "\nno price (name them with --hw and --price to include): " .. table.concat(r.unpriced, ", ")
  end
  return table.concat(lines, "\n") .. "\n"
end

--- The options of tw.serve.size for parsed arguments `a`.
function M.options(a, w, hws, slo)
  return { model = a.model, workload = w, rate = a.rate[1], slo = slo, hw = hws, max_gpus = a.max_gpus,
    modes = modes_of(a.modes), confidence = a.confidence, samples = a.samples, prices = prices(a.price),
    engine = a.engine, scheduler = a.scheduler, weight_dtype = a.weight_dtype, kv_dtype = a.kv_dtype, seed = a.seed,
    allow_long_context = a.allow_long_context or nil, speculative = a.speculative }
end

--- Run the search for parsed arguments `a`.
function M.run(a, out)
  if not a.rate or #a.rate ~= 1 then error("size.rate: expected one --rate R (request/s) with --search", 0) end
  if not a.slo then error("size.slo: expected --slo ttft=DURATION,tpot=DURATION with --search", 0) end
  if a.top < 1 then error(format("size.top: expected positive integer, got %d", a.top), 0) end
  -- the outputs checked before the search, staged, renamed together (tilewave.util.output.transaction)
  local tx = output.transaction()
  if a.out then tx:add(a.out, "serve.out") end
  local planned = a.plots and require("tilewave.cli.serve").plan_plots(a.plots, { {} }, tx)
  local hws = devices(a.hw)
  local length = require("tilewave.cli.serve").length
  local w = { requests = a.requests, isl = length(a.isl, "serve.isl"), osl = length(a.osl, "serve.osl"),
              dataset = a.dataset }
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
    text = M.render(r, a)
    if a.out then tx:stage(a.out, "serve.out", function(f) f:write(text) end) end
  end)
  if not a.out then out:write(text) end
  local note = not a.out and a.format == "json" and io.stderr or out
  for _, p in ipairs(wrote) do note:write("wrote ", p, "\n") end
  return 0
end

return M
