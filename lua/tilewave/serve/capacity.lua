--- tilewave.serve.capacity: the most requests per second a deployment completes for a workload,
-- and whether an offered rate is past it (issue 48: a load past capacity is never reported as
-- healthy).
--
-- The capacity is the steady offline throughput of the same requests: every one waiting at t = 0,
-- so the scheduler runs its fullest batches, and no arrival process can complete more per second.
-- It is measured as a steady rate (tilewave.serve.steady): the completions between the WARMUP-th
-- and the (1 - DRAIN)-th share of the run, over the time between them, so neither the first batches
-- nor the tail, where the last requests finish in ever smaller batches, count. A run of
-- steady.MIN_REQUESTS requests at least. An open queue is stable only while its arrival rate stays
-- below the rate it serves (Kleinrock, Queueing Systems vol. 1, 1975, Sec. 1.4: rho < 1); past it
-- the queue grows by the difference every second, and its latencies grow with the run's length:
-- they describe the run, not the deployment. The capacity carries the step-cost interval's bounds
-- (tilewave.serve.simulate's `interval`): the same runs at the interval's two scales. Units:
-- request/s, token/s.
-- @module tilewave.serve.capacity
local simulate = require "tilewave.serve.simulate"
local steady = require "tilewave.serve.steady"
local tables = require "tilewave.util.tables"

local M = {}

--- The steady completion rate of a raw run with records (tilewave.serve.simulate.run(x, s, true)):
-- the completions between the WARMUP-th and the (1 - DRAIN)-th share of the run over the time
-- between them, request/s; with `turns` per conversation, conversations/s (the unit of a
-- conversation workload's rate).
function M.steady_rate(r, turns)
  local f = {}
  for i, t in ipairs(r.records.finish_s) do f[i] = t end
  table.sort(f)
  local n = #f
  local a, b = math.max(1, math.floor(steady.WARMUP * n)), math.max(2, n - math.floor(steady.DRAIN * n))
  if b <= a or not (f[b] > f[a]) then return r.requests_per_s / (turns or 1) end
  return (b - a) / (f[b] - f[a]) / (turns or 1)
end

--- The capacity of the deployment and workload of serve options `o` (tilewave.serve.simulate's),
-- whatever their arrival process.
-- @return `{ requests_per_s, low, high (the interval's bounds), output_tokens_per_s, requests (the
--   run's length) }` (request/s, token/s; with a conversation workload, requests_per_s, low and high
--   in conversations/s, its rate's unit)
-- @raise simulate()'s errors
function M.of(o)
  local q, w = {}, {}
  tables.copy(o, q)
  tables.copy(o.workload or {}, w)
  w.arrival, w.rate, w.cv, w.concurrency, w.measure = "offline", nil, nil, nil, nil
  if w.trace == nil then w.requests = math.max(steady.MIN_REQUESTS, w.requests or 0) end
  q.workload, q.detail, q.slo = w, nil, nil
  local x = simulate.prepare(q)
  local nominal, turns = simulate.run(x, 1, true), x.w.turns
  local rate = M.steady_rate(nominal, turns)
  local lo, hi = M.steady_rate(simulate.run(x, x.scale_high, true), turns),
    M.steady_rate(simulate.run(x, x.scale_low, true), turns)
  return { requests_per_s = rate, low = math.min(lo, rate), high = math.max(hi, rate),
           output_tokens_per_s = rate * (turns or 1) * nominal.output_tokens / nominal.requests, requests = nominal.requests }
end

--- The state of an open-loop run at `rate` (request/s) against capacity `c` (M.of): "stable" below
-- the interval's low end, "near capacity" from there up to the capacity, "unstable" above the
-- capacity, with the queue's growth (rate - capacity, request/s; 0 unless unstable). A rate above
-- the capacity but within the interval's high end is unstable too: at the calibrated step costs its
-- queue grows, and its latencies would describe the run's length, not the deployment (issue 48: a
-- load past capacity is never reported as healthy); only step costs at the interval's low end would
-- hold it.
function M.state(rate, c)
  if rate > c.requests_per_s then return "unstable", rate - c.requests_per_s end
  if rate > c.low then return "near capacity", 0 end
  return "stable", 0
end

return M
