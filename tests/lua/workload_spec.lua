-- Length distributions of tilewave.serve.workload: a lognormal given by its median and mean has
-- its sigma solved so that the draw within [min, max] keeps the mean (issue 48: ShareGPT's output
-- median and mean both held).
local workload = require "tilewave.serve.workload"

-- the truncated lognormal's mean, worked by hand with the error function (math.erf is not Lua's:
-- A&S 7.1.26 here, |error| < 1.5e-7)
local function erf(x)
  local t = 1 / (1 + 0.3275911 * math.abs(x))
  local y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    * math.exp(-x * x)
  return x >= 0 and y or -y
end
local function Phi(x) return 0.5 * (1 + erf(x / math.sqrt(2))) end
local function tmean(mu, s, lo, hi)
  local a, b = (math.log(lo) - mu) / s, (math.log(hi) - mu) / s
  return math.exp(mu + s * s / 2) * (Phi(b - s) - Phi(a - s)) / (Phi(b) - Phi(a))
end

describe("a lognormal by median and mean", function()
  it("keeps ShareGPT's output median 119 (mu = ln 119) and mean 194 within [4, 2044]", function()
    local w = workload.resolve({ rate = 1, dataset = "sharegpt" }, "serve.workload")
    assert.equal("lognormal", w.osl.kind)
    assert.near(math.log(119), w.osl.a, 1e-15)
    -- sigma 1.0266 (solved apart with Python's math.erf: 1.026596052873959)
    assert.near(1.026596052873959, w.osl.b, 1e-5)
    assert.near(194, tmean(w.osl.a, w.osl.b, 4, 2044), 1e-3)
    assert.same({ 4, 2044 }, { w.osl.lo, w.osl.hi })
    -- without the cap the mean of a lognormal is median x exp(s^2 / 2): the cap costs 3% of it
    assert.is_true(119 * math.exp(w.osl.b ^ 2 / 2) > 194 * 1.02)
  end)
  it("gives sigma 0 when the mean is the median", function()
    local w = workload.resolve({ rate = 1, isl = 100, osl = { median = 50, mean = 50, max = 1000 } }, "w")
    assert.is_true(w.osl.b < 1e-6)
  end)
  it("names the field when the mean cannot be had", function()
    local function err(osl)
      local ok, e = pcall(workload.resolve, { rate = 1, isl = 100, osl = osl }, "w")
      assert.is_false(ok)
      return e
    end
    assert.equal("w.osl.mean: expected within [median 100, max 1000], got 50",
      err { median = 100, mean = 50, max = 1000 })
    assert.equal("w.osl.median: expected within [min 1, max 1000], got 2000", err { median = 2000, mean = 2500, max = 1000 })
    -- within [1, 1000] a lognormal of median 10 reaches a mean of about 1000 / ln 1000 = 145 at most
    assert.equal("w.osl.mean: expected a mean that a lognormal of median 10 within [1, 1000] can reach, got 900",
      err { median = 10, mean = 900, max = 1000 })
    assert.equal("w.osl.sigma: expected a number (or p90 or mean with median), got nil", err { median = 10 })
    -- a third figure would be ignored: refused
    assert.equal("w.osl: expected two of median, mean and sigma (or p90), got string 'median, mean, sigma'",
      err { median = 10, mean = 20, sigma = 1 })
    assert.equal("w.osl: expected two of median, mean and sigma (or p90), got string 'median, sigma, p90'",
      err { median = 10, sigma = 1, p90 = 30 })
  end)
end)

describe("token counts", function()
  it("refuses a length past 2^31 - 1 tokens by name (before: 2^63 reached a format of the KV check)", function()
    local function err(o)
      local ok, e = pcall(workload.resolve, o, "w")
      assert.is_false(ok)
      return e
    end
    assert.equal("w.osl: expected at most 2^31-1 tokens, got 9.2233720368548e+18",
      err { arrival = "offline", requests = 1, isl = 1, osl = 2 ^ 63 })
    assert.equal("w.isl.max: expected at most 2^31-1 tokens, got 2147483648",
      err { arrival = "offline", requests = 1, isl = { dist = "uniform", min = 1, max = 2 ^ 31 | 0 }, osl = 1 })
    assert.equal("w.lengths.osl[2]: expected at most 2^31-1 tokens, got 9223372036854775807",
      err { arrival = "offline", lengths = { isl = { 1, 1 }, osl = { 1, math.maxinteger } } })
    -- the largest is accepted
    assert.equal(2 ^ 31 - 1, workload.resolve({ arrival = "offline", requests = 1, isl = 1, osl = 2 ^ 31 - 1 }, "w").max_osl)
  end)
end)

-- issue 66 item 2: a user table's length is taken raw, never through a metatable
describe("a workload's lengths", function()
  it("are plain lists: a table whose __len claims 10^9 requests is refused at once", function()
    local tw = require "tilewave"
    local big = setmetatable({}, { __len = function() return 1e9 end, __index = function() return 10 end })
    local ok, err = pcall(tw.serve.simulate, { model = "pythia-70m", hw = "h100_sxm5",
      workload = { arrival = "offline", lengths = { isl = big, osl = big } } })
    assert.is_false(ok)
    assert.are.equal("serve.workload.lengths.isl: expected a plain list of token counts (no metatable), got table", err)
    local r = tw.serve.simulate { model = "pythia-70m", hw = "h100_sxm5",
      workload = { arrival = "offline", lengths = { isl = { 10, 20 }, osl = { 5, 5 } } } }
    assert.are.equal(2, r.requests)
  end)
end)
