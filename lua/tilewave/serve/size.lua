--- tilewave.serve.size: the cheapest deployments that serve a rate within latency targets,
-- with the probability of meeting them.
--
-- One concern past 400 lines: ranking the candidates of one search (their evaluation, the rate
-- bisection, p_meet and the ranking read the same prepared runs); the candidate list and the devices
-- are their own modules (size_candidates, size_devices).
--
--   tw.serve.size{ model = "llama-3.1-8b", workload = { dataset = "sharegpt" }, rate = 20,
--                  slo = { ttft_s = 2, tpot_s = 0.05 }, max_gpus = 8 }
--
-- For each device (default: every hw file with a price, `prices` overriding), tensor-parallel size
-- t and batch limit (the engine's max_num_seqs, then smaller: M.seq_limits): the highest rate one
-- replica serves within the SLO (bisection on the simulator, at the step costs as priced, every run
-- in steady state: tilewave.serve.steady's length and window), the replicas the asked rate needs (a
-- router in front, least loaded), then that deployment simulated at the asked rate; the fewest
-- replicas wins. Pruned before any simulation: a model whose KV cache does not fit, and a
-- deployment above max_gpus; before a bisection, a smaller batch limit whose steady offline
-- capacity is no more than the best max rate found (it cannot need fewer replicas). The probability
-- of meeting the SLO (`p_meet`) samples the step-cost uncertainty calibration measured: the
-- device's decode interval (tilewave.cost.interval: 5th and 95th percentiles of measured /
-- predicted) read as a lognormal, N stratified draws (its quantiles at (i - 1/2) / N), each applied
-- to the whole run (a systematic error, not per-step noise), every draw on the same arrivals
-- (common random numbers); the draws that meet it are the smallest scales, found by bisection
-- (M.p_meet). Aggregated serving by default; `modes = { "agg", "disagg" }` adds disaggregated
-- prefill/decode pools (DistServe, Splitwise), their xPyD split searched at the asked rate. Units:
-- s, request/s, token/s, USD.
-- Scripts call it as tw.serve.size (the simulator's module, tilewave.serve.simulate).
-- @submodule tw.serve
local check = require "tilewave.util.check"
local models = require "tilewave.data.models"
local simulate = require "tilewave.serve.simulate"
local steps = require "tilewave.serve.steps"
local steady = require "tilewave.serve.steady"
local capacity = require "tilewave.serve.capacity"
local tables = require "tilewave.util.tables"
local sizedev = require "tilewave.serve.size_devices"

local M = {}
local format = string.format

-- Defaults: tensor-parallel sizes tried, bisection steps, p_meet draws.
-- (a device whose node's NVLink domain is wider, a GB200 NVL72's 72, adds 16, 32 and 64 up to it and
-- max_gpus: tilewave.serve.size_candidates)
M.T_SIZES = { 1, 2, 4, 8 }
M.BISECT_STEPS = 10
M.SAMPLES = 16
--- The bisection of a replica's max rate stops once its bracket is this share of the capacity.
-- @local
M.BISECT_TOL = 0.04

local OPTIONS = { model = true, workload = true, rate = true, slo = true, hw = true, max_gpus = true, modes = true,
                  confidence = true, samples = true, engine = true, scheduler = true, weight_dtype = true,
                  kv_dtype = true, group = true, seed = true, prices = true, t = true, allow_long_context = true,
                  speculative = true, ep = true, pp = true }

-- the step-cost scales p_meet draws (tilewave.serve.uncertainty); the SLO test of a raw run
-- (tilewave.serve.simulate.meets: one test)
local uncertainty = require "tilewave.serve.uncertainty"
M.z_of, M.scales = uncertainty.z_of, uncertainty.scales
local meets = simulate.meets
M.meets = meets

-- the run of prepared run `y` at step-cost `scale` for an SLO test of `slo`: stopped as soon as it
-- cannot meet it when `slo` is the run's own (simulate.run's stop: a failed test costs only the
-- requests that decide it); a run that meets it is whole
local function tested(y, scale, slo)
  return simulate.run(y, scale, false, slo == y.slo)
end

