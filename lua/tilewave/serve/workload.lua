--- tilewave.serve.workload: the requests of a serving run, as the C loop draws them.
--
--   workload = { rate = 8 }                                  Poisson, 8 requests/s, 1000 requests
--   workload = { rate = 8, cv = 2 }                          gamma gaps, coefficient of variation 2
--   workload = { concurrency = 64 }                          closed loop, 64 requests in flight
--   workload = { arrival = "offline", requests = 5000 }      every request at t = 0
--   workload = { trace = "requests.csv" }                    arrival_s,input_tokens,output_tokens
--   isl / osl: a number (fixed), { dist = "uniform", min, max }, { dist = "lognormal",
--   median (or mean), sigma (of ln tokens; or p90; or a mean with the median), min, max }, or a
--   named `dataset`. With a median and a mean, sigma is solved so that the truncated draw's mean is
--   the mean (mu = ln median).
--
-- Arrival processes as vLLM's benchmark_serving offers them: gaps Gamma(shape = 1/cv^2, scale =
-- 1/(rate * shape)), cv = 1 Poisson, with `concurrency` beside a rate the cap --max-concurrency puts
-- on requests in flight (a held request is sent when one finishes); alone, `concurrency` is its
-- --max-concurrency semaphore with every
-- request ready (a finished request lets the next one in at once); the first request arrives at
-- t = 0 (../shared/reference/serving/facts.md §3.1). Token counts are drawn per request from a
-- seeded generator (xoshiro256**) in the core: the same seed gives the same requests.
-- @module tilewave.serve.workload
local check = require "tilewave.util.check"

local M = {}

local format = string.format

