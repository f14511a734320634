-- busted specs for tw.sweep: exact agreement with tilewave.transformer.estimate,
-- sharding that covers the grid exactly once, filtering and errors.
local tw = require "tilewave"

local SPEC = {
  base = "pythia-1b", hw = { "h100_sxm5", "a100_sxm4_80gb" },
  vary = { hidden_size = { 1792, 2048, 2304 }, num_attention_heads = { 8, 16, 24 }, vocab_size = { 50277, 50304 } },
  workload = { b = 4, s = 2048 },
}

local function collect(extra)
  local q = {}
  for k, v in pairs(SPEC) do q[k] = v end
  for k, v in pairs(extra or {}) do q[k] = v end
  local rows = {}
  local it, stats = tw.sweep(q)
  for cfg, hw, est in it do
    rows[#rows + 1] = { key = hw .. "#" .. est.index, h = cfg.hidden_size, a = cfg.num_attention_heads,
                        v = cfg.vocab_size, hw = hw, time_s = est.time_s, mfu = est.mfu, params = est.params }
  end
  return rows, stats
end

-- the config of a row and tilewave.transformer.estimate of it
local function estimate_of(r)
  local c = tw.models.load("pythia-1b")
  c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.vocab_size, c.head_dim = r.h, r.a, r.a, r.v, nil
  c.intermediate_size = 8192
  c = tw.models.define(c)
  return c, tw.transformer.estimate(c, r.hw, { b = 4, s = 2048 })
end

