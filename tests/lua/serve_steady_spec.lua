-- Steady state, capacity and engine versions (issue 48): a stable load's percentiles stop moving
-- with the run's length past the minimum the tool picks, a load past capacity is unstable at every
-- length, and `family@release` selects the mechanisms of that release.
local tw = require "tilewave"
local steady = require "tilewave.serve.steady"
local capacity = require "tilewave.serve.capacity"
local engines = require "tilewave.cost.engines"
local versions = require "tilewave.cost.engine_versions"

local BASE = { model = "qwen3-8b", hw = "h100_sxm5", engine = "vllm" }
local function options(rate, requests, seed)
  local o = {}
  for k, v in pairs(BASE) do o[k] = v end
  o.seed = seed
  o.workload = { rate = rate, dataset = "sharegpt", measure = "steady", requests = requests }
  return o
end

describe("steady.plan", function()
  it("takes MIN_REQUESTS, or MIN_SECONDS of arrivals, whichever is more, and cuts 20% and 10%", function()
    -- 4000 requests below 4000 / 300 = 13.3 req/s; 20 req/s x 300 s = 6000 above it
    local p = steady.plan(2)
    assert.are.same({ 4000, 800, 3600 }, { p.requests, p.measure_from, p.measure_to })
    p = steady.plan(20, 100)
    assert.are.same({ 6000, 1200, 5400, 6000 }, { p.requests, p.measure_from, p.measure_to, p.minimum })
    -- more than the minimum is kept
    assert.are.equal(10000, steady.plan(20, 10000).requests)
  end)
end)

describe("a stable load's percentiles", function()
  it("change by under 3% between 2x and 4x the minimum, for two seeds", function()
    -- 30 req/s: 78% of this deployment's capacity (about 38-52 req/s)
    local rate = 30
    local m = steady.plan(rate).minimum
    for _, seed in ipairs { 0, 1 } do
      local a = tw.serve.simulate(options(rate, 2 * m, seed))
      local b = tw.serve.simulate(options(rate, 4 * m, seed))
      assert.are.equal(0.7 * 4 * m, b.measure.requests)
      for _, k in ipairs { "ttft_s", "tpot_s" } do
        for _, q in ipairs { "p50", "p99" } do
          assert.is_true(math.abs(b[k][q] / a[k][q] - 1) < 0.03, k .. "." .. q .. " seed " .. seed)
        end
      end
    end
  end)
  it("are no longer the first requests': the window leaves the warm-up out", function()
    local r = tw.serve.simulate(options(30, nil, 0))
    assert.are.same({ "steady", 0.2 * r.requests, 0.9 * r.requests }, { r.measure.mode, r.measure.from, r.measure.to })
  end)
end)

describe("capacity", function()
  local cap = capacity.of(options(30, nil, 0))
  it("is the steady offline rate of 40 turnovers of the batch's slots, inside its interval", function()
    -- vLLM on an H100 (80 GB: at least 70 GiB) takes max_num_seqs 1024 (vllm/engine/arg_utils.py's
    -- larger defaults): 40 x 1024 = 40,960 requests, within [4000, 200000]
    assert.are.equal(40960, cap.requests)
    -- the interval is the same run at the calibrated step-cost bounds: slower steps complete fewer
    -- requests a second, so both ends lie strictly around it
    assert.is_true(cap.low < cap.requests_per_s and cap.requests_per_s < cap.high)
  end)
  it("marks a load above it unstable at every run length, with the queue's growth the run shows", function()
    local rate = 1.5 * cap.high
    for _, n in ipairs { 1000, 8000, 32000 } do
      local o = options(rate, n, 0)
      o.workload.measure = nil
      local r = tw.serve.simulate(o)
      local state, growth = capacity.state(rate, cap, r)
      assert.are.equal("unstable", state)
      -- the queue grows by about the rate less what is served, and the run completes no more than
      -- the capacity's interval allows
      assert.is_true(growth > 0.8 * (rate - cap.high) and growth < 1.2 * (rate - cap.low), "n " .. n)
      assert.is_true(r.throughput.requests_per_s <= cap.high * 1.02, "n " .. n)
    end
  end)
  it("calls a load below the interval stable", function()
    assert.are.equal("stable", (capacity.state(0.5 * cap.low, cap)))
  end)
end)

