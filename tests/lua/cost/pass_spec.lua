-- The totals-only estimate (one call into the core, src/tw_pass.h) against the per-op
-- pricing of the detailed one: the same numbers, bit for bit; and core.pass's errors.
local tw = require "tilewave"

describe("transformer.estimate totals (detail = false)", function()
  local FIELDS = { "time_s", "layer_s", "flops", "tflops", "mfu", "gemm_share", "kernels", "tokens_per_s" }
  local cases = {
    { "llama-2-7b", "h100_sxm5", { b = 4, s = 2048 } },
    { "llama-2-7b", "h100_sxm5", { b = 1, s = 4096, attention = "flash", engine = "eager" } },
    { "pythia-2.8b", "a100_sxm4_80gb", { b = 2, s = 2048, engine = "eager", dtype = "fp16" } },
    { "modernbert-base", "h200_sxm", { b = 8, s = 1024, engine = "eager" } },
    { "llama-3-70b", "h100_sxm5", { b = 1, s = 2048, t = 8, attention = "flash" } },
    { "mixtral-8x7b", "h100_sxm5", { b = 2, s = 1024, imbalance = 1.5 } },
    { "deepseek-v3", "b200", { b = 1, s = 2048, t = 8 } },
  }
  for _, case in ipairs(cases) do
    it(case[1] .. " on " .. case[2], function()
      local opts = {}
      for k, v in pairs(case[3]) do opts[k] = v end
      local full = tw.transformer.estimate(case[1], case[2], opts)
      opts.detail = false
      -- twice: the second call reuses the kept pass
      for _ = 1, 2 do
        local fast = tw.transformer.estimate(case[1], case[2], opts)
        assert.is_nil(fast.ops)
        for _, f in ipairs(FIELDS) do assert.equal(full[f], fast[f], f) end
        assert.equal(full.interval.high, fast.interval.high)
      end
      -- and from a config table (not kept)
      local fast = tw.transformer.estimate(tw.models.load(case[1]), case[2], opts)
      assert.equal(full.time_s, fast.time_s)
    end)
  end

  it("keeps raising the workload's errors", function()
    tw.transformer.estimate("llama-2-7b", "h100_sxm5", { b = 4, detail = false })
    assert.has_error(function() tw.transformer.estimate("llama-2-7b", "h100_sxm5", { b = 4, detail = false, x = 1 }) end,
      "transformer.estimate: unknown option 'x' (known: attention, b, detail, dtype, engine, ep, group, imbalance, s, t, uneven_heads, weight_dtype)")
    assert.has_error(function() tw.transformer.estimate("llama-2-7b", "h100_sxm5", { b = -4, detail = false }) end,
      "transformer.estimate.b: expected positive integer, got -4")
    assert.has_error(function() tw.transformer.estimate("llama-2-7b", "h100_sxm5", { t = 3, detail = false }) end)
  end)
end)

describe("core.pass", function()
  local dev = require("tilewave.cost.price").context(tw.hw.resolve("h100_sxm5"), "bf16", "compiled").dev

  it("prices memory-bound kernels as bytes / bw + kernel_s, with the host floor", function()
    -- one op run 3 times inside the layers, one step: 1 GB at 2 TB/s = 0.5 ms, plus 2 us per kernel
    local pass = tw.core.pass { 3, 1, 1, 0, 1, 1, 1e9, 2e12, 0, 0, 0, 0, 0 }
    local t, layer, gemm, per_op = tw.core.pass_time(dev, pass, 2e-6, 0, true)
    assert.near(3 * 5.02e-4, t, 1e-15)
    assert.equal(t, layer)
    assert.equal(0, gemm)
    assert.near(5.02e-4, per_op[1], 1e-15)
    -- a 1 ms host floor
    assert.near(3 * 1e-3, (tw.core.pass_time(dev, pass, 2e-6, 1e-3)), 1e-15)
    -- the op's own floor (tilewave.cost.limits): 0.8 ms lifts its 0.502 ms
    local floored = tw.core.pass { 3, 1, 1, 8e-4, 1, 1, 1e9, 2e12, 0, 0, 0, 0, 0 }
    assert.near(3 * 8e-4, (tw.core.pass_time(dev, floored, 2e-6, 0)), 1e-15)
  end)

  it("names the bad op, step and field", function()
    assert.has_error(function() tw.core.pass { 1, 1, 1, 0, 1, 1, -1, 1, 0, 0, 0, 0, 0 } end,
      "pass: op 1, step 1: steps.bytes: expected non-negative number (invalid argument)")
    assert.has_error(function() tw.core.pass { 1, 1, 1, 0, 7, 1, 1, 1, 0, 0, 0, 0, 0 } end,
      "pass: op 1, step 1: steps.kind: expected gemm, kernel or fused (invalid argument)")
    assert.has_error(function() tw.core.pass { 1, 1, 0, 0, 2, 1, 1, 0, 0, 0, 0, 1, 1, 1, 2, 2, 0 } end,
      "pass: op 2, step 1: m: expected positive integer (invalid argument)")
    assert.has_error(function() tw.core.pass { -1, 1, 0, 0 } end, "pass: op 1: ops.count: expected a number in [0, 2^31-1]")
    assert.has_error(function() tw.core.pass { 1, 1, 0, -1 } end, "pass: op 1: ops.floor_s: expected a finite number of seconds >= 0")
    assert.has_error(function() tw.core.pass { 1, 1, 2, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0 } end,
      "pass[3]: expected an op's step count with its steps after it")
    assert.has_error(function() tw.core.pass { 1, 1, 1, 0, "x", 1, 1, 1, 0, 0, 0, 0, 0 } end,
      "pass[5]: expected a number, got string 'x'")
  end)
end)