-- x (prepared) with another load: a shallow copy whose workload is replaced. A rate runs in steady
-- state (tilewave.serve.steady: its length and measured window), the offline load as many requests
-- as the steady minimum, every one measured.
local function at_rate(x, rate, replicas, pools)
  local y = tables.copy(x)
  local w = tables.copy(x.w)
  local T = x.w.turns or 1 -- a conversation workload: the plan counts conversations of T requests
  if rate then
    local plan = steady.plan(rate)
    w.arrival, w.rate, w.measure = "poisson", rate, "steady"
    w.requests, w.measure_from, w.measure_to = plan.requests * T, plan.measure_from * T, plan.measure_to * T
  else
    w.arrival, w.rate, w.measure = "offline", nil, "replay"
    w.requests = math.max(steady.MIN_REQUESTS * T, x.w.requests)
    w.measure_from, w.measure_to = 0, w.requests
  end
  y.w, y.replicas = w, (replicas or 1) * (x.pp or 1) -- a pipeline's micro-batch schedulers
  y.sched = tables.copy(x.sched)
  y.sched.router = (replicas or 1) > 1 and "least_loaded" or x.sched.router
  if pools then
    -- disaggregated: P prefill and D decode replicas, the transfer over the link they then share
    local d = tables.copy(x.disagg)
    d.prefill = { t = x.disagg.prefill.t, replicas = pools[1], spec = x.disagg.prefill.spec }
    d.decode = { t = x.disagg.decode.t, replicas = pools[2], spec = x.disagg.decode.spec }
    d.transfer = steps.transfer(x.c, x.spec, { weight_dtype = x.weight_dtype, kv_dtype = x.kv_dtype }, d)
    y.disagg, y.replicas = d, pools[1] + pools[2]
  end
  return y
end

--- The highest rate one replica of prepared run `x` (or its disaggregated `pools` = { P, D })
-- serves within `slo` at the step costs as priced, in steady state, request/s; 0 when none. The
-- rates tried lie on a grid of step cap / 2^k between 0 and the steady offline throughput `cap`
-- (tilewave.serve.capacity: no rate above it is sustained; at cap itself the queue has no steady
-- state), 2^-k the first at or below M.BISECT_TOL (k <= `bisections`): the answer is the highest
-- grid rate that meets the SLO, as bisection of [0, cap] to that width finds it. The search gallops
-- down from the top (cap - step, cap - 2 steps, cap - 4 steps, ...) and then bisects the bracket:
-- the same grid point when meeting the SLO is monotone in the rate, in 1 or 2 runs instead of k when
-- the answer lies near cap, as it does for most deployments (a bound the capacity run gives).
-- Also returns cap (passed in when the caller has run it already).
-- @local
function M.max_rate(x, slo, bisections, pools, cap)
  cap = cap or capacity.steady_rate(simulate.run(at_rate(x, nil, nil, pools), 1, true), x.w.turns)
  local k = 0
  while 2.0 ^ -k > M.BISECT_TOL and k < (bisections or M.BISECT_STEPS) do k = k + 1 end
  local J = 1 << k
  local lo = M.highest(J, function(j) return meets(tested(at_rate(x, cap * j / J, nil, pools), 1, slo), slo) end)
  return cap * lo / J, cap
end

--- The highest grid point j in 0..J - 1 with ok(j) true, when ok holds up to some point and fails
-- past it (0 when none but 0: 0 is not asked): galloping down from the top (J - 1, J - 2, J - 4,
-- ... until one holds), then bisecting the bracket that leaves - the answer bisection of [0, J]
-- finds, in fewer probes when it lies near the top.
-- @local
function M.highest(J, ok)
  local lo, hi, gap = 0, J, 1 -- grid points lo and below meet (0 trivially), hi and above fail
  while hi - gap > lo do
    local j = hi - gap
    if ok(j) then lo = j break end
    hi, gap = j, gap * 2
  end
  while hi - lo > 1 do
    local mid = (lo + hi) // 2
    if ok(mid) then lo = mid else hi = mid end
  end
  return lo
end

