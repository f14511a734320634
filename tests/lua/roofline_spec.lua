-- busted specs for tw.roofline, with the NVIDIA matmul guide's V100 examples.
local tw = require "tilewave"

describe("tilewave.cost.roofline", function()
  it("puts 8192x128x8192 fp16 below V100's ridge point of 138.9 (memory-bound)", function()
    -- FLOP 2*8192*128*8192 = 17,179,869,184; bytes 2*(8192^2 + 2*8192*128) = 138,412,032
    local r = tw.roofline { flops = 17179869184, bytes = 138412032, hw = "v100_sxm2", dtype = "fp16" }
    assert.near(138.89, r.ridge, 0.01)
    assert.near(124.12, r.intensity, 0.01)
    assert.equal("memory", r.bound)
    assert.near(138412032 / 900e9, r.time_s, 1e-12)
  end)

  it("puts 8192^3 fp16 above it (compute-bound)", function()
    local n = 8192
    local r = tw.roofline { flops = 2 * n ^ 3, bytes = 6 * n ^ 2, hw = "v100_sxm2", dtype = "fp16" }
    assert.near(2730.67, r.intensity, 0.01)
    assert.equal("compute", r.bound)
  end)

  it("gives the seed table's A10 ops:byte of 208 (125 TFLOP/s / 600 GB/s)", function()
    local r = tw.roofline { flops = 1, bytes = 1, hw = "a10", dtype = "fp16" }
    assert.near(208.33, r.ridge, 0.01)
  end)

  it("uses the calibrated fractions with achievable = true", function()
    local g = tw.hw.gemm_params(tw.hw.load("a100_sxm4_80gb"))
    local r = tw.roofline { flops = 1e12, bytes = 1e9, hw = "a100_sxm4_80gb", achievable = true }
    assert.near(1e12 / (312e12 * g.compute_frac), r.compute_s, 1e-15)
  end)

  it("names bad fields", function()
    assert.has_error(function() tw.roofline { flops = -1, bytes = 1, hw = "a10" } end,
      "roofline.flops: expected positive number, got -1")
    assert.has_error(function() tw.roofline { flops = 1, bytes = "x", hw = "a10" } end,
      "roofline.bytes: expected number, got string 'x'")
    assert.has_error(function() tw.roofline { flops = 1, bytes = 1, hw = "a10", mem_frac = 2 } end,
      "roofline.mem_frac: expected number in (0, 1], got 2")
  end)
end)
