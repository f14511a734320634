-- Round 4's serving mechanisms, each pinned by a value worked out by hand from its source, in a case
-- where the mechanism binds (issue 71): a test here fails when the mechanism is changed, not when
-- the model's other figures move. The numbered items are the issue's.
local tw = require "tilewave"

describe("issue 71: mechanisms worked out by hand", function()
  it("1: an overlapped scheduler's step is never shorter than its host work: max(G + (1 - f) H, H)", function()
    -- one prefill step of 100 tokens whose kernels G = 0.2 ms are shorter than its host work
    -- H = 0.5 ms + 0.1 ms x 1 sequence = 0.6 ms (src/tw_serve.h): at f = 0.5, G + 0.5 H = 0.5 ms < H,
    -- so the step takes H = 0.6 ms; at f = 0, G + H = 0.8 ms
    local function step(f)
      return tw.core.serve_step({ tok_grid = { 1, 1000 }, lin_s = { 0.2e-3, 0.2e-3 }, ctx_grid = { 1 },
        attn_s = { 0 }, seq_grid = { 1 }, logits_s = { 0 }, dctx_grid = { 1 }, decode_s = { 0 }, host_s = 0.5e-3,
        seq_host_s = 0.1e-3, host_overlap = f, scale = 1 }, { { 100, 0 } }, 0, 1, 1)
    end
    assert.is_true(math.abs(step(0.5) - 0.6e-3) < 1e-15, tostring(step(0.5)))
    assert.is_true(math.abs(step(1) - 0.6e-3) < 1e-15)
    assert.is_true(math.abs(step(0) - 0.8e-3) < 1e-15)
  end)

  it("2: a GenAI-Perf statistic in us is read as microseconds", function()
    -- the fixture's TTFT avg 24 ms written as 24000 us: 0.024 s, not 24 s
    local text = assert(io.open("tests/fixtures/serving_results/genai_perf_small.json")):read("a")
    local cjson = require "cjson"
    local doc = cjson.decode(text)
    for _, k in ipairs { "time_to_first_token", "inter_token_latency", "request_latency" } do
      local v = doc[k]
      v.unit = "us"
      for _, f in ipairs { "avg", "p50", "p90", "p99", "min", "max", "std" } do v[f] = v[f] * 1000 end
    end
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(cjson.encode(doc))
    f:close()
    local r = require("tilewave.data.serving_results").read(path)
    os.remove(path)
    assert.is_true(math.abs(r.ttft.mean - 0.024) < 1e-12, tostring(r.ttft.mean))
    assert.is_true(math.abs(r.ttft.p90 - 0.031) < 1e-12)
    assert.is_true(math.abs(r.tpot.p50 - 0.0124) < 1e-12, tostring(r.tpot.p50))
  end)

  it("3: decode's tensor-parallel all-reduces carry the 16-bit residual stream, whatever the weights", function()
    -- llama-3.1-8b, t = 2, batch 1: 2 all-reduces a layer x 32 layers of 1 x 4096 elements x 2 bytes =
    -- 8192 bytes each; at p = 2 the ring (2 steps, wire 2(p - 1)/p n = n) beats the tree (wire 2n):
    -- 8192 / 450 GB/s (NVLink's 900 GB/s, one way), no latency under the ideal engine
    local want = 2 * 32 * 8192 / 450e9
    for _, w in ipairs { "bf16", "fp8" } do
      local d = tw.inference.decode_step { model = "llama-3.1-8b", hw = "h100_sxm5", t = 2, context = 1,
                                           weight_dtype = w, engine = "ideal" }
      assert.is_true(math.abs(d.comm_s / want - 1) < 1e-12, w .. ": " .. d.comm_s .. " against " .. want)
    end
  end)

  it("5: near capacity from the capacity interval's low end, unstable above the capacity", function()
    local capacity = require "tilewave.serve.capacity"
    local c = { requests_per_s = 10, low = 8, high = 12 }
    assert.are.equal("stable", capacity.state(7.9, c))
    -- 8.5 is above the low end 8 and below 0.95 x 10 = 9.5: near capacity, not stable
    assert.are.equal("near capacity", capacity.state(8.5, c))
    assert.are.equal("near capacity", capacity.state(10, c))
    assert.are.equal("unstable", capacity.state(10.1, c))
  end)

  it("6: a decode batch runs at the next CUDA-graph capture size: 8 stays 8, 9 pads to 16, 16 stays 16", function()
    -- vLLM's capture sizes: 1, 2, 4, then 8, 16, ... 256 by 8 (V0's _BATCH_SIZES_TO_CAPTURE), V1 to
    -- min(2 x max_num_seqs, 512) by 16 past 256
    local gb = require("tilewave.cost.engine_versions").graph_batch
    for _, kind in ipairs { "vllm_v0", "vllm_v1" } do
      assert.are.equal(8, gb(kind, 8, 256))
      assert.are.equal(16, gb(kind, 9, 256))
      assert.are.equal(16, gb(kind, 16, 256))
      assert.are.equal(24, gb(kind, 17, 256))
      assert.are.equal(4, gb(kind, 3, 256))
    end
    assert.are.equal(272, gb("vllm_v1", 257, 256))
    assert.are.equal(257, gb("vllm_v0", 257, 256)) -- past V0's largest: the batch as it is
    assert.are.equal(9, gb(nil, 9, 256))            -- no graphs: no padding
  end)

  it("7: the busiest expert-parallel rank is taken over the step's token x k routed copies", function()
    -- Mixtral (8 experts, k = 2) over ep = 2 ranks, 4 tokens: 8 copies, a mean of 4 a rank; the
    -- busiest rank over the mean 1 + sqrt(2 ln 2 / 4) = 1.588705 (Raab and Steger 1998); over the 4
    -- tokens alone it would be 1 + sqrt(2 ln 2 / 2) = 1.832555
    local ep = require "tilewave.cost.expert_parallel"
    local want = 1 + math.sqrt(2 * math.log(2) / 4)
    assert.is_true(math.abs(ep.rank_imbalance(4, 2, 2) - want) < 1e-12)
    local d = tw.inference.decode_step { model = "mixtral-8x7b", hw = "h100_sxm5", ep = 2, batch = 4, context = 1 }
    assert.is_true(math.abs(d.expert_imbalance - want) < 1e-12, tostring(d.expert_imbalance))
  end)

  it("7b: an expert-parallel decode step of b sequences runs ceil(b / ep) on every rank, the host b", function()
    -- Mixtral over ep = 2 ranks, no CUDA graphs: 3 sequences put 2 on the busiest rank, as 4 do, so
    -- the step at b = 3 is the step at 4 less one sequence's host time (seq_host_s), and likewise 1
    -- against 2; 4 and 5 differ by more than the host (5 puts 3 on a rank)
    local steps = require "tilewave.serve.steps"
    local eng = {}
    for k, v in pairs(require("tilewave.cost.engines").resolve("vllm")) do eng[k] = v end
    eng.graph_sizes = nil
    local r = steps.tables(tw.models.load("mixtral-8x7b"), tw.hw.load("h100_sxm5"), eng, { t = 1, ep = 2 },
      { max_tokens = 64, max_context = 64, max_seqs = 8 })
    local n = #r.dctx_grid
    local function d(b) return r.decode_s[(b - 1) * n + 1] end -- seq_grid is 1..8 here
    assert.are.same({ 1, 2, 3, 4, 5, 6, 7, 8 }, r.seq_grid)
    assert.is_true(math.abs(d(4) - d(3) - r.seq_host_s) < 1e-15)
    assert.is_true(math.abs(d(2) - d(1) - r.seq_host_s) < 1e-15)
    assert.is_true(d(5) - d(4) > 10 * r.seq_host_s)
  end)

  it("8: with pp stages each micro-batch scheduler holds 1/pp of the KV blocks", function()
    local groups = require "tilewave.serve.parallel_groups"
    -- 1000 tokens over 2 micro-batches: 500, in whole 16-token blocks: 31 x 16 = 496
    local kv, sched = groups.pp_engines({ kv_capacity_tokens = 1000, kv_bytes_per_token = 2 }, { block_size = 16 }, 2)
    assert.are.equal(496, kv.kv_capacity_tokens)
    assert.are.equal(992, kv.kv_bytes)
    assert.are.equal(1000, kv.pipeline_kv_capacity_tokens)
    assert.are.equal("least_loaded", sched.router)
  end)

  it("9: a pipeline's step hands its hidden states on pp - 1 times", function()
    -- two stages of one GPU on an H100, a micro-batch of 1 token: 4096 x 2 bytes = 8192 bytes, one
    -- point-to-point send of latency 10 us (the engine's) + 8192 / 450 GB/s; three stages: two sends
    local steps = require "tilewave.serve.steps"
    local spec = tw.hw.load("h100_sxm5")
    local eng = { comm_latency_s = 10e-6 }
    local one = 10e-6 + 8192 / 450e9
    assert.is_true(math.abs(steps.handoff(spec, eng, 1, 2)(8192) / one - 1) < 1e-12)
    assert.is_true(math.abs(steps.handoff(spec, eng, 1, 3)(8192) / (2 * one) - 1) < 1e-12)
    assert.are.equal(0, steps.handoff(spec, eng, 1, 1)(8192))
  end)

  it("11: the max-rate search bisects the bracket its gallop leaves, not stopping at its first success", function()
    local highest = require("tilewave.serve.size").highest
    -- J = 32, the SLO met up to 20: the gallop steps down by 1, 2, 4, 8 from the last failure,
    -- probing 31, 29, 25 (fail) and 17 (met), leaving (17, 25); bisection probes 21 (fail), 19 and
    -- 20 (met): 20, in 7 probes (stopping at the first success would answer 17)
    local probes = {}
    local got = highest(32, function(j) probes[#probes + 1] = j return j <= 20 end)
    assert.are.equal(20, got)
    assert.are.same({ 31, 29, 25, 17, 21, 19, 20 }, probes)
    -- met at the top: one probe; met nowhere past 0: 0
    probes = {}
    assert.are.equal(31, highest(32, function(j) probes[#probes + 1] = j return true end))
    assert.are.same({ 31 }, probes)
    assert.are.equal(0, highest(32, function() return false end))
  end)

  it("12: TensorRT-LLM's GptSession takes the whole memory for weights and KV cache", function()
    local s = require("tilewave.serve.schedulers").presets.gptsession
    assert.are.equal(1, s.gpu_memory_utilization)
    assert.are.equal("total", s.memory_basis)
    -- llama-3.1-8b bf16 on an H100 (85.52 GB as NVML reports it): KV = 1 x M - W - A, 128 KiB a
    -- token (2 x 32 layers x 8 KV heads x 128 x 2 bytes), in whole 1-token blocks. A: 8192 tokens x
    -- (2 x 14336 + 4 x 4096) x 2 bytes = 738,197,504, the fp32 logits of 64 sequences 64 x 128256 x 4 =
    -- 32,833,536, and the 2^30-byte runtime allowance: 1,844,772,864 bytes
    local spec = tw.hw.load("h100_sxm5")
    local c = tw.models.load("llama-3.1-8b")
    local kv = require("tilewave.serve.steps").kv_capacity(c, spec, { t = 1 }, s)
    assert.are.equal(1844772864, kv.activation_bytes)
    assert.are.equal(math.floor((tw.hw.memory(spec) - kv.weight_bytes - 1844772864) / 131072), kv.kv_capacity_tokens)
    -- at vLLM's 0.9 the same deployment would hold 0.1 x 85.52 GB / 128 KiB = 65,249 tokens fewer
    assert.is_true(kv.kv_capacity_tokens - math.floor((0.9 * tw.hw.memory(spec) - kv.weight_bytes - 1844772864)
      / 131072) > 65000)
  end)
end)
