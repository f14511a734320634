-- busted specs for tilewave.transformer (and the decomposition of
-- tilewave.layers): shapes and FLOPs of a small config worked out by hand.
local tw = require "tilewave"

-- A small LLaMA-style config: h 256, a 4 (head dim 64), kv 2, L 2, I 512, v 1000.
local SMALL = { family = "llama", hidden_size = 256, num_attention_heads = 4, num_key_value_heads = 2,
                num_hidden_layers = 2, intermediate_size = 512, vocab_size = 1000, name = "small" }

local function by_name(ops)
  local t = {}
  for _, op in ipairs(ops) do t[op.name] = op end
  return t
end

-- ops by role, the composite attention op's parts (attn_score, softmax, attn_av) included
local function by_role(ops)
  local t = {}
  for _, op in ipairs(ops) do
    t[op.role] = t[op.role] or op
    for _, p in ipairs(op.parts or {}) do t[p.role] = t[p.role] or p end
  end
  return t
end

local function shape(op) return { op.m, op.n, op.k, op.batch } end

describe("tilewave.cost.forward", function()
  describe("ops()", function()
    it("decomposes a small GQA config at b=2, s=64 as worked out by hand", function()
      local ops = tw.transformer.ops(SMALL, { b = 2, s = 64 })
      local o, n = by_role(ops), by_name(ops)
      -- QKV: (b*s) x (a + 2kv)*hd x h = 128 x (4 + 4)*64 x 256
      assert.same({ 128, 512, 256, 1 }, shape(o.qkv))
      assert.equal(2 * 128 * 512 * 256, o.qkv.flops)
      -- score: batch b*a = 8 of s x s x hd; over value: s x hd x s
      assert.same({ 64, 64, 64, 8 }, shape(o.attn_score))
      assert.same({ 64, 64, 64, 8 }, shape(o.attn_av))
      assert.equal("bmm", o.attn_score.kind)
      assert.same({ 128, 256, 256, 1 }, shape(o.attn_out))
      assert.same({ 128, 512, 256, 1 }, shape(o.mlp_gate))
      assert.same({ 128, 512, 256, 1 }, shape(o.mlp_up))
      assert.same({ 128, 256, 512, 1 }, shape(o.mlp_down))
      assert.same({ 128, 1000, 256, 1 }, shape(o.logits))
      assert.equal(2, o.mlp_down.count)
      assert.equal(1, o.logits.count)
      -- softmax reads and writes the bf16 scores: 2 * 8 * 64 * 64 * 2 bytes
      assert.equal(131072, o.softmax.bytes)
      assert.equal("elementwise", o.softmax.kind)
      -- the composite attention op: the two BMMs' FLOPs, standard by default
      assert.equal("standard", o.attention.impl)
      assert.equal(2 * 2 * 8 * 64 * 64 * 64, o.attention.flops)
      assert.equal(0, o.softmax.flops)
      -- an RMSNorm reads and writes (b*s) x h bf16: 2 * 128 * 256 * 2
      assert.equal(131072, n.input_rmsnorm.bytes)
      -- QKV compulsory bytes: (128*256 + 256*512 + 128*512) * 2
      assert.equal((128 * 256 + 256 * 512 + 128 * 512) * 2, o.qkv.bytes)
    end)

    it("keeps the paper's order: QKV, attention (score, over value), projection, MLP, logits", function()
      local roles = {}
      for _, op in ipairs(tw.transformer.ops(SMALL, { b = 2, s = 64 })) do
        if op.kind ~= "elementwise" then roles[#roles + 1] = op.role end
      end
      assert.same({ "qkv", "attention", "attn_out", "mlp_gate", "mlp_up", "mlp_down", "logits" }, roles)
    end)

    it("shards heads, FFN columns and vocabulary over t = 2", function()
      local o = by_role(tw.transformer.ops(SMALL, { b = 2, s = 64, t = 2 }))
      assert.same({ 128, (2 + 2 * 1) * 64, 256, 1 }, shape(o.qkv))
      assert.same({ 64, 64, 64, 4 }, shape(o.attn_score)) -- b*a/t = 4
      assert.same({ 128, 256, 128, 1 }, shape(o.attn_out))
      assert.same({ 128, 256, 256, 1 }, shape(o.mlp_gate))
      assert.same({ 128, 256, 256, 1 }, shape(o.mlp_down))
      assert.same({ 128, 500, 256, 1 }, shape(o.logits))
    end)

    it("gives the paper's per-layer FLOPs for an MHA GPT layer: 24bsh^2 + 4bs^2h", function()
      local b, s, h = 4, 2048, 2560
      local flops = 0
      for _, op in ipairs(tw.transformer.ops("gpt3-2.7b", { b = b, s = s })) do
        if op.scope == "layer" then flops = flops + op.flops end
      end
      assert.equal(24 * b * s * h * h + 4 * b * s * s * h, flops)
    end)

    it("uses GeGLU's fused 2I up-projection and the 128-token window in ModernBERT", function()
      local o = by_name(tw.transformer.ops("modernbert-base", { b = 1, s = 1024 }))
      assert.same({ 1024, 2304, 768, 1 }, shape(o.mlp_up_gate))
      assert.same({ 1024, 768, 1152, 1 }, shape(o.mlp_down))
      assert.equal(8, o.attention.count)        -- layers 0, 3, ..., 21
      assert.equal(14, o.attention_local.count)
      assert.same({ 1024, 128, 64, 12 }, shape(o.attention_local))
      assert.same({ 1024, 1024, 64, 12 }, shape(o.attention))
    end)

    it("uses one parallel-residual add in GPT-NeoX and rotary on 25% of each head", function()
      local o = by_name(tw.transformer.ops("pythia-70m", { b = 1, s = 128 }))
      assert.is_nil(o.attention_residual)
      assert.equal(4 * 128 * 512 * 2, o.parallel_residual.bytes) -- read 3, write 1
      -- rotary rewrites 1/4 of q and k: 2 * 128 * (8 + 8) * 64 * 0.25 * 2 bytes
      assert.equal(2 * 128 * 16 * 64 * 0.25 * 2, o.rotary.bytes)
    end)

    it("rejects a bad workload naming the field", function()
      local ok, err = pcall(tw.transformer.ops, SMALL, { b = 0 })
      assert.is_false(ok)
      assert.equal("transformer.ops.b: expected positive integer, got 0", err)
      ok, err = pcall(tw.transformer.ops, SMALL, { s = 64, t = 8 })
      assert.equal("transformer.ops.t: expected a divisor of num_attention_heads 4 (engines split whole heads), got 8",
        err)
      ok, err = pcall(tw.transformer.ops, SMALL, { s = 64, t = 3 })
      assert.equal("transformer.ops.t: expected a divisor of num_attention_heads 4 (engines split whole heads), got 3",
        err)
      ok, err = pcall(tw.transformer.ops, SMALL, { b = 2 ^ 62, s = 4 }) -- 2^64 wraps to 0 in integers
      assert.equal("transformer.ops.b*s: expected at most 2^31-1 tokens, got 1.844674407371e+19", err)
      ok, err = pcall(tw.transformer.ops, SMALL, { dtype = "fp2" })
      assert.truthy(err:find("transformer.ops.dtype: expected one of", 1, true))
      ok, err = pcall(tw.transformer.ops, SMALL, { batch = 2 })
      assert.truthy(err:find("transformer.ops: unknown option 'batch'", 1, true))
    end)
  end)

  describe("estimate()", function()
    local H100 = "h100_sxm5"

    it("gives the same totals without the per-op rows (detail = false)", function()
      for _, w in ipairs { { b = 2, s = 64 }, { b = 4, s = 2048, attention = "flash", engine = "eager" } } do
        local full = tw.transformer.estimate("llama-2-7b", H100, w)
        local q = { detail = false }
        for k, v in pairs(w) do q[k] = v end
        local lean = tw.transformer.estimate("llama-2-7b", H100, q)
        assert.is_nil(lean.ops)
        assert.equal(15, #full.ops)
        for _, k in ipairs { "time_s", "layer_s", "flops", "tflops", "mfu", "gemm_share", "kernels", "tokens_per_s" } do
          assert.equal(full[k], lean[k], k) -- the same sums in the same order: bit for bit
        end
      end
      assert.has_error(function() tw.transformer.estimate("llama-2-7b", H100, { detail = "no" }) end,
        "transformer.estimate.detail: expected true or false, got no")
    end)

    it("sums its ops: time, FLOPs, MFU against the dense peak", function()
      local r = tw.transformer.estimate(SMALL, H100, { b = 2, s = 64 })
      local t, f = 0, 0
      for _, p in ipairs(r.ops) do
        assert.near(p.time_s * p.count, p.total_s, 1e-15)
        t, f = t + p.total_s, f + p.flops * p.count
      end
      assert.near(t, r.time_s, 1e-12)
      -- GEMM FLOPs by hand: per layer 2*(QKV 128*512*256 + 2 BMM 8*64^3 + proj 128*256*256
      -- + 3 MLP 128*512*256), two layers, plus logits 2*128*1000*256
      local layer = 2 * (128 * 512 * 256 + 2 * 8 * 64 ^ 3 + 128 * 256 * 256 + 3 * 128 * 512 * 256)
      assert.equal(2 * layer + 2 * 128 * 1000 * 256, f)
      assert.equal(f, r.flops)
      assert.near(989.4e12, r.peak_flops, 1e11)
      assert.near(f / r.time_s / 989.4e12, r.mfu, 1e-3)
      assert.near(128 / r.time_s, r.tokens_per_s, 1e-6)
    end)

    it("prices an elementwise op as the engine's per-kernel cost + bytes over its class's bandwidth", function()
      local r = tw.transformer.estimate(SMALL, H100, { b = 2, s = 64 })
      -- hw/arch/hopper.lua: 3.35 TB/s; vector kernels 0.92 of it, strided (broadcast, cast) 0.49
      local vector, strided = 3.35e12 * 0.92, 3.35e12 * 0.49
      local n = by_name(r.ops)
      -- fused (compiled): one vectorized kernel of 131072 bytes
      assert.equal(1, n.input_rmsnorm.kernels)
      assert.near(tw.engines.presets.compiled.kernel_s + 131072 / vector, n.input_rmsnorm.time_s, 1e-15)
      -- unfused (eager, launched as a graph): 8 kernels of 6+8+4+0+0+8+6+4 = 36 bytes per element:
      -- upcast (6), x*rsqrt (8) and weight mul (4) strided, the rest (18) vectorized
      local u = by_name(tw.transformer.estimate(SMALL, H100, { b = 2, s = 64,
        engine = { base = "eager", launch = "graph" } }).ops)
      assert.equal(8, u.input_rmsnorm.kernels)
      assert.near(8 * tw.engines.presets.eager.kernel_s + 18 * 128 * 256 / strided + 18 * 128 * 256 / vector,
                  u.input_rmsnorm.time_s, 1e-15)
    end)

    it("caps a non-vectorized class at its SM-side rate on the H200 (same SMs, more bandwidth)", function()
      -- hw/h200_sxm.lua: 4.8 TB/s, vector 0.892, strided 0.475 of it = 2280 GB/s; hw/arch/hopper.lua's cap:
      -- 132 SMs x 1830 MHz x 6.80 byte/cycle = 1642.608 GB/s, which binds (on the H100 0.49 x 3350 = 1641.5 binds)
      local H200 = assert(tw.hw.load("h200_sxm"))
      local vector, strided = 4.8e12 * 0.892, 132 * 1.83e9 * 6.80
      local u = by_name(tw.transformer.estimate(SMALL, H200, { b = 2, s = 64,
        engine = { base = "eager", launch = "graph" } }).ops)
      assert.near(8 * tw.engines.presets.eager.kernel_s + 18 * 128 * 256 / strided + 18 * 128 * 256 / vector,
                  u.input_rmsnorm.time_s, 1e-15)
    end)

    it("runs the GEMMs through the core's tile/wave model", function()
      local r = tw.transformer.estimate("llama-3.1-8b", H100, { b = 4, s = 2048 })
      local g = tw.gemm { m = 8192, n = 14336, k = 4096, dtype = "bf16", hw = H100 }
      for _, p in ipairs(r.ops) do
        if p.role == "mlp_gate" then
          -- the same GEMM at the same (kernel) timing and engine
          assert.equal(g.time_s, p.time_s)
          assert.equal(g.waves, p.waves)
        end
      end
    end)

    it("counts executed and model FLOP of attention by hand (the FLOP convention)", function()
      -- h 256, a 4 (hd 64), s = 128: a causal query i needs i scores, 128*129/2 = 8256 per head;
      -- the fused kernel computes the one 128 x 128 diagonal block in full (16384); 4*hd FLOP per score
      local c = tw.models.define { family = "llama", hidden_size = 256, num_attention_heads = 4, num_key_value_heads = 4,
                                   num_hidden_layers = 1, intermediate_size = 512, vocab_size = 1000 }
      local function attn(impl)
        for _, op in ipairs(tw.transformer.ops(c, { b = 1, s = 128, attention = impl })) do
          if op.role == "attention" then return op end
        end
      end
      local fa, std = attn("flash"), attn("standard")
      assert.equal(4 * 64 * 4 * 16384, fa.flops)
      assert.equal(4 * 64 * 4 * 8256, fa.model_flops)
      assert.equal(4 * 64 * 4 * 16384, std.flops) -- materialized: every score
      assert.equal(4 * 64 * 4 * 8256, std.model_flops)
      assert.equal(4 * 64 * 4 * 16384, tw.layers.full_flops(fa)) -- the "full" convention of PaLM / Megatron
      -- a query block past the first: s = 256 computes 3 of 4 blocks (49152 per head), needs 256*257/2 = 32896
      assert.equal(3 * 16384, tw.layers.causal_elems(256, 256))
      assert.equal(32896, tw.layers.needed_elems(256, 256, true))
      -- decode-like: 1 query over 1000 cached keys needs all 1000; a window of 4 over 10 queries: 4*5/2 + 6*4
      assert.equal(1000, tw.layers.needed_elems(1, 1000, true))
      assert.equal(34, tw.layers.needed_elems(10, 4, true))
    end)

    it("makes FlashAttention faster than materialized scores for long sequences", function()
      local std = tw.transformer.estimate("llama-3.1-8b", H100, { b = 1, s = 8192 })
      local fa = tw.transformer.estimate("llama-3.1-8b", H100, { b = 1, s = 8192, attention = "flash" })
      assert.is_true(fa.time_s < std.time_s)
      -- the model needs the same FLOP either way; the fused causal kernel executes about half
      -- the scores' (whole 128 x 128 blocks: 64 * 65 / 2 of 64^2 blocks), materialized all
      assert.equal(std.model_flops, fa.model_flops)
      local hd, a, L, s = 128, 32, 32, 8192
      assert.near(4 * hd * a * L * s * s * (1 - 65 / 128), std.flops - fa.flops, 1)
      local names = {}
      for _, p in ipairs(fa.ops) do names[p.name] = true end
      assert.is_true(names.flash_attention)
      assert.is_nil(names.softmax)
    end)

    it("names the fused kernel's exponentials as its loss, with the MMA's share worked by hand", function()
      -- Pythia-14M: h 128, a 4, hd 32, s 2048 on the H100 SXM5: per score 4 * 32 MMA FLOP at
      -- 989.4 T x 0.70 (hopper attention_frac) = 1.848e-13 s, one exp at 66.9 T / 16 = 2.392e-13 s:
      -- the MMA is 43.6 % of the compute time (before: a crash of `tilewave report --attention flash`,
      -- whose text asked for a GEMM tile the fused kernel has not)
      local est = tw.transformer.estimate("pythia-14m", H100, { b = 4, s = 2048, attention = "flash" })
      local fa
      for _, p in ipairs(est.ops) do if p.name == "flash_attention" then fa = p end end
      local mma, exp = 128 / (989.4e12 * 0.70), 1 / (66.9e12 / 16)
      assert.equal("exponentials", fa.loss)
      assert.near(mma / (mma + exp), fa.exp_eff, 1e-9)
      assert.near(0.4359, fa.exp_eff, 1e-4)
      local text = require("tilewave.report.format").limit_text(fa)
      assert.equal("softmax exponentials on the SFUs (MMA 44% of the kernel's compute time)", text)
    end)

    it("predicts h/a = 128 faster than h/a = 80 at the GPT-3 2.7B size (co-design paper)", function()
      local c80 = tw.models.load("gpt3-2.7b")
      local c128 = tw.models.define { family = "gpt3", hidden_size = 2560, num_attention_heads = 20,
                                      num_hidden_layers = 32, intermediate_size = 10240, vocab_size = 50257 }
      local a = tw.transformer.estimate(c80, "a100_sxm4_40gb", { b = 4, s = 2048, dtype = "fp16" })
      local b = tw.transformer.estimate(c128, "a100_sxm4_40gb", { b = 4, s = 2048, dtype = "fp16" })
      assert.is_true(b.tflops > a.tflops * 1.05)
    end)

    it("rejects a dtype the device lacks and an unknown attention", function()
      local ok, err = pcall(tw.transformer.estimate, SMALL, "v100_sxm2", { dtype = "bf16" })
      assert.is_false(ok)
      assert.truthy(err:find("transformer.estimate.dtype: 'bf16' not supported by v100_sxm2", 1, true))
      ok, err = pcall(tw.transformer.estimate, SMALL, H100, { attention = "sparse" })
      assert.equal("transformer.estimate.attention: expected one of flash, standard, got string 'sparse'", err)
    end)
  end)
end)