describe("tw.sweep", function()
  -- issue 66: an invalid combination among the sampled rows skips that row, never the grid
  it("skips a combination models.define refuses, sampled or not, and prices the rest as estimate does", function()
    -- head_dim 16384 x 32 heads = 524,288 > 8 x hidden 2048: define refuses those 9 of the 27 rows,
    -- among them the grid's last (a sampled row)
    local it = tw.sweep { base = "llama-3.2-1b", hw = "h100_sxm5", workload = { b = 1, s = 512 },
                          vary = { head_dim = { 64, 128, 16384 }, num_hidden_layers = { 2, 4, 8 },
                                   vocab_size = { 32000, 32001, 32002 } } }
    local n = 0
    for cfg, _, est in it do
      n = n + 1
      assert.is_true(cfg.head_dim <= 128, tostring(cfg.head_dim))
      local c = tw.models.load("llama-3.2-1b")
      c.head_dim, c.num_hidden_layers, c.vocab_size = cfg.head_dim, cfg.num_hidden_layers, cfg.vocab_size
      local e = tw.transformer.estimate(tw.models.define(c), "h100_sxm5", { b = 1, s = 512 })
      assert.near(e.time_s, est.time_s, 1e-12 * e.time_s)
    end
    assert.equal(18, n)
  end)

  it("gives the same time as tilewave.transformer.estimate for every config", function()
    local rows, stats = collect()
    assert.equal("factorized", stats.mode)
    assert.equal(36, stats.total)
    -- 3 h x 3 a x 2 v x 2 devices = 36; a = 24 divides 2304 (96) but not 1792 or 2048: 2 x 2 x 2 skipped
    assert.equal(36 - 2 * 4, #rows)
    for _, r in ipairs(rows) do
      local c, e = estimate_of(r)
      assert.near(e.time_s, r.time_s, 1e-12 * e.time_s)
      assert.equal(tw.params(c).total, r.params)
    end
  end)

  it("prices a group too large to price up front as its combinations come, through a bounded cache", function()
    local factor = require "tilewave.explore.sweep_factor"
    local keep_max, keep_cache = factor.FACTORIZE_MAX, factor.CACHE_MAX
    -- groups over (h, a) and (h, v) exceed 4 combinations: priced lazily, the cache emptied every 3
    factor.FACTORIZE_MAX, factor.CACHE_MAX = 4, 3
    local ok, rows, stats = pcall(collect)
    factor.FACTORIZE_MAX, factor.CACHE_MAX = keep_max, keep_cache
    assert.is_true(ok, rows)
    assert.equal("factorized", stats.mode)
    assert.equal(28, #rows)
    for _, r in ipairs(rows) do
      local _, e = estimate_of(r)
      assert.near(e.time_s, r.time_s, 1e-12 * e.time_s)
    end
  end)

  it("rebuilds a lazy group of the LM head alone, without the family's builder, and gets the same rows", function()
    local factor = require "tilewave.explore.sweep_factor"
    local keep_max = factor.FACTORIZE_MAX
    -- the (h, v) group (the logits GEMM) exceeds 4 combinations: lazy, rebuilt by layers.logits alone
    factor.FACTORIZE_MAX = 4
    local models, transformer = require "tilewave.data.models", require "tilewave.ops.transformer"
    local base = tw.models.load("llama-2-7b")
    local vary = { hidden_size = { 4096, 5120 }, vocab_size = { 32000, 32001, 32003, 50257 } }
    local fields, size, stride = { "hidden_size", "vocab_size" }, { 2, 4 }, { 4, 1 }
    local ew = transformer.workload({ b = 2, s = 512 }, "x")
    local function raw_at(idx, into)
      local r = into or {}
      if not into then for k, v in pairs(base) do r[k] = v end end
      r.hidden_size, r.vocab_size = vary.hidden_size[idx // 4 + 1], vary.vocab_size[idx % 4 + 1]
      r.head_dim = r.hidden_size // r.num_attention_heads
      return r
    end
    local G = { base = base, fam = models.families[base.family], fields = fields, vary = vary, size = size,
                stride = stride, ew = ew, wl = { dtype = "bf16", engine = "compiled" }, raw_at = raw_at,
                derive = function(r) r.head_dim = r.hidden_size // r.num_attention_heads end }
    local ok, P = pcall(factor.factorize, G, tw.hw.resolve("h100_sxm5"))
    factor.FACTORIZE_MAX = keep_max
    assert.is_true(ok, P)
    local seen = false
    for _, g in ipairs(P.groups) do
      if g.lazy then
        assert.is_true(g.standalone)
        for _, i in ipairs(g.ops) do assert.equal("logits", P.roles[i]) end
        seen = true
      end
    end
    assert.is_true(seen)
    for idx = 0, 7 do
      local r = raw_at(idx)
      r.name, r.id = "x" .. idx, nil
      local e = tw.transformer.estimate(tw.models.define(r), "h100_sxm5", { b = 2, s = 512 })
      local t, f = factor.row(P, idx)
      assert.near(e.time_s, t, 1e-12 * e.time_s)
      assert.equal(e.flops, f)
    end
  end)

  it("prices a GEMM op's time alone as the full prediction does, bit for bit (price.op_time)", function()
    local price = require "tilewave.cost.price"
    local layers = require "tilewave.ops.layers"
    local seed = 7
    local function rnd(k)
      seed = (seed * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
      return (seed >> 33) % k
    end
    for _, id in ipairs { "h100_sxm5", "l4" } do
      for _, eng in ipairs { "compiled", "hf" } do
        local ctx = price.context(tw.hw.resolve(id, "x"), "bf16", eng, "x")
        for _ = 1, 2000 do
          local op = layers.gemm("x", "x", 1 + rnd(20000), 1 + rnd(20000), 1 + rnd(20000), 1,
            { in_bytes = 2, out_bytes = 2 }, 1 + rnd(3))
          assert.equal(price.op(ctx, op).time_s, price.op_time(ctx, op))
        end
      end
    end
  end)

  it("takes a range for a vary list: the same rows as the list, no values held, checked by its ends", function()
    local r = tw.range(50240, 50304, 32) -- 50240, 50272, 50304
    assert.same({ 3, 50240, 50272, 50304 }, { #r, r[1], r[2], r[3] })
    assert.is_nil(r[4])
    assert.is_nil(next(r))
    local listed = collect { vary = { hidden_size = { 2048 }, vocab_size = { 50240, 50272, 50304 } } }
    local ranged = collect { vary = { hidden_size = { 2048 }, vocab_size = r } }
    assert.equal(6, #listed)
    for i, row in ipairs(listed) do assert.same(row, ranged[i]) end
    assert.has_error(function() tw.range(1, 10, 0) end, "range.step: expected a positive integer, got 0")
    assert.has_error(function() tw.range(10, 1) end, "range.last: expected at least first (10), got 1")
    assert.has_error(function() tw.range(1.5, 10) end, "range.first: expected an integer, got 1.5")
    assert.has_error(function() r.n = 5 end)
    assert.equal("tilewave.range", getmetatable(r))
    -- its ends are validated as the field's values would be
    assert.has_error(function() tw.sweep { base = "pythia-1b", vary = { vocab_size = tw.range(0, 10) } } end,
      "sweep.vary.vocab_size[1]: expected positive integer, got 0")
    -- a changed range is refused
    local bent = tw.range(50240, 50304, 32)
    rawset(bent, 2, 7)
    assert.has_error(function() tw.sweep { base = "pythia-1b", vary = { vocab_size = bent } } end,
      "sweep.vary.vocab_size: expected a range as M.range made it, got string 'a changed one'")
  end)

  it("shards the grid so that the shards cover it exactly once, even with more shards than configs", function()
    local all = collect()
    local want = {}
    for _, r in ipairs(all) do want[r.key] = true end
    for _, n in ipairs { 1, 2, 3, 7, 50 } do
      local seen, count = {}, 0
      for i = 0, n - 1 do
        for _, r in ipairs(collect { shard = { i, n } }) do
          assert.is_nil(seen[r.key], "duplicate " .. r.key .. " with n = " .. n)
          seen[r.key] = true
          count = count + 1
        end
      end
      assert.equal(#all, count)
      for k in pairs(want) do assert.is_true(seen[k], k) end
    end
  end)

  it("deals a filtered grid's rows out evenly: shards differ by at most one row", function()
    -- the filter keeps rows whose raw indices share a residue (vocab 50304 sits on every second
    -- index): dealt by index mod n, two shards would get every row and two none
    local where = function(c) return c.vocab_size == 50304 end
    local all, all_stats = collect { where = where }
    for _, n in ipairs { 2, 3, 4, 7 } do
      local counts, skipped = {}, 0
      for i = 0, n - 1 do
        local rows, stats = collect { where = where, shard = { i, n } }
        counts[#counts + 1] = #rows
        skipped = skipped + stats.skipped
      end
      table.sort(counts)
      assert.is_true(counts[#counts] - counts[1] <= 1, table.concat(counts, "/"))
      -- the shards' skipped rows add up to the whole run's
      assert.equal(all_stats.skipped, skipped)
    end
    assert.equal(14, #all) -- 28 valid configs (36 less the 8 whose 24 heads do not divide h), half at 50304
  end)

  it("applies where and counts what it skips", function()
    local rows, stats = collect { where = function(c) return c.vocab_size % 64 == 0 end }
    for _, r in ipairs(rows) do assert.equal(50304, r.v) end
    assert.equal(stats.total, #rows + stats.skipped)
  end)

  it("falls back to per-config estimates and agrees with the factorized path", function()
    local fast = collect()
    local slow, stats = collect { slow = true }
    assert.equal("per-config", stats.mode)
    assert.equal(#fast, #slow)
    for i = 1, #fast do assert.near(fast[i].time_s, slow[i].time_s, 1e-12 * slow[i].time_s) end
  end)

  it("rejects bad values and options naming them", function()
    local ok, err = pcall(tw.sweep, { base = "pythia-1b", vary = { hidden_size = { 2048, -1 } } })
    assert.is_false(ok)
    assert.equal("sweep.vary.hidden_size[2]: expected positive integer, got -1", err)
    ok, err = pcall(tw.sweep, { base = "pythia-1b", vary = { hidden_sise = { 2048 } } })
    assert.truthy(err:find("sweep.vary.hidden_sise[1]: unknown field 'hidden_sise'", 1, true))
    ok, err = pcall(tw.sweep, { base = "pythia-1b", shard = { 3, 3 } })
    assert.equal("sweep.shard.i: expected integer in [0, 2], got 3", err)
    ok, err = pcall(tw.sweep, { base = "pythia-1b", grid = {} })
    assert.truthy(err:find("sweep: unknown option 'grid'", 1, true))
  end)
end)
