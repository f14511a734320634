-- Pipeline parallelism in serving (issue 53 item 2; tilewave.cost.pipeline_parallel,
-- tilewave.serve.simulate pp_engines): stage shares and hand-offs by hand, the bubble at low load,
-- the throughput bound, and bad input by name.
local tw = require "tilewave"
local pp_parallel = require "tilewave.cost.pipeline_parallel"
local models = require "tilewave.data.models"

local case = dofile("tests/lua/helpers/serve_case.lua")
local function serve(o) return case.simulate({ model = "llama-3.1-8b", hw = "h100_sxm5" }, o) end
local err = case.err

describe("pipeline_parallel", function()
  it("gives the busiest stage's share by hand", function()
    -- llama-3.1-8b: 32 layers, 4 stages of 8; embeddings 2 x 128256 x 4096 of 8,030,261,248
    local c = models.resolve("llama-3.1-8b")
    local ws, ks = pp_parallel.stage_share(c, 4)
    assert.are.equal(0.25, ks)
    local total, embed = 8030261248, 2 * 128256 * 4096
    assert.is_true(math.abs(ws - ((1 - embed / total) * 0.25 + 128256 * 4096 / total)) < 1e-15)
    assert.is_true(math.abs(ws - 0.28271) < 1e-5)
    -- 3 stages of 32 layers: the busiest holds ceil(32 / 3) = 11
    local _, k3 = pp_parallel.stage_share(c, 3)
    assert.are.equal(11 / 32, k3)
    assert.are.same({ 1, 1 }, { pp_parallel.stage_share(c, 1) })
  end)
  it("hands a micro-batch on pp - 1 times, over InfiniBand between nodes", function()
    -- 4 stages of 2 GPUs fill one node: 3 NVLink hops of 16 MB at 450 GB/s, 5 us each
    local h = pp_parallel.handoff_s(16e6, 2, 4, 450e9, 50e9, 5e-6)
    assert.is_true(math.abs(h - 3 * (16e6 / 450e9 + 5e-6)) < 1e-15)
    -- 4 stages of 4 GPUs span two nodes: 2 NVLink hops and 1 InfiniBand hop at 50 GB/s
    h = pp_parallel.handoff_s(16e6, 4, 4, 450e9, 50e9, 5e-6)
    assert.is_true(math.abs(h - (2 * (16e6 / 450e9 + 5e-6) + 16e6 / 50e9 + 5e-6)) < 1e-15)
    assert.are.equal(0, pp_parallel.handoff_s(16e6, 4, 1, 450e9, 50e9, 5e-6))
  end)
end)

describe("serving with pipeline parallelism", function()
  it("at pp = 1 hands nothing on and keeps the whole KV cache", function()
    -- one stage: no hand-off (pp - 1 = 0 sends), and its one scheduler holds every block
    assert.are.equal(0, pp_parallel.handoff_s(8192, 1, 1, 450e9, 50e9, 5e-6))
    local r = serve { pp = 1, workload = { rate = 4, requests = 200, dataset = "sharegpt" } }
    assert.is_nil(r.pp)
    assert.are.equal(1, r.gpus)
  end)
  it("raises TTFT at low load over a grid: never below one stage's, and above t x pp tensor-parallel", function()
    for _, m in ipairs { { "llama-3.1-8b", 1 }, { "llama-3.1-70b", 2 } } do
      local w = { concurrency = 1, requests = 20, isl = 1000, osl = 50 }
      local one = serve { model = m[1], t = m[2], workload = w }
      for _, pp in ipairs { 2, 4 } do
        local r = serve { model = m[1], t = m[2], pp = pp, workload = w }
        assert.is_true(r.ttft_s.p50 > one.ttft_s.p50, m[1] .. " pp " .. pp)
        assert.are.equal(m[2] * pp, r.gpus)
        local tp = serve { model = m[1], t = m[2] * pp, workload = w }
        assert.is_true(r.ttft_s.p50 > tp.ttft_s.p50, m[1] .. " pp " .. pp .. " against t " .. m[2] * pp)
      end
    end
  end)
  it("never serves more than pp times one stage group's throughput", function()
    -- llama-3.1-8b on one H100 is limited by max_num_seqs, not its KV cache: pp engines of the same
    -- limit at most pp times as many requests a second
    local w = { arrival = "offline", requests = 3000, isl = 200, osl = 100 }
    local one = serve { workload = w }
    for _, pp in ipairs { 2, 4 } do
      local r = serve { pp = pp, workload = w }
      assert.is_true(r.throughput.requests_per_s <= pp * one.throughput.requests_per_s, "pp " .. pp)
      assert.is_true(r.throughput.requests_per_s > one.throughput.requests_per_s, "pp " .. pp)
      assert.are.equal(pp, r.pp)
      assert.are.equal(1, r.replicas)
    end
  end)
  it("splits the pipeline's KV cache over its micro-batch schedulers", function()
    local w = { rate = 1, requests = 50, isl = 100, osl = 10 }
    local one, two = serve { workload = w }, serve { pp = 2, workload = w }
    -- each stage holds half the layers' cache for every sequence, in about 40 % less weight: the
    -- pipeline's cache P is larger than one GPU's; each of the 2 micro-batch schedulers (vLLM's
    -- virtual engines) holds 1/2 of it, in whole 16-token blocks: floor(P / 2 / 16) x 16
    local x = tw.serve.prepare { model = "llama-3.1-8b", hw = "h100_sxm5", pp = 2, workload = w }
    local P = x.kv.pipeline_kv_capacity_tokens
    assert.is_true(P > one.kv_capacity_tokens)
    assert.are.equal(math.floor(P / 2 / 16) * 16, two.kv_capacity_tokens)
  end)
  it("refuses bad input by name, on one line", function()
    local w = { rate = 1, requests = 50, isl = 100, osl = 10 }
    assert.are.equal("serve.pp: expected at most num_hidden_layers 32 of llama-3.1-8b (a stage holds one layer at "
      .. "least), got 33", err(function() serve { pp = 33, workload = w } end))
    assert.are.equal("serve.pp: expected positive integer, got 0", err(function() serve { pp = 0, workload = w } end))
    assert.are.equal("serve.pp: expected 1 with ep > 1 (expert parallelism runs one stage), got 2",
      err(function() serve { model = "mixtral-8x7b", ep = 2, pp = 2, workload = w } end))
    assert.are.equal("serve.pp: expected 1 with disagg (pools run tensor parallelism only), got 2",
      err(function() serve { pp = 2, disagg = { prefill = {}, decode = {} }, workload = w } end))
    assert.are.equal("serve.replicas: expected at most 128 with pp = 32 (4096 pipeline micro-batch schedulers), got "
      .. "200", err(function() serve { pp = 32, replicas = 200, workload = w } end))
  end)
end)
