--- tilewave.data.serving_summaries: benchmark results that hold statistics, not requests - read
-- into the shape tilewave.data.serving_results returns with `aggregate = true`.
--
-- Each field read, by client and release (the writer's source):
--   vLLM `--save-result` without `--save-detailed` (vllm/benchmarks/serve.py, 0.9 and later; the
--     per-request keys are dropped without --save-detailed), and SGLang `bench_serving
--     --output-file` without `--output-details` (sglang/python/sglang/bench_serving.py): completed,
--     duration (s), request_rate (Infinity: unpaced), max_concurrency, total_input_tokens,
--     total_output_tokens, and in ms: mean_ttft_ms, median_ttft_ms, p99_ttft_ms, mean_tpot_ms,
--     median_tpot_ms, p99_tpot_ms (vLLM 0.6 and SGLang 0.5 the same names); SGLang 0.4 (2024-12)
--     writes median_ttft_ms and median_itl_ms only, and mean_e2e_latency_ms. SGLang names its
--     dataset (dataset_name) and random_input_len, random_output_len, random_range_ratio.
--   GenAI-Perf (triton-inference-server/perf_analyzer genai-perf, profile_export_genai_perf.json):
--     time_to_first_token, inter_token_latency ({ avg, p50, p90, p99, unit }), request_throughput
--     { avg }, input_sequence_length and output_sequence_length ({ avg, std }, tokens),
--     request_count; the load in input_config: concurrency or request_rate (24.x), or since
--     2025-03 nested under input_config.perf_analyzer.stimulus { concurrency | request_rate }.
--   AIPerf 0.11 (ai-dynamo/aiperf, profile_export_aiperf.json): the same statistics, plus
--     benchmark_duration { avg } (s) and request_count { avg }; the load in input_config.phases[]
--     { type = "concurrency" | "request_rate", concurrency, request_rate }; input_sequence_length
--     only for synthetic inputs.
-- Lengths are drawn as the client drew them (M.lengths), around the file's own mean.
-- Units: s, token, request/s.
-- @module tilewave.data.serving_summaries
local M = {}
local format, floor, sqrt, log, cos, pi = string.format, math.floor, math.sqrt, math.log, math.cos, math.pi

local function fail(path, field, what, got)
  error(format("%s: %s: %s%s", path, field, what, got ~= nil and (", got " .. tostring(got)) or ""), 0)
end

local null = require("cjson").null

-- a number field: finite, >= 0 (nil when absent and optional)
local function number(path, v, field, optional)
  if v == nil or v == null then
    if optional then return nil end
    fail(path, field, "expected a number")
  end
  if type(v) ~= "number" or v ~= v or v < 0 or v == math.huge then
    fail(path, field, "expected a finite non-negative number", v)
  end
  return v
end
M.number = number

-- a statistic { avg, p50, p90, p99, unit } in s (units ms, s, us, ns); each percentile optional
-- but avg or p50
local SCALE = { ms = 1e-3, s = 1, ns = 1e-9, us = 1e-6 }
local function stat(path, doc, key)
  local v = doc[key]
  if type(v) ~= "table" then fail(path, key, "expected a statistic { avg, p50, p90, unit }", v == nil and "none" or type(v)) end
  local k = SCALE[v.unit]
  if not k then fail(path, key .. ".unit", "expected ms, s, us or ns", v.unit) end
  local out = {}
  for f, to in pairs { avg = "mean", p50 = "p50", p90 = "p90", p99 = "p99" } do
    local x = number(path, v[f], key .. "." .. f, f ~= "avg")
    out[to] = x and x * k
  end
  if out.p50 and out.p90 and out.p50 > out.p90 then
    fail(path, key .. ".p50", format("expected at most p90 %g %s", v.p90, v.unit), v.p50)
  end
  return out
end

-- a small deterministic generator (SplitMix64's mixer on an integer counter): the same file gives
-- the same lengths on every machine
local function uniform(seed)
  local state = seed
  return function()
    state = state + 0x9E3779B97F4A7C15
    local z = state
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    z = z ~ (z >> 31)
    return ((z >> 11) + 0.5) / 9007199254740992.0
  end
end

--- Lengths of `n` requests as the client draws them, with the file's mean `mean` (tokens):
--   { kind = "fixed" }: every request `mean` (vLLM's random dataset at its default range ratio 0,
--     a summary naming no spread);
--   { kind = "uniform", ratio = r }: SGLang's random dataset, randint(max(int(L r), 1), L + 1)
--     (sglang bench_serving sample_random_requests), its L set so the mean is the file's;
--   { kind = "normal", std = s }: GenAI-Perf's and AIPerf's synthetic prompts, max(1, round(gauss(
--     mean, std))) (genai-perf synthetic_prompt_generator: a normal, floored at one token, no cap).
-- @return a list of n positive integers (deterministic: seeded by `seed`)
function M.lengths(spec, mean, n, seed)
  local out = {}
  local rand = uniform(seed or 1)
  if spec.kind == "uniform" and spec.ratio < 1 then
    local hi = 2 * mean / (1 + spec.ratio)
    local lo = math.max(1, floor(hi * spec.ratio))
    hi = math.max(lo, floor(hi + 0.5))
    for i = 1, n do out[i] = lo + floor(rand() * (hi - lo + 1)) end
  elseif spec.kind == "normal" and spec.std > 0 then
    for i = 1, n do
      local z = sqrt(-2 * log(rand())) * cos(2 * pi * rand())
      out[i] = math.max(1, floor(mean + spec.std * z + 0.5))
    end
  else
    local v = math.max(1, floor(mean + 0.5))
    for i = 1, n do out[i] = v end
  end
  return out
end

--- The load a summary names: rate (request/s; math.huge unpaced) and max_concurrency, and its name:
-- "paced at R req/s", "paced at R req/s, at most C in flight", "closed loop of C" (unpaced with a
-- concurrency cap: a finished request sends the next), "offline" (every request at once).
function M.load_name(rate, mc)
  if rate < math.huge then
    return mc and format("paced at %g req/s, at most %d in flight", rate, mc) or format("paced at %g req/s", rate)
  end
  return mc and format("closed loop of %d", mc) or "offline (every request at once)"
end

-- GenAI-Perf's and AIPerf's load: input_config.concurrency / request_rate (GenAI-Perf 24.x),
-- input_config.perf_analyzer.stimulus (GenAI-Perf from 2025-03), input_config.phases[] (AIPerf)
local function stimulus(cfg)
  local function pick(t)
    if type(t) ~= "table" then return nil end
    local cc, rr = t.concurrency, t.request_rate
    if type(cc) == "number" and cc >= 1 and cc % 1 == 0 then return math.huge, math.tointeger(cc) end
    if type(rr) == "number" and rr > 0 and rr == rr and rr < math.huge then return rr, nil end
    return nil
  end
  local r, c = pick(cfg)
  if r then return r, c end
  r, c = pick(type(cfg.perf_analyzer) == "table" and cfg.perf_analyzer.stimulus)
  if r then return r, c end
  if type(cfg.phases) == "table" then
    for _, ph in ipairs(cfg.phases) do
      if type(ph) == "table" and ph.exclude_from_results ~= true then
        r, c = pick(ph)
        if r then return r, c end
      end
    end
  end
  return nil
end

--- GenAI-Perf's or AIPerf's summary `doc` at `path` (see the module's comment).
-- @return the aggregate shape (M.vllm_sglang's), format "genai-perf" or "aiperf"
function M.genai_perf(path, doc, max_requests)
  local aiperf = doc.aiperf_version ~= nil or doc.schema_version ~= nil
  local out = { format = aiperf and "aiperf" or "genai-perf", path = path, requests = {}, aggregate = true }
  out.ttft, out.tpot = stat(path, doc, "time_to_first_token"), stat(path, doc, "inter_token_latency")
  local rt = doc.request_throughput
  out.requests_per_s = number(path, type(rt) == "table" and rt.avg or nil, "request_throughput.avg")
  if not (out.requests_per_s > 0) then fail(path, "request_throughput.avg", "expected a positive rate", out.requests_per_s) end
  local function count(key)
    local v = doc[key]
    if type(v) ~= "table" then
      fail(path, key, aiperf and "expected { avg, std } (tokens): AIPerf writes it only for synthetic inputs; rerun "
        .. "aiperf profile with --synthetic-input-tokens-mean (and -stddev) instead of a file dataset"
        or "expected { avg, std } (tokens)", v == nil and "none" or type(v))
    end
    local o = { mean = number(path, v.avg, key .. ".avg"), std = number(path, v.std or 0, key .. ".std") }
    if o.mean < 1 then fail(path, key .. ".avg", "expected at least 1 token", o.mean) end
    return o
  end
  out.isl, out.osl = count("input_sequence_length"), count("output_sequence_length")
  out.isl.kind, out.osl.kind = "normal", "normal"
  local cfg = type(doc.input_config) == "table" and doc.input_config or {}
  out.rate, out.max_concurrency = stimulus(cfg)
  if not out.rate then
    fail(path, "input_config", "expected the load: concurrency or request_rate (GenAI-Perf 24.x), "
      .. "perf_analyzer.stimulus (GenAI-Perf 2025), or phases[].concurrency (AIPerf)", "none")
  end
  local n = doc.request_count
  if type(n) == "table" then n = n.avg end
  if n == nil or n == null or n == 0 then
    -- GenAI-Perf measures over time windows (--measurement-interval): no count is written; the
    -- simulation then runs the load long enough for steady statistics, and says so
    local dur = type(doc.benchmark_duration) == "table" and doc.benchmark_duration.avg or nil
    if type(dur) == "number" and dur > 0 then
      n = floor(out.requests_per_s * dur + 0.5)
    else
      n = math.min(max_requests, math.max(1000, 10 * (out.max_concurrency or 0)))
      out.count_assumed = format("request_count: none in the file (GenAI-Perf measures over time windows); %d "
        .. "simulated, enough for steady statistics", n)
    end
  end
  n = number(path, n, "request_count")
  if n < 1 or n % 1 ~= 0 or n > max_requests then
    fail(path, "request_count", format("expected an integer from 1 to %d", max_requests), n)
  end
  out.completed = math.tointeger(n)
  out.duration_s = out.completed / out.requests_per_s
  return out
end

--- A vLLM or SGLang result without per-request arrays, `doc` at `path`, of format `fmt`
-- ("vllm" | "sglang").
-- @return `{ format, path, aggregate = true, requests = {}, ttft = { mean, p50, p90, p99 } (s, each
--   nil where the file has none), tpot = {...}, requests_per_s, isl = { mean, kind, ratio },
--   osl = {...}, completed, rate, max_concurrency, duration_s }`
function M.vllm_sglang(path, doc, fmt, max_requests)
  local out = { format = fmt, path = path, requests = {}, aggregate = true }
  local function ms(key) local v = number(path, doc[key], key, true); return v and v * 1e-3 end
  out.ttft = { mean = ms("mean_ttft_ms"), p50 = ms("median_ttft_ms"), p99 = ms("p99_ttft_ms") }
  -- TPOT as the client defines it, (E2E - TTFT) / (output - 1); SGLang 0.4 writes the median ITL
  -- only, which is TPOT's median for a request whose tokens stream one at a time
  out.tpot = { mean = ms("mean_tpot_ms"), p50 = ms("median_tpot_ms") or ms("median_itl_ms"), p99 = ms("p99_tpot_ms") }
  out.itl_p99 = ms("p99_itl_ms")
  if not (out.ttft.mean or out.ttft.p50) then
    fail(path, "mean_ttft_ms", "expected the TTFT statistics of vLLM's or SGLang's result (mean_ttft_ms or "
      .. "median_ttft_ms); rerun the benchmark with --save-result (vLLM) or --output-file (SGLang)", "none")
  end
  local done = number(path, doc.completed, "completed")
  if done < 1 or done % 1 ~= 0 or done > max_requests then
    fail(path, "completed", format("expected an integer from 1 to %d", max_requests), done)
  end
  out.completed = math.tointeger(done)
  out.duration_s = number(path, doc.duration, "duration")
  if not (out.duration_s > 0) then fail(path, "duration", "expected a positive duration (s)", out.duration_s) end
  out.requests_per_s = out.completed / out.duration_s
  local rate = doc.request_rate
  if rate == nil or rate == null or rate == "inf" then rate = math.huge end
  out.rate = rate == math.huge and rate or number(path, rate, "request_rate")
  if out.rate == 0 then fail(path, "request_rate", "expected a positive rate (or Infinity: unpaced)", 0) end
  local mc = number(path, doc.max_concurrency, "max_concurrency", true)
  if mc ~= nil and (mc < 1 or mc % 1 ~= 0) then fail(path, "max_concurrency", "expected a positive integer", mc) end
  out.max_concurrency = mc and math.tointeger(mc)
  local tin = number(path, doc.total_input_tokens, "total_input_tokens")
  local tout = number(path, doc.total_output_tokens, "total_output_tokens")
  out.isl = { mean = tin / out.completed, kind = "fixed" }
  out.osl = { mean = tout / out.completed, kind = "fixed" }
  if out.isl.mean < 1 or out.osl.mean < 1 then
    fail(path, "total_input_tokens", "expected at least one token a request", out.isl.mean)
  end
  -- SGLang's random dataset draws each length uniformly in [max(1, L r), L]
  local ratio = number(path, doc.random_range_ratio, "random_range_ratio", true)
  if fmt == "sglang" and doc.dataset_name == "random" and ratio and ratio < 1 then
    out.isl.kind, out.isl.ratio = "uniform", ratio
    out.osl.kind, out.osl.ratio = "uniform", ratio
  end
  return out
end

return M
