-- Expert parallelism in serving (issue 53 item 1; tilewave.cost.expert_parallel, tilewave.serve.steps
-- ep_lin): the busiest rank's share, the all-to-alls, the group as one replica, and bad input by name.
local tw = require "tilewave"
local ep_parallel = require "tilewave.cost.expert_parallel"
local steps = require "tilewave.serve.steps"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local engines = require "tilewave.cost.engines"

local case = dofile("tests/lua/helpers/serve_case.lua")
local function serve(o)
  return case.simulate({ model = "deepseek-v3", hw = "h200_sxm", weight_dtype = "fp8", engine = "sglang",
                         workload = { rate = 4, requests = 300, isl = 1000, osl = 100 } }, o)
end
local err = case.err

describe("expert_parallel.imbalance", function()
  it("is the balls-into-bins maximum over the mean, worked by hand", function()
    -- 1600 copies over 16 ranks: mean 100, 1 + sqrt(2 ln 16 / 100) = 1.23548
    assert.is_true(math.abs(ep_parallel.imbalance(1600, 16) - (1 + math.sqrt(2 * math.log(16) / 100))) < 1e-12)
    assert.is_true(math.abs(ep_parallel.imbalance(1600, 16) - 1.23548) < 1e-5)
    -- a skew multiplies it; one rank has none; at most every copy on one rank
    assert.is_true(math.abs(ep_parallel.imbalance(1600, 16, 1.5) - 1.5 * 1.23548) < 1e-5)
    assert.are.equal(1, ep_parallel.imbalance(1600, 1, 3))
    assert.are.equal(8, ep_parallel.imbalance(1, 8, 4))
  end)
  it("falls with the batch and lies in [1, ep] over a grid (the batch-size cliff)", function()
    for _, ep in ipairs { 2, 4, 8, 16, 32, 64 } do
      local last = math.huge
      for _, copies in ipairs { 1, 8, 64, 512, 4096, 32768, 262144 } do
        local v = ep_parallel.imbalance(copies, ep)
        assert.is_true(v >= 1 and v <= ep, ep .. "/" .. copies)
        assert.is_true(v <= last, ep .. "/" .. copies)
        last = v
      end
    end
  end)
end)

describe("expert_parallel.alltoall_pair_s", function()
  it("matches the pairwise exchange by hand, in one node and across two", function()
    -- ep 8, 8 MB each, 450 GB/s one way: 2 x (7/8 x 8e6 / 450e9) = 31.11 us
    assert.is_true(math.abs(ep_parallel.alltoall_pair_s(8e6, 8, 450e9, 50e9, 0) - 2 * 7e6 / 450e9) < 1e-15)
    -- ep 16 over two nodes: half the bytes cross InfiniBand at 50 GB/s, 2 x 8e6 / 50e9 = 320 us
    assert.is_true(math.abs(ep_parallel.alltoall_pair_s(16e6, 16, 450e9, 50e9, 0) - 2 * 8e6 / 50e9) < 1e-15)
    -- a 72-GPU NVLink domain (GB200 NVL72) keeps them in it: 2 x (15/16 x 16e6 / 450e9)
    assert.is_true(math.abs(ep_parallel.alltoall_pair_s(16e6, 16, 450e9, 50e9, 0, 72) - 2 * 15e6 / 450e9) < 1e-15)
    -- the domain is the node's: a GB200's node is its NVL72 rack, an H100's a DGX node of 8
    local d, bw = ep_parallel.node(require("tilewave.data.hw").load("gb200"))
    assert.are.same({ 72, 50e9 }, { d, bw })
    d, bw = ep_parallel.node(require("tilewave.data.hw").load("h100_sxm5"))
    assert.are.same({ 8, 50e9 }, { d, bw })
    assert.are.equal(0, ep_parallel.alltoall_pair_s(16e6, 1, 450e9, 50e9, 0))
  end)
  it("grows with the bytes and falls with the link over a grid", function()
    for _, ep in ipairs { 2, 4, 8, 16, 32 } do
      for _, bw in ipairs { 50e9, 200e9, 450e9 } do
        local last = 0
        for _, bytes in ipairs { 1e3, 1e5, 1e7, 1e9 } do
          local v = ep_parallel.alltoall_pair_s(bytes, ep, bw, 50e9, 5e-6)
          assert.is_true(v > last)
          last = v
          assert.is_true(ep_parallel.alltoall_pair_s(bytes, ep, bw * 2, 100e9, 5e-6) <= v)
        end
      end
    end
  end)
end)

