-- busted specs for tilewave.search.nearby.
local tw = require "tilewave"

describe("tilewave.explore.search", function()
  it("finds a faster head count for Pythia-2.8B at the same parameter count", function()
    local rows, base = tw.search.nearby("pythia-2.8b", "a100_sxm4_80gb", { b = 4, s = 2048 })
    assert.is_true(base.is_base)
    local best = rows[1]
    assert.is_false(best.is_base)
    assert.is_true(best.size_speedup > 1.05)
    assert.is_not_nil(best.changes.num_attention_heads)
    assert.equal(0, (2560 // best.changes.num_attention_heads) % 64)
    -- head count does not change the parameter count of an MHA model
    assert.equal(1, best.params_ratio)
  end)

  it("keeps every candidate within the parameter tolerance and ranks them", function()
    local rows = tw.search.nearby("llama-3.2-1b", "h100_sxm5", { b = 4, s = 2048, tolerance = 0.05, limit = 50 })
    assert.is_true(#rows >= 5)
    for i, r in ipairs(rows) do
      assert.is_true(math.abs(r.params_ratio - 1) <= 0.05)
      assert.equal(8, r.config.num_key_value_heads) -- GQA kept
      if i > 1 then assert.is_true(rows[i - 1].size_speedup >= r.size_speedup) end
      assert.near(r.speedup * r.params_ratio, r.size_speedup, 1e-12)
      -- only answers predicted faster than the config, in tokens/s and per parameter
      assert.is_true(r.speedup > 1 and r.size_speedup > 1)
      assert.is_false(r.is_base)
    end
  end)

  it("lists one change for a well-shaped model, the MLP a tile narrower, and returns the config's row", function()
    -- Llama-3-8B on an H100 at b*s = 8192 is well shaped (h/a = 128, I = 14336 = 112 * 128): the one
    -- answer faster by more than the rules' 0.5% is I = 14208 = 111 * 128, 3 x 4096 x 128 x 32 layers
    -- = 50,331,648 parameters fewer than 8,030,261,248
    local rows, base = tw.search.nearby("llama-3-8b", "h100_sxm5", { b = 4, s = 2048, limit = 100 })
    assert.is_true(base.is_base)
    assert.equal(8030261248, base.params)
    assert.equal(1, #rows)
    local r = rows[1]
    assert.equal(14208, r.config.intermediate_size)
    assert.equal(4096, r.config.hidden_size)
    assert.equal(32, r.config.num_attention_heads)
    assert.equal(8030261248 - 50331648, r.params)
    assert.is_true(r.speedup > 1.005 and r.size_speedup > 1)
  end)

  it("tries only head counts that t divides (before: Llama-2-7B at t = 2 raised on a = 63)", function()
    -- Llama-2-13B: h 5120, a 40; at t = 1 a faster shape has 39 heads (h' 4992 = 39 x 128); at t = 2
    -- only even head counts are candidates, and the search completes
    local function heads(t)
      local out = {}
      for _, r in ipairs(tw.search.nearby("llama-2-13b", "h100_sxm5", { b = 4, s = 2048, t = t, limit = 100 })) do
        out[#out + 1] = r.config.num_attention_heads
      end
      return out
    end
    local odd = false
    for _, a in ipairs(heads(1)) do odd = odd or a == 39 end
    assert.is_true(odd)
    -- at t = 2 the 39-head shape is not tried (it raised before) and nothing faster remains
    assert.are.same({}, heads(2))
  end)

  it("never shrinks the vocabulary", function()
    for _, r in ipairs(tw.search.nearby("gpt3-125m", "a100_sxm4_80gb", { b = 4, s = 2048, limit = 100 })) do
      assert.is_true(r.config.vocab_size >= 50257)
    end
  end)

  it("rejects bad options naming them", function()
    local ok, err = pcall(tw.search.nearby, "pythia-70m", "h100_sxm5", { tolerance = -1 })
    assert.is_false(ok)
    assert.equal("search.nearby.tolerance: expected positive number, got -1", err)
  end)
end)
