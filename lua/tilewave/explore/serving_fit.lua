--- tilewave.explore.serving_fit: an engine's host times fitted to a serving benchmark the user
-- ran (issue 52): `tilewave calibrate --serving FILE`.
--
-- The benchmark's own requests (their prompt and output lengths, in the file's order) are replayed
-- on the deployment the user names, at the file's request rate (Poisson; an unpaced run with
-- max_concurrency as a closed loop, without it offline). Two figures of the engine are fitted, the
-- host time per step (token_host_s) and per sequence in a step (seq_host_s), by a pattern search
-- (coordinate steps halved when neither improves; Hooke and Jeeves 1961) from the engine's own
-- values, then a scan of +-10% of each in 1% steps. The loss is the mean |ln(simulated / measured)|
-- of TTFT's and TPOT's means over the even-numbered requests and of the run's throughput (order
-- statistics move in jumps as the host times change: p50 and p90 are reported, not fitted); the
-- odd-numbered ones are held back and their errors reported. Arrival times are not in the files, so
-- single requests are not compared: statistics of many are. TPOT of a request is (the sum of its
-- ITLs) / (output - 1), as benchmark_serving takes (E2E - TTFT) / (output - 1). Units: s,
-- request/s.
-- @module tilewave.explore.serving_fit
local simulate = require "tilewave.serve.simulate"
local engines = require "tilewave.cost.engines"
local literal = require "tilewave.util.literal"
local stats_util = require "tilewave.util.stats"

local M = {}
local abs, log, max, min, format = math.abs, math.log, math.max, math.min, string.format

--- Bounds of the search: host time per step, s; per sequence, s; per request outside the steps
-- (the engine's frontend_s: tokenization, the API server, IPC, the first chunk's streaming), s.
M.MAX_STEP_S, M.MAX_SEQ_S, M.MAX_FRONTEND_S = 50e-3, 2e-3, 1

-- numpy's linear percentile and the mean, as the clients print them (tilewave.util.stats)
local pct = stats_util.percentile
local function mean(v) return (stats_util.mean_std(v)) end

-- the statistics compared: mean, p50, p90, p99 of TTFT and of TPOT over a set of requests
local function stats(ttft, tpot)
  return { ttft_mean = mean(ttft), ttft_p50 = pct(ttft, 50), ttft_p90 = pct(ttft, 90), ttft_p99 = pct(ttft, 99),
           tpot_mean = mean(tpot), tpot_p50 = pct(tpot, 50), tpot_p90 = pct(tpot, 90), tpot_p99 = pct(tpot, 99) }
end
M.KEYS = { "ttft_mean", "ttft_p50", "ttft_p90", "ttft_p99", "tpot_mean", "tpot_p50", "tpot_p90", "tpot_p99" }

