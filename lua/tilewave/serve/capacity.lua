--- tilewave.serve.capacity: the most requests per second a deployment completes for a workload,
-- and whether an offered rate is past it (issue 48: a load past capacity is never reported as
-- healthy).
--
-- The capacity is the offline throughput of the same requests (every one waiting at t = 0, so the
-- scheduler runs its fullest batches): no arrival process can complete more per second. An open
-- queue is stable only while its arrival rate stays below the rate it serves (Kleinrock, Queueing
-- Systems vol. 1, 1975, Sec. 1.4: rho < 1); past it the queue grows by the difference every second,
-- and its latencies grow with the run's length: they describe the run, not the deployment. The
-- capacity carries the step-cost interval's bounds (tilewave.serve.simulate's `interval`).
-- @module tilewave.serve.capacity
local simulate = require "tilewave.serve.simulate"

local M = {}

--- The capacity of the deployment and workload of serve options `o` (tilewave.serve.simulate's),
-- whatever their arrival process.
-- @return `{ requests_per_s, low, high (the interval's bounds), output_tokens_per_s }` (request/s,
--   token/s)
-- @raise simulate()'s errors
function M.of(o)
  local q, w = {}, {}
  for k, v in pairs(o) do q[k] = v end
  for k, v in pairs(o.workload or {}) do w[k] = v end
  w.arrival, w.rate, w.cv, w.concurrency = "offline", nil, nil, nil
  q.workload, q.detail, q.slo = w, nil, nil
  local r = simulate.simulate(q)
  local iv = r.interval.requests_per_s
  return { requests_per_s = r.throughput.requests_per_s, low = iv[1], high = iv[2],
           output_tokens_per_s = r.throughput.output_tokens_per_s }
end

--- The state of an open-loop run at `rate` (request/s) against capacity `c` (M.of): "stable" below
-- the interval's low end, "near capacity" within it, "unstable" above it, with the queue's growth
-- (rate - capacity, request/s; 0 unless unstable).
function M.state(rate, c)
  if rate > c.high then return "unstable", rate - c.requests_per_s end
  if rate > c.low then return "near capacity", 0 end
  return "stable", 0
end

return M
