-- One price for a step (issue 65 item 1): the mechanisms serve, decode and prefill now share,
-- each worked out by hand.
local tw = require "tilewave"
local layers = require "tilewave.ops.layers"
local quant = require "tilewave.data.quant"
local price = require "tilewave.cost.price"

describe("one price for a step", function()
  it("runs the experts a MoE layer's tokens touch, as two integer counts around their mean", function()
    -- Mixtral, E = 8, k = 2, 4 tokens: 8 (1 - 0.75^4) = 8 (1 - 0.31640625) = 5.46875 experts
    local v = layers.experts_run(8, 2, 4, 8)
    assert.are.same({ { 5, 0.53125 }, { 6, 0.46875 } }, v)
    -- one token: exactly k experts; many tokens: all of them
    assert.are.same({ { 2, 1 } }, layers.experts_run(8, 2, 1, 8))
    assert.are.same({ { 8, 1 } }, layers.experts_run(8, 2, 4096, 8))
    -- a rank holding 4 of DeepSeek-V3's 256 experts, 1 token routed to 8: 4 x 8/256 = 0.125 expected
    assert.are.same({ { 1, 0.125 } }, layers.experts_run(256, 8, 1, 4))
    -- the forward's expert ops: at s = 4 two variants over 32 layers, 17.0 and 15.0 layers
    local e = tw.transformer.estimate("mixtral-8x7b", "h100_sxm5", { b = 1, s = 4, t = 2, attention = "flash" })
    local seen = {}
    for _, op in ipairs(e.ops) do
      if op.name == "expert_mlp_up" then seen[#seen + 1] = { op.batch, op.count, op.m } end
    end
    assert.are.equal(2, #seen)
    assert.are.equal(5, seen[1][1]); assert.near(32 * 0.53125, seen[1][2], 1e-12)
    assert.are.equal(6, seen[2][1]); assert.near(32 * 0.46875, seen[2][2], 1e-12)
    -- 8 routed copies over 5 experts: ceil(1.6) = 2 rows; over 6: ceil(1.33) = 2
    assert.are.equal(2, seen[1][3]); assert.are.equal(2, seen[2][3])
  end)

  it("reads a weight-only matrix at its format's bits in the GEMM model", function()
    -- int4, group 128: 4 + 2 x 16 / 128 = 4.25 bits; int8: 8 + 16 / k bits (one bf16 scale a row)
    assert.are.equal(4.25, quant.op_bits({ role = "mlp_up", n = 14336, k = 4096, count = 32 }, quant.format("int4"), 32))
    assert.are.equal(8 + 16 / 4096, quant.op_bits({ role = "qkv", n = 6144, k = 4096, count = 32 },
      quant.format("int8"), 32))
    -- M = 1, N = K = 4096, bf16 activations, weights at 4.5 bits (nvfp4 dequantized on an H100):
    -- A 4096 x 2 + B 4096^2 x 0.5625 + C 4096 x 2 = 9,453,568 bytes
    local ctx = price.context(tw.hw.resolve("h100_sxm5"), "bf16", "compiled")
    local r = price.gemm(ctx, 1, 4096, 4096, 1, 0.5625)
    assert.are.equal(9453568, r.bytes)
    local full = price.gemm(ctx, 1, 4096, 4096, 1)
    assert.are.equal(4096 * 2 + 4096 * 4096 * 2 + 4096 * 2, full.bytes)
    -- memory-bound at N = K = 16384 (512 MiB of bf16 weights against 144 MiB): the weight bytes set
    -- the time, 3.55x fewer (the fixed per-kernel costs keep the ratio below that)
    local big, big16 = price.gemm(ctx, 1, 16384, 16384, 1, 0.5625), price.gemm(ctx, 1, 16384, 16384, 1)
    assert.are.equal(16384 * 2 * 2 + 16384 * 16384 * 0.5625, big.bytes)
    assert.is_true(big.time_s < big16.time_s / 3 and big.time_s > big16.time_s / 3.56, big.time_s .. " " .. big16.time_s)
    assert.has_error(function() price.gemm(ctx, 1, 64, 64, 1, 9) end, "gemm.w_bytes: expected 0 (as in_bytes) or a number in (0, 8], got 9")
  end)

  it("prefills an int4 checkpoint at its bytes, and names its format", function()
    local p16 = tw.inference.prefill { model = "llama-3.1-8b", hw = "h100_sxm5", prompt = 16 }
    local p4 = tw.inference.prefill { model = "llama-3.1-8b", hw = "h100_sxm5", prompt = 16, weight_dtype = "int4" }
    assert.are.equal("bf16", p16.weight_dtype)
    assert.are.equal("int4", p4.weight_dtype); assert.are.equal("bf16", p4.dtype)
    -- 16 tokens: every GEMM memory-bound, so about a quarter of the weight bytes
    assert.is_true(p4.ttft_s < 0.45 * p16.ttft_s, p4.ttft_s .. " " .. p16.ttft_s)
    -- an fp8 checkpoint computes in fp8 where the device has the peak (W8A8)
    assert.are.equal("fp8", tw.inference.prefill { model = "llama-3.1-8b", hw = "h100_sxm5", prompt = 16,
                                                   weight_dtype = "fp8" }.dtype)
  end)

  it("prefill's command takes the weight and KV formats and names the checkpoint's", function()
    local process = dofile("tests/lua/helpers/process.lua")
    local code, out, err = process.run("prefill llama-3.1-8b --prompt 16 --weight-dtype fp8 --kv-dtype fp8")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("prefill llama-3.1-8b on h100_sxm5: fp8 weights, fp8 compute,", 1, true), out)
    -- gpt-oss ships MXFP4 experts: the checkpoint's format by default, with its source
    code, out, err = process.run("prefill gpt-oss-20b --prompt 512")
    assert.are.equal(0, code, err)
    assert.truthy(out:find(": mxfp4 weights (", 1, true), out)
    assert.truthy(out:find("bf16 compute", 1, true), out)
    code, _, err = process.run("prefill llama-3.1-8b --prompt 16 --weight-dtype int3")
    assert.are.equal(1, code)
    assert.truthy(err:find("prefill.weight_dtype: expected one of", 1, true), err)
  end)
end)