describe("engine versions", function()
  it("select the profile covering a release", function()
    assert.are.equal("vllm@0.6", versions.lookup("vllm@0.7.3"))
    assert.are.equal("vllm@0.5", versions.lookup("vllm@0.5.4"))
    assert.are.equal("vllm@v1", versions.lookup("vllm@0.11.0"))
    assert.are.equal("vllm@v1", versions.lookup("vllm@0.13.1"))
    -- asynchronous scheduling on by default from 0.14 (its release notes)
    assert.are.equal("vllm@0.14", versions.lookup("vllm@0.14.0"))
    assert.are.equal("vllm@0.14", versions.lookup("vllm@0.19.1"))
    assert.are.equal("vllm@v1", versions.lookup("vllm@v1"))
    assert.are.equal("sglang@0.4", versions.lookup("sglang@0.5.2"))
    assert.are.equal("trtllm@0.x", versions.lookup("trtllm@0.17"))
    -- 0.8 - 0.11: XQA without multi-block mode; 0.12 on: multi-block mode on by default
    assert.are.equal("trtllm@0.8", versions.lookup("trtllm@0.8"))
    assert.are.equal("trtllm@0.8", versions.lookup("trtllm@0.11.0"))
    assert.are.equal("trtllm@0.x", versions.lookup("trtllm@0.12"))
    assert.are.equal("trtllm@0.5", versions.lookup("trtllm@0.7.1"))
    assert.are.equal("trtllm@0.5", versions.lookup("trtllm@0.6.1"))
    assert.are.equal("trtllm@0.x", versions.lookup("trtllm@0.x"))
    assert.are.equal("trtllm@1.0", versions.lookup("trtllm@1.2"))
  end)
  it("refuse a release without a profile, and an unknown family, by name", function()
    assert.has_error(function() engines.resolve("vllm@0.3", "serve.engine") end,
      "serve.engine: expected a vllm release with a profile: 0.5 (0.5 to before 0.6), 0.6 (0.6 to before 0.8), "
      .. "v1 (0.8 to before 0.14), 0.14 (0.14 and later), got string 'vllm@0.3'")
    assert.has_error(function() engines.resolve("vllm@0.6.", "serve.engine") end)
    assert.has_error(function() engines.resolve("tgi@2", "serve.engine") end,
      "serve.engine: expected an engine family with versions (sglang, trtllm, vllm), got string 'tgi@2'")
  end)
  it("make a plain family name its newest profile", function()
    local a, b = engines.resolve("vllm"), engines.resolve("vllm@0.14")
    for k, v in pairs(b) do if k ~= "name" and k ~= "description" then assert.are.same(v, a[k], k) end end
    assert.are.equal(engines.resolve("sglang").host_overlap, engines.resolve("sglang@0.4").host_overlap)
  end)
  it("give vLLM 0.5 the v0 scheduler and its serialized host, slower than 0.6 by the blog's direction", function()
    local function thr(e)
      return tw.serve.simulate { model = "llama-3.1-8b", hw = "h100_sxm5", engine = e,
        workload = { arrival = "offline", requests = 300, dataset = "sharegpt" } }.throughput.requests_per_s
    end
    local v5, v6 = thr("vllm@0.5"), thr("vllm@0.6")
    assert.are.equal("vllm_v0", engines.resolve("vllm@0.5").scheduler)
    assert.is_true(v6 > 1.3 * v5)
  end)
end)