--- The measured figures of benchmark `res` (tilewave.data.serving_results.read): its completed
-- requests, and the statistics of the even (`fit`) and odd (`held`) ones, with the throughput.
function M.measured(res)
  if res.aggregate then
    -- a summary: its statistics are both sets (no request can be held back); a statistic it does
    -- not hold is nil and not compared
    local st = {}
    for _, k in ipairs(M.KEYS) do
      local metric, q = k:match("^(%a+)_(%w+)$")
      st[k] = res[metric][q]
    end
    return { fit = st, held = st, requests_per_s = res.requests_per_s, aggregate = true, itl_p99 = res.itl_p99 }
  end
  local reqs = {}
  for _, q in ipairs(res.requests) do if q.ok then reqs[#reqs + 1] = q end end
  local sets = { fit = { {}, {} }, held = { {}, {} } }
  local sent = #reqs > 0
  for i, q in ipairs(reqs) do
    local s = sets[i % 2 == 0 and "fit" or "held"]
    s[1][#s[1] + 1] = q.ttft_s
    if q.output > 1 then
      s[2][#s[2] + 1] = q.itl_sum / (q.output - 1)
    end
    sent = sent and q.start_s ~= nil
  end
  return { requests = reqs, fit = stats(sets.fit[1], sets.fit[2]), held = stats(sets.held[1], sets.held[2]),
           requests_per_s = #reqs / res.duration_s, itl_p99 = res.itl_p99,
           per_request = sent and res.rate < math.huge and { fit = { ttft = sets.fit[1], tpot = sets.fit[2] },
                                                             held = { ttft = sets.held[1], tpot = sets.held[2] } } or nil }
end

--- The simulate() options that replay the completed requests `reqs` of `res` on deployment `dep`
-- (`{ model, hw, t, engine, scheduler, weight_dtype, kv_dtype, allow_long_context }`).
function M.options(dep, res, reqs)
  local w
  if res.aggregate then
    -- the summary's lengths drawn as its client draws them, around its own means
    -- (tilewave.data.serving_summaries.lengths: fixed, SGLang's uniform, GenAI-Perf's normal)
    local lengths = require("tilewave.data.serving_summaries").lengths
    w = { lengths = { isl = lengths(res.isl, res.isl.mean, res.completed, 1),
                      osl = lengths(res.osl, res.osl.mean, res.completed, 2) } }
  else
    local isl, osl, at = {}, {}, {}
    for i, q in ipairs(reqs) do isl[i], osl[i], at[i] = max(1, q.input), max(1, q.output), q.start_s end
    w = { lengths = { isl = isl, osl = osl } }
    -- vLLM 0.10 and later write when each request was sent (start_times): replayed as sent, from the
    -- first (a paced run's arrivals are then the ones measured, not a Poisson draw)
    if #at == #reqs and #reqs > 0 and res.rate < math.huge then
      local t0 = math.huge
      for _, t in ipairs(at) do t0 = min(t0, t) end
      local sorted = true
      for i = 2, #at do if at[i] < at[i - 1] then sorted = false end end
      if sorted then
        for i = 1, #at do at[i] = at[i] - t0 end
        w.lengths.arrival_s = at
        return M.deployment(dep, w)
      end
    end
  end
  if res.rate < math.huge then w.rate, w.concurrency = res.rate, res.max_concurrency
  elseif res.max_concurrency then w.concurrency = res.max_concurrency
  else w.arrival = "offline" end
  return M.deployment(dep, w)
end

--- simulate() options of deployment `dep` with workload `w` (M.options).
function M.deployment(dep, w)
  return { model = dep.model, hw = dep.hw, t = dep.t, engine = dep.engine, scheduler = dep.scheduler,
           weight_dtype = dep.weight_dtype, kv_dtype = dep.kv_dtype, allow_long_context = dep.allow_long_context,
           ep = dep.ep, pp = dep.pp, replicas = dep.replicas, workload = w, detail = true }
end

-- the simulated figures of a raw run with records, as M.measured's; `df` (s) moves every TTFT (a
-- front-end time other than the one the run was priced with: it shifts TTFT alone, exactly)
local function simulated(r, all, df)
  local rec = r.records
  local sets = { fit = { {}, {} }, held = { {}, {} } }
  for i = 1, #rec.arrival_s do
    local s = sets[(all or i % 2 == 0) and "fit" or "held"]
    s[1][#s[1] + 1] = rec.first_token_s[i] - rec.arrival_s[i] + (df or 0)
    local o = rec.output_tokens[i]
    if o > 1 then s[2][#s[2] + 1] = (rec.finish_s[i] - rec.first_token_s[i]) / (o - 1) end
  end
  if all then sets.held = sets.fit end
  return { fit = stats(sets.fit[1], sets.fit[2]), held = stats(sets.held[1], sets.held[2]),
           requests_per_s = r.requests_per_s, itl_p99 = r.itl_s and r.itl_s.p99,
           per_request = { fit = { ttft = sets.fit[1], tpot = sets.fit[2] },
                           held = { ttft = sets.held[1], tpot = sets.held[2] } } }
end

--- Errors of simulated figures `s` against measured `m` on one set ("fit" or "held"): per
-- statistic sim / meas - 1, and the loss (mean |ln ratio|, throughput included); ttft_mape,
-- ttft_bias, tpot_mape and tpot_bias are nil where the file holds no such figure.
function M.errors(s, m, set)
  local out, loss, n = {}, 0, 0
  for _, k in ipairs(M.KEYS) do
    local a, b = s[set][k], m[set][k]
    if b and a and b > 0 and a > 0 then out[k] = a / b - 1 end
  end
  -- the loss takes the means (smooth in the host times), or a metric's median where the file
  -- holds no mean (SGLang 0.4's summaries); p90 and p99 are reported
  -- with each request's send time (start_times), each request's own TTFT and TPOT: the mean
  -- |ln(simulated / measured)| over the set's requests, which tells the front-end time (every
  -- request alike) from the per-sequence time (the busy steps')
  local pr_s, pr_m = s.per_request and s.per_request[set], m.per_request and m.per_request[set]
  for _, metric in ipairs { "ttft", "tpot" } do
    local k = out[metric .. "_mean"] and metric .. "_mean" or out[metric .. "_p50"] and metric .. "_p50"
    if pr_s and pr_m and #pr_m[metric] > 0 and #pr_s[metric] == #pr_m[metric] then
      local e = 0
      for i, x in ipairs(pr_m[metric]) do e = e + abs(log(max(pr_s[metric][i], 1e-12) / max(x, 1e-12))) end
      loss, n = loss + e / #pr_m[metric], n + 1
    elseif k then
      loss, n = loss + abs(log(s[set][k] / m[set][k])), n + 1
    end
  end
  out.throughput = s.requests_per_s / m.requests_per_s - 1
  -- ITL p99 over every gap of the run (reported where the file holds it; not in the loss: the
  -- simulated gaps are the steps', without the client's network jitter)
  if m.itl_p99 and s.itl_p99 and m.itl_p99 > 0 and s.itl_p99 > 0 then out.itl_p99 = s.itl_p99 / m.itl_p99 - 1 end
  loss, n = loss + abs(log(s.requests_per_s / m.requests_per_s)), n + 1
  out.loss = loss / n
  -- a metric's MAPE and bias over its mean, p50 and p90 (its p99 where the file has no p90: vLLM's
  -- summaries)
  local function group(prefix)
    local e, b, c = 0, 0, 0
    for _, q in ipairs { "mean", "p50", "p90", "p99" } do
      local k = prefix .. "_" .. q
      if out[k] and (q ~= "p99" or not out[prefix .. "_p90"]) then e, b, c = e + abs(out[k]), b + out[k], c + 1 end
    end
    -- a metric the file does not hold (no TPOT without outputs past one token) has no error: nil
    if c == 0 then return nil, nil end
    return e / c, b / c
  end
  out.ttft_mape, out.ttft_bias = group("ttft")
  out.tpot_mape, out.tpot_bias = group("tpot")
  return out
end

--- Fit the host times of deployment `dep` to benchmarks `list` (one result, or several: runs at
-- different loads separate the time per step from the time per sequence, which one load leaves
-- nearly collinear).
-- @return `{ base (the engine as named), token_host_s, seq_host_s, base_token_host_s,
-- base_seq_host_s,
--   before = { fit = errors, held = errors }, after = { ... } (errors pooled over the files: each
--   figure the mean over them), evaluations, requests }`
-- @raise simulate()'s errors (a deployment that cannot hold the file's requests names both)
function M.fit(dep, list)
  -- 75 lines, one function: the replay, the loss and the two-stage search (coordinate halving, then
  -- a scan) share the files' prepared runs
  if list.requests then list = { list } end
  local eng = engines.resolve(dep.engine or "vllm", "calibrate.engine")
  local h0, q0, f0 = eng.token_host_s or 0, eng.seq_host_s or 0, eng.frontend_s or 0
  local runs, nreq = {}, 0
  for i, res in ipairs(list) do
    local m = M.measured(res)
    local x = simulate.prepare(M.options(dep, res, m.requests))
    runs[i] = { m = m, x = x, dec = x.tables.decode_s, grid = x.tables.seq_grid }
    nreq = nreq + res.completed
  end
  local evals = 0
  -- every file replayed with host times (h, q): each decode table moved by the change of its host
  -- terms; the errors of each set averaged over the files
  local function errors(h, q, f)
    evals = evals + 1
    local acc = { fit = {}, held = {} }
    for _, r in ipairs(runs) do
      local dec, nd = {}, #r.dec // #r.grid
      for i, b in ipairs(r.grid) do
        local d = (h - h0) + (q - q0) * b
        for j = 1, nd do dec[(i - 1) * nd + j] = r.dec[(i - 1) * nd + j] + d end
      end
      r.x.tables.decode_s, r.x.tables.host_s, r.x.tables.seq_host_s = dec, h, q
      local sim = simulated(simulate.run(r.x, 1, true), r.m.aggregate, (f or f0) - f0)
      r.x.tables.decode_s = r.dec
      for _, set in ipairs { "fit", "held" } do
        for k, v in pairs(M.errors(sim, r.m, set)) do acc[set][k] = (acc[set][k] or 0) + v / #runs end
      end
    end
    return acc
  end
  local before = errors(h0, q0, f0)
  local function loss(p) return errors(p[1], p[2], p[3]).fit.loss end
  local p, best = { h0, q0, f0 }, before.fit.loss
  -- the front-end time's first guess: the median TTFT the base leaves unexplained, over the files
  -- (a request's time outside the steps shifts every TTFT alike); kept only if it lowers the loss
  local gap, nf = 0, 0
  for _, r in ipairs(runs) do
    local m50, e50 = r.m.fit.ttft_p50, before.fit.ttft_p50
    if m50 and e50 then gap, nf = gap + m50 * -e50, nf + 1 end
  end
  if nf > 0 and gap / nf > 0 then
    local t = { h0, q0, min(M.MAX_FRONTEND_S, f0 + gap / nf) }
    local l = loss(t)
    if l < best then p, best = t, l end
  end
  local step = { max(h0 / 2, 0.5e-3), max(q0 / 2, 10e-6), max(f0 / 2, 5e-3) }
  local hi = { M.MAX_STEP_S, M.MAX_SEQ_S, M.MAX_FRONTEND_S }
  local NC = #p
  for _ = 1, 80 do
    local moved = false
    local start = { p[1], p[2], p[3] }
    for c = 1, NC do
      for _, dir in ipairs { 1, -1 } do
        local t = { p[1], p[2], p[3] }
        t[c] = min(hi[c], max(0, p[c] + dir * step[c]))
        if t[c] ~= p[c] then
          local l = loss(t)
          if l < best - 1e-12 then p, best, moved = t, l, true; break end
        end
      end
    end
    if moved then
      -- Hooke and Jeeves' pattern move: along the round's whole move, repeated while it gains (a
      -- valley across the coordinates, where per-sequence and per-request time trade off, is
      -- followed instead of zig-zagged)
      for _ = 1, 20 do
        local t = {}
        for c = 1, NC do t[c] = min(hi[c], max(0, p[c] + (p[c] - start[c]))) end
        local l = loss(t)
        if not (l < best - 1e-12) then break end
        start, p, best = p, t, l
      end
    else
      step[1], step[2], step[3] = step[1] / 2, step[2] / 2, step[3] / 2
      if step[1] < 1e-3 * max(p[1], 1e-4) and step[2] < 1e-3 * max(p[2], 1e-6) and step[3] < 1e-3 * max(p[3], 1e-4) then
        break
      end
    end
  end
  -- the loss moves in small jumps (scheduling decisions flip): scan +-10% of each figure in 1%
  -- steps, twice, so that a jump does not stop the search short of a better point nearby
  for _ = 1, 2 do
    for c = 1, NC do
      local center = p[c]
      for k = -10, 10 do
        local t = { p[1], p[2], p[3] }
        t[c] = min(hi[c], max(0, center * (1 + k / 100)))
        if k ~= 0 and t[c] ~= p[c] then
          local l = loss(t)
          if l < best - 1e-12 then p, best = t, l end
        end
      end
    end
  end
  -- a figure at the search's floor is none (steps halve toward 0 without reaching it)
  for c = 1, NC do if p[c] < 1e-12 then p[c] = 0 end end
  local after = errors(p[1], p[2], p[3])
  return { base = eng.name, token_host_s = p[1], seq_host_s = p[2], frontend_s = p[3], base_token_host_s = h0,
           base_seq_host_s = q0, base_frontend_s = f0, before = before, after = after, evaluations = evals,
           requests = nreq, files = #list,
           bounds = { token_host_s = M.MAX_STEP_S, seq_host_s = M.MAX_SEQ_S, frontend_s = M.MAX_FRONTEND_S } }
end

-- a share as a percentage, "-" where there is none (a metric the file does not hold)
local function pc(x, signed)
  if x == nil then return "-" end
  return format(signed and "%+.1f%%" or "%.1f%%", 100 * x)
end

-- ", at its lower bound" / ", at its upper bound" for a fitted value on a bound of the search
local function bound_note(v, hi, base)
  return v <= 0 and base > 0 and ": AT ITS LOWER BOUND, the data pull it below" or v >= hi and ": AT ITS UPPER BOUND"
    or ""
end

--- The engine file of fit `f` (M.fit) from benchmark `res`: Lua source, each fitted field with its
-- data and fit error (`tilewave serve --engine FILE` and `serve --search --engine FILE` take it).
function M.engine_file(f, list, dep)
  if list.requests then list = { list } end
  local paths, fmts, rates = {}, {}, {}
  for i, res in ipairs(list) do
    paths[i], fmts[i] = res.path, res.format
    rates[i] = res.load or (res.rate < math.huge and format("%g req/s", res.rate) or "unpaced")
  end
  local res = { path = table.concat(paths, ", "), format = table.concat(fmts, ", "), rate = math.huge }
  local held = f.after.held
  local lines = {
    "-- tilewave engine calibrated by `tilewave calibrate --serving` (tilewave.explore.serving_fit)",
    -- the paths, model and device as the user gave them: one comment line whatever they hold
    literal.comment(format("data: %s (%s format), %d completed requests at %s; deployment %s on %s, t = %d",
      res.path, res.format, f.requests, table.concat(rates, ", "), tostring(dep.model), tostring(dep.hw), dep.t or 1)),
    format("-- held-back requests (odd-numbered): TTFT MAPE %s (bias %s), TPOT MAPE %s (bias %s), "
      .. "throughput %+.1f%%; the base engine gave TTFT %s, TPOT %s, throughput %+.1f%%",
      pc(held.ttft_mape), pc(held.ttft_bias, true), pc(held.tpot_mape), pc(held.tpot_bias, true), 100 * held.throughput,
      pc(f.before.held.ttft_mape), pc(f.before.held.tpot_mape), 100 * f.before.held.throughput),
    -- the fitted values at the 4 significant digits the report prints: the same fit on another
    -- build (another compiler's rounding) writes the same file, so what the file serves repeats
    "return {",
    format("  base = %s,", literal.string(f.base)),
    format("  token_host_s = %.4g, -- s per step, fitted (base %.6g; bounds 0-%g%s)", f.token_host_s,
      f.base_token_host_s, M.MAX_STEP_S, bound_note(f.token_host_s, M.MAX_STEP_S, f.base_token_host_s)),
    format("  seq_host_s = %.4g, -- s per sequence in a step, fitted (base %.6g; bounds 0-%g%s)", f.seq_host_s,
      f.base_seq_host_s, M.MAX_SEQ_S, bound_note(f.seq_host_s, M.MAX_SEQ_S, f.base_seq_host_s)),
    format("  frontend_s = %.4g, -- s per request outside the steps, in TTFT and E2E, fitted (base %.6g; bounds "
      .. "0-%g%s)", f.frontend_s, f.base_frontend_s, M.MAX_FRONTEND_S, bound_note(f.frontend_s, M.MAX_FRONTEND_S, f.base_frontend_s)),
    format("  source = %s,", literal.string(format("tilewave calibrate --serving %s: host times fitted to its even-numbered "
      .. "requests (loss %.3f); odd-numbered held back: TTFT MAPE %s, TPOT MAPE %s", res.path,
      f.after.fit.loss, pc(held.ttft_mape), pc(held.tpot_mape)))),
    "}",
  }
  return table.concat(lines, "\n") .. "\n"
end

return M
