-- busted specs for the early stop of a run whose SLO test is decided (src/tw_serve_stop.c,
-- tilewave.serve.simulate.run's `stop`, used by every meets-only run of tilewave.serve.size):
-- over a grid of deployments, loads below and past capacity, limits on TTFT, TPOT or both and the
-- three percentiles, a stopped run fails exactly when the whole run does, and a run it does not stop
-- is the whole run, figure for figure. The hand-worked stop points are in tests/c/test_serve_stop.c.
local simulate = require "tilewave.serve.simulate"
local tables = require "tilewave.util.tables"

-- x with `requests` Poisson arrivals at `rate` (its steady window: the first 20% and last 10% out)
local function at(x, rate, requests, slo)
  local y = tables.copy(x)
  y.w = tables.copy(x.w)
  y.w.arrival, y.w.rate, y.w.requests = "poisson", rate, requests
  y.w.measure_from, y.w.measure_to = math.floor(0.2 * requests), requests - math.floor(0.1 * requests)
  y.slo = slo
  return y
end

local function same(a, b, path)
  for k, v in pairs(a) do
    if type(v) == "table" then same(v, b[k], path .. "." .. k)
    elseif k ~= "records" then assert.are.equal(v, b[k], path .. "." .. k) end
  end
end

describe("a run stopped once its SLO test fails", function()
  local deployments = {
    { hw = "h100_sxm5", engine = "vllm" }, -- V1: chunked prefill mixed with decodes
    { hw = "h100_sxm5", engine = "vllm@0.6" }, -- asynchronous output: TPOT never stops a run
    { hw = "l40s", engine = "sglang" },
    { hw = "l4", engine = "trtllm" },
  }
  local slos = {
    { ttft_s = 0.5, tpot_s = 0, percentile = 99 }, { ttft_s = 0, tpot_s = 0.03, percentile = 90 },
    { ttft_s = 0.3, tpot_s = 0.05, percentile = 50 }, { ttft_s = 2, tpot_s = 0.02, percentile = 99 },
  }
  local stopped, whole = 0, 0
  for _, d in ipairs(deployments) do
    it("agrees with the whole run on " .. d.hw .. " under " .. d.engine, function()
      local x = simulate.prepare { model = "llama-3.1-8b", hw = d.hw, engine = d.engine,
                                   workload = { dataset = "sharegpt", rate = 1 } }
      local off = tables.copy(x)
      off.w = tables.copy(x.w)
      off.w.arrival, off.w.rate, off.w.requests, off.w.measure_from, off.w.measure_to = "offline", nil, 600, 0, 600
      local cap = simulate.run(off, 1).requests_per_s -- the offline throughput: the load scale
      for _, share in ipairs { 0.3, 0.7, 0.9, 1.1, 1.5 } do
        for _, slo in ipairs(slos) do
          local y = at(x, share * cap, 800, slo)
          local full, st = simulate.run(y, 1), simulate.run(y, 1, false, true)
          local label = string.format("%s %s at %.2f x capacity, slo %s/%s p%d", d.hw, d.engine, share,
            slo.ttft_s, slo.tpot_s, slo.percentile)
          assert.are.equal(simulate.meets(full, slo), simulate.meets(st, slo), label)
          if st.slo_failed == 1 then
            stopped = stopped + 1
            assert.are.equal(0, st.requests, label)
          else
            whole = whole + 1
            same(full, st, label)
          end
        end
      end
    end)
  end

  it("stopped some runs and left others whole over the grid", function()
    -- both branches above were taken: a grid where nothing failed (or all did) would prove nothing
    assert.is_true(stopped >= 10 and whole >= 10, string.format("stopped %d, whole %d", stopped, whole))
  end)
end)