describe("graph_batch", function()
  it("pads a decode batch to vLLM's next captured size", function()
    local g = versions.graph_batch
    -- v0: 1, 2, 4, then multiples of 8 up to 256; past 256 unpadded
    assert.are.same({ 1, 2, 4, 8, 16, 256, 300 }, { g("vllm_v0", 1, 256), g("vllm_v0", 2, 256), g("vllm_v0", 3, 256),
      g("vllm_v0", 5, 256), g("vllm_v0", 9, 256), g("vllm_v0", 250, 256), g("vllm_v0", 300, 512) })
    -- v1: multiples of 16 from 256 up to min(2 x max_num_seqs, 512)
    assert.are.same({ 272, 512, 600, 200 }, { g("vllm_v1", 257, 1024), g("vllm_v1", 500, 1024), g("vllm_v1", 600, 1024),
      g(nil, 200, 1024) })
  end)
end)

describe("host_overlap (src/tw_serve.h)", function()
  -- one prefill step of 100 tokens: lin 1 ms, host 0.5 ms + 0.1 ms per sequence (k = 1)
  local function step(f)
    return require("tilewave.core").serve_step({ tok_grid = { 1, 1000 }, lin_s = { 1e-3, 1e-3 }, ctx_grid = { 1 },
      attn_s = { 0 }, seq_grid = { 1 }, logits_s = { 0 }, dctx_grid = { 1 }, decode_s = { 0 }, host_s = 0.5e-3,
      seq_host_s = 0.1e-3, host_overlap = f, scale = 1 }, { { 100, 0 } }, 0, 1, 1)
  end
  it("adds the host to the GPU at 0, hides it behind the GPU at 1, and lies between", function()
    assert.are.near(1.6e-3, step(0), 1e-15)
    assert.are.near(1.0e-3, step(1), 1e-15)
    assert.are.near(1.3e-3, step(0.5), 1e-15)
  end)
end)

describe("TensorRT-LLM before XQA (trtllm@0.5) against its blog", function()
  -- docs/source/blogs/XQA-kernel.md (v0.8): Llama-70B on one H200, FP8, 128/2048, GptSession: 1,227
  -- tok/s/GPU without XQA, 2,941 with it, 2.4x; the batch is not given. Llama-2-70B's 64 query heads
  -- share 8 KV heads: the masked MHA kernel reads each KV head's cache 8 times a step.
  local function tps(engine, batch)
    return tw.serve.simulate { model = "llama-2-70b", hw = "h200_sxm", engine = engine, weight_dtype = "fp8",
      kv_dtype = "fp8", scheduler = { base = "gptsession", max_num_seqs = batch },
      workload = { arrival = "offline", requests = batch, isl = 128, osl = 2048 } }.throughput.output_tokens_per_s
  end
  it("gives XQA's speedup within 15% of the blog's 2.4x at a batch of 128", function()
    local r = tps("trtllm@0.x", 128) / tps("trtllm@0.5", 128)
    assert.is_true(r > 2.4 * 0.85 and r < 2.4 * 1.15, tostring(r))
  end)
  it("refuses a GptSession batch whose KV cache does not fit at once, and runs the largest that does", function()
    local ok, err = pcall(tps, "trtllm@0.5", 256)
    assert.is_false(ok)
    local cap = tonumber(tostring(err):match("the KV capacity is (%d+) tokens"))
    assert.truthy(tostring(err):find("serve.scheduler.max_num_seqs: expected a batch whose KV cache fits at once "
      .. "(256 requests of isl + osl up to 2176: 557056 tokens; the KV capacity is " .. cap .. " tokens), got 256", 1, true))
    -- block_size 1: the largest batch is floor(capacity / 2176) requests, and one more does not fit
    local n = cap // 2176
    assert.is_true(tps("trtllm@0.5", n) > 0)
    assert.is_false((pcall(tps, "trtllm@0.5", n + 1)))
  end)
end)
