-- busted specs for the decode group (src/tw_serve_group.c): requests in steady decode advanced
-- together give the run the per-request pass gives (policy.per_request), bit for bit (a step's ITLs
-- are summed in order of gap, whatever order its requests were visited in), for the policies that allow it, where limits bind (a small
-- KV cache that preempts, a token budget smaller than the running requests ask) as where they do not,
-- under every arrival and in disaggregated and replicated deployments. And the group does run there
-- (group_ticks), or the comparison would prove nothing.
local simulate = require "tilewave.serve.simulate"
local tables = require "tilewave.util.tables"

local function same(a, b, path)
  for k, v in pairs(a) do
    if type(v) == "table" then same(v, b[k], path .. "." .. k)
    elseif k == "group_ticks" then -- how the run went, not what it gave
    else assert.are.equal(v, b[k], path .. "." .. k) end
  end
end

-- x with its workload and scheduler fields replaced
local function with(x, w, sched)
  local y = tables.copy(x)
  y.w = tables.copy(x.w)
  for k, v in pairs(w) do y.w[k] = v end
  y.sched = tables.copy(x.sched)
  for k, v in pairs(sched or {}) do y.sched[k] = v end
  return y
end

local cases = {
  { "vllm V1 at a moderate rate", { engine = "vllm" }, { arrival = "poisson", rate = 20, requests = 1500 } },
  { "vllm V1 past capacity", { engine = "vllm" }, { arrival = "poisson", rate = 90, requests = 2000 } },
  { "vllm V1 offline, a small cache (preemption)", { engine = "vllm" },
    { arrival = "offline", requests = 1200 }, { kv_capacity_tokens = nil } },
  { "vllm V1, a budget below the running batch", { engine = "vllm@v1" }, { arrival = "poisson", rate = 40, requests = 1500 },
    { max_num_batched_tokens = 96 }, 0.01 }, -- the budget binds in most steps: the group mostly disbands
  { "trtllm (blocks reserved at admission)", { engine = "trtllm" }, { arrival = "poisson", rate = 30, requests = 1500 } },
  { "sarathi, closed loop", { scheduler = "sarathi" }, { arrival = "closed", concurrency = 48, requests = 1500 } },
  { "two replicas, least loaded", { engine = "vllm", replicas = 2, router = "least_loaded" },
    { arrival = "poisson", rate = 50, requests = 2000 } },
  { "disaggregated pools", { engine = "vllm", disagg = { prefill = { t = 1, replicas = 1 }, decode = { t = 1, replicas = 2 } } },
    { arrival = "poisson", rate = 25, requests = 1500 } },
}

describe("the decode group", function()
  for _, case in ipairs(cases) do
    it("gives the per-request run: " .. case[1], function()
      local o = { model = "llama-3.1-8b", hw = "h100_sxm5", workload = { dataset = "sharegpt", rate = 1 } }
      for k, v in pairs(case[2]) do o[k] = v end
      local x = simulate.prepare(o)
      local w = tables.copy(case[3])
      w.measure_from, w.measure_to = math.floor(0.2 * w.requests), w.requests - math.floor(0.1 * w.requests)
      local y = with(x, w, case[4])
      if case[1]:match("small cache") then
        y.kv = tables.copy(x.kv)
        y.kv.kv_capacity_tokens = 60000 -- a few hundred ShareGPT requests: the batch outgrows it
      end
      local ref = tables.copy(y)
      ref.per_request = true
      local a, b = simulate.run(y, 1, true), simulate.run(ref, 1, true)
      same(b, a, case[1])
      assert.are.equal(0, b.group_ticks)
      assert.is_true(a.group_ticks > (case[5] or 0.3) * a.steps, string.format("%s: %d of %d steps grouped", case[1],
        a.group_ticks, a.steps))
      if case[1]:match("small cache") then assert.is_true(a.preemptions > 0) end
    end)
  end
end)