--- Default number of requests (vLLM's benchmark_serving --num-prompts default).
M.REQUESTS = 1000

local FACTS = "../shared/reference/serving/facts.md §3.2"
local Z90 = 1.2815515655446004 -- the standard normal's 90th percentile

--- Named length distributions: lognormal token counts fitted to published statistics
-- (median and 90th percentile, or a mean with the shape borrowed), within the dataset's bounds.
M.datasets = {
  sharegpt = {
    description = "ShareGPT first turns as vLLM's and SGLang's benchmark_serving filter them (prompt 4-1024, "
      .. "prompt + output <= 2048, here output <= 2044 drawn apart from the prompt)",
    isl = { mean = 215, sigma = 0.93, min = 4, max = 1024 },
    osl = { median = 119, mean = 194, min = 4, max = 2044 },
    source = FACTS .. ": input mean 215 (1000 prompts, Llama-3 tokenizer); output mean 194 = 4281.51 / 22.03 "
      .. "(SGLang's offline ShareGPT row, output tokens/s over requests/s, published_given.csv), output median "
      .. "about 119 = (median E2E - median TTFT) / median TPOT of the four SGLang online rows there (116-121); "
      .. "sigma solved so that the draw within [4, 2044] keeps both (1.027; before 2026-11-28 the mean alone was "
      .. "kept under a 1024 cap, which moved the median to about 137); the input spread (0.93) borrowed from "
      .. "the multi-turn ShareGPT statistics below",
  },
  sharegpt_multi = {
    description = "ShareGPT multi-turn (openchat_sharegpt4, <= 8192 tokens), as Sarathi-Serve uses it",
    isl = { median = 1730, p90 = 5696, min = 1, max = 8192 },
    osl = { median = 415, p90 = 834, min = 1, max = 1024 },
    source = FACTS .. " (sarathi-serve sharegpt_8k_filtered_stats_llama2_tokenizer.csv, 30,731 requests)",
  },
  lmsys = {
    description = "LMSys-Chat-1M, at most 4096 tokens (Vidur)",
    isl = { median = 417, p90 = 1678, min = 1, max = 4096 }, osl = { median = 139, p90 = 484, min = 1, max = 4096 },
    source = FACTS .. " (vidur dashboard/intro_page.py)",
  },
  arxiv = {
    description = "Arxiv summarization, at most 4096 tokens (Vidur)",
    isl = { median = 2730, p90 = 3702, min = 1, max = 4096 }, osl = { median = 167, p90 = 372, min = 1, max = 3273 },
    source = FACTS .. " (vidur; arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv)",
  },
  bwb = {
    description = "Bilingual-Web-Book, at most 4096 tokens (Vidur)",
    isl = { median = 1037, p90 = 1453, min = 1, max = 4096 }, osl = { median = 1601, p90 = 2149, min = 1, max = 4096 },
    source = FACTS .. " (vidur dashboard/intro_page.py)",
  },
  azure_code = {
    description = "Azure LLM inference trace 2023, code",
    isl = { median = 1469, p90 = 5188, min = 1, max = 7437 }, osl = { median = 13, p90 = 55, min = 1, max = 1899 },
    source = FACTS .. " (AzureLLMInferenceTrace_code.csv, 8,819 requests)",
  },
  azure_conv = {
    description = "Azure LLM inference trace 2023, conversation",
    isl = { median = 1020, p90 = 2734, min = 1, max = 14050 }, osl = { median = 129, p90 = 424, min = 1, max = 1000 },
    source = FACTS .. " (AzureLLMInferenceTrace_conv.csv, 19,366 requests)",
  },
}

--- The standard normal CDF (Abramowitz & Stegun 26.2.17, |error| < 7.5e-8).
local function phi(x)
  local t = 1 / (1 + 0.2316419 * math.abs(x))
  local d = 0.3989422804014327 * math.exp(-x * x / 2)
  local p = d * t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
  return x >= 0 and 1 - p or p
end

M.normal_cdf = phi

-- mean of a lognormal (mu, s) truncated to [lo, hi]
local function truncated_mean(mu, s, lo, hi)
  local a, b = (math.log(lo) - mu) / s, (math.log(hi) - mu) / s
  local mass = phi(b) - phi(a)
  if mass <= 0 then return math.exp(mu) end
  return math.exp(mu + s * s / 2) * (phi(b - s) - phi(a - s)) / mass
end

-- the mu found for a (mean, sigma, min, max): the bisection below is the same every time it is asked
local mu_of_mean, n_mu = {}, 0

-- the sigma whose lognormal (mu = ln median) truncated to [lo, hi] has the asked mean: the
-- first 0.01 step of sigma past it, then bisection within that step (the truncated mean need not
-- grow with sigma everywhere, so the first crossing is taken); memoized as mu_of_mean is
local function sigma_of(median, mean, lo, hi, path)
  local key = format("s%.17g/%.17g/%d/%d", median, mean, lo, hi)
  if mu_of_mean[key] then return mu_of_mean[key] end
  local mu = math.log(median)
  if median < lo or median > hi then
    check.fail(path .. ".median", format("expected within [min %d, max %d]", lo, hi), median)
  end
  if mean < median or mean > hi then
    check.fail(path .. ".mean", format("expected within [median %.6g, max %d]", median, hi), mean)
  end
  local a
  for i = 0, 999 do
    if truncated_mean(mu, math.max(i / 100, 1e-9), lo, hi) >= mean then a = i; break end
  end
  if not a then
    check.fail(path .. ".mean", format("expected a mean that a lognormal of median %.6g within [%d, %d] can reach",
      median, lo, hi), mean)
  end
  local x, y = math.max((a - 1) / 100, 1e-9), math.max(a / 100, 1e-9)
  for _ = 1, 100 do
    local m = (x + y) / 2
    if truncated_mean(mu, m, lo, hi) < mean then x = m else y = m end
  end
  if n_mu >= 1024 then mu_of_mean, n_mu = {}, 0 end
  mu_of_mean[key], n_mu = (x + y) / 2, n_mu + 1
  return mu_of_mean[key]
end

-- a token count: a positive integer up to 2^31 - 1, the bound tilewave.ops.transformer puts on b x s
-- (so that prompt + output over 1000 turns stays an exact integer)
local given = require "tilewave.serve.workload_given"
local tokens = given.tokens


-- { kind, a, b, lo, hi } for the core from a length spec
local function lengths(v, path)
  if type(v) == "number" then
    return { kind = "fixed", a = tokens(v, path) }
  end
  check.table(v, path)
  if v.dist == "uniform" then
    check.options(v, { dist = true, min = true, max = true }, path)
    local lo = tokens(v.min, path .. ".min")
    local hi = tokens(v.max, path .. ".max")
    if hi < lo then check.fail(path .. ".max", format("expected at least min %d", lo), hi) end
    return { kind = "uniform", a = lo, b = hi }
  elseif v.dist == "lognormal" or v.dist == nil then
    check.options(v, { dist = true, mean = true, median = true, sigma = true, p90 = true, min = true, max = true }, path)
    local lo = tokens(v.min or 1, path .. ".min")
    local hi = tokens(v.max or 1e8, path .. ".max")
    if hi < lo then check.fail(path .. ".max", format("expected at least min %d", lo), hi) end
    -- two of median, mean and the spread (sigma or p90) fix the distribution: a third would be ignored
    local given = {}
    for _, k in ipairs { "median", "mean", "sigma", "p90" } do if v[k] ~= nil then given[#given + 1] = k end end
    if #given > 2 then check.fail(path, "expected two of median, mean and sigma (or p90)", table.concat(given, ", ")) end
    local s
    if v.sigma ~= nil then s = check.within(v.sigma, 0, 10, "a number", path .. ".sigma")
    elseif v.p90 ~= nil and v.median ~= nil then
      check.positive(v.p90, path .. ".p90")
      if v.p90 < v.median then check.fail(path .. ".p90", "expected at least the median", v.p90) end
      s = math.log(v.p90 / v.median) / Z90
    elseif v.mean ~= nil and v.median ~= nil then
      s = sigma_of(check.positive(v.median, path .. ".median"), check.positive(v.mean, path .. ".mean"), lo, hi, path)
    else check.fail(path .. ".sigma", "expected a number (or p90 or mean with median)", nil) end
    local mu
    if v.median ~= nil then mu = math.log(check.positive(v.median, path .. ".median"))
    elseif v.mean ~= nil then
      -- the mu whose truncated mean is the asked mean (bisection; the mean grows with mu)
      local want, a, b = check.positive(v.mean, path .. ".mean"), -30, 30
      if want < lo or want > hi then check.fail(path .. ".mean", format("expected within [%d, %d]", lo, hi), want) end
      local key = format("%.17g/%.17g/%d/%d", want, s, lo, hi)
      mu = mu_of_mean[key]
      if not mu then
        for _ = 1, 200 do
          local m = (a + b) / 2
          if truncated_mean(m, math.max(s, 1e-9), lo, hi) < want then a = m else b = m end
        end
        mu = (a + b) / 2
        if n_mu >= 1024 then mu_of_mean, n_mu = {}, 0 end -- a bounded store: dropped when full
        mu_of_mean[key], n_mu = mu, n_mu + 1
      end
    else check.fail(path .. ".median", "expected a number (or mean)", nil) end
    return { kind = "lognormal", a = mu, b = s, lo = lo, hi = hi }
  end
  check.fail(path .. ".dist", "expected uniform or lognormal", v.dist)
end

-- the largest token count a length spec can give
local function max_of(l, trace)
  if l.kind == "fixed" then return l.a end
  if l.kind == "uniform" then return l.b end
  if l.kind == "trace" then
    local m = 0
    for _, x in ipairs(trace) do if x > m then m = x end end
    return m
  end
  return l.hi
end


local FIELDS = { arrival = true, rate = true, cv = true, concurrency = true, requests = true, isl = true, osl = true,
                 dataset = true, trace = true, measure = true, lengths = true, prefix = true, conversation = true }
local ARRIVALS = { poisson = true, gamma = true, offline = true, closed = true, trace = true }

--- Resolve a workload into the core's fields.
-- @tparam table o the workload (above)
-- @string path the error prefix
-- @return `{ arrival, rate, cv, concurrency, requests, isl = {...}, osl = {...}, trace_arrival,
--   trace_isl, trace_osl, max_isl, max_osl (largest tokens a request can have), measure ("replay"
--     or
--   "steady"), measure_from, measure_to (the requests the latencies are of, 0-based, to exclusive),
--   prefix_tokens, prefix_share (`prefix = { tokens, share = 1 }`: a shared system prompt of that
--     many
--   tokens before that share of the prompts; max_isl counts it),
--   requests_asked (the requests given, before steady state raised them), turns, think_s and
--   conversations (M.conversation) }`
-- @raise `<path>.<field>: <expectation>, got <value>`
function M.resolve(o, path)
  -- 102 lines, one function: a workload validated field by field, in the order its errors are
  -- raised
  check.table(o, path)
  check.options(o, FIELDS, path)
  local w = {}
  local arrival = o.arrival
  if arrival == nil then
    if o.trace or (type(o.lengths) == "table" and o.lengths.arrival_s ~= nil) then arrival = "trace"
    elseif o.rate then arrival = (o.cv and o.cv ~= 1) and "gamma" or "poisson"
    elseif o.concurrency then arrival = "closed"
    else arrival = "offline" end
  end
  check.one_of(arrival, ARRIVALS, path .. ".arrival")
  w.arrival = arrival
  if (w.arrival == "poisson" or w.arrival == "gamma") then
    w.rate = check.positive(o.rate, path .. ".rate")
    if w.arrival == "gamma" then w.cv = check.within(o.cv or 1, 0.01, 100, "a coefficient of variation", path .. ".cv") end
  elseif o.rate ~= nil then check.fail(path .. ".rate", "expected no rate with arrival " .. w.arrival, o.rate) end
  if w.arrival == "closed" then w.concurrency = check.positive_int(o.concurrency, path .. ".concurrency")
  elseif o.concurrency ~= nil and (w.arrival == "poisson" or w.arrival == "gamma") then
    -- a paced client's cap on requests in flight (vllm bench serve --request-rate with
    -- --max-concurrency; src/tw_serve.h workload concurrency): a request held by it is sent when one
    -- finishes, its TTFT counting from then
    if o.conversation ~= nil then
      check.fail(path .. ".concurrency", "expected no cap on requests in flight with conversations", o.concurrency)
    end
    w.concurrency = check.positive_int(o.concurrency, path .. ".concurrency")
  elseif o.concurrency ~= nil then
    check.fail(path .. ".concurrency", "expected no concurrency with arrival " .. w.arrival, o.concurrency)
  end
  if o.lengths ~= nil then
    -- each request's prompt and output tokens as given (a benchmark's own requests), any arrival;
    -- with `arrival_s`, their send times too (tilewave.serve.workload_given.lists)
    if o.trace ~= nil then check.fail(path .. ".lengths", "expected lengths or a trace, not both", "both") end
    local isl, osl, arr = given.lists(o.lengths, path .. ".lengths")
    local n = #isl
    if arr then
      if w.arrival ~= "trace" then
        check.fail(path .. ".lengths.arrival_s", "expected no send times with arrival " .. w.arrival, "a list")
      end
      w.trace_arrival = arr
    elseif w.arrival == "trace" then
      check.fail(path .. ".lengths.arrival_s", "expected the requests' send times with arrival trace", "none")
    end
    w.trace_isl, w.trace_osl = isl, osl
    if o.requests ~= nil and o.requests ~= n then
      check.fail(path .. ".requests", format("expected the %d requests of lengths (or none)", n), o.requests)
    end
    w.requests = n
  elseif w.arrival == "trace" or o.trace ~= nil then
    local arr, isl, osl = given.read_trace(o.trace, path .. ".trace")
    w.requests = #arr
    if o.requests ~= nil and o.requests ~= #arr then
      check.fail(path .. ".requests", format("expected the trace's %d requests (or none)", #arr), o.requests)
    end
    if w.arrival == "trace" then w.trace_arrival = arr end
    w.trace_isl, w.trace_osl = isl, osl
  else
    w.requests = check.positive_int(o.requests or M.REQUESTS, path .. ".requests")
    -- the core's limit (src/tw_serve.h TW_SERVE_MAX_REQUESTS: about 1 GB of state a run), said
    -- before the run
    if w.requests > 1e7 then
      check.fail(path .. ".requests", "expected at most 1e7 (about 100 bytes of simulator state each; 1e7 "
        .. "take 1 GB a run)", w.requests)
    end
  end
  local ds
  if o.dataset ~= nil then
    ds = M.datasets[o.dataset]
    if not ds then check.fail(path .. ".dataset", "expected one of " .. check.keys(M.datasets), o.dataset) end
  end
  for _, k in ipairs { "isl", "osl" } do
    local trace = k == "isl" and w.trace_isl or w.trace_osl
    if o[k] ~= nil then w[k] = lengths(o[k], path .. "." .. k)
    elseif trace then w[k] = { kind = "trace" }
    elseif ds then w[k] = lengths(ds[k], path .. ".dataset." .. k)
    else check.fail(path .. "." .. k, "expected a token count, a distribution, a dataset or a trace", nil) end
  end
  w.max_isl, w.max_osl = max_of(w.isl, w.trace_isl), max_of(w.osl, w.trace_osl)
  w.dataset = o.dataset
  -- a shared system prompt before a share of the prompts (prefix caching skips it on a hit)
  if o.prefix ~= nil then
    check.table(o.prefix, path .. ".prefix")
    check.options(o.prefix, { tokens = true, share = true }, path .. ".prefix")
    w.prefix_tokens = check.positive_int(o.prefix.tokens, path .. ".prefix.tokens")
    if w.prefix_tokens > 1e8 then check.fail(path .. ".prefix.tokens", "expected at most 1e8", w.prefix_tokens) end
    w.prefix_share = check.within(o.prefix.share == nil and 1 or o.prefix.share, 0, 1, "a probability",
      path .. ".prefix.share")
    w.own_max_isl = w.max_isl
    w.max_isl = w.max_isl + w.prefix_tokens
  end
  -- which requests the latencies are of: every one (benchmark replay) or a steady window
  -- (tilewave.serve.steady), the run lengthened to the steady minimum
  w.measure = check.one_of(o.measure or "replay", { replay = true, steady = true }, path .. ".measure")
  if w.measure == "steady" then
    if w.arrival ~= "poisson" and w.arrival ~= "gamma" then
      check.fail(path .. ".measure", "expected \"replay\" with arrival " .. w.arrival
        .. " (a steady state needs an open-loop rate)", o.measure)
    end
    if w.trace_isl then
      check.fail(path .. ".measure", "expected \"replay\" with a trace or lengths (their requests are fixed)", o.measure)
    end
    local plan = require("tilewave.serve.steady").plan(w.rate, o.requests)
    w.requests_asked, w.requests = o.requests, plan.requests
    w.measure_from, w.measure_to = plan.measure_from, plan.measure_to
  else
    w.measure_from, w.measure_to = 0, w.requests
  end
  if o.conversation ~= nil then M.conversation(w, o, path) end
  return w
end

--- Multi-turn conversations (`conversation = { turns, think_s = 0 }`, src/tw_serve.h turns): the
-- arrival process starts conversations, `requests` counts them (each `turns` requests), each turn's
-- isl new tokens after the previous prompt and answer, its think time exponential of mean think_s
-- after the previous answer's last token. Sets w.turns, w.think_s and scales the request counts.
-- @raise `<path>.conversation...: ...` (turns 1..1000, think_s 0..1e6 s; not with a trace, given
--   lengths, a shared prefix or the sharegpt_multi dataset, whose prompts hold their history)
function M.conversation(w, o, path)
  local p = path .. ".conversation"
  check.table(o.conversation, p)
  check.options(o.conversation, { turns = true, think_s = true }, p)
  local turns = check.positive_int(o.conversation.turns, p .. ".turns")
  if turns > 1000 then check.fail(p .. ".turns", "expected at most 1000", turns) end
  w.turns = turns
  w.think_s = check.within(o.conversation.think_s or 0, 0, 1e6, "seconds", p .. ".think_s")
  if w.trace_isl then check.fail(p, "expected no trace or given lengths (each request is one turn there)", "both") end
  if w.prefix_tokens then check.fail(p, "expected no shared prefix (a conversation's history is its prefix)", "both") end
  if o.dataset == "sharegpt_multi" then
    check.fail(p, "expected a per-turn dataset (sharegpt_multi's prompts hold their history already)", o.dataset)
  end
  if w.requests * turns > 1e7 then
    check.fail(path .. ".requests", format("expected at most 1e7 requests (%d conversations of %d turns)",
      w.requests, turns), w.requests * turns)
  end
  w.conversations = w.requests
  w.requests, w.measure_from, w.measure_to = w.requests * turns, w.measure_from * turns, w.measure_to * turns
end

return M
