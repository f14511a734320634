--- tilewave.report.serve_text: the `serve` command's runs as a table, CSV or JSON
-- (tilewave.serve.simulate results, each with its `stability` from tilewave.serve.capacity where
-- the load is open loop). Formats only: every figure comes from tilewave.serve.
local tw = require "tilewave"
local si = require "tilewave.util.si"
local csv = require "tilewave.util.csv"

local M = {}
local format = string.format

local function stat(r, k, q) return si(r[k][q], "s") end

local HEADER = { "load", "state", "req/s", "out tok/s", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "ITL p50",
                 "E2E p50", "running", "KV peak", "preempt" }

--- The measurement mode of run `r`, in words: steady state (its window) or benchmark replay.
function M.mode(r)
  local m = r.measure or {}
  if m.mode == "steady" then
    local steady = require "tilewave.serve.steady"
    local c = r.conversation -- its rate and --requests count conversations
    local what = c and format("conversations (%d turns each)", c.turns) or "requests"
    return format("steady state, each run at least %d %s and %d s of arrivals (--requests raises it; %d "
      .. "at %g/s), percentiles without the first %.0f%% of %s (warm-up) and the last %.0f%% (drain)",
      steady.MIN_REQUESTS, what, steady.MIN_SECONDS, c and c.conversations or r.requests, r.rate, 100 * steady.WARMUP,
      c and "conversations" or "requests", 100 * steady.DRAIN)
  end
  return format("benchmark replay, %d requests a run (--requests) sent as vllm bench serve sends them, ramp and "
    .. "drain included", r.requests)
end

--- Run `r` as vLLM's `--save-result --save-detailed` JSON (tilewave.report.bench_files.vllm).
function M.vllm_result(r) return require("tilewave.report.bench_files").vllm(r) end

