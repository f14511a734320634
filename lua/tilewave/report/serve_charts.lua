--- tilewave.report.serve_charts: the charts of serving runs (tilewave.serve.simulate results),
-- as chart descriptions for tilewave.report.plot: latency against request rate, throughput
-- against rate with the saturation point marked, and one run's time series.
-- @module tilewave.report.serve_charts
local M = {}

local format = string.format

--- The saturation rate of a list of runs ordered by rate: the first offered rate whose completed
-- requests per second fall below 95% of it and reach the plateau (within 10% of the most any run
-- completed): the deployment serves no more, however much is offered. A run that falls short of its
-- rate only by its ramp and drain (a finite run's last requests finish after the arrivals stop) is
-- not on the plateau, and not saturated. nil when none is.
function M.saturation(runs)
  local plateau = 0
  for _, r in ipairs(runs) do plateau = math.max(plateau, r.throughput.requests_per_s) end
  for _, r in ipairs(runs) do
    local done = r.throughput.requests_per_s
    if r.rate and done < 0.95 * r.rate and done >= 0.9 * plateau then return r.rate end
  end
end

local function title(r, what)
  return format("%s: %s on %s x %d, %s engine, %s scheduler", what, r.model, r.hw, r.gpus, r.engine, r.scheduler)
end

--- TTFT and TPOT (p50, p99) against request rate, the p99s with their interval (dashed); no TTFT
-- for a load whose `stability.state` is "unstable" (tilewave.serve.capacity).
-- @tparam table runs results with `rate`, in increasing rate
-- @return chart
function M.latency(runs)
  local series = {}
  local function add(name, stat, q, with_iv)
    local pts, lo, hi = {}, {}, {}
    for _, r in ipairs(runs) do
      -- an unstable load has no TTFT (it grows with the run's length): the table prints none, the
      -- chart draws none (its TPOT, a full batch's time per token, stays)
      if not (stat == "ttft_s" and r.stability and r.stability.state == "unstable") then
        pts[#pts + 1] = { r.rate, r[stat][q] }
        local iv = r.interval[stat .. "." .. q]
        lo[#lo + 1], hi[#hi + 1] = { r.rate, iv[1] }, { r.rate, iv[2] }
      end
    end
    if #pts == 0 then return end
    -- a metric's line and its interval's two bounds share a colour; the legend names the interval
    -- once
    series[#series + 1] = { title = name, points = pts, with = "linespoints", group = name }
    if with_iv then
      series[#series + 1] = { title = name .. " interval", points = lo, with = "lines", dash = true, group = name }
      series[#series + 1] = { title = name .. " interval", points = hi, with = "lines", dash = true, group = name }
    end
  end
  add("TTFT p50", "ttft_s", "p50")
  add("TTFT p99", "ttft_s", "p99", true)
  add("TPOT p50", "tpot_s", "p50")
  add("TPOT p99", "tpot_s", "p99", true)
  local sat = M.saturation(runs)
  return { title = title(runs[1], "Latency against load"), xlabel = "request rate (req/s)",
           ylabel = "latency", yunit = "s", logy = true, series = series,
           marks = sat and { { x = sat, label = "saturation" } } or nil }
end

--- Output tokens/s against request rate, with the offered load's tokens and the saturation rate.
function M.throughput(runs, offline)
  local pts, offered = {}, {}
  for _, r in ipairs(runs) do
    pts[#pts + 1] = { r.rate, r.throughput.output_tokens_per_s }
    offered[#offered + 1] = { r.rate, r.rate * r.output_tokens / r.requests }
  end
  local sat = M.saturation(runs)
  return { title = title(runs[1], "Throughput against load"), xlabel = "request rate (req/s)",
           ylabel = "output throughput", yunit = "tok/s",
           series = { { title = "simulated", points = pts, with = "linespoints" },
                      { title = "offered (rate x mean output)", points = offered, with = "lines", dash = true } },
           marks = sat and { { x = sat, label = "saturation" } } or nil,
           hmarks = offline and { { y = offline, label = "offline" } } or nil }
end

--- One run's time series: requests waiting and running, and the KV cache in use (% of capacity).
function M.timeline(r)
  local s = r.series
  local wait, run, kv = {}, {}, {}
  for i = 1, #s.time_s do
    wait[i], run[i], kv[i] = { s.time_s[i], s.waiting[i] }, { s.time_s[i], s.running[i] }, { s.time_s[i], 100 * s.kv_fraction[i] }
  end
  local load = r.rate and format("rate %g req/s", r.rate) or r.concurrency and format("concurrency %d", r.concurrency)
    or "offline"
  -- requests on the left axis, the KV cache's % on the right: two units, two axes
  return { title = title(r, "One run, " .. load), xlabel = "time", xunit = "s", ylabel = "requests",
           y2label = "KV cache in use (%)",
           series = { { title = "waiting", points = wait, with = "steps" }, { title = "running", points = run, with = "steps" },
                      { title = "KV cache in use (% of capacity, right axis)", points = kv, with = "lines", dash = true,
                        axis = "y2" } } }
end

--- Sizing (tilewave.serve.size): output tokens/s per GPU against tokens/s per user, one point per
-- deployment meeting the SLO; the Pareto front (no other deployment better on both) labelled hw,
-- t x replicas, as serving engineers draw it.
function M.pareto(r)
  local all = {}
  for _, d in ipairs(r.deployments) do all[#all + 1] = d end
  local function pt(d) return { d.tokens_per_s_per_user, d.output_tokens_per_s_per_gpu,
                                format("%s t%d x%d", d.hw, d.t, d.replicas) } end
  local front, rest, below = {}, {}, {}
  for _, d in ipairs(all) do
    local dominated = false
    for _, e in ipairs(all) do
      if e ~= d and e.tokens_per_s_per_user >= d.tokens_per_s_per_user
        and e.output_tokens_per_s_per_gpu >= d.output_tokens_per_s_per_gpu
        and (e.tokens_per_s_per_user > d.tokens_per_s_per_user or e.output_tokens_per_s_per_gpu > d.output_tokens_per_s_per_gpu) then
        dominated = true
      end
    end
    local list = dominated and rest or front
    list[#list + 1] = pt(d)
  end
  table.sort(front, function(a, b) return a[1] < b[1] end)
  for _, d in ipairs(r.below_confidence) do below[#below + 1] = pt(d) end
  local series = { { title = "Pareto front", points = front, with = "linespoints", labels = true } }
  if #rest > 0 then series[#series + 1] = { title = format("other, p_meet >= %.2f", r.confidence), points = rest, with = "points" } end
  if #below > 0 then series[#series + 1] = { title = "below confidence", points = below, with = "points" } end
  return { title = format("Deployments serving %g req/s within the SLO (aggregated)", r.rate),
           xlabel = "tokens/s per user (1 / mean TPOT)", ylabel = "output tokens/s per GPU", series = series }
end

--- The cheapest deployment's cost per million output tokens against the TPOT target: `points` =
-- { { tpot_s, cost (USD), label } } from searches at several targets (nil cost: none met it).
function M.cost_vs_tpot(points, rate)
  local pts = {}
  for _, p in ipairs(points) do
    if p[2] then pts[#pts + 1] = { p[1], p[2], p[3] } end
  end
  return { title = format("Cheapest deployment serving %g req/s against the TPOT target", rate),
           xlabel = "TPOT target (p99)", xunit = "s", ylabel = "USD per million output tokens",
           series = { { title = "cheapest meeting the SLO", points = pts, with = "linespoints", labels = true } } }
end

return M