describe("serving with expert parallelism", function()
  it("at ep = 1 has no skew and no all-to-all", function()
    -- one rank holds every expert: the busiest rank is the mean (imbalance 1) and nothing is sent
    local ep = require "tilewave.cost.expert_parallel"
    assert.are.equal(1, ep.imbalance(64, 1))
    local d = tw.inference.decode_step { model = "mixtral-8x7b", hw = "h100_sxm5", context = 1, ep = 1 }
    assert.are.equal(0, d.comm_s)
    assert.is_nil(d.expert_imbalance)
  end)
  it("makes the group one replica: ep GPUs, ep ranks' KV capacity and budgets", function()
    local r = serve { ep = 8 }
    assert.are.equal(8, r.gpus)
    assert.are.equal(8, r.ep)
    assert.are.equal(1, r.expert_imbalance)
    -- sglang's rank budget (max_running_requests 1024 on this device) x 8
    assert.are.equal(8 * 1024, r.max_num_seqs)
    assert.are.equal(0, r.kv_capacity_tokens % 8)
    -- DeepSeek-V3's MLA cache is whole on every t rank: ep 8 holds far more of it than t = 8
    local tp = serve { t = 8 }
    assert.is_true(r.kv_capacity_tokens > 3 * tp.kv_capacity_tokens)
  end)
  it("lin(n) per token falls with n: few tokens per expert waste the tiles", function()
    local c = models.resolve("deepseek-v3")
    local spec, eng = hw.resolve("h200_sxm"), engines.resolve("sglang")
    local per = {}
    for i, n in ipairs { 8, 64, 512, 4096 } do per[i] = steps.ep_lin(c, spec, eng, 8, n, "fp8", nil, true) / n end
    for i = 2, #per do assert.is_true(per[i] < per[i - 1], i) end
  end)
  it("a routing skew and a slower link never make a step faster", function()
    local c = models.resolve("deepseek-v3")
    local spec, eng = hw.resolve("h100_sxm5"), engines.resolve("sglang")
    for _, ep in ipairs { 8, 16, 32 } do
      for _, n in ipairs { 16, 256, 4096, 32768 } do
        local base = steps.ep_lin(c, spec, eng, ep, n, "fp8", nil, true)
        assert.is_true(steps.ep_lin(c, spec, eng, ep, n, "fp8", 2, true) >= base, ep .. "/" .. n)
      end
    end
    -- 16 ranks cross the nodes' InfiniBand: its all-to-alls cost more than 8 ranks' per token
    local a8 = steps.ep_lin(c, spec, eng, 8, 8192, "fp8", nil, true)
    local a16 = steps.ep_lin(c, spec, eng, 16, 16384, "fp8", nil, true)
    assert.is_true(a16 > a8)
  end)
  it("refuses bad input by name, on one line", function()
    assert.are.equal("serve.ep: expected a divisor of the 256 experts, got 3", err(function() serve { ep = 3 } end))
    assert.are.equal("serve.ep: llama-3.1-8b has no experts to spread (expected ep = 1)",
      err(function() serve { model = "llama-3.1-8b", weight_dtype = nil, ep = 2 } end))
    assert.are.equal("serve.ep: expected t = 1 with expert parallelism (attention data-parallel), got 8",
      err(function() serve { ep = 8, t = 2 } end))
    assert.are.equal("serve.expert_imbalance: expected none without ep > 1, got 1.5",
      err(function() serve { t = 8, expert_imbalance = 1.5 } end))
    assert.are.equal("serve.expert_imbalance: expected a number in [1, 8] (the busiest rank's routed tokens over "
      .. "the mean), got 0.5", err(function() serve { ep = 8, expert_imbalance = 0.5 } end))
    assert.matches("^serve.expert_imbalance: expected a number in %[1, 8%]",
      err(function() serve { ep = 8, expert_imbalance = "x" } end))
    assert.are.equal("serve.ep: expected 1 with disagg (pools run tensor parallelism only), got 8",
      err(function() serve { ep = 8, disagg = { prefill = { t = 8 }, decode = { t = 8 } } } end))
    assert.matches("^serve: deepseek%-v3 does not fit on h100_sxm5 at t = 1, ep = 8: needs",
      err(function() serve { hw = "h100_sxm5", ep = 8 } end))
  end)
end)
