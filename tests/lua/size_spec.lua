-- busted specs for tilewave.serve.size (issue 36): what a sizing answer must hold.
local tw = require "tilewave"
local size = require "tilewave.serve.size"
local simulate = require "tilewave.serve.simulate"

local W = { dataset = "sharegpt", requests = 400 }
local function sized(extra)
  local o = { model = "llama-3.1-8b", workload = W, rate = 12, slo = { ttft_s = 1, tpot_s = 0.04 },
              hw = { "h100_sxm5", "l40s" }, t = { 1, 2 }, samples = 8 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return tw.serve.size(o)
end

describe("tilewave.serve.size", function()
  local r = sized()

  it("ranks deployments by cost per million output tokens, each meeting the SLO re-simulated alone", function()
    assert.is_true(#r.deployments > 0)
    for i, d in ipairs(r.deployments) do
      if i > 1 then
        assert.is_true(r.deployments[i - 1].cost_per_million_output_tokens <= d.cost_per_million_output_tokens)
      end
      local again = tw.serve.simulate { model = "llama-3.1-8b", hw = d.hw, t = d.t, replicas = d.replicas,
        router = d.replicas > 1 and "least_loaded" or nil, workload = { dataset = "sharegpt", requests = 400, rate = 12 } }
      assert.is_true(again.ttft_s.p99 <= 1 and again.tpot_s.p99 <= 0.04, d.hw .. " t" .. d.t)
      assert.is_true(d.p_meet >= 0.9 and d.p_meet <= 1)
      -- cost per million output tokens = $/hour over output tokens per hour
      assert.is_true(math.abs(d.cost_per_million_output_tokens
        - d.cost_per_hour / (d.throughput.output_tokens_per_s * 3600) * 1e6) < 1e-9)
    end
  end)

  it("never gets more expensive with more GPUs allowed", function()
    local few = sized { max_gpus = 1 }
    local best_few = few.deployments[1] and few.deployments[1].cost_per_million_output_tokens or math.huge
    assert.is_true(r.deployments[1].cost_per_million_output_tokens <= best_few)
  end)

  it("gives p_meet in [0, 1], never higher under a tighter SLO or at a higher rate", function()
    local x = simulate.prepare { model = "llama-3.1-8b", hw = "l40s", workload = { dataset = "sharegpt", requests = 400, rate = 10 },
                                 slo = { ttft_s = 1, tpot_s = 0.04 } }
    local last = 1
    for _, rate in ipairs { 4, 8, 12, 16, 24 } do
      local p = size.p_meet(x, rate, 1, x.slo, 8)
      assert.is_true(p >= 0 and p <= last)
      last = p
      local tight = size.p_meet(x, rate, 1, { ttft_s = 0.5, tpot_s = 0.03, percentile = 99 }, 8)
      assert.is_true(tight <= p)
    end
  end)

  it("reads the calibrated interval as a lognormal: its 5th and 95th percentiles are the bounds", function()
    local s = size.scales(0.9, 1.15, 1000)
    assert.is_true(math.abs(s[50] / 0.9 - 1) < 0.01 and math.abs(s[951] / 1.15 - 1) < 0.01)
    assert.is_true(math.abs(size.z_of(0.95) - 1.6449) < 1e-3)
  end)

  it("is deterministic and names what it leaves out", function()
    assert.equal(tw.report.json(r.deployments), tw.report.json(sized().deployments))
    local all = tw.serve.size { model = "llama-3.1-8b", workload = W, rate = 1, slo = { tpot_s = 0.05 }, t = { 1 },
                                samples = 2, hw = { "t4" } }
    assert.equal("no price (give one in prices)", all.rejected[1].reason)
    local priced = tw.serve.size { model = "llama-3.1-8b", workload = W, rate = 1, slo = { tpot_s = 0.2 }, t = { 1 },
                                   samples = 2, hw = { "t4" }, prices = { t4 = 0.3 } }
    assert.is_true(#priced.rejected == 1 and priced.rejected[1].reason:find("does not fit", 1, true) ~= nil)
    -- issue 50: says what it needs and what there is, and where each price comes from
    assert.truthy(priced.rejected[1].reason:find("does not fit on t4 at t = 1: needs [%d.]+ GB %(weights"), priced.rejected[1].reason)
    assert.truthy(priced.rejected[1].reason:find(", has [%d.]+ GB %("), priced.rejected[1].reason)
    assert.same({ { hw = "t4", per_gpu_hour = 0.3, source = "given" } }, priced.prices)
    for _, p in ipairs(r.prices) do
      local spec = tw.hw.load(p.hw)
      assert.equal(spec.price.per_hour, p.per_gpu_hour)
      assert.equal(spec.price.provider .. ", " .. spec.price.date, p.source)
    end
    -- past max_gpus: how many replicas the rate needs, and what one sustains
    local capped = sized { max_gpus = 1, hw = { "l40s" }, t = { 1 }, weight_dtype = "bf16" }
    local why = capped.rejected[1] and capped.rejected[1].reason or ""
    assert.truthy(why:find("^needs %d+ or more replicas of 1 GPU for 12 req/s %(one sustains [%d.]+ req/s%): more than "
      .. "max_gpus 1$"), why)
  end)

  it("deploys fp8 weights where FP8 tensor cores are, bf16 elsewhere, the checkpoint's own, or what is asked", function()
    local choice = require("tilewave.serve.size_devices").choice
    local c8 = tw.models.resolve("llama-3.1-8b")
    assert.are.equal("fp8", (choice({}, tw.hw.resolve("h100_sxm5"), c8)))
    assert.are.equal("fp8", (choice({}, tw.hw.resolve("l40s"), c8)))
    assert.is_nil((choice({}, tw.hw.resolve("a100_sxm4_80gb"), c8)))
    assert.is_nil((choice({}, tw.hw.resolve("h100_sxm5"), tw.models.resolve("gpt-oss-20b")))) -- its mxfp4
    assert.are.equal("bf16", (choice({ weight_dtype = "bf16" }, tw.hw.resolve("h100_sxm5"), c8)))
    local r = tw.serve.size { model = "llama-3.1-8b", workload = W, rate = 1, slo = { tpot_s = 0.05 }, t = { 1 },
                              samples = 2, hw = { "h100_sxm5" } }
    assert.are.equal("fp8", r.deployments[1].weight_dtype)
    assert.are.same({ hw = "h100_sxm5", reason = "bf16 weights left out: fp8 (its FP8 tensor cores) needs no more "
      .. "replicas at the same price (--weight-dtype bf16 sizes bf16)" }, r.rejected[1])
    assert.truthy(r.deployments[1].launch.command:find("--quantization fp8", 1, true))
    -- the text of a search whose SLO gives TPOT alone (before: an internal error joining a nil TTFT)
    local text = require("tilewave.report.size_text").render(r, { model = "llama-3.1-8b", engine = "vllm", top = 1 })
    assert.truthy(text:find("^size llama%-3%.1%-8b: 1 req/s within TPOT <= 50 ms at p99 %(vllm%)"), text)
  end)

  it("refuses an encoder by name, not 'no deployment meets the SLO'", function()
    local ok, e = pcall(tw.serve.size, { model = "modernbert-base", rate = 1, slo = { tpot_s = 0.05 }, hw = { "h100_sxm5" } })
    assert.is_false(ok)
    assert.equal("size.model: modernbert-base is an encoder (modernbert): it has no autoregressive decode to serve", e)
  end)

  it("refuses what it cannot do, naming the field", function()
    local ok, e = pcall(tw.serve.size, { model = "llama-3.1-8b", rate = 1, slo = { tpot_s = 0.05 }, modes = { "hybrid" } })
    assert.is_false(ok)
    assert.truthy(e:find("size.modes[1]", 1, true))
    ok, e = pcall(tw.serve.size, { model = "llama-3.1-8b", slo = { tpot_s = 0.05 } })
    assert.equal("size.rate: expected positive number (request/s), got nil", e)
  end)
end)