describe("core.gemm_time", function()
  local price = require "tilewave.cost.price"
  local ctx = price.context(tw.hw.resolve("h100_sxm5"), "bf16", "compiled")

  it("is core.gemm's time_s without the table", function()
    assert.equal(price.gemm(ctx, 4096, 11008, 4096).time_s, price.gemm_time(ctx, 4096, 11008, 4096))
    assert.equal(price.gemm(ctx, 2048, 2048, 128, 64).time_s, price.gemm_time(ctx, 2048, 2048, 128, 64))
  end)

  it("names the bad field", function()
    assert.has_error(function() tw.core.gemm_time(ctx.dev, 4096, 2.5, 4096) end,
      "gemm.n: expected positive integer, got 2.5")
    assert.has_error(function() tw.core.gemm_time(ctx.dev, 4, 4, 4, 1, 3) end, "gemm.in_bytes: expected 0.5, 1, 2, 4 or 8")
  end)
end)

describe("flash attention's backward", function()
  local price = require "tilewave.cost.price"
  local kernels = require "tilewave.cost.kernels"

  it("runs dot(dO, O), the dQ conversion and, with grouped KV heads, the dK/dV group sum (hand-worked)", function()
    -- Llama-3-8B at b = 1, s = 1024: 32 query heads and 8 KV heads of 128. Q elements 32*1024*128 =
    -- 4,194,304; K elements 8*1024*128 = 1,048,576. dot(dO, O) + clear dQaccum: 2*Q*2 + 4*Q + 4*Q/128
    -- = 33,685,504 B; convert dQaccum: 4*Q + 2*Q = 25,165,824 B; group sum: 2*Q*2 + 2*K*2 = 20,971,520 B
    local op
    for _, o in ipairs(tw.transformer.ops("llama-3-8b", { b = 1, s = 1024, attention = "flash" })) do
      if o.kind == "attention" then op = o end
    end
    assert.equal(4194304, op.q_elems)
    assert.equal(1048576, op.kv_elems)
    local list = kernels.flash_backward(op, 2)
    assert.same({ 33685504, 25165824, 20971520 }, list)
    -- multi-head (Llama-2-7B): no group sum
    for _, o in ipairs(tw.transformer.ops("llama-2-7b", { b = 1, s = 1024, attention = "flash" })) do
      if o.kind == "attention" then op = o end
    end
    assert.equal(2, #kernels.flash_backward(op, 2))
  end)

  it("is priced the same, bit for bit, by price.backward and the compiled backward pass", function()
    for _, case in ipairs { { "llama-3-8b", "h100_sxm5", "eager" }, { "pythia-1b", "h200_sxm", "compiled" },
                            { "llama-2-7b", "a100_sxm4_80gb", "fused" } } do
      local ctx = price.context(tw.hw.resolve(case[2]), "bf16", case[3])
      local ops = tw.transformer.ops(case[1], { b = 2, s = 2048, attention = "flash" })
      local _, _, _, per_op = price.pass_time(ctx, price.compile(ctx, ops, true), true)
      local n = 0
      for i, o in ipairs(ops) do
        if o.kind == "attention" then
          n = n + 1
          assert.equal(price.backward(ctx, o), per_op[i])
          -- the kernels around the main one at their bytes, plus the main kernel: 2.5x the forward's MMA
          -- at a lower fraction, more than half the forward's compute (MMA and exponentials)
          local l = kernels.flash_backward(o, 2)
          assert.is_true(per_op[i] > price.kernels_s(ctx, l) + 2.5 * price.op(ctx, o).compute_s * 0.5)
        end
      end
      assert.equal(1, n)
    end
  end)
end)

describe("price's dispatch by op kind (KINDS)", function()
  local price = require "tilewave.cost.price"
  local ctx = price.context(tw.hw.resolve("h100_sxm5"), "bf16", "compiled")
  local gemm = { kind = "gemm", name = "fc", m = 4096, n = 4096, k = 4096, batch = 1, count = 1, scope = "layer",
                 flops = 2 * 4096 ^ 3, model_flops = 2 * 4096 ^ 3, bytes = 3 * 2 * 4096 ^ 2 }

  it("prices a bmm as a gemm, and op_time as op's time_s", function()
    local bmm = {}
    for k, v in pairs(gemm) do bmm[k] = v end
    bmm.kind = "bmm"
    assert.equal(price.op(ctx, gemm).time_s, price.op(ctx, bmm).time_s)
    assert.equal(price.op(ctx, gemm).time_s, price.op_time(ctx, gemm))
    -- the compiled pass sums the same kernel
    assert.equal(price.op(ctx, gemm).time_s, (price.pass_time(ctx, price.compile(ctx, { gemm }))))
  end)

  it("refuses a kind it holds no handlers for, naming the op", function()
    local bad = { kind = "conv", name = "stem", count = 1, flops = 0, model_flops = 0 }
    for _, f in ipairs { "op", "op_time", "backward" } do
      assert.has_error(function() price[f](ctx, bad) end, "price: op 'stem': no pricing for kind 'conv' (impl 'nil')")
    end
    assert.has_error(function() price.compile(ctx, { bad }) end, "price: op 'stem': no pricing for kind 'conv' (impl 'nil')")
    local odd = { kind = "attention", impl = "paged", name = "attn", count = 1 }
    assert.has_error(function() price.op(ctx, odd) end, "price: op 'attn': no pricing for kind 'attention' (impl 'paged')")
  end)
end)
