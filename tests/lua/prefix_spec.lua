-- Prefix caching of a shared system prompt (issue 53 item 3; src/tw_serve_prefix.c): hits skip the
-- prefix's prefill, the tokens still add up, the engine releases' defaults, and bad input by name.
local tw = require "tilewave"

local function run(engine, rate, caching, share)
  return tw.serve.simulate { model = "llama-3.1-8b", hw = "h100_sxm5", engine = engine, prefix_caching = caching,
    detail = true, workload = { rate = rate, requests = 400, dataset = "sharegpt",
                                prefix = { tokens = 1000, share = share or 1 } } }
end

describe("prefix caching", function()
  it("turns almost every shared prompt into a hit and shortens TTFT at every load", function()
    for _, rate in ipairs { 1, 5, 15 } do
      local on, off = run("vllm", rate, true), run("vllm", rate, false)
      -- one miss computes the prefix; the others find it (rarely two in flight before it is ready)
      assert.is_true(on.prefix.hit_rate > 0.95, tostring(on.prefix.hit_rate))
      assert.are.equal(0, off.prefix.lookups)
      assert.is_true(on.ttft_s.p50 < off.ttft_s.p50, "rate " .. rate)
      assert.is_true(on.ttft_s.mean < off.ttft_s.mean, "rate " .. rate)
      -- 1000 tokens = 62 full blocks of 16 (992 cached tokens; the partial block is each request's own)
      assert.are.equal(992 * on.prefix.hits, on.prefix.cached_tokens)
    end
  end)
  it("at a 0% share (no prompt starts with the prefix) is the run without one, bit for bit, at every load", function()
    for _, rate in ipairs { 2, 10, 30 } do
      local w = { rate = rate, requests = 300, dataset = "sharegpt" }
      local none = tw.serve.simulate { model = "llama-3.1-8b", hw = "h100_sxm5", prefix_caching = true, workload = w }
      local zero = run("vllm", rate, true, 0)
      local plain = tw.serve.simulate { model = "llama-3.1-8b", hw = "h100_sxm5", prefix_caching = true, detail = true,
        workload = { rate = rate, requests = 400, dataset = "sharegpt" } }
      assert.are.equal(0, zero.prefix.hits)
      for _, k in ipairs { "ttft_s", "tpot_s", "e2e_s", "itl_s" } do assert.are.same(plain[k], zero[k]) end
      assert.are.same(plain.throughput, zero.throughput)
      assert.are.equal(plain.steps, zero.steps)
      assert.is_nil(none.prefix)
    end
  end)
  it("conserves tokens: prefill + decode = sum(input + output - 1) + recomputed - cached", function()
    for _, share in ipairs { 0.3, 1 } do
      local r = run("vllm", 12, true, share)
      local sum = 0
      for i = 1, #r.records.input_tokens do sum = sum + r.records.input_tokens[i] + r.records.output_tokens[i] - 1 end
      assert.are.equal(sum + r.recomputed_tokens - r.prefix.cached_tokens, r.prefill_tokens + r.decode_tokens)
      -- at the end the cache holds the prefix's 62 blocks, nothing else
      assert.are.equal(62, r.kv_blocks_end)
    end
  end)
  it("is on by default where the release has it on", function()
    assert.is_true(run("vllm@v1", 2).prefix.caching)
    assert.is_true(run("sglang", 2).prefix.caching)
    assert.is_true(run("trtllm@1.0", 2).prefix.caching)
    assert.is_false(run("vllm@0.6", 2).prefix.caching)
    assert.is_false(run("trtllm@0.x", 2).prefix.caching)
  end)
  it("refuses bad input by name", function()
    local function err(w, extra)
      local o = { model = "llama-3.1-8b", hw = "h100_sxm5", workload = w }
      for k, v in pairs(extra or {}) do o[k] = v end
      local ok, e = pcall(tw.serve.simulate, o)
      assert.is_false(ok)
      return e
    end
    assert.truthy(err({ rate = 1, isl = 10, osl = 10, prefix = { tokens = 0 } }):find("serve.workload.prefix.tokens", 1, true))
    assert.truthy(err({ rate = 1, isl = 10, osl = 10, prefix = { tokens = 10, share = 1.5 } })
      :find("serve.workload.prefix.share", 1, true))
    assert.truthy(err({ rate = 1, isl = 10, osl = 10, prefix = { tokens = 10, size = 3 } })
      :find("serve.workload.prefix", 1, true))
    assert.truthy(err({ rate = 1, isl = 10, osl = 10, prefix = { tokens = 10 } },
      { prefix_caching = true, disagg = { prefill = { t = 1 }, decode = { t = 1 } } })
      :find("serve.prefix_caching: expected false with disagg", 1, true))
    -- a prefix that takes the request past the model's context
    assert.truthy(err({ rate = 1, isl = 10, osl = 10, prefix = { tokens = 200000 } })
      :find("max_position_embeddings", 1, true))
  end)
end)
