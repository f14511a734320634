-- Calibration pieces of issue 11: the Hopper alignment cliff, per-dtype rates, kernel classes,
-- flash attention, prediction intervals and the accuracy report.
local tw = require "tilewave"
local accuracy = require "tilewave.explore.accuracy"
local csv = require "tilewave.util.csv"

describe("Hopper GEMM mechanisms", function()
  it("drops to the non-TMA kernel class below 16-byte alignment (a cliff, not a slope)", function()
    local function eff(n) return tw.gemm { m = 4096, n = n, k = 4096, dtype = "bf16", hw = "h100_sxm5" }.align_eff end
    -- hw/arch/hopper.lua align_eff: 2 B 0.192, 4 B 0.34, 8 B 0.335, 16 B 0.818, >= 64 B 1
    assert.equal(0.192, eff(4097))  -- 4097*2 B: 2-byte aligned
    assert.equal(0.34, eff(4098))  -- 4 B
    assert.equal(0.335, eff(4100))  -- 8 B
    assert.equal(0.818, eff(4104))  -- 16 B: TMA
    assert.equal(1.00, eff(4096))
  end)

  it("uses a per-dtype sustained fraction: int8 at 0.495 of its peak, bf16 at 0.819", function()
    local i8 = tw.gemm { m = 16384, n = 16384, k = 16384, dtype = "int8", hw = "h100_sxm5" }
    local bf = tw.gemm { m = 16384, n = 16384, k = 16384, dtype = "bf16", hw = "h100_sxm5" }
    -- same peak figure for int8 and fp8 (1978.9 TOPS); int8's fraction 0.495 against bf16's 0.819 on 989.4
    assert.near(1978.9e12 * 0.495 / (989.4e12 * 0.819), bf.time_s / i8.time_s, 0.02)
  end)
end)

describe("prediction intervals", function()
  it("scale a GEMM's time by Hopper's residual percentiles of its dtype", function()
    -- gemm_bf16 = { 0.83, 1.57 }: the first H100's random half (hw/arch/hopper.lua)
    local g = tw.gemm { m = 4096, n = 4096, k = 4096, dtype = "bf16", hw = "h100_sxm5" }
    assert.near(0.83 * g.time_s, g.interval.low, 1e-15)
    assert.near(1.57 * g.time_s, g.interval.high, 1e-15)
    assert.is_false(g.interval.borrowed)
    -- the class-wide interval when no dtype is named
    local iv = require("tilewave.cost.price").interval(tw.hw.resolve("h100_sxm5"), "gemm", 1.0)
    assert.near(0.88, iv.low, 1e-15)
    assert.near(1.35, iv.high, 1e-15)
  end)

  it("are borrowed and twice as wide (log space) on an architecture without its own", function()
    -- Ampere has none: Hopper's gemm_fp16 = { 0.80, 1.43 }, squared
    local g = tw.gemm { m = 4096, n = 4096, k = 4096, dtype = "fp16", hw = "a100_sxm4_80gb" }
    assert.near(0.80 ^ 2 * g.time_s, g.interval.low, 1e-15)
    assert.near(1.43 ^ 2 * g.time_s, g.interval.high, 1e-15)
    assert.is_true(g.interval.borrowed)
  end)

  it("come with forward, decode and training estimates", function()
    local f = tw.transformer.estimate("llama-2-7b", "h100_sxm5", { b = 1, s = 2048 })
    assert.near(0.86 * f.time_s, f.interval.low, 1e-12)
    local d = tw.inference.decode { model = "llama-2-7b", hw = "h100_sxm5", context = 1024 }
    assert.near(1.15 * d.tpot_s, d.interval.high, 1e-12)
  end)
end)

describe("flash attention", function()
  it("computes whole 128x128 blocks of a causal mask: 10 of 16 blocks at s = 512", function()
    assert.equal(10 * 128 * 128, require("tilewave.ops.layers").causal_elems(512, 512))
  end)
end)

describe("tilewave.explore.accuracy", function()
  it("summarizes MAPE, bias, worst and interval coverage per set and engine", function()
    local rows = {
      { set = "a", engine = "e", predicted = 1.1, measured = 1.0, low = 0.9, high = 1.2 },
      { set = "a", engine = "e", predicted = 0.8, measured = 1.0, low = 0.7, high = 0.9 },
    }
    local s = accuracy.summarize(rows)[1]
    assert.equal(2, s.n)
    assert.near(0.15, s.mape, 1e-12)
    assert.near(-0.05, s.bias, 1e-12)
    assert.near(-0.2, s.worst, 1e-12)
    assert.equal(0.5, s.coverage)
    local fails, missing = require("tilewave.explore.bounds").check({ s }, { ["a|e"] = 0.1, ["b|e"] = 0.2 })
    assert.equal(1, #fails)
    assert.same({ "b|e" }, missing)
  end)

  it("reads the shared H100 folder (CRLF CSVs) into every set", function()
    local rows = accuracy.measured(csv.shared_dir() .. "/calibration/h100")
    local sets = {}
    for _, r in ipairs(rows) do sets[r.set] = (sets[r.set] or 0) + 1 end
    assert.equal(3, sets["h100: gemm peak int8"])
    assert.equal(24, sets["h100: layers graph flash"]) -- 12 rows x 2 engines
    assert.equal(12, sets["h100: attention cudnn fwd"])
  end)
end)

describe("calibration bounds", function()
  local accuracy = require "tilewave.explore.bounds"
  it("fail a MAPE above its bound and a coverage outside its range, and name unmatched keys", function()
    local sums = { { set = "a", engine = "e", mape = 0.12, coverage = 0.5 },
                   { set = "b", engine = "e", mape = 0.05, coverage = 0.9 } }
    local fails, missing = accuracy.check(sums, { ["a|e"] = 0.10, ["b|e"] = 0.10, ["c|e"] = 0.1,
      coverage = { ["a|e"] = { 0.80, 0.97 }, ["b|e"] = { 0.80, 0.97 }, ["d|e"] = { 0.8, 0.9 } } })
    assert.same({ "a (e): interval coverage 50.0% outside 80-97%", "a (e): MAPE 12.0% above its bound 10.0%" }, fails)
    assert.same({ "coverage:d|e", "c|e" }, missing) -- sorted
  end)

  it("fail a set with neither a bound nor an exemption; an exemption needs its reason", function()
    local sums = { { set = "a", engine = "e", mape = 0.05, coverage = 1 },
                   { set = "published x", engine = "k", mape = 0.30, coverage = 1 },
                   { set = "b", engine = "compiled", mape = 0.50, coverage = 0 },
                   { set = "c", engine = "e", mape = 0.074, coverage = 1 } }
    local fails, missing = accuracy.check(sums, { ["a|e"] = 0.10,
      exempt = { ["published *"] = "bounded elsewhere", ["b|compiled"] = "another engine", ["z|e"] = "gone" } })
    assert.same({ 'c (e): MAPE 7.4% has no bound (add ["c|e"] = <max MAPE>, or list it under exempt with the reason)' },
      fails)
    assert.same({ "exempt:z|e" }, missing)
    assert.has_error(function() accuracy.check(sums, { exempt = { ["c|e"] = "" } }) end,
      'calibrate.bounds.exempt["c|e"]: expected a reason (non-empty string), got ""')
  end)
end)
