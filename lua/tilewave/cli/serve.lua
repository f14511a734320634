--- tilewave.cli.serve: the `serve` command - a serving simulation per load (tilewave.serve).
-- One concern past 400 lines: the command's options, their checks against its modes, the loads
-- and its staged outputs (the search is tilewave.cli.size, the text tilewave.report.serve_text).
--
--   tilewave serve llama-3.1-8b --hw h100_sxm5 --engine vllm --rate 2,4,8,16 --dataset sharegpt
--
-- One row per load (each --rate or --concurrency value, or --offline), as a table, CSV or JSON
-- (`runs`, each tw.serve.simulate's result). Formats only: every figure comes from tilewave.serve.
local tw = require "tilewave"
local args_ = require "tilewave.cli.args"
local output = require "tilewave.util.output"

local M = {}
local format = string.format

-- "2s", "50ms", "500us" (or "500µs"), "10min", "1h" -> s; a number without its unit is an error (is 1
-- a second or a millisecond?), as everywhere a time is typed
local UNITS = { h = 3600, min = 60, s = 1, ms = 1e-3, us = 1e-6, ["µs"] = 1e-6 }
local function seconds(v, field)
  local num, unit = v:match("^([%d.eE+-]*%d%.?)(.*)$")
  local x = tonumber(num or "")
  if x and unit == "" then
    error(format("%s: expected a duration with its unit (h, min, s, ms, us), got '%s'", field, v), 0)
  end
  local scale = UNITS[unit]
  if not x or not scale or not (x > 0) or x * scale == math.huge then
    error(format("%s: expected a positive duration such as 10min, 2s, 50ms or 500us, got '%s'", field, v), 0)
  end
  return x * scale
end
M.seconds = seconds

--- `--slo ttft=2s,tpot=50ms[,p=99]` -> { ttft_s, tpot_s, percentile }: each key at most once, at
-- least one target.
function M.slo(s)
  local out, seen = {}, {}
  for part in (s .. ","):gmatch("([^,]*),") do
    local k, v = part:match("^(%a+)=(.+)$")
    if k and seen[k] then error(format("serve.slo.%s: given twice in '%s'", k, s), 0) end
    if k then seen[k] = true end
    if k == "ttft" then out.ttft_s = seconds(v, "serve.slo.ttft")
    elseif k == "tpot" then out.tpot_s = seconds(v, "serve.slo.tpot")
    elseif k == "p" then out.percentile = tonumber(v) or v
    else error(format("serve.slo: expected ttft=DURATION, tpot=DURATION or p=50|90|99, got '%s'", part), 0) end
  end
  if not out.ttft_s and not out.tpot_s then
    error(format("serve.slo: expected a target, ttft=DURATION and/or tpot=DURATION, got '%s'", s), 0)
  end
  return out
end

-- "1024" (fixed) or "100-900" (uniform) -> a length spec of tilewave.serve.workload
function M.length(s, field)
  if s == nil then return nil end
  local lo, hi = s:match("^(%d+)%-(%d+)$")
  if lo then return { dist = "uniform", min = math.tointeger(tonumber(lo)), max = math.tointeger(tonumber(hi)) } end
  local v = math.tointeger(tonumber(s))
  if not v then error(format("%s: expected a token count (1024) or a range (100-900), got '%s'", field, s), 0) end
  return v
end

--- An argparse converter of a disaggregated pool, `t=1,replicas=2,hw=h200_sxm` (each key at most
-- once; t and replicas positive integers, checked with the run; hw a device id), naming `field`.
function M.pool(field)
  return function(s)
    local out = {}
    for part in (s .. ","):gmatch("([^,]*),") do
      local k, v = part:match("^(%a+)=(.+)$")
      if k and out[k] ~= nil then return nil, format("%s.%s: given twice in '%s'", field, k, s) end
      if (k == "t" or k == "replicas") and math.tointeger(tonumber(v)) then out[k] = math.tointeger(tonumber(v))
      elseif k == "hw" then out.hw = v
      else return nil, format("%s: expected t=N,replicas=N,hw=DEVICE, got '%s'", field, part) end
    end
    return out
  end
end

--- Define the `serve` command on parser `p`.
function M.define(p)
  -- 71 lines, one function: the serve command's argparse options, one or two lines each
  local engine_help = args_.ENGINE_HELP
  local c = p:command("serve", "Simulate serving a model under load: continuous batching, paged KV cache, "
    .. "TTFT / TPOT / ITL percentiles, throughput and goodput, one row per load (tilewave.serve).")
  c:argument("model", "Model id, config.json path or a folder holding one.")
  c:option("--hw", "Device id or spec path (default h100_sxm5; with --search a comma-separated list, default "
    .. "every device with a price).")
  c:option("--t", "Tensor-parallel size per replica."):default("1"):convert(args_.int_arg("serve.t"))
  c:option("--replicas", "Data-parallel replicas behind a router."):default("1"):convert(args_.int_arg("serve.replicas"))
  c:option("--pp", "Pipeline-parallel stages per replica, each of --t GPUs (vLLM --pipeline-parallel-size: pp "
    .. "micro-batches in flight); with --search, pipelines of this many stages beside none.")
    :default("1"):convert(args_.int_arg("serve.pp"))
  c:option("--ep", "Expert-parallel GPUs per replica of a MoE model (attention data-parallel over them, t = 1; "
    .. "SGLang --enable-dp-attention, vLLM --enable-expert-parallel).")
    :default("1"):convert(args_.int_arg("serve.ep"))
  c:option("--expert-imbalance", "With --ep: routing skew, the busiest rank's routed tokens over the mean beyond "
    .. "one batch's random spread (default 1: an EPLB-balanced placement).")
    :convert(args_.num_arg("serve.expert_imbalance"))
  c:option("--prefill-pool", "Disaggregated prefill pool: t=1,replicas=1,hw=DEVICE (hw default --hw; with "
    .. "--decode-pool)."):convert(M.pool("serve.prefill_pool"))
  c:option("--decode-pool", "Disaggregated decode pool: t=1,replicas=1,hw=DEVICE (another device type makes mixed "
    .. "pools)."):convert(M.pool("serve.decode_pool"))
  c:option("--router", "round_robin or least_loaded."):default("round_robin")
  c:option("--engine", "Serving engine: vllm, sglang, trtllm (or any engine: " .. engine_help .. ")"):default("vllm")
  c:option("--scheduler", "Scheduler preset (default: the engine's): vllm, vllm_v0, sarathi, orca, static, gptsession, sglang, trtllm.")
  c:option("--max-num-seqs", "Sequences per step."):convert(args_.int_arg("serve.scheduler.max_num_seqs"))
  c:option("--max-num-batched-tokens", "Token budget per step."):convert(args_.int_arg("serve.scheduler.max_num_batched_tokens"))
  c:option("--weight-dtype", "Weight format (default: the checkpoint's, as its config.json quantization_config "
    .. "declares, else bf16).")
  c:option("--kv-dtype", "KV cache dtype."):default("bf16")
  c:mutex(
    c:option("--rate", "Requests/s (Poisson; gamma with --cv); a list gives one row each."):convert(args_.num_list("serve.rate")),
    c:option("--concurrency", "Requests in flight (closed loop); a list gives one row each.")
      :convert(args_.int_list("serve.concurrency")),
    c:flag("--offline", "Every request at t = 0 (throughput)."),
    c:option("--trace", "CSV of arrival_s,input_tokens,output_tokens.")
  )
  c:option("--cv", "Coefficient of variation of the arrival gaps (gamma; 1 = Poisson)."):convert(args_.num_arg("serve.cv"))
  c:option("--requests", "Requests per run (with --rate: at least the steady minimum the tool picks; with "
    .. "--replay, exactly these, default 1000)."):convert(args_.int_arg("serve.requests"))
  c:flag("--replay", "Benchmark replay: exactly --requests requests, ramp and drain in the percentiles, as "
    .. "vllm bench serve, sglang.bench_serving and GenAI-Perf send them (default with --rate: steady state).")
  c:option("--isl", "Prompt tokens: N, or LO-HI (uniform).")
  c:option("--osl", "Output tokens: N, or LO-HI (uniform).")
  c:option("--dataset", "Named length distribution: " .. table.concat((function()
    local ks = {}
    for k in pairs(require("tilewave.serve.workload").datasets) do ks[#ks + 1] = k end
    table.sort(ks)
    return ks
  end)(), ", ") .. ".")
  c:option("--speculative", "Speculative decoding: draft=MODEL,k=4,acceptance=0.7."):convert(args_.speculative)
  c:option("--turns", "Multi-turn conversations of N turns: the rate starts conversations, --requests counts them; "
    .. "each turn's prompt holds the earlier turns (prefix caching keeps them).")
    :convert(args_.int_arg("serve.workload.conversation.turns"))
  c:option("--think-time", "With --turns: mean think time between a turn's answer and the next turn, e.g. 10s "
    .. "(exponential; default none).")
  c:option("--prefix-tokens", "A shared system prompt of N tokens before the prompts (prefix caching skips it on a hit).")
    :convert(args_.int_arg("serve.prefix_tokens"))
  c:option("--prefix-share", "With --prefix-tokens: the share of prompts that start with it (default 1).")
    :convert(args_.num_arg("serve.prefix_share"))
  c:option("--prefix-caching", "on or off (default: the engine release's: vllm@v1, sglang, trtllm@1.0 on).")
    :choices({ "on", "off" })
  c:option("--seed", "Seed of the arrivals and lengths."):default("0"):convert(args_.int_arg("serve.seed"))
  c:option("--slo", "Latency targets, e.g. ttft=2s,tpot=50ms (p99 unless p=50|90)."):convert(M.slo)
  c:flag("--allow-long-context", "Accept requests above the model's max_position_embeddings.")
  c:option("--format", "Output format (json: `runs`)."):choices({ "table", "text", "csv", "json" }):default("table")
  c:option("--out", "Write the output to FILE (atomically) instead of stdout.")
  c:option("--requests-out", "Write every request of every run (CSV) to FILE.")
  c:option("--requests-format", "With --requests-out: csv (every run), or one run as a benchmark client writes "
    .. "it, which calibrate --serving reads: vllm (vllm bench serve --save-result --save-detailed JSON), sglang "
    .. "(bench_serving --output-details JSON line), genai-perf (profile_export_genai_perf.json).")
  c:option("--series-out", "Write every run's time series (queue, running batch, KV use; CSV) to FILE.")
  c:option("--plots", "Also draw serve_latency.svg and serve_throughput.svg (with --rate lists) and "
    .. "serve_timeline.svg (the last run) into DIR (gnuplot).")
  c:flag("--search", "Rank deployments (device, t, replicas) serving --rate R within --slo by cost per million "
    .. "output tokens, with the probability of meeting the SLO (tilewave.serve.size).")
  c:option("--modes", "With --search: agg, disagg, mixed or a list (disagg: prefill/decode pools, their xPyD "
    .. "split searched; mixed: the pools on two device types)."):default("agg")
  c:option("--max-gpus", "With --search: most GPUs of a deployment."):default("8"):convert(args_.int_arg("size.max_gpus"))
  c:option("--price", "With --search: USD per GPU-hour, e.g. h100_sxm5=2.49,l40s=0.99 (overrides the hw files).")
  c:option("--confidence", "With --search: the p_meet a deployment needs to rank."):default("0.9")
    :convert(args_.num_arg("size.confidence"))
  c:option("--samples", "With --search: step-cost draws of p_meet."):default("16"):convert(args_.int_arg("size.samples"))
  c:option("--top", "With --search: rows to print."):default("10"):convert(args_.int_arg("size.top"))
  c:flag("--progress", "Report each run on stderr (on by default when stderr is a terminal).")
end

local function loads(a)
  if a.rate then
    local out = {}
    for i, r in ipairs(a.rate) do out[i] = { rate = r, cv = a.cv } end
    return out
  elseif a.concurrency then
    local out = {}
    for i, c in ipairs(a.concurrency) do out[i] = { concurrency = c } end
    return out
  elseif a.trace then return { { trace = a.trace } }
  end
  return { { arrival = "offline" } }
end


-- options that only one of the two modes reads, with their defaults: given to the other, an error
local SEARCH_ONLY = { modes = "agg", max_gpus = 8, price = false, confidence = 0.9, samples = 16, top = 10 }
local SIMULATE_ONLY = { t = 1, ep = 1, replicas = 1, router = "round_robin", max_num_seqs = false,
                        max_num_batched_tokens = false, cv = false, concurrency = false, offline = false, trace = false,
                        requests_out = false, series_out = false, replay = false, requests_format = false,
                        prefill_pool = false, decode_pool = false, expert_imbalance = false,
                        -- the search sizes a workload without a shared prefix (issue 66: these were ignored)
                        prefix_tokens = false, prefix_share = false, prefix_caching = false }

local function refuse(a, options, why)
  local names = {}
  for k in pairs(options) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do
    local default = options[k]
    if a[k] ~= nil and a[k] ~= default and not (default == false and a[k] == false) then
      error(format("serve.%s: --%s %s", k, k:gsub("_", "-"), why), 0)
    end
  end
end

--- The workload's `conversation` of parsed arguments `a` (--turns, --think-time with its unit), or nil.
function M.conversation(a)
  if not a.turns then return nil end
  return { turns = a.turns, think_s = a.think_time and seconds(a.think_time, "serve.think_time") or nil }
end

--- The lengths' options together: --isl and --osl both, or neither (a --dataset or --trace gives
-- the other side), so that a missing one is named as the one missing.
-- @raise `serve.osl: expected --osl with --isl ...` (and the converse)
function M.check_lengths(a)
  if a.dataset or a.trace then return end
  for _, pair in ipairs { { "isl", "osl" }, { "osl", "isl" } } do
    if a[pair[1]] and not a[pair[2]] then
      error(format("serve.%s: expected --%s with --%s (or a --dataset for it), got none", pair[2], pair[2], pair[1]), 0)
    end
  end
end

-- the options that apply only with others, refused by name before anything runs
local function check_combinations(a)
  M.check_lengths(a)
  if a.cv and not a.rate then error("serve.cv: --cv applies with --rate (gamma arrivals) only", 0) end
  if a.think_time ~= nil and not a.turns then error("serve.think_time: --think-time applies with --turns", 0) end
  if a.prefix_share ~= nil and not a.prefix_tokens then
    error("serve.prefix_share: --prefix-share applies with --prefix-tokens", 0)
  end
  if a.requests_format ~= nil then
    require("tilewave.util.check").one_of(a.requests_format, { csv = true, vllm = true, sglang = true,
      ["genai-perf"] = true }, "serve.requests_format")
    if not a.requests_out then error("serve.requests_format: --requests-format applies with --requests-out", 0) end
    if a.requests_format ~= "csv" and #loads(a) ~= 1 then
      error(format("serve.requests_format: expected one load with %s (one run a result file), got %d",
        a.requests_format, #loads(a)), 0)
    end
  end
  if a.replay and not a.rate then
    error("serve.replay: --replay applies with --rate (concurrency, offline and trace runs are replays already)", 0)
  end
  if (a.prefill_pool == nil) ~= (a.decode_pool == nil) then
    error(format("serve.%s: expected with --%s (disaggregated serving takes both pools)",
      a.prefill_pool and "prefill_pool" or "decode_pool", a.prefill_pool and "decode-pool" or "prefill-pool"), 0)
  end
  for _, k in ipairs { "t", "replicas", "ep", "pp" } do
    if a.prefill_pool and a[k] ~= 1 then
      error(format("serve.%s: --%s does not apply with --prefill-pool and --decode-pool (each pool gives its own)",
        k, k), 0)
    end
  end
end

-- every load of `a` simulated with scheduler overrides `sched`: the runs, each open-loop load with
-- its stability against the deployment's capacity (tilewave.serve.capacity)
local function simulate_loads(a, sched)
  local okt, sys = pcall(require, "tilewave.sys")
  local progress = a.progress or (okt and sys.isatty(2) and #loads(a) > 1)
  local runs, list, cap = {}, loads(a), nil
  local t0 = os.clock()
  for i, l in ipairs(list) do
    local w = { arrival = l.arrival, rate = l.rate, cv = l.cv, concurrency = l.concurrency, trace = l.trace,
                requests = a.requests, isl = M.length(a.isl, "serve.isl"), osl = M.length(a.osl, "serve.osl"),
                dataset = a.dataset, measure = l.rate and not a.replay and "steady" or nil,
                prefix = a.prefix_tokens and { tokens = a.prefix_tokens, share = a.prefix_share } or nil,
                conversation = M.conversation(a) }
    if not w.isl and not w.osl and not w.dataset and not w.trace then w.dataset = "sharegpt" end
    local pools = a.prefill_pool and { prefill = a.prefill_pool, decode = a.decode_pool }
    local so = { model = a.model, hw = a.hw, t = not pools and a.t or nil, replicas = not pools and a.replicas or nil,
      ep = a.ep ~= 1 and a.ep or nil, expert_imbalance = a.expert_imbalance, pp = a.pp ~= 1 and a.pp or nil,
      router = a.router, disagg = pools,
      engine = a.engine, scheduler = sched, weight_dtype = a.weight_dtype, kv_dtype = a.kv_dtype, workload = w,
      seed = a.seed, slo = a.slo, detail = M.detail(a),
      allow_long_context = a.allow_long_context or nil, speculative = a.speculative,
      prefix_caching = a.prefix_caching and a.prefix_caching == "on" or nil }
    if a.prefix_caching == "off" then so.prefix_caching = false end
    local r = tw.serve.simulate(so)
    runs[i] = r
    -- an open-loop load against the deployment's capacity for these requests
    -- (tilewave.serve.capacity)
    if l.rate then
      cap = cap or require("tilewave.serve.capacity").of(so)
      local state, growth = require("tilewave.serve.capacity").state(l.rate, cap, r)
      r.stability = { state = state, queue_growth_rps = growth, capacity_rps = cap.requests_per_s,
                      capacity_interval = { cap.low, cap.high } }
    end
    if progress then
      io.stderr:write(format("serve: run %d of %d (%s) done, %.1f s elapsed\n", i, #list,
        l.rate and format("rate %g/s", l.rate) or l.concurrency and format("concurrency %d", l.concurrency) or "offline",
        os.clock() - t0))
    end
  end
  return runs
end

--- What a run keeps for the files asked (tilewave.serve.simulate's `detail`): each request's chunk
-- times for a benchmark client's result file (its per-request ITLs), records and a time series for
-- a CSV, a series file or charts, nothing else.
function M.detail(a)
  if a.requests_out and a.requests_format and a.requests_format ~= "csv" then return "chunks" end
  return (a.requests_out or a.series_out or a.plots) and true or nil
end

-- the outputs of `runs` staged in transaction `tx` (text, the request and series CSV, the charts
-- `charts`), then renamed together: a failure (gnuplot, a full disk) leaves none behind. Returns
-- the text and the files written.
local function write_outputs(a, runs, tx, charts)
  local text = M.render(runs, a.format)
  local wrote = tx:run(function()
    if a.out then tx:stage(a.out, "serve.out", function(f) f:write(text) end) end
    local bench = { vllm = "vllm", sglang = "sglang", ["genai-perf"] = "genai_perf" }
    if a.requests_out and bench[a.requests_format] then
      tx:stage(a.requests_out, "serve.requests_out", function(f)
        assert(f:write(require("tilewave.report.bench_files")[bench[a.requests_format]](runs[1])))
      end)
    elseif a.requests_out then
      tx:stage(a.requests_out, "serve.requests_out", function(f)
        require("tilewave.report.serve_text").write_requests(f, runs)
      end)
    end
    if a.series_out then
      tx:stage(a.series_out, "serve.series_out", function(f)
        require("tilewave.report.serve_text").write_series(f, runs)
      end)
    end
    if charts then M.plots(charts, runs, tx) end
  end)
  return text, wrote
end

--- Run `tilewave serve` with parsed arguments `a`, writing to `out`; returns the exit status.
function M.run(a, out)
  check_combinations(a)
  if a.search then
    refuse(a, SIMULATE_ONLY, "does not apply with --search (it chooses t and replicas per device, at Poisson --rate)")
    -- pipeline stages are searched in aggregated deployments only
    local m = "," .. tostring(a.modes) .. ","
    if a.pp ~= nil and a.pp ~= 1 and not m:find(",agg,", 1, true) then
      error(format("serve.pp: --pp applies to aggregated deployments (--modes agg), not with --modes %s", a.modes), 0)
    end
    return require("tilewave.cli.size").run(a, out)
  end
  refuse(a, SEARCH_ONLY, "applies with --search only")
  -- a trace carries its own lengths: a dataset or --isl/--osl beside it would be ignored
  if a.trace then
    for _, k in ipairs { "dataset", "isl", "osl" } do
      if a[k] ~= nil then error(format("serve.%s: --%s does not apply with --trace (the trace gives each request's "
        .. "lengths)", k, k), 0) end
    end
  end
  a.hw = a.hw or "h100_sxm5"
  if a.hw:find(",", 1, true) then
    error(format("serve.hw: expected one device (a list is for --search), got '%s'", a.hw), 0)
  end
  local sched
  if a.scheduler or a.max_num_seqs or a.max_num_batched_tokens then
    sched = { base = a.scheduler, max_num_seqs = a.max_num_seqs, max_num_batched_tokens = a.max_num_batched_tokens }
  end
  -- every output checked before anything runs, written to temporaries, renamed together at the end
  local tx = output.transaction()
  if a.out then tx:add(a.out, "serve.out") end
  if a.requests_out then tx:add(a.requests_out, "serve.requests_out") end
  if a.series_out then tx:add(a.series_out, "serve.series_out") end
  local charts = a.plots and M.plan_plots(a.plots, loads(a), tx)
  local runs = simulate_loads(a, sched)
  local text, wrote = write_outputs(a, runs, tx, charts)
  if not a.out then out:write(text) end
  -- what was written, on stderr when the report itself goes to stdout as CSV or JSON
  local note = not a.out and (a.format == "csv" or a.format == "json") and io.stderr or out
  for _, p in ipairs(wrote) do note:write("wrote ", p, "\n") end
  return 0
end

--- The chart files of `--plots DIR` for the loads `list`, each added to transaction `tx` (so that
-- a file the run also writes is refused before it runs): { dir, latency, throughput, timeline }.
-- DIR must be a directory or one that can be made in an existing one.
-- @raise `serve.plots: ...`
function M.plan_plots(dir, list, tx)
  local lfs = require "lfs"
  if dir == "" then
    error("serve.plots: expected a folder, got '' (name one: charts are never written into the current folder "
      .. "unasked)", 0)
  end
  dir = (dir:gsub("/+$", ""))
  if dir == "" then dir = "/" end
  local mode = lfs.attributes(dir, "mode")
  if mode and mode ~= "directory" then
    error(format("serve.plots: expected a directory, got %s (a %s)", dir, mode), 0)
  end
  local parent = dir:match("^(.*)/[^/]*$") or "."
  if not mode and lfs.attributes(parent == "" and "/" or parent, "mode") ~= "directory" then
    error(format("serve.plots: cannot create %s: directory %s does not exist", dir, parent), 0)
  end
  local p = { dir = dir, timeline = dir .. "/serve_timeline.svg" }
  if list[1].rate and #list > 1 then p.latency, p.throughput = dir .. "/serve_latency.svg", dir .. "/serve_throughput.svg" end
  -- the check of a file in a directory not made yet is the directory's, above
  for _, k in ipairs { "latency", "throughput", "timeline" } do
    if p[k] and mode then tx:add(p[k], "serve.plots") end
  end
  return p
end

--- Draw the charts of `runs` as planned (M.plan_plots) into temporaries staged in `tx`.
function M.plots(p, runs, tx)
  local plot = require "tilewave.report.plot"
  local charts = require "tilewave.report.serve_charts"
  plot.dir(p.dir, "serve.plots")
  local function draw(chart, path) tx:stage(path, "serve.plots", nil, plot.svg_temp(chart, path)) end
  if p.latency then
    draw(charts.latency(runs), p.latency)
    draw(charts.throughput(runs), p.throughput)
  end
  draw(charts.timeline(runs[#runs]), p.timeline)
end

--- The runs as text: a table (or CSV, or JSON `runs`); tilewave.report.serve_text.
function M.render(runs, fmt) return require("tilewave.report.serve_text").render(runs, fmt) end

return M