--- The runs as text: a table (or CSV, or JSON `runs`). A load past the deployment's capacity
-- (`stability.state` "unstable", tilewave.serve.capacity) shows no TTFT or E2E: they grow with the
-- run's length, and a table must not print them as a healthy load's.
function M.render(runs, fmt)
  -- 73 lines, one function: one table's columns, each cell formatted beside its header, and its CSV
  -- and JSON forms
  if fmt == "json" then
    local clean = {}
    for i, r in ipairs(runs) do
      local c = {}
      for k, v in pairs(r) do if k ~= "records" and k ~= "series" then c[k] = v end end
      clean[i] = c
    end
    return tw.report.json { runs = clean } .. "\n"
  end
  local slo = runs[1].slo ~= nil
  local header = { table.unpack(HEADER) }
  if slo then header[#header + 1] = "goodput req/s" end
  local rows = {}
  for _, r in ipairs(runs) do
    local load = r.rate and format("%g/s", r.rate) or r.concurrency and format("c=%d", r.concurrency)
      or r.arrival == "trace" and "trace" or "offline"
    local st = r.stability and r.stability.state or "-"
    local grows = st == "unstable"
    local row
    if fmt == "csv" then
      -- the numbers of an unstable load are the run's, kept for whoever reads them with its state
      row = { load, st, csv.field(r.throughput.requests_per_s), csv.field(r.throughput.output_tokens_per_s),
        csv.field(r.ttft_s.p50), csv.field(r.ttft_s.p99), csv.field(r.tpot_s.p50), csv.field(r.tpot_s.p99),
        csv.field(r.itl_s.p50), csv.field(r.e2e_s.p50), csv.field(r.mean_running), csv.field(r.kv_peak_fraction),
        format("%d", r.preemptions) }
      if slo then row[#row + 1] = csv.field(r.goodput_rps) end
    else
      local iv = r.interval
      -- the queue's growth only where the run observed it (tilewave.serve.capacity.state)
      row = { load, grows and (r.stability.queue_growth_rps and format("UNSTABLE, queue +%.3g/s",
        r.stability.queue_growth_rps) or "UNSTABLE") or st,
        format("%.2f", r.throughput.requests_per_s), format("%.0f", r.throughput.output_tokens_per_s),
        grows and "grows" or stat(r, "ttft_s", "p50"),
        grows and "grows" or format("%s [%s, %s]", stat(r, "ttft_s", "p99"), si(iv["ttft_s.p99"][1], "s"),
          si(iv["ttft_s.p99"][2], "s")), stat(r, "tpot_s", "p50"), stat(r, "tpot_s", "p99"), stat(r, "itl_s", "p50"),
        grows and "grows" or stat(r, "e2e_s", "p50"), format("%.1f", r.mean_running),
        format("%.0f%%", 100 * r.kv_peak_fraction), format("%d", r.preemptions) }
      if slo then row[#row + 1] = grows and "-" or format("%.2f", r.goodput_rps) end
    end
    rows[#rows + 1] = row
  end
  if fmt == "csv" then
    local lines = { table.concat(header, ",") }
    for _, r in ipairs(rows) do lines[#lines + 1] = table.concat(r, ",") end
    return table.concat(lines, "\n") .. "\n"
  end
  local r = runs[1]
  local where = format("%s x %d (t = %d, %d replica%s)", r.hw, r.gpus, r.t, r.replicas, r.replicas == 1 and "" or "s")
  if (r.pp or 1) > 1 then -- pipeline stages: as many micro-batches in flight, each its own scheduler
    where = format("%s x %d (t = %d, pp = %d: %d micro-batches in flight, each its own scheduler and KV share; "
      .. "%d replica%s)", r.hw, r.gpus, r.t, r.pp, r.pp, r.replicas, r.replicas == 1 and "" or "s")
  end
  if (r.ep or 1) > 1 then -- expert parallelism: attention data-parallel over the group's ranks
    where = format("%s x %d (ep = %d, attention data-parallel, expert imbalance x%g; %d replica%s)", r.hw, r.gpus, r.ep,
      r.expert_imbalance, r.replicas, r.replicas == 1 and "" or "s")
  end
  if r.mode == "disagg" then -- disaggregated pools, each on its device, the KV cache over the link between them
    local p, d = r.prefill, r.decode
    where = format("prefill %d x %s (t = %d), decode %d x %s (t = %d), the KV cache at %s %s", p.replicas, p.hw,
      p.t, d.replicas, d.hw, d.t, si(r.kv_transfer.link_bw, "B/s"), r.kv_transfer.link)
  end
  local head = format("serve %s on %s: %s engine, %s scheduler (max_num_seqs %d, "
    .. "max_num_batched_tokens %d), %s weights%s, %s KV cache, KV capacity %d tokens per %s%s%s; "
    .. "mode: %s\n",
    r.model, where, r.engine, r.scheduler, r.max_num_seqs,
    r.max_num_batched_tokens, r.weight_dtype, r.weight_dtype_source and " (the checkpoint's: " .. r.weight_dtype_source
    .. ")" or "", r.kv_dtype, r.kv_capacity_tokens, (r.pp or 1) > 1 and "micro-batch's scheduler"
    or r.mode == "disagg" and "prefill replica" or "replica",
    r.mode == "disagg" and r.decode and r.decode.kv_capacity_tokens
      and format(", %d per decode replica", r.decode.kv_capacity_tokens) or "",
    r.speculative and require("tilewave.report.text").speculative { draft = r.speculative.draft, k = r.speculative.k,
      acceptance = r.speculative.acceptance, acceptance_assumed = r.speculative.acceptance_assumed,
      tokens_per_step = r.speculative.expected_tokens_per_step } or "", M.mode(r))
  local foot = format("TTFT p99 [low, high]: with the step costs at their calibrated interval (x%.2f, x%.2f%s). "
    .. "Metrics as vLLM's benchmark_serving; running = mean requests in the batch.\n", r.interval.scale_low,
    r.interval.scale_high, r.interval.borrowed and ", borrowed from the H100" or "")
  if r.dropped then
    -- the dataset's requests past the model's context, as a benchmark client's sampler drops them
    local n, total = 0, 0
    for _, x in ipairs(runs) do n, total = n + (x.dropped and x.dropped.requests or 0), total + x.requests end
    foot = foot .. format("Dataset requests past %s's context: %d of the %d drawn (%.1f%%) had isl + osl above %d "
      .. "tokens and were dropped, others drawn in their place, as benchmark clients' samplers drop them (vLLM "
      .. "benchmark_dataset.py).\n", r.model, n, n + total, 100 * n / (n + total), r.dropped.max_total)
  end
  if r.conversation then
    local hits, looks = 0, 0
    for _, x in ipairs(runs) do hits, looks = hits + x.prefix.hits, looks + x.prefix.lookups end
    local c = r.conversation
    foot = foot .. format("Conversations: %d turns each (the rate starts conversations; --requests counts them), "
      .. "%s; prefix caching %s%s.\n", c.turns, c.think_s > 0 and si(c.think_s, "s") .. " mean think time between turns"
      or "each turn at once after the previous answer (no think time)",
      r.prefix.caching and "on" or "off", r.prefix.caching and format(", hit rate %.1f%% (%d of %d later turns "
      .. "found their history cached, %.0f tokens each on average)", looks > 0 and 100 * hits / looks or 0, hits,
      looks, r.prefix.hits > 0 and r.prefix.cached_tokens / r.prefix.hits or 0) or "")
  elseif r.prefix then
    local hits, looks = 0, 0
    for _, x in ipairs(runs) do hits, looks = hits + x.prefix.hits, looks + x.prefix.lookups end
    foot = foot .. format("Shared prefix: %d tokens before %.0f%% of the prompts; prefix caching %s%s.\n",
      r.prefix.tokens, 100 * r.prefix.share, r.prefix.caching and "on" or "off", r.prefix.caching
      and format(", hit rate %.1f%% (%d of %d prompts that start with it skipped its %d cached tokens)",
        looks > 0 and 100 * hits / looks or 0, hits, looks, r.prefix.cached_tokens > 0 and
        math.tointeger(r.prefix.cached_tokens / math.max(1, r.prefix.hits)) or 0) or "")
  end
  local cap
  for _, x in ipairs(runs) do cap = cap or x.stability end
  if cap then
    -- conversations with caching: the flood of an offline run evicts the histories a steady rate keeps
    local lower = r.conversation and r.prefix.caching
    foot = foot .. format("Capacity %.3g %s [%.3g, %.3g] for these requests (%s); above it a load is UNSTABLE: its "
      .. "queue grows every second and its TTFT with the run's length, so none is printed. A load's state is its "
      .. "run's: a queue growth is printed where the run showed one.%s\n", cap.capacity_rps,
      r.conversation and "conversations/s" or "req/s", cap.capacity_interval[1], cap.capacity_interval[2],
      lower and "their saturated throughput, every conversation started at once"
      or "their saturated throughput, the open-loop limit: no arrival rate completes more",
      lower and " With conversations it is a lower bound: starting them all at once can evict histories a steady "
      .. "rate keeps cached, so a load above it whose run shows no growing queue is called near capacity." or "")
  end
  return head .. tw.report.table(header, rows) .. "\n" .. foot
end

--- Every request of every run in `runs` (simulated with detail) written to file `f` as CSV: run,
-- its rate (req/s) or concurrency, the request's index, its arrival, scheduling, first-token and
-- finish times (s), input and output tokens, preemptions and replica.
function M.write_requests(f, runs)
  f:write("run,rate_rps,concurrency,request,arrival_s,scheduled_s,first_token_s,finish_s,input_tokens,output_tokens,",
    "preemptions,replica\n")
  for i, r in ipairs(runs) do
    local c = r.records
    for j = 1, #c.arrival_s do
      f:write(format("%d,%s,%s,%d,%s,%s,%s,%s,%d,%d,%d,%d\n", i, csv.field(r.rate or ""), csv.field(r.concurrency or ""),
        j, csv.field(c.arrival_s[j]), csv.field(c.scheduled_s[j]), csv.field(c.first_token_s[j]),
        csv.field(c.finish_s[j]), c.input_tokens[j], c.output_tokens[j], c.preemptions[j], c.replica[j]))
    end
  end
end

--- Every run's time series in `runs` (simulated with detail) written to file `f` as CSV: run, its
-- rate or concurrency, time (s), requests waiting and running, and the KV cache's used fraction.
function M.write_series(f, runs)
  f:write("run,rate_rps,concurrency,time_s,waiting,running,kv_fraction\n")
  for i, r in ipairs(runs) do
    local s = r.series
    for j = 1, #s.time_s do
      f:write(format("%d,%s,%s,%s,%d,%d,%s\n", i, csv.field(r.rate or ""), csv.field(r.concurrency or ""),
        csv.field(s.time_s[j]), s.waiting[j], s.running[j], csv.field(s.kv_fraction[j])))
    end
  end
end

return M
