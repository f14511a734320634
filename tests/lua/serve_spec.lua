-- busted specs for tilewave.serve: the physics a serving simulation must hold (issue 35), on
-- llama-3.1-8b on an H100 under vLLM: low-load latency equals one prefill and one decode,
-- Little's law, saturation, conservation, KV capacity, determinism and the errors.
local tw = require "tilewave"
local core = require "tilewave.core"

local BASE = { model = "llama-3.1-8b", hw = "h100_sxm5", engine = "vllm" }

local function run(extra)
  local o = {}
  for k, v in pairs(BASE) do o[k] = v end
  for k, v in pairs(extra) do o[k] = v end
  return tw.serve.simulate(o)
end

local function close(a, b, rel) return math.abs(a / b - 1) <= rel end

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return e
end

describe("tilewave.serve", function()
  describe("at a low rate (far below saturation)", function()
    local r = run { workload = { rate = 0.05, requests = 40, isl = 512, osl = 128 } }

    it("TTFT p50 is one prefill of the prompt (same engine)", function()
      local p = tw.inference.prefill { model = BASE.model, hw = BASE.hw, prompt = 512, engine = "vllm" }
      assert.is_true(close(r.ttft_s.p50, p.ttft_s, 0.05), ("ttft %g vs prefill %g"):format(r.ttft_s.p50, p.ttft_s))
      assert.is_true(r.queue_s.p50 < 1e-9)
    end)

    it("TPOT p50 is a batch-1 decode at the mean context", function()
      local d = tw.inference.decode { model = BASE.model, hw = BASE.hw, batch = 1, context = 576, engine = "vllm" }
      assert.is_true(close(r.tpot_s.p50, d.tpot_s, 0.05), ("tpot %g vs decode %g"):format(r.tpot_s.p50, d.tpot_s))
      assert.is_true(close(r.itl_s.p50, d.tpot_s, 0.05))
    end)
  end)

  -- Little's law, token and KV-block conservation hold to rounding (tw_serve.h): the time average of
  -- requests in the system and throughput x mean E2E are both the sum of E2E over the duration; each
  -- request writes input + output - 1 tokens to its cache, plus what preemption recomputed
  local function assert_conserves(r)
    local isl, osl = 0, 0
    for i = 1, #r.records.input_tokens do
      isl, osl = isl + r.records.input_tokens[i], osl + r.records.output_tokens[i]
    end
    assert.is_true(close(r.mean_in_system, r.throughput.requests_per_s * r.e2e_s.mean, 1e-9),
      ("Little: %.17g vs %.17g"):format(r.mean_in_system, r.throughput.requests_per_s * r.e2e_s.mean))
    assert.equal(isl + osl - r.requests + r.recomputed_tokens, r.prefill_tokens + r.decode_tokens)
    assert.equal(osl, r.output_tokens)
    assert.equal(0, r.kv_blocks_end)
    assert.is_true(r.kv_peak_fraction <= 1 and r.mean_running <= r.mean_in_system + 1e-9)
  end

  it("holds Little's law, token and KV-block conservation to 1e-9 at a light and a saturated load", function()
    local light = run { workload = { rate = 2, requests = 800, dataset = "sharegpt" }, detail = true }
    assert_conserves(light)
    -- 60 req/s of 2000 + 500 tokens with a quarter of the GPU's memory: the queue grows, requests are preempted
    local sat = run { workload = { rate = 60, requests = 800, isl = 2000, osl = 500 }, detail = true,
                      scheduler = { base = "vllm", gpu_memory_utilization = 0.25 } }
    assert.is_true(sat.preemptions > 0 and sat.recomputed_tokens > 0)
    assert_conserves(sat)
  end)

  -- never above the offline run's beyond 1%: an open-loop run's ramp and tail differ from the offline
  -- run's, by less than that here
  it("rises with rate to a plateau never above the offline throughput; past it, the queue grows", function()
    local offline = run { workload = { arrival = "offline", requests = 3000, isl = 1024, osl = 256 } }
    local last = 0
    for _, rate in ipairs { 1, 4, 16, 64, 1000 } do
      local r = run { workload = { rate = rate, requests = 3000, isl = 1024, osl = 256 } }
      assert.is_true(r.throughput.output_tokens_per_s >= last * 0.97)
      assert.is_true(r.throughput.output_tokens_per_s <= offline.throughput.output_tokens_per_s * 1.01)
      last = r.throughput.output_tokens_per_s
    end
    local short = run { workload = { rate = 1000, requests = 1500, isl = 1024, osl = 256 } }
    local long = run { workload = { rate = 1000, requests = 3000, isl = 1024, osl = 256 } }
    assert.is_true(long.ttft_s.p99 > 1.5 * short.ttft_s.p99)
  end)

  it("completes every request once with exactly its output tokens, KV within capacity", function()
    local r = run { workload = { rate = 30, requests = 1500, dataset = "sharegpt" }, detail = true }
    local c, tokens = r.records, 0
    assert.equal(1500, #c.arrival_s)
    for i = 1, #c.arrival_s do
      tokens = tokens + c.output_tokens[i]
      assert.is_true(c.arrival_s[i] <= c.scheduled_s[i] and c.scheduled_s[i] < c.first_token_s[i])
      assert.is_true(c.first_token_s[i] <= c.finish_s[i])
    end
    assert.equal(tokens, r.output_tokens)
    assert.is_true(r.kv_peak_fraction <= 1)
    assert.equal(0, r.preemptions) -- 440k tokens of KV: never short
  end)

  it("computes percentiles as numpy does, from the requests' own records", function()
    local r = run { workload = { rate = 25, requests = 997, dataset = "sharegpt" }, detail = true }
    local c, v = r.records, {}
    for i = 1, #c.arrival_s do v[i] = c.first_token_s[i] - c.arrival_s[i] end
    table.sort(v)
    local function pct(q)
      local pos = q / 100 * (#v - 1)
      local i = math.floor(pos)
      return v[i + 1] + (pos - i) * ((v[i + 2] or v[i + 1]) - v[i + 1])
    end
    for _, q in ipairs { 50, 90, 99 } do
      assert.is_true(math.abs(r.ttft_s["p" .. q] - pct(q)) <= 1e-12 * pct(q), "p" .. q)
    end
    assert.equal(v[#v], r.ttft_s.max)
  end)

  it("preempts only when the KV cache runs out, and never holds more than it has", function()
    local small = run { scheduler = { base = "vllm", gpu_memory_utilization = 0.25 },
                        workload = { arrival = "offline", requests = 600, isl = 1000, osl = 1000 } }
    assert.is_true(small.kv_capacity_tokens < 200000)
    assert.is_true(small.preemptions > 0)
    assert.is_true(small.kv_peak_fraction <= 1 and small.kv_peak_fraction > 0.9)
    assert.is_true(small.recomputed_tokens > 0)
    -- reserving prompt + output at admission never preempts
    local reserved = run { scheduler = { base = "vllm", gpu_memory_utilization = 0.25, reserve = true },
                           workload = { arrival = "offline", requests = 600, isl = 1000, osl = 1000 } }
    assert.equal(0, reserved.preemptions)
  end)

  it("reports the KV capacity as (M u - W - A) / KV bytes per token, in whole blocks", function()
    local r = run { workload = { rate = 1, requests = 10, isl = 100, osl = 10 } }
    -- H100 81,559 MiB x 0.9 - 16.06 GB of bf16 weights - activations, over 128 KiB per token
    local per = 2 * 32 * 8 * 128 * 2
    assert.equal(131072, per)
    assert.equal(0, r.kv_capacity_tokens % 16)
    local mem, w = 81559 * 2 ^ 20 * 0.9, 16.06e9
    assert.is_true(r.kv_capacity_tokens < (mem - w) / per and r.kv_capacity_tokens > (mem - w - 3e9) / per)
  end)

  it("says how many such GPUs a model's weights alone need when it does not fit", function()
    -- Llama-3.1-70B in bf16: 70.55e9 parameters x 2 bytes = 141.1 GB at t = 1, against 81,559 MiB x 0.9
    -- = 76.97 GB an H100 gives the engine: ceil(141.1 / 76.97) = 2 GPUs; at t = 2 (70.6 GB a rank) the
    -- weights fit, and no count is added
    local ok, e = pcall(tw.serve.simulate, { model = "llama-3.1-70b", hw = "h100_sxm5",
      workload = { rate = 1, requests = 10, isl = 100, osl = 10 } })
    assert.is_false(ok)
    assert.matches("^serve: llama%-3%.1%-70b does not fit on h100_sxm5 at t = 1: needs 144 GB .*; its weights alone "
      .. "need 2 such GPUs$", e)
  end)

  it("is deterministic for a seed; another seed moves arrivals, not the statistics", function()
    local w = { rate = 10, requests = 3000, dataset = "sharegpt" }
    local a, b = run { workload = w, seed = 7 }, run { workload = w, seed = 7 }
    assert.equal(tw.report.json(a), tw.report.json(b))
    local c = run { workload = w, seed = 8 }
    assert.are_not.equal(a.duration_s, c.duration_s)
    assert.is_true(close(a.tpot_s.p50, c.tpot_s.p50, 0.05))
    assert.is_true(close(a.throughput.requests_per_s, c.throughput.requests_per_s, 0.1))
  end)

  it("batches statically at a lower throughput than continuously", function()
    local w = { arrival = "offline", requests = 512, dataset = "sharegpt" }
    local cont, stat = run { workload = w }, run { workload = w, scheduler = "static" }
    assert.is_true(stat.throughput.output_tokens_per_s < cont.throughput.output_tokens_per_s)
  end)

  it("gives every latency and throughput an interval around it", function()
    local r = run { workload = { rate = 8, requests = 500, dataset = "sharegpt" } }
    local iv = r.interval["ttft_s.p99"]
    assert.is_true(iv[1] <= r.ttft_s.p99 and r.ttft_s.p99 <= iv[2] and iv[1] < iv[2])
    iv = r.interval.output_tokens_per_s
    assert.is_true(iv[1] <= r.throughput.output_tokens_per_s and r.throughput.output_tokens_per_s <= iv[2])
  end)

  it("meets an SLO's goodput only with the requests that meet it", function()
    local r = run { workload = { rate = 8, requests = 500, dataset = "sharegpt" }, slo = { ttft_s = 2, tpot_s = 0.05 } }
    assert.is_true(close(r.goodput_rps, r.throughput.requests_per_s, 1e-9))
    assert.is_true(r.slo_met)
    local tight = run { workload = { rate = 8, requests = 500, dataset = "sharegpt" }, slo = { ttft_s = 1e-3 } }
    assert.equal(0, tight.goodput_rps)
    assert.is_false(tight.slo_met)
  end)

  it("spreads load over data-parallel replicas", function()
    local w = { rate = 100, requests = 3000, dataset = "sharegpt" }
    local one, two = run { workload = w }, run { workload = w, replicas = 2, router = "least_loaded" }
    assert.equal(2, two.gpus)
    assert.is_true(two.ttft_s.p99 <= one.ttft_s.p99)
  end)

  it("prices a step of one whole prefill as the prefill, through the core's lookup", function()
    -- an engine whose host work waits for the GPU (host_overlap 0), as tilewave.inference prices it
    local steps = require "tilewave.serve.steps"
    local c, spec = tw.models.resolve("llama-3.1-8b"), tw.hw.resolve("h100_sxm5")
    local eng = tw.engines.resolve("trtllm@0.x")
    local tb = steps.tables(c, spec, eng, { t = 1 }, { max_tokens = 4096, max_context = 4096, max_seqs = 64,
                                                       exact = { 1000 } })
    tb.scale = 1
    local p = tw.inference.prefill { model = c, hw = spec, prompt = 1000, engine = "trtllm@0.x" }
    assert.is_true(close(core.serve_step(tb, { { 1000, 0 } }, 0, 1, 1), p.ttft_s, 1e-9))
    local d = tw.inference.decode { model = c, hw = spec, batch = 8, context = 1, engine = "trtllm@0.x" }
    assert.is_true(core.serve_step(tb, {}, 8, 1, 8) >= d.tpot_s * (1 - 1e-12))
  end)

  describe("with speculative decoding (Leviathan et al. 2023)", function()
    local w = { rate = 4, requests = 400, isl = 512, osl = 256 }
    local none = run { workload = w }
    it("is slower with alpha = 0 and faster with alpha = 0.9 and a cheap draft", function()
      local zero = run { workload = w, speculative = { draft = "llama-3.2-1b", k = 4, acceptance = 0 } }
      local good = run { workload = w, speculative = { draft = "llama-3.2-1b", k = 4, acceptance = 0.9 } }
      assert.is_true(zero.tpot_s.p50 > none.tpot_s.p50)
      assert.is_true(good.tpot_s.p50 < none.tpot_s.p50)
      -- the drawn tokens per target step match (1 - a^(k+1)) / (1 - a) = 4.0951 within sampling error
      -- (and the output's end, where fewer drafts are left)
      assert.is_true(math.abs(good.speculative.tokens_per_step / 4.0951 - 1) < 0.03)
      assert.equal(1, zero.speculative.tokens_per_step)
      assert.equal(400 * 256, good.output_tokens)
    end)
    it("prices decode per output token: the paper's 3.36 tokens per step at alpha 0.8, k 4", function()
      local d = tw.inference.decode { model = "llama-3.1-8b", hw = "h100_sxm5", context = 1024,
                                      speculative = { draft = "llama-3.2-1b", k = 4, acceptance = 0.8 } }
      assert.is_true(math.abs(d.speculative.tokens_per_step - 3.3616) < 1e-9)
      assert.is_true(math.abs(d.tpot_s - (4 * d.speculative.draft_step_s + d.speculative.verify_step_s) / 3.3616) < 1e-12)
      assert.is_true(d.tpot_s < d.speculative.plain_tpot_s)
    end)
    it("prices an MTP or EAGLE head as one layer of the target with its LM head", function()
      local d = tw.inference.decode { model = "llama-3.1-8b", hw = "h100_sxm5", context = 1024,
                                      speculative = { draft = "mtp", k = 1, acceptance = 0.8 } }
      local one = tw.models.define { family = "llama", hidden_size = 4096, num_hidden_layers = 1, num_attention_heads = 32,
        num_key_value_heads = 8, intermediate_size = 14336, vocab_size = 128256, max_position_embeddings = 131072 }
      local ref = tw.inference.decode { model = one, hw = "h100_sxm5", context = 1024 }
      assert.is_true(math.abs(d.speculative.draft_step_s / ref.tpot_s - 1) < 0.02)
      assert.equal("llama-3.1-8b mtp head", d.speculative.draft)
    end)
  end)

  it("disaggregates: TTFT >= the prefill + the KV bytes over the link, decode free of prefill stalls", function()
    local w = { rate = 10, requests = 600, isl = 2000, osl = 200 }
    local d = run { workload = w, disagg = { prefill = { replicas = 1 }, decode = { replicas = 1 } }, detail = true }
    local agg = run { workload = w, replicas = 2, router = "least_loaded" }
    local p = tw.inference.prefill { model = BASE.model, hw = BASE.hw, prompt = 2000, engine = "vllm" }
    -- 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131072 bytes per token over NVLink, 450 GB/s one way
    assert.equal(131072, d.kv_transfer.bytes_per_token)
    local floor = p.ttft_s + 2000 * 131072 / 450e9
    local c = d.records
    for i = 1, #c.arrival_s do
      assert.is_true(c.first_token_s[i] - c.arrival_s[i] >= floor * (1 - 1e-9))
    end
    assert.equal("disagg", d.mode)
    assert.equal(2, d.gpus)
    assert.is_true(d.tpot_s.p99 < agg.tpot_s.p99)
    assert_conserves(d)
  end)

  it("names the field of every bad option", function()
    assert.equal("serve.workload.rate: expected positive number, got -1",
      err_of(run, { workload = { rate = -1, isl = 10, osl = 10 } }))
    assert.truthy(err_of(run, { workload = { rate = 1, dataset = "reddit" } })
      :find("serve.workload.dataset: expected one of", 1, true))
    assert.truthy(err_of(run, { wrkload = {} }):find("serve", 1, true))
    assert.truthy(err_of(run, { workload = { rate = 1, isl = 600000, osl = 10 }, allow_long_context = true })
      :find("serve.workload: expected requests within the KV capacity", 1, true))
    assert.truthy(err_of(run, { scheduler = "fifo", workload = { rate = 1, isl = 10, osl = 10 } })
      :find("serve.scheduler: expected one of", 1, true))
    assert.truthy(err_of(run, { scheduler = { base = "vllm", max_num_seqs = 0 }, workload = { rate = 1, isl = 10, osl = 10 } })
      :find("serve.scheduler.max_num_seqs: expected positive integer, got 0", 1, true))
    -- the core's own bounds, named in the user's terms (before: 2^21 sequences failed as decode.batch)
    assert.equal("serve.scheduler.max_num_seqs: expected sequences from 1 to 1e+06, got 2097152",
      err_of(run, { scheduler = { base = "vllm", max_num_seqs = 1 << 21 }, workload = { rate = 1, isl = 10, osl = 10 } }))
    assert.equal("serve.scheduler.max_num_batched_tokens: expected tokens from 1 to 1e+08, got 1000000000",
      err_of(run, { scheduler = { base = "vllm", max_num_batched_tokens = 1000000000 }, workload = { rate = 1, isl = 10, osl = 10 } }))
    assert.truthy(err_of(run, { workload = { rate = 1, isl = 10 } }):find("serve.workload.osl", 1, true))
    assert.truthy(err_of(run, { model = "modernbert-base", workload = { rate = 1, isl = 10, osl = 10 } })
      :find("encoder", 1, true))
  end)
end)

describe("core.serve_step", function()
  local core = require "tilewave.core"
  -- a step costing 1 ms + 10 us per token (the round tables of tests/c/test_serve.c)
  local c = { tok_grid = { 1, 1001 }, lin_s = { 1e-5, 1.001e-2 }, ctx_grid = { 1 }, attn_s = { 0 }, seq_grid = { 1 },
              logits_s = { 0 }, dctx_grid = { 1 }, decode_s = { 0 }, host_s = 1e-3, scale = 1 }

  it("prices a step by hand: 100 prompt tokens, 1 ms + 1 ms", function()
    assert.is_true(math.abs(core.serve_step(c, { { 100, 0 } }, 0) - 2e-3) < 1e-15)
  end)

  it("takes token counts as numbers only, never '80' or nil (issue 49)", function()
    local function err(...) local ok, e = pcall(core.serve_step, ...) assert.is_false(ok) return e end
    assert.equal("serve.chunks[1]: expected { n, p } as numbers (tokens)", err(c, { { "80", 0 } }, 0))
    assert.equal("serve.chunks[1]: expected { n, p } as numbers (tokens)", err(c, { { nil, 0 } }, 0))
    assert.equal("serve.step.b: expected a number, got string '8'", err(c, {}, "8"))
    assert.equal("serve.step.b: expected a number, got nil", err(c, {}, nil))
  end)

  it("names a length's kind by its full path: serve.osl.kind, not serve.kind (issue 49)", function()
    local ok, e = pcall(core.serve, { requests = 2, rate = 1, isl = { kind = "fixed", a = 10 }, osl = { kind = "bogus" } })
    assert.is_false(ok)
    assert.equal("serve.osl.kind: expected one of fixed, uniform, lognormal, trace, got string 'bogus'", e)
  end)
end)

describe("tilewave.serve.capacity", function()
  local capacity = require "tilewave.serve.capacity"
  local O = { model = "llama-3.1-8b", hw = "h100_sxm5", engine = "vllm",
              workload = { rate = 5, requests = 600, isl = 1024, osl = 256 } }

  it("is the steady offline throughput of the same requests, with the step-cost interval", function()
    local c = capacity.of(O)
    -- 40 turnovers of vLLM's 1024 slots: 40,960 requests at t = 0, whatever the caller's run holds;
    -- completions 8,192 (20%) to 36,864 (90%) over the time between them
    local off = tw.serve.simulate { model = O.model, hw = O.hw, engine = O.engine, detail = true,
                                    workload = { arrival = "offline", requests = 40960, isl = 1024, osl = 256 } }
    local f = {}
    for i, t in ipairs(off.records.finish_s) do f[i] = t end
    table.sort(f)
    assert.equal(40960, c.requests)
    assert.is_true(close((36864 - 8192) / (f[36864] - f[8192]), c.requests_per_s, 1e-12))
    -- above the whole run's rate, which counts the first batches and the drain
    assert.is_true(c.requests_per_s > off.throughput.requests_per_s)
    assert.is_true(c.low < c.requests_per_s and c.requests_per_s < c.high)
  end)

  it("judges a load from what its run shows, cross-checked with the capacity", function()
    local c = { requests_per_s = 10, low = 8, high = 12 }
    -- no run: by the capacity alone, and no growth is claimed
    assert.are.same({ "stable" }, { capacity.state(5, c) })
    assert.are.same({ "near capacity" }, { capacity.state(9, c) })
    assert.are.same({ "unstable" }, { capacity.state(11, c) })
    -- a run at 9/s whose queue went from 100 to 700 over 300 s (2/s): 600 is above 3 sqrt(9 x 300)
    -- = 155.9, so it grew: unstable, whatever the capacity says
    local grew = { queue = { start = 100, ["end"] = 700, growth_rps = 2 } }
    assert.are.same({ "unstable", 2 }, { capacity.state(9, c, grew) })
    -- from 100 to 250 (0.5/s): 150 is within chance, so the capacity decides
    local wandered = { queue = { start = 100, ["end"] = 250, growth_rps = 0.5 } }
    assert.is_nil(capacity.observed_growth(wandered, 9))
    assert.are.same({ "near capacity" }, { capacity.state(9, c, wandered) })
    assert.are.same({ "unstable" }, { capacity.state(11, c, wandered) })
    -- where the capacity is only a lower bound (conversations with prefix caching), a run that shows
    -- no growth is not called unstable
    c.lower_bound = true
    assert.are.same({ "near capacity" }, { capacity.state(11, c, wandered) })
    -- the table prints no TTFT for it, whether the run has 300 or 1200 requests
    local run = dofile("tests/lua/helpers/process.lua").run
    for _, n in ipairs { 300, 1200 } do
      local code, out = run(("serve llama-3.1-8b --rate 2,200 --requests %d --isl 1024 --osl 256"):format(n))
      assert.equal(0, code)
      assert.truthy(out:find("\n2/s +stable "), out)
      assert.truthy(out:find("\n200/s +UNSTABLE, queue %+[%d.]+/s +[%d.]+ +%d+ +grows +grows "), out)
    end
  end)
end)

describe("mixed GPU types in disaggregated pools (issue 53 item 4)", function()
  local cluster = require "tilewave.data.cluster"
  local base = { model = "llama-3.1-8b", engine = "vllm", seed = 3,
                 workload = { rate = 0.5, requests = 40, isl = 2048, osl = 16 } }
  local function run(prefill_hw, decode_hw, link_bw)
    local o = {}
    for k, v in pairs(base) do o[k] = v end
    o.hw = "h100_sxm5"
    o.disagg = { prefill = { t = 1, replicas = 1, hw = prefill_hw }, decode = { t = 1, replicas = 1, hw = decode_hw },
                 link_bw = link_bw }
    return tw.serve.simulate(o)
  end

  it("runs each pool on its own device and moves the KV cache across nodes between them", function()
    local r = run("h100_sxm5", "h200_sxm")
    assert.equal("h100_sxm5", r.prefill.hw)
    assert.equal("h200_sxm", r.decode.hw)
    -- no NVLink domain spans two GPU types: the DGX node's InfiniBand, per rank (t = 1 on both ends)
    assert.equal(cluster.resolve("dgx_h100", "x").inter.bw, r.kv_transfer.link_bw)
    assert.truthy(r.kv_transfer.link:find("between two GPU types", 1, true))
    -- the decode pool's KV capacity is the H200's: more than the H100's 80 GB leave
    assert.is_true(r.decode.kv_capacity_tokens > run("h100_sxm5", "h100_sxm5").decode.kv_capacity_tokens)
  end)

  it("adds the KV transfer over that link to TTFT", function()
    local slow, fast = run("h100_sxm5", "h200_sxm"), run("h100_sxm5", "h200_sxm", 1e15)
    -- 2048 prompt tokens of KV at bytes_per_token over the link, every request alike at this load
    local transfer = 2048 * slow.kv_transfer.bytes_per_token / slow.kv_transfer.link_bw
    assert.is_true(transfer > 1e-3)
    assert.is_true(slow.ttft_s.p50 - fast.ttft_s.p50 >= 0.9 * transfer)
  end)

  it("names a pool's device in its errors", function()
    local ok, err = pcall(run, "h100_sxm5", "h900")
    assert.is_false(ok)
    assert.truthy(err:find("^serve.disagg.decode.hw: unknown device .h900."))
    local o = { model = "llama-3.1-8b", engine = "trtllm", hw = "h100_sxm5", workload = base.workload,
                disagg = { prefill = { t = 1 }, decode = { t = 1, hw = "mi300x" } } }
    ok, err = pcall(tw.serve.simulate, o)
    assert.is_false(ok)
    assert.equal("serve.disagg.decode.hw: trtllm runs on nvidia GPUs only; mi300x is amd", err)
  end)
end)

-- issue 66 item 5: the serving API's entry points name what they were given
describe("tilewave.serve entry points", function()
  local simulate = require "tilewave.serve.simulate"
  it("name a missing run, SLO or prepared run instead of failing inside", function()
    assert.has_error(function() simulate.meets(nil, nil) end,
      "serve.meets.run: expected a run of tilewave.serve.simulate.run (ttft_s and tpot_s statistics), got nil")
    assert.has_error(function() simulate.meets({ ttft_s = {}, tpot_s = {} }, 3) end,
      "serve.meets.slo: expected { ttft_s, tpot_s (s; 0: no limit), percentile } (tilewave.serve.simulate.prepare's slo), got 3")
    assert.has_error(function() simulate.run({}) end,
      "serve.run: expected a prepared run (tilewave.serve.simulate.prepare's result), got table")
    -- the core's KV refusal, formatted by the binding (lua_pushfstring takes %f, not %.17g)
    local x = simulate.prepare { model = "llama-3.1-8b", hw = "h100_sxm5", workload = { rate = 1, isl = 100, osl = 10, requests = 10 } }
    x.kv.kv_capacity_tokens = 16
    assert.has_error(function() simulate.run(x, 1) end, "serve.workload: a request needs more KV cache than a replica "
      .. "holds (16.0 tokens); expected isl + osl within kv_capacity_tokens")
    assert.has_error(function() simulate.run(x, 0) end, "serve.run.scale: expected a positive finite number (the step "
      .. "costs' scale), got 0")
  end)
end)
