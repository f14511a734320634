-- The sizing search's disaggregated and mixed-pool candidates (issue 53 item 4;
-- tilewave.serve.size_candidates): they run, are priced pool by pool, and rank by cost beside the
-- others.
local tw = require "tilewave"

local function search(modes, hws, prices)
  return tw.serve.size { model = "llama-3.1-8b", hw = hws, rate = 6, modes = modes, max_gpus = 2, samples = 4,
    slo = { ttft_s = 1, tpot_s = 0.05 }, prices = prices,
    workload = { dataset = "sharegpt", requests = 100 } }
end

describe("size with disaggregated and mixed pools", function()
  it("ranks one-device pools (a regression: their step-cost runs kept each pool's device)", function()
    local r = search({ "disagg" }, { "h100_sxm5" }, { h100_sxm5 = 2 })
    assert.is_true(#r.deployments > 0)
    for _, d in ipairs(r.deployments) do
      assert.are.equal("disagg", d.mode)
      assert.are.equal("h100_sxm5", d.decode.hw)
      assert.are.equal(2 * d.gpus, d.cost_per_hour)
    end
  end)
  it("prices mixed pools pool by pool and ranks them by cost beside the rest", function()
    local r = search({ "agg", "disagg", "mixed" }, { "h100_sxm5", "h200_sxm" }, { h100_sxm5 = 2, h200_sxm = 3 })
    local mixed = 0
    for i, d in ipairs(r.deployments) do
      if d.mode == "disagg" and d.decode.hw ~= d.hw then
        mixed = mixed + 1
        local price = { h100_sxm5 = 2, h200_sxm = 3 }
        -- 1P1D of one GPU each: one GPU-hour at each device's price
        assert.are.equal(price[d.hw] * d.prefill.gpus + price[d.decode.hw] * d.decode.gpus, d.cost_per_hour)
        assert.are.equal(d.cost_per_hour / d.gpus, d.price_per_gpu_hour)
        -- the KV cache crosses nodes between two GPU types
        assert.matches("between two GPU types", d.kv_transfer.link)
      end
      if i > 1 then
        assert.is_true(r.deployments[i - 1].cost_per_million_output_tokens <= d.cost_per_million_output_tokens)
      end
    end
    assert.are.equal(2, mixed) -- h100 prefill + h200 decode, and the reverse
  end)
  it("never returns a more expensive best deployment when it may choose more weight formats", function()
    for _, rate in ipairs { 2, 8 } do
      local function best(dtype)
        local r = tw.serve.size { model = "llama-3.1-8b", hw = { "h100_sxm5" }, rate = rate, weight_dtype = dtype,
          max_gpus = 2, samples = 4, slo = { ttft_s = 1, tpot_s = 0.05 }, workload = { dataset = "sharegpt", requests = 100 } }
        return r.deployments[1].cost_per_million_output_tokens
      end
      -- bf16 only, against the search's own choice (fp8 where the GPU has FP8 tensor cores)
      assert.is_true(best(nil) <= best("bf16"), "rate " .. rate)
    end
  end)
  it("refuses an unknown mode by name", function()
    local ok, e = pcall(search, { "hybrid" }, { "h100_sxm5" })
    assert.is_false(ok)
    assert.matches("^size.modes%[1%]: expected one of agg, disagg, mixed", e)
  end)
end)
