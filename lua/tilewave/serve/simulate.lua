--- tilewave.serve: serving simulation - requests arriving under load, continuous batching over
-- a paged KV cache, TTFT/TPOT percentiles.
--
-- One concern past 400 lines: one serving run - its options resolved and priced (M.prepare), the
-- core run (M.run), the result shaped (M.shape) and judged against the SLO (M.meets) - all reading
-- the same prepared run.
--
--   tw.serve.simulate{ model = "llama-3.1-8b", hw = "h100_sxm5", engine = "vllm",
--                      workload = { rate = 8, dataset = "sharegpt", requests = 2000 } }
--
-- Each run prices its step costs once (tilewave.serve.steps, through the pricing layer) and
-- hands them to the event loop of the core (src/tw_serve.h), which keeps the queue, schedules
-- each step (tilewave.serve.schedulers) and measures every request. Three runs share the
-- arrivals: the step costs as priced and at the two bounds of their calibrated interval, which
-- gives the interval of every figure. Metrics are vLLM benchmark_serving's (TTFT to the first
-- token; TPOT = (e2e - TTFT) / (output - 1); ITL pooled over every gap; throughput over the run's
-- duration, or in a steady-state run over the same window as the latencies, src/tw_serve.h);
-- goodput is DistServe's (requests per second meeting both SLOs).
-- Simulated: speculative decoding (`speculative`), disaggregated pools (`disagg`), pipeline and
-- expert parallelism (`pp`, `ep`), prefix caching of a shared system prompt (`workload.prefix`) and
-- multi-turn conversations (`workload.conversation`; src/tw_serve.h). Left out: swapping to CPU,
-- the client's HTTP and detokenization time, stream batching (docs/serving.md).
-- Units: s, token, token/s, request/s.
-- @module tw.serve
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local transformer = require "tilewave.ops.transformer"
local engines = require "tilewave.cost.engines"
local schedulers = require "tilewave.serve.schedulers"
local workload = require "tilewave.serve.workload"
local steps = require "tilewave.serve.steps"
local groups = require "tilewave.serve.parallel_groups"
local core = require "tilewave.core"
local tables = require "tilewave.util.tables"

local M = {}

local format, max = string.format, math.max

M.schedulers = schedulers
-- Deployment sizing: tilewave.serve.size.size, documented there as tw.serve.size (loaded on first use).
function M.size(o) return require("tilewave.serve.size").size(o) end
M.datasets = workload.datasets

local OPTIONS = { model = true, hw = true, t = true, ep = true, weight_dtype = true, kv_dtype = true, group = true,
                  engine = true, scheduler = true, replicas = true, workload = true, seed = true, slo = true,
                  detail = true, allow_long_context = true, router = true, speculative = true, disagg = true,
                  prefix_caching = true, expert_imbalance = true, pp = true }
local STATS = { "ttft_s", "tpot_s", "itl_s", "e2e_s", "queue_s" }
local FIELDS = { "mean", "p50", "p90", "p99", "max" }

--- Most time-series samples kept with `detail` (thinned evenly as a run grows).
M.SERIES_MAX = 2000

local function slo_of(s, path)
  if s == nil then return nil end
  check.table(s, path)
  check.options(s, { ttft_s = true, tpot_s = true, percentile = true }, path)
  if s.ttft_s == nil and s.tpot_s == nil then check.fail(path, "expected ttft_s, tpot_s or both", nil) end
  return { ttft_s = s.ttft_s and check.positive(s.ttft_s, path .. ".ttft_s") or 0,
           tpot_s = s.tpot_s and check.positive(s.tpot_s, path .. ".tpot_s") or 0,
           percentile = s.percentile and check.one_of(tostring(s.percentile), { ["50"] = true, ["90"] = true,
             ["99"] = true }, path .. ".percentile") and s.percentile or 99 }
end
--- An SLO table validated as simulate() takes it (`{ ttft_s, tpot_s, percentile }`), with its
-- defaults; nil for nil.
-- @raise `<path>.<field>: ...`
M.slo_of = slo_of