local function options_of(o, spec, t, rate, ep, pp)
  return { model = o.model, hw = spec, t = t, ep = ep, pp = pp, engine = o.engine, scheduler = o.scheduler,
           weight_dtype = o.weight_dtype, kv_dtype = o.kv_dtype, group = o.group, seed = o.seed,
           allow_long_context = o.allow_long_context, slo = o.slo, speculative = o.speculative,
           workload = (function()
             local w = tables.copy(o.workload or {})
             w.arrival, w.rate, w.concurrency = "poisson", rate, nil
             return w
           end)() }
end

--- The probability that prepared run `x` with `replicas` meets `slo` at `rate`: the share of
-- the `n` step-cost scales (M.scales of the device's interval) whose run meets it, on the same
-- arrivals. Every step slower by the same factor makes no latency shorter, so the scales that meet
-- the SLO are the smallest ones: the first that fails is found by bisection (about log2 n runs, not
-- n; one when the slowest scale meets it). Returns p, and the prepared run at that rate.
-- @local
function M.p_meet(x, rate, replicas, slo, n, pools)
  local y = at_rate(x, rate, replicas, pools)
  local sc = uncertainty.scales(x.scale_low, x.scale_high, n)
  local lo, hi = 0, n + 1 -- scales 1..lo meet; hi..n fail
  -- the slowest scale first: a deployment that meets the SLO at every scale (the common case once
  -- its replicas cover the rate) costs one run, not log2 n
  if meets(tested(y, sc[n], slo), slo) then return 1, y end
  hi = n
  while hi - lo > 1 do
    local mid = (lo + hi) // 2
    if meets(tested(y, sc[mid], slo), slo) then lo = mid else hi = mid end
  end
  return lo / n, y
end

--- The batch limits (max_num_seqs) the search tries: the engine's, then 256, 64 and 16 below it.
-- @local
function M.seq_limits(default)
  local out = { default }
  for _, v in ipairs { 256, 64, 16 } do
    if v < default then out[#out + 1] = v end
  end
  return out
end

-- the sizing figures of deployment result d (simulate()'s shape) of run r, and its launch command
-- (mixed pools: the decode pool's GPUs at `dcost_h`, USD per GPU-hour, the price per GPU-hour their
-- mean)
local function priced(d, r, p, samples, cost_h, model, dcost_h)
  d.launch = require("tilewave.serve.launch").of(d, model)
  d.p_meet, d.p_meet_samples = p, samples
  d.output_tokens_per_s_per_gpu = r.output_tokens_per_s / d.gpus
  d.tokens_per_s_per_user = r.tpot_s.mean > 0 and 1 / r.tpot_s.mean or 0
  d.cost_per_hour = dcost_h and cost_h * d.prefill.gpus + dcost_h * d.decode.gpus or cost_h * d.gpus
  d.price_per_gpu_hour = d.cost_per_hour / d.gpus
  d.cost_per_million_output_tokens = d.cost_per_hour / (r.output_tokens_per_s * 3600) * 1e6
  return d
end

-- simulate.prepare(opts), or nil and why: a deployment this device cannot hold ("serve: ... does
-- not fit", a context past the KV cache) is a reason to leave it out; anything else (a bug, a
-- file:line error) propagates
local function prepared(opts)
  local ok, x = pcall(simulate.prepare, opts)
  if ok then return x end
  if type(x) == "string" and x:match("^serve[%.:]") then return nil, x end
  error(x, 0)
end

-- evaluate disaggregated pools of (tp, td) on a device: the fewest GPUs whose xPyD split meets the
-- SLO at the rate (nominal step costs), then its p_meet; nil and a reason when none within max_gpus
local function evaluate_disagg(o, spec, tp, td, cost_h, dspec, dcost_h)
  local opts = options_of(o, spec, 1, o.rate)
  opts.disagg = { prefill = { t = tp, replicas = 1 }, decode = { t = td, replicas = 1, hw = dspec ~= spec and dspec or nil } }
  local x, why = prepared(opts)
  if not x then return nil, why end
  for total = tp + td, o.max_gpus do
    for pre = 1, (total - td) // tp do
      local dec = (total - pre * tp) / td
      if dec >= 1 and dec == math.floor(dec) then
        local pools = { pre, math.tointeger(dec) }
        local y = at_rate(x, o.rate, nil, pools)
        local r = tested(y, 1, x.slo)
        if meets(r, x.slo) then
          local p = M.p_meet(x, o.rate, nil, x.slo, o.samples, pools)
          local d = simulate.shape(y, r)
          d.max_rate_rps = math.max(o.rate, M.max_rate(x, x.slo, nil, pools))
          return priced(d, r, p, o.samples, cost_h, o.model, dspec ~= spec and dcost_h or nil)
        end
      end
    end
  end
  return nil, format("no prefill/decode split within max_gpus %d meets the SLO", o.max_gpus)
end

-- run `x0` with the scheduler's batch limit `seqs` (x0 itself at its own limit)
local function with_seqs(x0, seqs)
  if seqs == x0.sched.max_num_seqs then return x0 end
  local x = tables.copy(x0)
  x.sched = tables.copy(x0.sched)
  x.sched.max_num_seqs = seqs
  return x
end

-- the fewest replicas of run `x` (one replica sustaining `one` req/s within the SLO) that meet the
-- SLO at o.rate on at most o.max_gpus GPUs of `t` each, fewer than `best`'s: { x, y, r, one,
-- replicas }, or nil
local function fewest_replicas(o, x, t, one, best)
  local replicas = math.max(1, math.ceil(o.rate / one - 1e-9))
  while replicas * t <= o.max_gpus and not (best and replicas >= best.replicas) do
    local y = at_rate(x, o.rate, replicas)
    local r = tested(y, 1, x.slo)
    if meets(r, x.slo) then return { x = x, y = y, r = r, one = one, replicas = replicas } end
    replicas = replicas + 1
  end
  return nil
end

-- the best of the batch limits: the engine's limit, then smaller ones (a smaller running batch
-- trades queueing for TPOT); the fewest replicas wins, the larger limit on a tie. Returns it, or
-- nil and why none meets the SLO within max_gpus.
local function best_batch_limit(o, x0, t)
  local best, why, best_one = nil, "no rate meets the SLO on one replica", nil
  for _, seqs in ipairs(M.seq_limits(x0.sched.max_num_seqs)) do
    local x = with_seqs(x0, seqs)
    -- a smaller batch limit wins only with fewer replicas: a limit whose capacity cannot beat the
    -- best replica's max rate so far is not bisected
    local one, cap = 0, nil
    -- one replica already meets the rate: no limit can need fewer (the run is not even started)
    if best and best.replicas == 1 then break end
    if best_one and seqs < x0.sched.max_num_seqs then
      cap = capacity.steady_rate(simulate.run(at_rate(x, nil), 1, true), x.w.turns)
    end
    if not (cap and cap <= best_one) then
      one = M.max_rate(x, x0.slo, nil, nil, cap) -- the capacity run not repeated
      best_one = math.max(best_one or 0, one)
    end
    if one > 0 then
      best = fewest_replicas(o, x, t, one, best) or best
      if not best then
        why = format("needs %d or more replicas of %d GPU%s for %.4g req/s (one sustains %.3g req/s): more than "
          .. "max_gpus %d", math.ceil(o.rate / one - 1e-9), t, t == 1 and "" or "s", o.rate, one, o.max_gpus)
      end
    end
  end
  return best, why
end

-- more replicas of `best` until the SLO is met with the confidence asked (a deployment that meets
-- it only at the point estimate is kept when none within max_gpus does); returns its p_meet
local function confident(o, best, t)
  local slo = best.x.slo
  local p = M.p_meet(best.x, o.rate, best.replicas, slo, o.samples)
  local more = best.replicas + 1
  while p < o.confidence and more * t <= o.max_gpus do
    local p2, y2 = M.p_meet(best.x, o.rate, more, slo, o.samples)
    if p2 > p then
      p, best.y, best.replicas, best.r = p2, y2, more, simulate.run(y2, 1)
    end
    more = more + 1
  end
  return p
end

-- evaluate one (device, t) or expert-parallel group (t = 1, ep): nil and a reason, or the
-- deployment
local function evaluate(o, spec, t, cost_h, ep, pp)
  local x0, why0 = prepared(options_of(o, spec, t, o.rate, ep, pp))
  if not x0 then return nil, why0 end
  local g = t * (ep or 1) * (pp or 1) -- GPUs per replica
  local best, why = best_batch_limit(o, x0, g)
  if not best then return nil, why end
  local p = confident(o, best, g)
  local d = simulate.shape(best.y, best.r)
  d.max_rate_rps, d.max_rate_per_replica_rps = best.one * best.replicas, best.one
  return priced(d, best.r, p, o.samples, cost_h, o.model)
end

--- Rank deployments of a model that serve `rate` within `slo`.
-- @tparam table o `model`, `workload` (tilewave.serve.workload, its arrival replaced by Poisson at
--   `rate`), `rate` (request/s, required), `slo = { ttft_s, tpot_s, percentile = 99 }` (required),
--   `hw` (device id or list; default every hw file with a price or a `prices` entry), `max_gpus`
--   (default 8), `modes` (default { "agg" }; "mixed" adds pools on two device types,
--   tilewave.serve.size_candidates; "disagg" adds prefill/decode pools of every pair of
--   tensor-parallel sizes, the fewest GPUs whose split meets the SLO at the rate), `confidence`
--   (default 0.9), `samples` (p_meet draws, default M.SAMPLES), `prices` ({ [hw id] = USD per
--   GPU-hour }), `t` (a list of tensor-parallel sizes, default M.T_SIZES), `ep` (a list of
--   expert-parallel sizes of a MoE model, each a replica of ep GPUs at t = 1; default
--   tilewave.serve.size_devices.ep_sizes), `pp` (pipeline stages to try at each t, a list; default
--   { 1 }: no pipeline),
--   and simulate()'s
--   `engine`, `scheduler`, `weight_dtype`, `kv_dtype`, `group`, `seed`, `allow_long_context`,
--   `speculative`
-- @return `{ deployments (p_meet >= confidence, cheapest first per million output tokens),
--   below_confidence (the others that meet the SLO at the point estimate), rejected = { { hw, t,
--   reason } }, unpriced (device ids left out: no price), prices = { { hw, per_gpu_hour (USD),
--   source ("given", or the hw file's provider and date) } }, rate, slo, confidence, samples }`;
--   each deployment is simulate()'s result plus `mode`, `max_rate_rps`, `max_rate_per_replica_rps`,
--   `p_meet`, `p_meet_samples`, `output_tokens_per_s_per_gpu`, `tokens_per_s_per_user`,
--   `price_per_gpu_hour`, `cost_per_hour`, `cost_per_million_output_tokens` (USD), `launch` (the
--   engine command that starts it: tilewave.serve.launch)
-- @raise `size.<field>: ...`
function M.size(o)
  -- 70 lines, one function: the options checked in error order, the device x t loop, the ranking
  check.table(o, "size")
  check.options(o, OPTIONS, "size")
  if o.rate == nil then check.fail("size.rate", "expected positive number (request/s)", nil) end
  check.positive(o.rate, "size.rate")
  if o.slo == nil then check.fail("size.slo", "expected { ttft_s, tpot_s }", nil) end
  local c = models.resolve(o.model, "size.model")
  if models.families[c.family].encoder then
    error(format("size.model: %s is an encoder (%s): it has no autoregressive decode to serve", c.id or c.name,
      c.family), 0)
  end
  local q = tables.copy(o)
  q.max_gpus = check.positive_int(o.max_gpus or 8, "size.max_gpus")
  q.confidence = check.within(o.confidence or 0.9, 0, 1, "a probability", "size.confidence")
  q.samples = check.positive_int(o.samples or M.SAMPLES, "size.samples")
  if q.samples > 1000 then check.fail("size.samples", "expected at most 1000", q.samples) end
  local modes = {}
  check.table(o.modes or {}, "size.modes")
  if o.modes and #o.modes == 0 then check.fail("size.modes", "expected agg and/or disagg", "an empty list") end
  for i, m in ipairs(o.modes or { "agg" }) do
    check.one_of(m, { agg = true, disagg = true, mixed = true }, format("size.modes[%d]", i))
    modes[m] = true
  end
  if (modes.disagg or modes.mixed) and not modes.agg and q.max_gpus < 2 then
    check.fail("size.max_gpus", "expected at least 2 with modes disagg (a prefill and a decode pool)", q.max_gpus)
  end
  -- the workload and the options every deployment shares, checked once here: a bad one is the
  -- user's error, never a reason every deployment is "rejected" for
  local w = options_of(o, nil, 1, o.rate).workload
  require("tilewave.serve.workload").resolve(w, "size.workload")
  if o.slo.ttft_s == nil and o.slo.tpot_s == nil then check.fail("size.slo", "expected ttft_s and/or tpot_s", nil) end
  simulate.slo_of(o.slo, "size.slo") -- its times and percentile, as every deployment's run takes them
  if o.speculative ~= nil then
    local spm = require "tilewave.cost.speculative"
    spm.check_draft(spm.resolve(o.speculative, "size.speculative"), c, "size.speculative")
  end
  if o.prices ~= nil then check.table(o.prices, "size.prices") end
  local ts = o.t or M.T_SIZES
  check.table(ts, "size.t")
  local specs, unpriced = sizedev.list(q)
  if modes.mixed and not modes.agg and not modes.disagg and #specs < 2 then
    check.fail("size.modes", "expected two device types or more for mixed pools (a prefill and a decode device)",
      #specs == 1 and specs[1].id or #specs)
  end
  local eps = modes.agg and sizedev.ep_sizes(c, o.ep, q.max_gpus) or {}
  local pps = sizedev.pp_sizes(c, o.pp)
  local array = require("tilewave.util.json").array -- every list a JSON array, [] when empty
  local cands, rejected, prices = require("tilewave.serve.size_candidates").list(q, c, specs, modes, ts, eps, pps,
    o.t == nil)
  local result = { deployments = array(), below_confidence = array(), rejected = array(rejected),
                   unpriced = array(unpriced), rate = o.rate, confidence = q.confidence, samples = q.samples,
                   prices = array(prices) } -- each device's price, USD per GPU-hour, and where it came from
  local failed = {} -- the reasons the evaluated candidates were refused for
  for _, k in ipairs(cands) do
    local d, why
    if k.kind == "agg" then d, why = evaluate(k.q, k.spec, k.t, k.cost_h, k.ep, k.pp)
    else d, why = evaluate_disagg(k.q, k.spec, k.tp, k.td, k.cost_h, k.dspec, k.dcost_h) end
    -- a candidate ranks, waits below the confidence, or is rejected with its reason
    if d then
      local list = d.p_meet >= q.confidence and result.deployments or result.below_confidence
      list[#list + 1] = d
    else
      result.rejected[#result.rejected + 1] = { hw = k.hw or k.spec.id, t = k.label, reason = why }
      failed[#failed + 1] = why
    end
  end
  local function by_cost(a, b)
    if a.cost_per_million_output_tokens ~= b.cost_per_million_output_tokens then
      return a.cost_per_million_output_tokens < b.cost_per_million_output_tokens
    end
    return a.hw .. a.mode .. a.gpus .. a.t < b.hw .. b.mode .. b.gpus .. b.t
  end
  table.sort(result.deployments, by_cost)
  table.sort(result.below_confidence, by_cost)
  -- a search that could run nothing, every deployment refused for one and the same reason (one
  -- that names no device or size: the workload past the model's context, turns with disaggregated
  -- pools, a mode with one device), is the inputs' fault: it fails with that reason, as serve would
  if #result.deployments == 0 and #result.below_confidence == 0 and #failed > 0 then
    -- a field-named error (serve.workload: ...), not a finding such as "no rate meets the SLO"
    local same = failed[1]:match("^[%w_]+%.[%w_.]+: ") ~= nil
    for _, why in ipairs(failed) do same = same and why == failed[1] end
    if same and (#failed > 1 or #cands == 1) then error(failed[1], 0) end
  end
  result.slo = o.slo
  return result
end

return M
