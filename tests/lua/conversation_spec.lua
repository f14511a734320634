-- Multi-turn conversations (issue 53 item 3; src/tw_serve_prefix.c, tilewave.serve.workload
-- conversation): later turns carry their history, arrive a think time after their previous answer,
-- find it cached with prefix caching, tokens conserved, and bad input by name.
local tw = require "tilewave"

local case = dofile("tests/lua/helpers/serve_case.lua")
local function run(o)
  return case.simulate({ model = "llama-3.1-8b", hw = "h100_sxm5", detail = true,
    workload = { rate = 1, requests = 60, dataset = "sharegpt", conversation = { turns = 4, think_s = 5 } } }, o)
end
local err = case.err

describe("multi-turn conversations", function()
  it("one turn is today's run, bit for bit", function()
    local w = { rate = 3, requests = 200, dataset = "sharegpt" }
    local a = tw.serve.simulate { model = "llama-3.1-8b", hw = "h100_sxm5", workload = w }
    local w1 = { rate = 3, requests = 200, dataset = "sharegpt", conversation = { turns = 1 } }
    local b = tw.serve.simulate { model = "llama-3.1-8b", hw = "h100_sxm5", workload = w1 }
    b.conversation, b.prefix = nil, nil
    assert.are.same(a, b)
  end)
  it("builds each turn's prompt from the history and waits a think time after the answer", function()
    local r = run()
    local rec = r.records
    assert.are.equal(240, #rec.input_tokens) -- 60 conversations of 4 turns
    local gaps, n = 0, 0
    for c = 0, 59 do
      for k = 1, 3 do
        local i = c * 4 + k + 1 -- 1-based: turn k of conversation c
        -- the previous prompt, its answer, and at least one new token
        assert.is_true(rec.input_tokens[i] > rec.input_tokens[i - 1] + rec.output_tokens[i - 1])
        assert.is_true(rec.arrival_s[i] >= rec.finish_s[i - 1])
        gaps, n = gaps + rec.arrival_s[i] - rec.finish_s[i - 1], n + 1
      end
    end
    -- 180 exponential think times of mean 5 s: their mean within 25 % (the standard error is 7.5 %)
    assert.is_true(math.abs(gaps / n - 5) < 1.25, tostring(gaps / n))
  end)
  it("finds each history cached at low load, prefills only the new tokens, and conserves tokens", function()
    for _, caching in ipairs { true, false } do
      local r = run { prefix_caching = caching }
      local sum = 0
      for i = 1, #r.records.input_tokens do sum = sum + r.records.input_tokens[i] + r.records.output_tokens[i] - 1 end
      assert.are.equal(sum + r.recomputed_tokens - r.prefix.cached_tokens, r.prefill_tokens + r.decode_tokens)
      assert.are.equal(0, r.kv_blocks_end)
      if caching then
        assert.are.equal(180, r.prefix.lookups)
        assert.are.equal(180, r.prefix.hits)
        assert.are.equal(1, r.prefix.hit_rate)
      else
        assert.are.equal(0, r.prefix.lookups)
        assert.are.equal(0, r.prefix.cached_tokens)
      end
    end
    assert.is_true(run { prefix_caching = true }.ttft_s.p50 < run { prefix_caching = false }.ttft_s.p50)
  end)
  it("keeps cached KV within capacity and evicts under pressure, over a grid of loads", function()
    local last_rate = 1
    for _, rate in ipairs { 0.5, 2, 8 } do
      local r = run { workload = { rate = rate, requests = 200 } }
      assert.is_true(r.kv_peak_fraction <= 1)
      assert.are.equal(0, r.kv_blocks_end)
      assert.is_true(r.prefix.hit_rate <= last_rate + 1e-12)
      last_rate = r.prefix.hit_rate
    end
    -- every conversation started at once: more histories than the cache holds, so some are evicted
    local flood = tw.serve.simulate { model = "llama-3.1-8b", hw = "h100_sxm5",
      workload = { arrival = "offline", requests = 2000, dataset = "sharegpt", conversation = { turns = 4, think_s = 5 } } }
    assert.is_true(flood.prefix.hit_rate < 1)
    assert.is_true(flood.kv_peak_fraction <= 1)
  end)
  it("refuses bad input by name, on one line", function()
    local function w(c, extra)
      local o = { workload = { conversation = c } }
      for k, v in pairs(extra or {}) do o.workload[k] = v end
      return function() run(o) end
    end
    assert.are.equal("serve.workload.conversation.turns: expected positive integer, got 0", err(w { turns = 0 }))
    assert.are.equal("serve.workload.conversation.turns: expected at most 1000, got 1001", err(w { turns = 1001 }))
    assert.matches("^serve.workload.conversation.think_s: expected", err(w { turns = 2, think_s = -1 }))
    assert.are.equal("serve.workload.conversation: unknown option 'gap' (known: think_s, turns)",
      err(w { turns = 2, gap = 1 }))
    assert.matches("^serve.workload.conversation: expected no shared prefix",
      err(w({ turns = 2 }, { prefix = { tokens = 100 } })))
    assert.matches("^serve.workload.conversation: expected a per%-turn dataset",
      err(w({ turns = 2 }, { dataset = "sharegpt_multi" })))
    assert.matches("^serve.workload.conversation: expected none with disagg",
      err(function() run { disagg = { prefill = {}, decode = {} } } end))
  end)
end)
