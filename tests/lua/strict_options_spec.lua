-- busted specs: every public function that takes an options table refuses an unknown key,
-- naming it (and the nearest known key within two edits), and so do check files.
local tw = require "tilewave"
local check = require "tilewave.util.check"
local regress = require "tilewave.explore.regress"

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return tostring(err)
end

describe("strict options", function()
  -- each public entry point with valid options plus one typo, and the message's prefix
  local M7 = "pythia-70m"
  local cases = {
    { "gemm", function(x) return tw.gemm(x) end, { m = 64, n = 64, k = 64, hw = "h100_sxm5" } },
    { "gemm_many", function(x) return tw.gemm_many({ 64, 64, 64 }, x) end, { hw = "h100_sxm5" } },
    { "roofline", function(x) return tw.roofline(x) end, { flops = 1e12, bytes = 1e9, hw = "h100_sxm5" } },
    { "transformer.estimate", function(x) return tw.transformer.estimate(M7, "h100_sxm5", x) end, { b = 1, s = 128 } },
    { "transformer.ops", function(x) return tw.transformer.ops(M7, x) end, { b = 1, s = 128 } },
    { "rules.check", function(x) return tw.rules.check(M7, x, "h100_sxm5") end, { b = 1, s = 128 } },
    { "search.nearby", function(x) return tw.search.nearby(M7, "h100_sxm5", x) end, { b = 1, s = 128, steps = 0 } },
    { "decode", function(x) return tw.inference.decode(x) end, { model = M7, hw = "h100_sxm5", context = 64 } },
    { "memory", function(x) return tw.inference.memory(x) end, { model = M7, hw = "h100_sxm5", context = 64 } },
    { "prefill", function(x) return tw.inference.prefill(x) end, { model = M7, hw = "h100_sxm5", prompt = 64 } },
    { "sweep", function(x) return tw.inference.sweep(x) end, { model = M7, hw = "h100_sxm5", context = 64 } },
    { "training", function(x) return tw.training.step(x) end,
      { model = M7, cluster = "dgx_h100", global_batch = 8, s = 128 } },
    { "training.search", function(x) return tw.training.search(x) end,
      { model = M7, cluster = "dgx_h100", global_batch = 8, s = 128 } },
    { "training.best", function(x) return tw.training.best(x) end,
      { model = M7, cluster = "dgx_h100", global_batch = 8, s = 128 } },
    { "report", function(x) return tw.analysis.models(x) end, { models = { M7 }, s = 128 } },
  }

  for _, case in ipairs(cases) do
    local name, f, valid = case[1], case[2], case[3]
    it(name .. " runs with its options and refuses a typo naming it", function()
      assert.is_true((pcall(f, valid)))
      for _, typo in ipairs { "gpus", "seq_len", "bogus_option" } do
        local o = {}
        for k, v in pairs(valid) do o[k] = v end
        o[typo] = 1
        local err = err_of(f, o)
        assert.truthy(err:find(name .. ": unknown option '" .. typo .. "'", 1, true), err)
        assert.truthy(err:find("(known: ", 1, true), err)
      end
    end)
  end

  it("suggests the nearest known key within two edits", function()
    local known = { micro_batch = true, global_batch = true, s = true, b = true, hidden_size = true }
    assert.equal("micro_batch", check.nearest("micro_batchs", known))
    assert.equal("hidden_size", check.nearest("hiden_size", known))
    assert.equal("hidden_size", check.nearest("HIDDEN_SISE", known))
    assert.is_nil(check.nearest("seq_len", known)) -- 6 edits from s
    assert.is_nil(check.nearest("x", known))       -- a one-letter key is 1 edit from any other
    assert.equal(" (did you mean 'micro_batch'?)", check.did_you_mean("micro_bath", known))
    assert.equal("", check.did_you_mean("gpus", known))
    local err = err_of(tw.training.search, { model = M7, cluster = "dgx_h100", global_batch = 8, micro_batchs = 2 })
    assert.truthy(err:find("training.search: unknown option 'micro_batchs' (did you mean 'micro_batch'?)", 1, true))
  end)

  it("refuses a check file whose workload or sweep has an unknown key", function()
    local path = os.tmpname() .. ".lua"
    local f = assert(io.open(path, "w"))
    f:write('return { name = "typo", models = { "pythia-70m" }, hw = "h100_sxm5", workload = { batch = 4, seq = 128 } }\n')
    f:close()
    local err = err_of(regress.load, path)
    assert.equal(path .. ": workload.batch: unknown field (known: attention, b, dtype, engine, s, t)", err)
    f = assert(io.open(path, "w"))
    f:write('return { name = "typo", hw = "h100_sxm5", sweep = { base = "pythia-70m", vari = {} } }\n')
    f:close()
    err = err_of(regress.load, path)
    assert.equal(path .. ": sweep.vari: unknown field (did you mean 'vary'?) (known: base, vary, where)", err)
    os.remove(path)
  end)
end)
