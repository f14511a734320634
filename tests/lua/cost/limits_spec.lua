-- busted specs for tilewave.cost.limits (the physical floors) and tilewave.cost.kernels.backward
-- (the backward kernels of memory-bound ops), with values worked out by hand.
local tw = require "tilewave"
local limits = require "tilewave.cost.limits"
local ceilings = require "tilewave.data.ceilings"
local kernels = require "tilewave.cost.kernels"
local price = require "tilewave.cost.price"

describe("tilewave.cost.limits", function()
  local spec = tw.hw.resolve("h100_sxm5") -- 989.4 TFLOP/s bf16, 3350 GB/s
  local ctx = price.context(spec, "bf16", "compiled", "test")

  it("holds a GEMM to its FLOP at the matmul ceiling or its bytes at the memory ceiling", function()
    -- 8192^3 bf16: 2 * 8192^3 = 1.0995e12 FLOP at 0.87 * 989.4e12 = 1.2775 ms
    local op = { kind = "gemm", flops = 2 * 8192 ^ 3, bytes = 3 * 8192 ^ 2 * 2 }
    assert.near(2 * 8192 ^ 3 / (0.87 * 989.4e12), limits.op(ctx, op), 1e-15)
    -- a GEMV-like op: 8192 x 8192 weights read once (134 MB) dominate its 134 MFLOP
    local gemv = { kind = "gemm", flops = 2 * 8192 * 8192, bytes = 8192 * 8192 * 2 + 2 * 8192 * 2 }
    assert.near((8192 * 8192 * 2 + 2 * 8192 * 2) / (0.99 * 3350e9), limits.op(ctx, gemv), 1e-15)
    -- its backward: two GEMMs, 2x the FLOP, the bytes not counted
    assert.near(2 * 2 * 8192 ^ 3 / (0.87 * 989.4e12), limits.op(ctx, op, nil, true), 1e-15)
  end)

  it("holds a fused attention kernel to the attention ceiling, its backward to 2.5x the FLOP", function()
    local op = { kind = "attention", impl = "flash", flops = 1e12, bytes = 1e6 }
    assert.near(1e12 / (0.75 * 989.4e12), limits.op(ctx, op), 1e-15)
    assert.near(2.5e12 / (0.75 * 989.4e12), limits.op(ctx, op, nil, true), 1e-15)
  end)

  it("holds memory-bound kernels to the bytes they move", function()
    local op = { kind = "elementwise", flops = 0, bytes = 1e9 }
    assert.near(2e9 / (0.99 * 3350e9), limits.op(ctx, op, 2e9), 1e-15)
    assert.equal(0, limits.op(ctx, op, 0)) -- fused into a neighbour: no bytes of its own
  end)

  it("holds a collective to the bytes each rank sends over its link", function()
    -- all-reduce of 1 GB over 8 ranks at 450 GB/s: 2 * 7/8 * 1e9 / 450e9 = 3.889 ms
    assert.near(1.75e9 / 450e9, limits.collective("allreduce", 1e9, 8, 450e9), 1e-15)
    assert.near(0.875e9 / 450e9, limits.collective("allgather_ring", 1e9, 8, 450e9), 1e-15)
    assert.near(1e9 / 450e9, limits.collective("p2p", 1e9, 2, 450e9), 1e-15)
    assert.equal(0, limits.collective("allreduce", 1e9, 1, 450e9))
    -- and the pricing layer applies it: no latency, the ring's time is the bound itself
    assert.is_true(price.collective("allreduce", 1e9, 8, 450e9, 0) >= 1.75e9 / 450e9)
  end)

  it("holds a decode step to the datasheet bandwidth and peak", function()
    -- 13.5 GB at 3350 GB/s: 4.03 ms; 13.5 GFLOP at 989.4 TFLOP/s: 13.6 us
    assert.near(13.5e9 / 3350e9, limits.decode(13.5e9, 13.5e9, 3350e9, 989.4e12), 1e-15)
    local d = tw.inference.decode { model = "llama-2-7b", hw = "h100_sxm5", context = 512, engine = "ideal" }
    assert.is_true(d.bytes / d.tpot_s <= 3350e9 * (1 + 1e-12))
  end)

  it("refuses an architecture whose fractions exceed the ceilings", function()
    local bad = { mem_frac = 0.5, kernel_bw_frac = { vector = 1.0 } }
    assert.has_error(function() limits.check_arch({ arch = "x" }, bad, 0.9) end,
      "hw/arch/x.lua gemm.compute_frac: expected at most 0.87 (tilewave.data.ceilings), got 0.9")
    assert.has_error(function() limits.check_arch({ arch = "x" }, bad, 0.8) end,
      "hw/arch/x.lua gemm.kernel_bw_frac.vector: expected at most 0.99 (tilewave.data.ceilings), got 1.0")
    assert.equal(0.87, ceilings.matmul)
  end)
end)

describe("tilewave.cost.kernels.backward", function()
  -- a tensor of 1000 bf16 elements: S = 2000 bytes
  local function op(role, extra)
    local o = { role = role, kind = "elementwise", elems = 1000, elem_bytes = 2, bytes = 4000 }
    for k, v in pairs(extra or {}) do o[k] = v end
    return o
  end

  it("prices each role by the kernels autograd runs", function()
    -- softmax_backward_data (y, dy read, dx written: 3S) and the scale's multiply (2S); no mask kernel
    assert.same({ 6000, 4000 }, (kernels.backward(op("softmax"), "unfused")))
    assert.same({ "softmax", "vector" }, select(2, kernels.backward(op("softmax"), "unfused")))
    -- layer norm: dx (3S) and the weight/bias reduction (2S)
    assert.same({ 6000, 4000 }, (kernels.backward(op("norm", { norm = "layer" }), "unfused")))
    -- GELU: 3S; a residual: one add of the meeting gradients, 3S
    assert.same({ 6000 }, (kernels.backward(op("activation"), "unfused")))
    assert.same({ 6000 }, (kernels.backward(op("residual"), "unfused")))
    -- SwiGLU: three kernels of 3S and the two halves written into the fused gradient (4S)
    assert.same({ 6000, 6000, 6000, 8000 }, (kernels.backward(op("glu"), "unfused")))
  end)

  it("fuses a role's backward into one kernel under a fused engine", function()
    assert.same({ 10000 }, (kernels.backward(op("softmax"), "fused")))
    assert.same({ 26000 }, (kernels.backward(op("glu"), "fused")))
  end)

  it("keeps twice the forward for the unfused fp32 RMSNorm chain and for roles without a formula", function()
    local rms = op("norm", { norm = "rms" })
    local fwd = kernels.elementwise(rms, "unfused")
    local bwd = kernels.backward(rms, "unfused")
    for i, b in ipairs(fwd) do assert.equal(2 * b, bwd[i]) end
    assert.same({ 8000 }, (kernels.backward(op("embedding"), "fused")))
  end)
end)
