--- tilewave.serve.capacity: the most requests per second a deployment completes for a workload,
-- and whether an offered rate is past it (issue 48: a load past capacity is never reported as
-- healthy).
--
-- The capacity is the open-loop limit: the completion rate of the deployment kept saturated with
-- this workload's requests, in the steady state of that saturation. Every request waits at t = 0, so
-- the scheduler runs its fullest batches, refilled first come first served as requests finish: the
-- saturated open queue's own service, and no arrival process completes more per second. The first
-- batches are all fresh requests, and short ones finish first, so the running mix needs many
-- turnovers of the batch's slots to reach the mix a saturated queue keeps (long requests hold
-- their slots longer); a run of a few thousand requests measures that transient, not the limit
-- (issue 65: Llama-3.1-8B on ShareGPT read 56.0 req/s at 4,000 requests, 51.8 at 8,000, 49.4 - 50.2
-- from 20,000 to 100,000). So the run holds TURNOVERS x the slots (max_num_seqs x replicas)
-- requests, at least steady.MIN_REQUESTS and at most steady.MAX_REQUESTS, whatever length the
-- caller's runs have, and its rate is measured as a steady rate (tilewave.serve.steady): the
-- completions between the WARMUP-th and the (1 - DRAIN)-th share of the run over the time between
-- them, the transient deleted (Law, Simulation Modeling and Analysis, Sec. 9.5.1) and the drain,
-- where the last requests finish in ever smaller batches, too. An open queue is stable only while
-- its arrival rate stays
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

--- Turnovers of the batch's slots in a capacity run: 40 x max_num_seqs requests, so its 20% warm-up
-- holds 8 turnovers. Llama-3.1-8B on one H100 under vLLM (max_num_seqs 1024), ShareGPT, offline:
-- 49.4 req/s at 20,000 requests (20 turnovers), 49.6 at 40,000, 50.2 at 100,000; lmsys and
-- azure_conv settle as fast (tests/lua/serve_capacity_spec.lua: within 2% from 1x to 10x a serve
-- run's default length, on a dense and a MoE model).
M.TURNOVERS = 40

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
--   run's length), lower_bound (true with conversations and prefix caching: see below) }` (request/s, token/s; with a conversation workload, requests_per_s, low and high
--   in conversations/s, its rate's unit)
-- @raise simulate()'s errors
function M.of(o)
  local q, w = {}, {}
  tables.copy(o, q)
  tables.copy(o.workload or {}, w)
  w.arrival, w.rate, w.cv, w.concurrency, w.measure = "offline", nil, nil, nil, nil
  if w.trace == nil then w.requests = steady.MIN_REQUESTS end
  q.workload, q.detail, q.slo = w, nil, nil
  local x = simulate.prepare(q)
  if w.trace == nil then
    -- the run's length from the deployment's slots, not the caller's run (M.TURNOVERS); a
    -- conversation workload counts conversations of `turns` requests (tilewave.serve.workload)
    local slots = x.sched.max_num_seqs * x.replicas
    local n = math.min(steady.MAX_REQUESTS, math.max(steady.MIN_REQUESTS, M.TURNOVERS * slots))
    local turns = x.w.turns or 1
    local conv = math.max(1, -(-n // turns))
    if x.w.turns then x.w.conversations = conv end
    x.w.requests = conv * turns
    x.w.measure_from, x.w.measure_to = 0, x.w.requests
  end
  local nominal, turns = simulate.run(x, 1, true), x.w.turns
  local rate = M.steady_rate(nominal, turns)
  local lo, hi = M.steady_rate(simulate.run(x, x.scale_high, true), turns),
    M.steady_rate(simulate.run(x, x.scale_low, true), turns)
  -- conversations with prefix caching: the flood of a saturated run evicts histories a steady rate
  -- keeps cached, so the capacity is a lower bound there
  return { requests_per_s = rate, low = math.min(lo, rate), high = math.max(hi, rate),
           output_tokens_per_s = rate * (turns or 1) * nominal.output_tokens / nominal.requests, requests = nominal.requests,
           lower_bound = (turns and x.prefix_caching) and true or nil }
end

--- The queue growth an open-loop run observed over its steady window, request/s, or nil when it
-- saw none beyond chance: the requests in the system (arrived, not finished) when the last measured
-- request arrived less those when the first did (the core's queue_start and queue_end,
-- src/tw_serve.h), against three
-- standard deviations of the window's Poisson arrival count, 3 sqrt(rate x window): a stable
-- queue's length wanders by less, a queue past capacity gains (rate - capacity) x window.
-- @param r a run of tilewave.serve.simulate (its `queue` field)
-- @number rate its offered rate, request/s
function M.observed_growth(r, rate)
  local q = r.queue
  if not q or not (q.growth_rps > 0) then return nil end
  local window = (q["end"] - q.start) / q.growth_rps
  if q["end"] - q.start <= 3 * math.sqrt(rate * window) then return nil end
  return q.growth_rps
end

--- The verdict on an open-loop run `r` at `rate` (request/s) against capacity `c` (M.of), from what
-- the run showed, cross-checked with the capacity: "unstable" when its queue grew over the steady
-- window (M.observed_growth; the growth is returned), or when the rate is above the capacity though
-- a run this long did not show it (no growth returned: issue 48, a load past capacity is never
-- reported as healthy; but where the capacity is only a lower bound, conversations with prefix
-- caching, a run that shows no growth is "near capacity"); else "near capacity" above the capacity
-- interval's low end, "stable" below.
-- @return state, the observed growth (request/s) or nil
function M.state(rate, c, r)
  local growth = r and M.observed_growth(r, rate)
  if growth then return "unstable", growth end
  if rate > c.requests_per_s and not (c.lower_bound and r) then return "unstable", nil end
  if rate > c.low then return "near capacity", nil end
  return "stable", nil
end

return M
