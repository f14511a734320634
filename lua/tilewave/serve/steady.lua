--- tilewave.serve.steady: the run length and measured window of a steady-state serving run (issue
-- 48 item 1), as discrete-event simulation practice takes them: delete the warm-up, the stretch in
-- which the queue fills from empty, and measure only after it (Law, Simulation Modeling and
-- Analysis, 5th ed. 2015, Sec. 9.5.1, "the method of deletion"; Welch 1983), and leave out the
-- drain too: the last requests arrive into a queue that no longer receives work and see a lighter
-- load than the deployment would in steady operation.
--
-- A run of N requests arriving at rate R measures requests WARMUP x N .. (1 - DRAIN) x N. N is the
-- larger of what the caller asks and the minimum picked here: MIN_REQUESTS requests and
-- MIN_SECONDS of arrivals. Past that minimum, a stable load's percentiles change by less than 3%
-- as N doubles (tests/lua/serve_steady_spec.lua shows it between 2x and 4x the minimum), so the
-- answer no longer depends on --requests. A load past capacity has no steady state at any length:
-- tilewave.serve.capacity marks it unstable.
-- Units: request, s, request/s.
-- @module tilewave.serve.steady
local M = {}

--- Share of the run's requests left out at its start (warm-up) and at its end (drain).
M.WARMUP, M.DRAIN = 0.2, 0.1
--- The shortest steady run: requests, and seconds of arrivals at the offered rate.
M.MIN_REQUESTS, M.MIN_SECONDS = 4000, 300
--- The longest run the minimum may ask for (the core's limit is 1e7; this keeps a run under a
-- few seconds): a load above MAX_REQUESTS / MIN_SECONDS req/s gets fewer seconds of arrivals.
M.MAX_REQUESTS = 200000

--- The run of a steady-state measurement.
-- @number rate offered load, request/s (> 0)
-- @int[opt] requests what the caller asked (nil: the minimum)
-- @return `{ requests, measure_from, measure_to (0-based, exclusive), minimum }`
function M.plan(rate, requests)
  local minimum = math.min(M.MAX_REQUESTS, math.max(M.MIN_REQUESTS, math.ceil(rate * M.MIN_SECONDS)))
  local n = math.max(minimum, requests or 0)
  return { requests = n, minimum = minimum, measure_from = math.floor(M.WARMUP * n),
           measure_to = n - math.floor(M.DRAIN * n) }
end

return M
