-- busted specs for tilewave.calibration: the model's error on the calibration set.
-- The measured values come from ../shared/reference/calibration/gemm_calibration.csv.
local cal = require "tilewave.explore.calibration"

describe("tilewave.explore.calibration", function()
  local rows = cal.load()

  it("reads the calibration CSV beside the repository", function()
    assert.is_table(rows, "../shared/reference/calibration/gemm_calibration.csv not found")
    assert.is_true(#rows >= 30)
    assert.equal(32, rows[1].m)
    assert.equal(0.213, rows[1].tflops_measured)
    assert.equal("a100_sxm4_40gb", rows[1].hw)
  end)

  it("keeps the mean absolute error on it under 6% and every point within 15%", function()
    local _, s = cal.evaluate(rows)
    assert.is_true(s.n >= 24)
    assert.is_true(s.mape < 0.06, string.format("MAPE %.3f", s.mape))
    assert.is_true(s.max_abs < 0.15, string.format("max %.3f", s.max_abs))
  end)

  it("predicts the alignment cliff of the logit GEMM (h odd vs h = 14336)", function()
    local res = cal.evaluate(rows)
    local odd, aligned
    for _, x in ipairs(res) do
      if x.row.k == 51200 and x.row.n == 14273 then odd = x.predicted_tflops end
      if x.row.k == 51200 and x.row.n == 14336 then aligned = x.predicted_tflops end
    end
    -- measured 72.0 vs 261.0 TFLOP/s: a drop of 72%
    assert.is_true(odd < 0.35 * aligned)
  end)

  it("keeps the GEMM intervals honest out of sample: 80-97% coverage by shape fold and by device", function()
    local accuracy = require "tilewave.explore.accuracy"
    local csv = require "tilewave.util.csv"
    local cv = accuracy.interval_cv(accuracy.random_half(csv.shared_dir() .. "/calibration/random_half"))
    assert.equal(6, #cv) -- bf16, fp16, fp32, fp8, int8, tf32
    for _, c in ipairs(cv) do
      assert.is_true(c.kfold >= 0.80 and c.kfold <= 0.97, string.format("%s 5-fold %.3f", c.dtype, c.kfold))
      assert.equal(2, #c.devices)
      for _, d in ipairs(c.devices) do
        assert.is_true(d.coverage >= 0.80 and d.coverage <= 0.97, string.format("%s on %s %.3f", c.dtype, d.name,
          d.coverage))
      end
    end
    -- the method on a set worked by hand: 20 ratios 1..20; ranks q * (n + 1) = 1.05 and 19.95,
    -- interpolated: 1 + 0.05 * (2 - 1) = 1.05 and 19 + 0.95 * (20 - 19) = 19.95: 18 of 20 inside
    local rows = {}
    for i = 1, 20 do
      rows[i] = { set = "random_half h100_first_machine: gemm random bf16 nn", measured = i, predicted = 1 }
    end
    assert.near(0.9, accuracy.interval_cv(rows)[1].in_sample, 1e-12)
    local xs = {}
    for i = 1, 20 do xs[i] = 21 - i end
    assert.near(1.05, accuracy.quantile(xs, 0.05), 1e-12)
    assert.near(19.95, accuracy.quantile(xs, 0.95), 1e-12)
    -- below rank 1 and above rank n: the extremes (3 values: ranks 0.2 and 3.8)
    assert.equal(2, accuracy.quantile({ 5, 2, 9 }, 0.05))
    assert.equal(9, accuracy.quantile({ 5, 2, 9 }, 0.95))
    assert.equal(5, accuracy.quantile({ 5, 2, 9 }, 0.5))
    assert.is_nil(accuracy.quantile({}, 0.5))
  end)
end)