--- Validate `disagg = { prefill = { t, replicas, hw }, decode = { t, replicas, hw }, link_bw }`
-- (disaggregated prefill and decode pools, DistServe / Splitwise; `hw` a device per pool, default
-- the run's: two GPU types make mixed pools, the KV transfer across nodes).
-- @raise `serve.disagg.<field>: ...`
function M.disagg_of(d, c, _, replicas_given)
  check.table(d, "serve.disagg")
  check.options(d, { prefill = true, decode = true, link_bw = true }, "serve.disagg")
  if replicas_given ~= nil then
    check.fail("serve.replicas", "expected none with disagg (give prefill.replicas and decode.replicas)", replicas_given)
  end
  local out = {}
  for _, k in ipairs { "prefill", "decode" } do
    local pool = d[k] or {}
    local path = "serve.disagg." .. k
    check.table(pool, path)
    check.options(pool, { t = true, replicas = true, hw = true }, path)
    local t = transformer.check_t(c, check.positive_int(pool.t or 1, path .. ".t"), path .. ".t")
    local n = check.positive_int(pool.replicas or 1, path .. ".replicas")
    if n > 4096 then check.fail(path .. ".replicas", "expected at most 4096", n) end
    out[k] = { t = t, replicas = n,
               spec = pool.hw ~= nil and hw.resolve(pool.hw, path .. ".hw") or nil }
  end
  -- a link of at least 1 MB/s (byte/s): below it a prompt's KV cache would take days to move
  if d.link_bw ~= nil then out.link_bw = check.within(d.link_bw, 1e6, 1e15, "a bandwidth in byte/s", "serve.disagg.link_bw") end
  return out
end

--- Everything a run resolves, validated, in the order its errors are raised; the step tables
-- priced. Shared with callers that run many loads of one deployment (tilewave.serve.size).
-- @raise `serve.<field>: ...`
function M.prepare(o)
  -- one function: everything a run resolves, validated in the order its errors are raised (see
  -- above)
  check.table(o, "serve")
  check.options(o, OPTIONS, "serve")
  local c = models.resolve(o.model, "serve.model")
  if models.families[c.family].encoder then
    error(format("serve.model: %s is an encoder (%s): it has no autoregressive decode", c.id or c.name, c.family), 0)
  end
  local spec = hw.resolve(o.hw, "serve.hw")
  -- mixed pools: the prefill pool's device is the run's (its tables, KV capacity, scheduler defaults)
  local pool_hw = type(o.disagg) == "table" and type(o.disagg.prefill) == "table" and o.disagg.prefill.hw
  if pool_hw then spec = hw.resolve(pool_hw, "serve.disagg.prefill.hw") end
  local t = transformer.check_t(c, check.positive_int(o.t or 1, "serve.t"), "serve.t")
  local ep = require("tilewave.cost.expert_parallel").check(c, o.ep, t, "serve.ep")
  local pp = require("tilewave.cost.pipeline_parallel").check(c, o.pp, "serve.pp")
  local eng = engines.check_device(engines.resolve(o.engine or "vllm", "serve.engine"), spec, "serve.engine")
  -- a scheduler the engine file names is the file's field, not an option the user gave
  local sched = schedulers.resolve(o.scheduler, eng.scheduler or "vllm", spec,
    o.scheduler == nil and eng.scheduler ~= nil and "serve.engine.scheduler" or "serve.scheduler")
  if o.router ~= nil then sched.router = check.one_of(o.router, { round_robin = true, least_loaded = true }, "serve.router") end
  local replicas = check.positive_int(o.replicas or 1, "serve.replicas")
  local dis = o.disagg and M.disagg_of(o.disagg, c, replicas, o.replicas)
  if replicas > 4096 then check.fail("serve.replicas", "expected at most 4096", replicas) end
  local w = workload.resolve(o.workload or {}, "serve.workload")
  local seed = check.nonneg(o.seed or 0, "serve.seed")
  if seed ~= math.floor(seed) or seed > 2 ^ 53 then check.fail("serve.seed", "expected an integer in [0, 2^53]", seed) end
  local slo = slo_of(o.slo, "serve.slo")
  if o.detail ~= nil and type(o.detail) ~= "boolean" and o.detail ~= "chunks" then
    check.fail("serve.detail", "expected true, false or \"chunks\"", o.detail)
  end
  -- the checkpoint's weight format (config.json quantization_config, a preset's) unless one is
  -- asked for
  local own = o.weight_dtype == nil and c.weight_dtype
  local opts = { t = t, weight_dtype = own or o.weight_dtype, group = own and c.weight_group or o.group,
                 kv_dtype = o.kv_dtype }
  local spm = require "tilewave.cost.speculative"
  local sd = o.speculative and spm.resolve(o.speculative, "serve.speculative")
  -- the draft shares the target's tokenizer, and its weights and cache take memory beside the
  -- target's
  opts.draft = sd and spm.check_draft(sd, c, "serve.speculative")
  if dis then opts.t = dis.prefill.t end
  opts.ep, opts.expert_imbalance = ep, groups.imbalance_of(o.expert_imbalance, ep, dis, sd)
  opts.pp = groups.pp_alone(pp, ep, dis, sd)
  -- the model's own context first: a workload past it is the same error on every device
  local max_context = (w.max_isl + w.max_osl) * (w.turns or 1)
  local limit = not o.allow_long_context and c.max_position_embeddings
  if limit and max_context > limit and M.drops_long(w, limit) then
    -- a dataset's requests past the context are dropped and others drawn in their place, as a
    -- benchmark client's sampler does (the core's max_total; the run counts them: `dropped`)
    w.max_total = limit - (w.prefix_tokens or 0)
    max_context = limit
  end
  if limit and max_context > limit then
    -- named by what made it long: a conversation's turns, a shared prefix, or the lengths
    local field, what = "serve.workload", "isl + osl"
    if (w.turns or 1) > 1 then
      field, what = "serve.workload.conversation.turns", format("a conversation's last turn, (isl + osl) x %d turns", w.turns)
    elseif (w.prefix_tokens or 0) > 0 and w.prefix_tokens >= w.max_isl / 2 then
      field, what = "serve.workload.prefix.tokens", format("the prefix of %d tokens + isl + osl", w.prefix_tokens)
    end
    check.fail(field, format("expected %s within max_position_embeddings %d of %s (or allow_long_context)", what,
      c.max_position_embeddings, c.id or c.name), max_context)
  end
  local kv = steps.kv_capacity(c, spec, opts, sched)
  if pp > 1 then kv, sched = groups.pp_engines(kv, sched, pp, o.router) end
  -- a conversation's last turn holds every earlier prompt and answer
  if max_context > kv.kv_capacity_tokens then
    check.fail("serve.workload", format("expected requests within the KV capacity of %d tokens (isl + osl up to %d)",
      kv.kv_capacity_tokens, max_context), max_context)
  end
  if sched.whole_batch then
    -- the batch's KV cache at its longest, allocated before it runs (tilewave.serve.schedulers gptsession)
    local batch = math.min(sched.max_num_seqs, w.requests)
    local need = batch * (-(-max_context // sched.block_size) * sched.block_size)
    if need > kv.kv_capacity_tokens then
      check.fail("serve.scheduler.max_num_seqs", format("expected a batch whose KV cache fits at once (%d requests of "
        .. "isl + osl up to %d: %d tokens; the KV capacity is %d tokens)", batch, max_context, need,
        kv.kv_capacity_tokens), sched.max_num_seqs)
    end
  end
  if ep > 1 then kv, sched = groups.ep_group(kv, sched, ep) end
  -- prefix caching: the engine release's default (tilewave.cost.engine_versions), or the caller's
  local caching = o.prefix_caching
  if caching == nil then caching = eng.prefix_caching or false end
  if type(caching) ~= "boolean" then check.fail("serve.prefix_caching", "expected true or false", caching) end
  if dis and w.turns then
    check.fail("serve.workload.conversation", "expected none with disagg (a conversation's cache stays on one replica)",
      w.turns)
  end
  if o.prefix_caching and dis and w.prefix_tokens then
    check.fail("serve.prefix_caching", "expected false with disagg (prefix caching is not simulated across pools)", caching)
  end
  local static = sched.policy == "static"
  local max_tokens = static and sched.max_num_seqs * w.max_isl or sched.max_num_batched_tokens + sched.max_num_seqs
  local exact = {}
  if w.isl.kind == "fixed" then exact[1] = w.isl.a end
  if w.isl.kind == "fixed" and w.prefix_tokens then exact[2] = w.isl.a + w.prefix_tokens end
  local tables = steps.tables(c, spec, eng, opts, { max_tokens = max(1, math.min(max_tokens, 2 ^ 24)),
    max_context = max_context, max_seqs = sched.max_num_seqs, exact = exact })
  if replicas * pp > 4096 then
    check.fail("serve.replicas", format("expected at most %d with pp = %d (4096 pipeline micro-batch schedulers)",
      4096 // pp, pp), replicas)
  end
  replicas = replicas * pp -- each pipeline's virtual engines
  if dis then
    -- the decode pool: its own t, KV capacity and tables; the transfer over the link between pools
    local dopts = { t = dis.decode.t, weight_dtype = opts.weight_dtype, group = opts.group, kv_dtype = o.kv_dtype }
    local dspec = dis.decode.spec or spec
    engines.check_device(eng, dspec, "serve.disagg.decode.hw")
    dis.decode.spec = dspec
    local dkv = steps.kv_capacity(c, dspec, dopts, sched)
    if max_context > dkv.kv_capacity_tokens then
      check.fail("serve.disagg.decode", format("expected requests within its KV capacity of %d tokens (isl + osl up to %d)",
        dkv.kv_capacity_tokens, max_context), max_context)
    end
    dis.decode_kv, dis.decode_tables = dkv, steps.tables(c, dspec, eng, dopts, { max_tokens = max(1, math.min(max_tokens, 2 ^ 24)),
      max_context = max_context, max_seqs = sched.max_num_seqs, exact = exact })
    dis.transfer = steps.transfer(c, spec, o, dis)
    replicas = dis.prefill.replicas + dis.decode.replicas
  end
  if sd then
    -- the draft model's decode steps on the same device, engine and grids
    local draft = require("tilewave.cost.speculative").draft_of(sd, c)
    tables.draft_s = steps.decode_table(models.resolve(draft, "serve.speculative.draft"), spec, eng, opts,
      tables.seq_grid, tables.dctx_grid)
  end
  local lo, hi, borrowed = steps.interval(spec)
  if dis and dis.decode.spec ~= spec then -- mixed pools: the wider of the two devices' intervals
    local dlo, dhi, dborrowed = steps.interval(dis.decode.spec)
    lo, hi, borrowed = math.min(lo, dlo), math.max(hi, dhi), borrowed or dborrowed
  end
  return { c = c, spec = spec, t = t, ep = ep, pp = pp, expert_imbalance = opts.expert_imbalance, eng = eng, sched = sched, replicas = replicas, w = w, seed = seed, slo = slo,
           speculative = sd, disagg = dis,
           kv = kv, tables = tables, scale_low = lo, scale_high = hi, borrowed = borrowed, detail = o.detail,
           prefix_caching = caching and not dis or false,
           weight_dtype = opts.weight_dtype or "bf16", weight_dtype_source = own and c.weight_dtype_source or nil,
           kv_dtype = o.kv_dtype or "bf16", drawn = {} }
end

-- The lengths of prepared run `x`'s workload for `n` requests, drawn once and shared by the runs of
-- its copies (a search runs one workload at many rates and lengths have their own stream: the core
-- uses them only for the same isl, osl and seed, so a run is the same with or without them); nil
-- for a trace's lengths. Drawn anew, at twice the count, when a run needs more.
local function drawn_lengths(x, n)
  local w, cache = x.w, x.drawn
  if not cache or w.isl.kind == "trace" or w.osl.kind == "trace" or w.max_total then return nil end
  local function len(l) return { kind = l.kind, a = l.a, b = l.b, lo = l.lo, hi = l.hi } end
  if cache.n and cache.n >= n and cache.isl == w.isl and cache.osl == w.osl and cache.seed == x.seed then
    return cache.ud
  end
  local want = math.min(math.max(n, 2 * (cache.n or 0)), math.max(n, 200000))
  cache.ud = core.serve_lengths { isl = len(w.isl), osl = len(w.osl), seed = x.seed, n = want }
  cache.n, cache.isl, cache.osl, cache.seed = want, w.isl, w.osl, x.seed
  return cache.ud
end

--- Whether workload `w` (tilewave.serve.workload.resolve's) drops its requests past `limit` tokens
-- (isl + osl, and a shared prefix) rather than refusing the run: lengths drawn from a named dataset
-- (its sampler drops what a model cannot take, as vLLM's benchmark_dataset.py is_valid_sequence
-- drops sequences past its length limit), one turn per request, and a limit that leaves a request
-- of its shortest lengths room. Lengths the user gave (--isl, --osl, a trace) are refused instead:
-- they are what was asked.
function M.drops_long(w, limit)
  if not w.dataset or (w.turns or 1) > 1 or w.isl.kind == "trace" or w.osl.kind == "trace" then return false end
  local shortest = (w.isl.lo or w.isl.a or 1) + (w.osl.lo or w.osl.a or 1) + (w.prefix_tokens or 0)
  return limit - (w.prefix_tokens or 0) >= 2 and shortest <= limit
end

--- One run of the core for a prepared run `x` (M.prepare) at step-cost scale `scale`: the
-- core's raw result (src/tw_serve.h fields). For callers that run one deployment many times
-- (tilewave.serve.size). `stop` (true: the caller only asks M.meets(r, x.slo)) stops the run
-- once the measured requests already decide that x.slo fails at its percentile (the core's
-- stop_percentile); r.slo_failed is then 1 and its other figures 0. `x.per_request = true` schedules
-- every running request one by one (the core's reference pass, no decode group): the same run.
local function run(x, scale, detail, stop, emit_max)
  if type(x) ~= "table" or type(x.w) ~= "table" or type(x.sched) ~= "table" or type(x.tables) ~= "table" then
    check.fail("serve.run", "expected a prepared run (tilewave.serve.simulate.prepare's result)",
      x)
  end
  if type(scale) ~= "number" or not (scale > 0 and scale < math.huge) then
    check.fail("serve.run.scale", "expected a positive finite number (the step costs' scale)", scale)
  end
  local w, s, tb = x.w, x.sched, x.tables
  local function len(l) return { kind = l.kind, a = l.a, b = l.b, lo = l.lo, hi = l.hi } end
  return core.serve {
    arrival = w.arrival, rate = w.rate, cv = w.cv, concurrency = w.concurrency, requests = w.requests, seed = x.seed,
    measure_from = w.measure_from, measure_to = w.measure_to,
    prefix_tokens = w.prefix_tokens or 0, prefix_share = w.prefix_share or 0, prefix_caching = x.prefix_caching,
    turns = w.turns or 1, think_s = w.think_s or 0, max_total = w.max_total or 0,
    isl = len(w.isl), osl = len(w.osl), trace_arrival = w.trace_arrival, trace_isl = w.trace_isl,
    trace_osl = w.trace_osl, drawn = drawn_lengths(x, w.requests),
    policy = s.policy, mix = s.mix, chunked = s.chunked, reserve = s.reserve, max_num_seqs = s.max_num_seqs,
    max_num_batched_tokens = s.max_num_batched_tokens, block_size = s.block_size,
    kv_capacity_tokens = x.kv.kv_capacity_tokens, watermark = s.watermark, replicas = x.replicas, router = s.router,
    multi_step = s.multi_step, seq_host_s = tb.seq_host_s, host_overlap = tb.host_overlap, kv_s_per_token = tb.kv_s_per_token,
    decode_kernels = tb.decode_kernels,
    spec_k = x.speculative and x.speculative.k or 0, spec_alpha = x.speculative and x.speculative.acceptance or 0,
    draft_s = tb.draft_s,
    prefill_replicas = x.disagg and x.disagg.prefill.replicas or 0,
    decode_kv_capacity_tokens = x.disagg and x.disagg.decode_kv.kv_capacity_tokens or 0,
    transfer_s_per_token = x.disagg and x.disagg.transfer.s_per_token or 0,
    transfer_latency_s = x.disagg and x.disagg.transfer.latency_s or 0,
    async_output = x.eng.async_output or false, frontend_s = x.eng.frontend_s or 0,
    decode_pool = x.disagg and (function()
      local d = tables.copy(x.disagg.decode_tables)
      d.scale = scale
      return d
    end)() or nil,
    tok_grid = tb.tok_grid, lin_s = tb.lin_s, ctx_grid = tb.ctx_grid, attn_s = tb.attn_s, seq_grid = tb.seq_grid,
    logits_s = tb.logits_s, dctx_grid = tb.dctx_grid, decode_s = tb.decode_s, host_s = tb.host_s, scale = scale,
    slo_ttft_s = x.slo and x.slo.ttft_s or 0, slo_tpot_s = x.slo and x.slo.tpot_s or 0,
    stop_percentile = stop and x.slo and x.slo.percentile or 0, per_request = x.per_request or false,
    records = detail and true or false, series_max = detail and M.SERIES_MAX or 0, emit_max = emit_max or 0,
  }
end

M.run = run

--- The figures of a raw run in the shape simulate() returns (without `interval`).
local function shape(x, r)
  local out = {
    model = x.c.id or x.c.name, hw = x.spec.id, t = x.t, replicas = x.replicas // x.pp, pp = x.pp > 1 and x.pp or nil,
    gpus = x.disagg and (x.disagg.prefill.t * x.disagg.prefill.replicas + x.disagg.decode.t * x.disagg.decode.replicas)
      or x.t * x.ep * x.replicas, mode = x.disagg and "disagg" or "agg", ep = x.ep > 1 and x.ep or nil,
    expert_imbalance = x.ep > 1 and (x.expert_imbalance or require("tilewave.cost.expert_parallel").ROUTING_SKEW) or nil,
    prefill = x.disagg and { hw = x.spec.id, t = x.disagg.prefill.t, replicas = x.disagg.prefill.replicas,
                             gpus = x.disagg.prefill.t * x.disagg.prefill.replicas } or nil,
    decode = x.disagg and { hw = x.disagg.decode.spec.id, t = x.disagg.decode.t, replicas = x.disagg.decode.replicas,
                            gpus = x.disagg.decode.t * x.disagg.decode.replicas,
                            kv_capacity_tokens = x.disagg.decode_kv.kv_capacity_tokens } or nil,
    kv_transfer = x.disagg and x.disagg.transfer or nil,
    max_position_embeddings = x.c.max_position_embeddings, -- the model's context (a launch line may need less)
    engine = x.eng.name, engine_base = x.eng.file_base, scheduler = x.sched.name, weight_dtype = x.weight_dtype, kv_dtype = x.kv_dtype,
    weight_dtype_source = x.weight_dtype_source,
    arrival = x.w.arrival, rate = x.w.rate, concurrency = x.w.concurrency, dataset = x.w.dataset,
    requests = r.requests, duration_s = r.duration_s,
    -- a dataset's requests past the model's context, dropped and drawn again (M.drops_long)
    dropped = x.w.max_total and { requests = r.dropped or 0, max_total = x.w.max_total } or nil,
    measure = { mode = x.w.measure, from = x.w.measure_from, to = x.w.measure_to, requests = r.measured,
                asked = x.w.requests_asked },
    throughput = { requests_per_s = r.requests_per_s, output_tokens_per_s = r.output_tokens_per_s,
                   total_tokens_per_s = r.total_tokens_per_s },
    queue = { start = r.queue_start, ["end"] = r.queue_end, growth_rps = r.queue_growth_rps },
    mean_in_system = r.mean_in_system, mean_running = r.mean_running,
    kv_capacity_tokens = x.kv.kv_capacity_tokens, kv_peak_fraction = r.kv_peak_fraction,
    preemptions = r.preemptions, steps = r.steps, output_tokens = r.output_tokens,
    prefill_tokens = r.prefill_tokens, recomputed_tokens = r.recomputed_tokens, decode_tokens = r.decode_tokens,
    kv_blocks_end = r.kv_blocks_end,
    conversation = x.w.turns and { turns = x.w.turns, think_s = x.w.think_s, conversations = x.w.conversations } or nil,
    prefix = (x.w.prefix_tokens or x.w.turns) and { tokens = x.w.prefix_tokens, share = x.w.prefix_share, caching = x.prefix_caching,
      lookups = r.prefix_lookups, hits = r.prefix_hits, cached_tokens = r.cached_tokens,
      hit_rate = r.prefix_lookups > 0 and r.prefix_hits / r.prefix_lookups or 0 } or nil,
    max_num_seqs = x.sched.max_num_seqs, max_num_batched_tokens = x.sched.max_num_batched_tokens,
    gpu_memory_utilization = x.sched.gpu_memory_utilization, multi_step = x.sched.multi_step,
  }
  for _, k in ipairs(STATS) do out[k] = r[k] end
  if x.slo then out.goodput_rps, out.slo = r.goodput_rps, x.slo end
  if x.speculative then
    local sd = x.speculative
    local name = type(sd.draft) == "table" and (sd.draft.id or sd.draft.name) or sd.draft
    out.speculative = { draft = name, k = sd.k, acceptance = sd.acceptance, tokens_per_step = r.spec_tokens_per_step,
      acceptance_assumed = sd.acceptance_assumed,
      expected_tokens_per_step = require("tilewave.cost.speculative").tokens_per_step(sd.k, sd.acceptance) }
  end
  return out
end

M.shape = shape

--- Does raw run `r` (M.run's) meet `slo` ({ ttft_s, tpot_s (s; 0: no limit), percentile }) at its
-- percentile? The one SLO test of the simulator and the sizing search (tilewave.serve.size).
-- @raise `serve.meets.run: expected a run ...` / `serve.meets.slo: expected ...` for other arguments
function M.meets(r, slo)
  if type(r) ~= "table" or type(r.ttft_s) ~= "table" or type(r.tpot_s) ~= "table" then
    check.fail("serve.meets.run", "expected a run of tilewave.serve.simulate.run (ttft_s and tpot_s statistics)",
      r)
  end
  if type(slo) ~= "table" or type(slo.ttft_s) ~= "number" or type(slo.tpot_s) ~= "number"
    or type(slo.percentile) ~= "number" then
    check.fail("serve.meets.slo", "expected { ttft_s, tpot_s (s; 0: no limit), percentile } (tilewave.serve.simulate"
      .. ".prepare's slo)", slo)
  end
  if r.slo_failed == 1 then return false end -- a run stopped once its SLO test failed (M.run's stop)
  local q = "p" .. tostring(math.tointeger(slo.percentile) or slo.percentile)
  return (slo.ttft_s == 0 or r.ttft_s[q] <= slo.ttft_s) and (slo.tpot_s == 0 or r.tpot_s[q] <= slo.tpot_s)
end

-- { low, high } of a figure over the three runs
local function span(a, b, c)
  return { math.min(a, b, c), math.max(a, b, c) }
end

--- Simulate serving a model under load.
-- @tparam table o `model` (preset id, config.json or folder, or a config), `hw`, `t`
--   (tensor-parallel size, default 1), `weight_dtype`, `group`, `kv_dtype` (as
--   tilewave.inference.decode), `engine` (default "vllm"; "sglang", "trtllm" or any engine of
--   tilewave.cost.engines), `scheduler` (a preset of tilewave.serve.schedulers or a table with
--   `base`; default the engine's), `replicas` (data-parallel copies behind a router, default 1),
--   `router` ("round_robin" default or "least_loaded"), `workload` (tilewave.serve.workload),
--   `seed` (default 0), `slo = { ttft_s, tpot_s, percentile = 99 }`, `detail` (true: per-request
--   records and a time series; "chunks": also `records.chunks_s`, each request's list of the times
--   (s, engine clock) its chunks after the first left their steps - src/tw_serve.h emit_max), `allow_long_context`, `speculative = { draft, k, acceptance }`
--   (tilewave.cost.speculative; the result's `speculative.tokens_per_step` is what the run drew),
--   `disagg = { prefill = { t, replicas, hw }, decode = { t, replicas, hw }, link_bw }` (disaggregated
--   pools; M.disagg_of, tilewave.serve.steps.transfer; the result gains `mode = "disagg"`,
--   `prefill`, `decode` and `kv_transfer`); `ep` (expert-parallel GPUs of a MoE replica, t = 1:
--   tilewave.cost.expert_parallel, tilewave.serve.parallel_groups.ep_group; the result gains `ep`, `expert_imbalance`),
--   `expert_imbalance` (routing skew in [1, ep], default 1), `pp` (pipeline stages of t GPUs each,
--   1..num_hidden_layers: tilewave.serve.parallel_groups.pp_engines; the result gains `pp`); a workload's `conversation = {
--   turns, think_s }` (tilewave.serve.workload.conversation; the result gains `conversation` and
--   `prefix` with the history hits)
-- @return `{ model, hw, t, replicas, gpus, engine, scheduler, requests, duration_s (s), throughput
--   = { requests_per_s, output_tokens_per_s, total_tokens_per_s } (a steady-state run's over its
--   measured window), queue = { start, end, growth_rps } (requests in the system when the first and
--   the last measured request arrived, and the growth between: tilewave.serve.capacity.state reads it),
--   ttft_s, tpot_s, itl_s, e2e_s,
--   queue_s (each { mean, p50, p90, p99, max }, s), mean_in_system, mean_running (time averages,
--   requests), kv_capacity_tokens (per replica), kv_peak_fraction, preemptions, steps,
--   output_tokens, prefill_tokens (recomputed ones included), recomputed_tokens, decode_tokens
--   (written to the KV cache by decode steps; prefill_tokens + decode_tokens = the sum of input +
--   output - 1 over the requests + recomputed_tokens, exactly), kv_blocks_end (blocks held at the
--   end: 0), goodput_rps (with slo), slo_met (with slo: the percentile of TTFT and TPOT within
--   their limits), interval = { <figure> = { low, high } for every latency statistic ("ttft_s.p99")
--   and throughput figure, from the runs at the step-cost interval's bounds, scale_low, scale_high,
--   borrowed }, records (detail: per-request columns), series (detail: time_s, waiting, running,
--   kv_fraction) }`
-- @raise `serve.<field>: ...`
function M.simulate(o)
  local x = M.prepare(o)
  local nominal = run(x, 1, x.detail)
  if x.detail == "chunks" then
    -- each request's chunk times: the run again (the same run: the core is deterministic) with a
    -- log sized by the first's output tokens (a request emits at most output - 1 chunks after its first)
    local bound = 0
    for _, o in ipairs(nominal.records.output_tokens) do bound = bound + math.max(o - 1, 0) end
    nominal = run(x, 1, true, nil, bound)
    assert(nominal.emissions_lost == 0, "serve: the chunk log was sized short")
    nominal.records.chunks_s = nominal.emissions_s
  end
  local low, high = run(x, x.scale_low), run(x, x.scale_high)
  local out = shape(x, nominal)
  local iv = { scale_low = x.scale_low, scale_high = x.scale_high, borrowed = x.borrowed }
  for _, k in ipairs(STATS) do
    for _, f in ipairs(FIELDS) do iv[k .. "." .. f] = span(nominal[k][f], low[k][f], high[k][f]) end
  end
  for _, f in ipairs { "requests_per_s", "output_tokens_per_s", "total_tokens_per_s", "goodput_rps" } do
    iv[f] = span(nominal[f], low[f], high[f])
  end
  out.interval = iv
  if x.slo then
    out.slo_met = M.meets(nominal, x.slo)
  end
  if x.detail then out.records, out.series = nominal.records, nominal.series end
  return out
end

return M
