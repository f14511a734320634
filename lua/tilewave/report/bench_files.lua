--- tilewave.report.bench_files: a simulated run written as the engines' benchmark clients write
-- their result files - what `calibrate --serving` and each client's own tools read back
-- (`serve --requests-out F --requests-format vllm | sglang | genai-perf`). Formats only: every
-- figure comes from the run's records (tilewave.serve.simulate with detail). Units in each file as
-- its client writes them: s in per-request arrays, ms in statistics.
-- @module tilewave.report.bench_files
local tw = require "tilewave"
local json = require "tilewave.util.json"
local stats = require "tilewave.util.stats"

local M = {}
local format = string.format

-- mean, median, population standard deviation and p99 of list `v` (s) in ms, as the clients print
-- them (tilewave.util.stats), and percentile `extra` as `pq`
local function stats_ms(v, extra)
  local s = stats.sorted(v)
  local mean, std = stats.mean_std(s)
  return { mean = 1e3 * mean, median = 1e3 * stats.percentile_sorted(s, 50), std = 1e3 * std,
           p99 = 1e3 * stats.percentile_sorted(s, 99), pq = extra and 1e3 * stats.percentile_sorted(s, extra) or nil }
end

-- Request j's ITLs as its client sees them (s): one gap a chunk after its first token. The chunks'
-- engine times (records.chunks_s, simulate's detail = "chunks") give every gap after the first; the
-- first is what is left of the client's first-to-last-token span (finish_s - first_token_s), so the
-- gaps sum to it exactly and carry the front-end and asynchronous-output shifts the records carry.
-- Under asynchronous output processing (vLLM 0.6) the first token reaches the client when the next
-- step ends, with the second: that first gap is then 0. A speculative step's accepted tokens are one
-- chunk, one gap (as vLLM's client counts them), so a request has fewer gaps than output - 1.
local function chunk_gaps(c, j)
  local e = c.chunks_s and c.chunks_s[j]
  if e == nil then
    error("bench_files: the run's records lack chunks_s (run tilewave.serve.simulate with detail = \"chunks\")", 0)
  end
  local g, m = json.array(), #e
  if m == 0 then return g end
  local span = c.finish_s[j] - c.first_token_s[j]
  for k = 2, m do g[k] = e[k] - e[k - 1] end
  g[1] = span - (e[m] - e[1])
  return g
end

-- vLLM's peak figures of a run (vllm/benchmarks/serve.py calculate_metrics, 0.10 and later): over
-- one-second buckets from the first send, the most chunks received in one bucket (each request's
-- first token and one per ITL) and the most requests active in one (from its send's bucket to its
-- end's, both counted)
local function peaks(c, gaps)
  local t0, t1 = math.huge, -math.huge
  for j = 1, #c.arrival_s do
    t0 = math.min(t0, c.arrival_s[j])
    t1 = math.max(t1, c.finish_s[j])
  end
  if t0 == math.huge then return 0.0, 0 end
  local n = math.ceil(t1 - t0) + 1
  local tok, act = {}, {}
  for b = 0, n - 1 do tok[b], act[b] = 0, 0 end
  for j = 1, #c.arrival_s do
    local t = c.first_token_s[j]
    local b = math.floor(t - t0)
    if b >= 0 and b < n then tok[b] = tok[b] + 1 end
    for _, g in ipairs(gaps[j]) do
      t = t + g
      b = math.floor(t - t0)
      if b >= 0 and b < n then tok[b] = tok[b] + 1 end
    end
    for s = math.floor(c.arrival_s[j] - t0), math.min(math.floor(c.finish_s[j] - t0), n - 1) do act[s] = act[s] + 1 end
  end
  local mt, ma = 0, 0
  for b = 0, n - 1 do
    if tok[b] > mt then mt = tok[b] end
    if act[b] > ma then ma = act[b] end
  end
  return mt + 0.0, ma
end

--- Run `r` (with its records) as vLLM's `vllm bench serve --save-result --save-detailed` JSON
-- writes one (vllm/benchmarks/serve.py `result` and the keys main() adds: backend, model_id,
-- tokenizer_id, num_prompts, request_rate (Infinity: unpaced), burstiness, max_concurrency,
-- duration, completed, failed, total_input_tokens, total_output_tokens, request_throughput,
-- request_goodput, output_throughput, total_token_throughput, max_output_tokens_per_s and
-- max_concurrent_requests (0.10 and later), mean_/median_/std_/p99_ of ttft, tpot, itl and e2el in
-- ms, and per request input_lens, output_lens, ttfts, itls, start_times, generated_texts, errors):
-- what `calibrate --serving` and vLLM's own tools read. Each request's ITLs are its simulated
-- chunk gaps (records.chunks_s: simulate with detail = "chunks"); TPOT is vLLM's (E2E - TTFT) /
-- (output - 1). Left out: date (the same inputs give the same file); the texts are empty strings.
function M.vllm(r)
  local c = r.records
  local ttfts, itls, ins, outs, errs, starts, texts = {}, {}, {}, {}, {}, {}, {}
  local tpots, gaps_all = {}, {}
  local tin, tout = 0, 0
  for j = 1, #c.arrival_s do
    ins[j], outs[j] = math.tointeger(c.input_tokens[j]), math.tointeger(c.output_tokens[j])
    ttfts[j], errs[j], texts[j] = c.first_token_s[j] - c.arrival_s[j], "", ""
    starts[j] = c.arrival_s[j]
    tin, tout = tin + ins[j], tout + outs[j]
    local gaps = chunk_gaps(c, j)
    for _, g in ipairs(gaps) do gaps_all[#gaps_all + 1] = g end
    if outs[j] > 1 then tpots[#tpots + 1] = (c.finish_s[j] - c.first_token_s[j]) / (outs[j] - 1) end
    itls[j] = gaps
  end
  local n = #c.arrival_s
  local dur = r.duration_s
  local peak_tokens, peak_requests = peaks(c, itls)
  local doc = { backend = "tilewave", endpoint_type = "tilewave", model_id = r.model, tokenizer_id = r.model,
    num_prompts = n, request_rate = r.rate or "inf", burstiness = r.cv or 1.0,
    max_concurrency = r.concurrency or json.null, request_goodput = json.null, label = json.null,
    duration = dur, completed = n, failed = 0, total_input_tokens = tin, total_output_tokens = tout,
    request_throughput = n / dur, output_throughput = tout / dur, total_token_throughput = (tin + tout) / dur,
    max_output_tokens_per_s = peak_tokens, max_concurrent_requests = peak_requests,
    input_lens = ins, output_lens = outs, ttfts = ttfts, itls = itls, start_times = starts,
    generated_texts = texts, errors = errs, engine = r.engine, hw = r.hw }
  -- vLLM's default --percentile-metrics: ttft, tpot, itl (e2el on request)
  for name, v in pairs { ttft = ttfts, tpot = tpots, itl = gaps_all } do
    local st = stats_ms(v)
    for q, x in pairs(st) do doc[format("%s_%s_ms", q, name)] = x end
  end
  return tw.report.json(doc) .. "\n"
end


-- the per-request figures of run `r`'s records: lengths, TTFT, TPOT, E2E (s), each request's ITLs
-- and every gap, send times
local function per_request(r)
  local c = r.records
  local q = { ins = {}, outs = {}, ttfts = {}, tpots = {}, e2e = {}, itls = {}, gaps = {}, starts = {}, tin = 0,
              tout = 0 }
  for j = 1, #c.arrival_s do
    q.ins[j], q.outs[j] = math.tointeger(c.input_tokens[j]), math.tointeger(c.output_tokens[j])
    q.ttfts[j] = c.first_token_s[j] - c.arrival_s[j]
    q.e2e[j] = c.finish_s[j] - c.arrival_s[j]
    q.starts[j] = c.arrival_s[j]
    q.tin, q.tout = q.tin + q.ins[j], q.tout + q.outs[j]
    if q.outs[j] > 1 then q.tpots[#q.tpots + 1] = (c.finish_s[j] - c.first_token_s[j]) / (q.outs[j] - 1) end
    q.itls[j] = chunk_gaps(c, j)
    for _, g in ipairs(q.itls[j]) do q.gaps[#q.gaps + 1] = g end
  end
  q.n = #c.arrival_s
  return q
end

--- Run `r` as SGLang's `python -m sglang.bench_serving --output-file F --output-details` writes one
-- run: one JSON line (sglang/python/sglang/bench_serving.py: backend, dataset_name, request_rate
-- (Infinity: unpaced), max_concurrency, duration, completed, total_input_tokens,
-- total_output_tokens, total_output_tokens_retokenized, request_throughput, input_throughput,
-- output_throughput, total_throughput, mean_/median_/std_/p99_ of e2e_latency, ttft, tpot and itl
-- in ms (and p95_itl_ms), concurrency (the mean requests in flight: the E2E times over the
-- duration), accept_length, and with --output-details input_lens, output_lens, ttfts, itls,
-- generated_texts, errors). Left out: tag, server_info and the dataset's own parameters
-- (sharegpt_output_len, random_*: null), the texts empty. Each request's ITLs are its simulated
-- chunk gaps, as in M.vllm.
function M.sglang(r)
  local q = per_request(r)
  local dur = r.duration_s
  local itls, texts, errs = q.itls, {}, {}
  for j = 1, q.n do texts[j], errs[j] = "", "" end
  local e2e_sum = 0
  for _, x in ipairs(q.e2e) do e2e_sum = e2e_sum + x end
  local doc = { backend = "tilewave", dataset_name = "tilewave", request_rate = r.rate or "inf",
    max_concurrency = r.concurrency or json.null, sharegpt_output_len = json.null, random_input_len = json.null,
    random_output_len = json.null, random_range_ratio = json.null, duration = dur, completed = q.n,
    total_input_tokens = q.tin, total_input_text_tokens = q.tin, total_input_vision_tokens = 0,
    total_output_tokens = q.tout, total_output_tokens_retokenized = q.tout,
    request_throughput = q.n / dur, input_throughput = q.tin / dur, output_throughput = q.tout / dur,
    total_throughput = (q.tin + q.tout) / dur, concurrency = e2e_sum / dur, accept_length = json.null,
    input_lens = q.ins, output_lens = q.outs, ttfts = q.ttfts, itls = itls, generated_texts = texts, errors = errs }
  for name, v in pairs { e2e_latency = q.e2e, ttft = q.ttfts, tpot = q.tpots, itl = q.gaps } do
    for stat, x in pairs(stats_ms(v)) do doc[format("%s_%s_ms", stat, name)] = x end
  end
  doc.p95_itl_ms = stats_ms(q.gaps, 95).pq
  return tw.report.json(doc):gsub("\n", "") .. "\n"
end

-- GenAI-Perf's statistic of list `v` (s or tokens) times `k`, in `unit`: { unit, avg, min, max,
-- std, p25, p50, p75, p90, p95, p99 } (genai-perf's metrics statistics, numpy's percentiles)
local function gp_stat(v, unit, k)
  local s = {}
  for i, x in ipairs(v) do s[i] = x * k end
  table.sort(s)
  local mean, std = stats.mean_std(s)
  local out = { unit = unit, avg = mean, min = s[1] or 0, max = s[#s] or 0, std = std }
  for _, q in ipairs { 25, 50, 75, 90, 95, 99 } do out["p" .. q] = stats.percentile_sorted(s, q) end
  return out
end

--- Run `r` as GenAI-Perf's `profile_export_genai_perf.json` summary (triton-inference-server/
-- perf_analyzer genai-perf, 24.x: time_to_first_token, inter_token_latency (each request's mean
-- gap: its TPOT), request_latency (ms), input_sequence_length, output_sequence_length (tokens),
-- request_throughput { avg } (requests/sec), output_token_throughput { avg } (tokens/sec),
-- output_token_throughput_per_request (tokens/sec), input_config { concurrency | request_rate,
-- request_count }); what `calibrate --serving` reads as a summary.
function M.genai_perf(r)
  local q = per_request(r)
  local dur = r.duration_s
  local tput = {}
  for j = 1, q.n do tput[j] = q.outs[j] / q.e2e[j] end
  local cfg = { request_count = q.n, concurrency = r.concurrency or json.null,
                request_rate = r.rate or json.null, model = { r.model } }
  local doc = { time_to_first_token = gp_stat(q.ttfts, "ms", 1e3), inter_token_latency = gp_stat(q.tpots, "ms", 1e3),
    request_latency = gp_stat(q.e2e, "ms", 1e3), input_sequence_length = gp_stat(q.ins, "tokens", 1),
    output_sequence_length = gp_stat(q.outs, "tokens", 1),
    request_throughput = { unit = "requests/sec", avg = q.n / dur },
    output_token_throughput = { unit = "tokens/sec", avg = q.tout / dur },
    output_token_throughput_per_request = gp_stat(tput, "tokens/sec", 1), request_count = { avg = q.n },
    input_config = cfg }
  return tw.report.json(doc) .. "\n"
end

return M
