-- busted specs for tilewave.inference (decode, memory, prefill, sweep), tilewave.quant
-- and tilewave.engines: hand-worked bytes and the errors.
local tw = require "tilewave"

-- h 256, a 4 (head dim 64), kv 2, L 2, I 512, v 1000
local SMALL = { family = "llama", hidden_size = 256, num_attention_heads = 4, num_key_value_heads = 2,
                num_hidden_layers = 2, intermediate_size = 512, vocab_size = 1000, name = "small" }

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return err
end

describe("tilewave.cost.inference", function()
  describe("decode()", function()
    it("reads Llama-2-70B's KV cache at 4096 tokens: 2*80*8*128*4096*2 = 1,342,177,280 B", function()
      local r = tw.inference.decode { model = "llama-2-70b", hw = "h100_sxm5", context = 4096, t = 2 }
      -- per rank with t = 2: 4 KV heads each
      assert.equal(1342177280 / 2, r.kv_bytes)
      local m = tw.inference.memory { model = "llama-2-70b", hw = "h100_sxm5", context = 4096, batch = 1 }
      assert.equal(1342177280, m.kv_bytes)
      assert.equal(327680, m.kv_bytes_per_token) -- model_configs.md §7
    end)

    it("counts int4 group-32 weights with their scales and zeros: 5 bits per weight", function()
      -- GEMM weights: per layer QKV 256x512 + O 256x256 + gate, up 2x256x512 + down 512x256 = 589,824;
      -- 2 layers + LM head 256x1000 = 1,435,648 weights x 5/8 B = 897,280 B;
      -- plus the RMSNorm weights (2*2*256 + 256 = 1280) in 16 bits = 2,560 B
      local r = tw.inference.decode { model = SMALL, hw = "a100_sxm4_80gb", context = 1, weight_dtype = "int4", group = 32 }
      assert.equal(1435648, r.matmul_params)
      assert.equal(897280 + 2560, r.weight_bytes)
      local r128 = tw.inference.decode { model = SMALL, hw = "a100_sxm4_80gb", context = 1, weight_dtype = "int4" }
      assert.equal(128, r128.group) -- default group: 4 + 32/128 = 4.25 bits
      assert.equal(1435648 * 4.25 / 8 + 2560, r128.weight_bytes)
    end)

    it("counts Llama-2-7B's bf16 weights by hand and prices the ideal step at datasheet bandwidth", function()
      -- per layer QKV 4096x12288 + O 4096^2 + 3 x 4096x11008 = 202,375,168; x32 + LM head 4096x32000
      -- = 6,607,077,376 weights; norms 2*4096*32 + 4096 = 266,240
      local r = tw.inference.decode { model = "llama-2-7b", hw = "a100_sxm4_80gb", context = 1, engine = "ideal" }
      assert.equal(6607077376, r.matmul_params)
      assert.equal(2 * (6607077376 + 266240), r.weight_bytes)
      assert.equal(2 * 32 * 32 * 128 * 2, r.kv_bytes)
      assert.near(r.bytes / 2039e9, r.tpot_s, 1e-12)
      assert.equal("memory", r.bound)
      assert.near(1 / r.tpot_s, r.tokens_per_s, 1e-9)
    end)

    it("orders engines and formats as the mechanism says", function()
      local function tps(engine, wd)
        return tw.inference.decode { model = "llama-3.1-8b", hw = "h100_sxm5", context = 1024, engine = engine,
                                     weight_dtype = wd }.tokens_per_s
      end
      assert.is_true(tps("ideal", "bf16") > tps("compiled", "bf16"))
      assert.is_true(tps("compiled", "bf16") > tps("eager", "bf16"))
      assert.is_true(tps("compiled", "int4") > tps("compiled", "int8"))
      assert.is_true(tps("compiled", "int8") > tps("compiled", "bf16"))
    end)

    it("uses the GGUF formats' true bits: Q4_0 Llama-2-7B resident size is the file's 3.56 GiB", function()
      -- llama.cpp discussion #4167: llama-2-7b.Q4_0.gguf = 3.56 GiB (4.5 bits, Q6_K output matrix)
      local m = tw.inference.memory { model = "llama-2-7b", hw = "rtx4090", context = 1, weight_dtype = "q4_0" }
      assert.near(3.56, m.weight_bytes / 2 ^ 30, 0.01)
      local q8 = tw.inference.memory { model = "llama-2-7b", hw = "rtx4090", context = 1, weight_dtype = "q8_0" }
      assert.near(6.67, q8.weight_bytes / 2 ^ 30, 0.01)
    end)

    it("adds two all-reduces per layer under tensor parallelism", function()
      local r1 = tw.inference.decode_step { model = "llama-2-70b", hw = "h100_sxm5", context = 1024 }
      local r2 = tw.inference.decode_step { model = "llama-2-70b", hw = "h100_sxm5", context = 1024, t = 2 }
      assert.is_true(r2.comm_s > 0)
      assert.equal(0, r1.comm_s)
      assert.is_true(r2.tpot_s < r1.tpot_s)
    end)

    it("accepts an engine override table", function()
      local r = tw.inference.decode { model = SMALL, hw = "h100_sxm5", context = 8,
                                      engine = { base = "compiled", kernel_s = 0 } }
      assert.equal(0, r.overhead_s)
    end)

    it("rejects unknown dtypes, zero context, an overflowing batch and encoders", function()
      assert.truthy(err_of(tw.inference.decode, { model = SMALL, hw = "h100_sxm5", context = 8, weight_dtype = "int3" })
        :find("decode.weight_dtype: expected one of bf16, fp16, fp32, fp8, int4, int8, mxfp4, nvfp4, q4_0, q4_k_m, q8_0, got string 'int3'", 1, true))
      assert.equal("decode.context: expected positive integer, got 0",
        err_of(tw.inference.decode, { model = SMALL, hw = "h100_sxm5", context = 0 }))
      assert.equal("decode.context: expected positive integer, got nil",
        err_of(tw.inference.decode, { model = SMALL, hw = "h100_sxm5" }))
      -- which limit: the KV cache's element count (issue 51), in the user's terms
      assert.equal("decode.context*batch: expected a model, batch and context whose bytes and FLOP per step stay "
        .. "below 2^53 (the KV cache's elements, layers x 2 x KV heads x head_dim x tokens), got batch 1099511627776, "
        .. "context 8", err_of(tw.inference.decode, { model = "llama-2-7b", hw = "h100_sxm5", context = 8, batch = 2 ^ 40 }))
      assert.equal("decode.model: modernbert-base is an encoder (modernbert): it has no autoregressive decode",
        err_of(tw.inference.decode, { model = "modernbert-base", hw = "h100_sxm5", context = 8 }))
      assert.truthy(err_of(tw.inference.decode, { model = SMALL, hw = "h100_sxm5", context = 8, kv_dtype = "int2" })
        :find("decode.kv_dtype: expected one of", 1, true))
      assert.equal("decode.group: only int4 takes a quantization group size, not int8",
        err_of(tw.inference.decode, { model = SMALL, hw = "h100_sxm5", context = 8, weight_dtype = "int8", group = 64 }))
      assert.equal("decode.group: expected an int4 group size of 32, 64, 128 or 256, got 1", -- 4 + 32 bits a weight
        err_of(tw.inference.decode, { model = "llama-2-7b", hw = "h100_sxm5", context = 64, weight_dtype = "int4",
                                      group = 1 }))
      assert.equal("decode.t: expected a divisor of num_attention_heads 32 (engines split whole heads), got 3",
        err_of(tw.inference.decode, { model = "llama-2-7b", hw = "h100_sxm5", context = 64, t = 3 }))
      assert.equal("decode.context: expected at most max_position_embeddings 4096 of llama-2-7b "
        .. "(or allow_long_context), got 4097",
        err_of(tw.inference.decode, { model = "llama-2-7b", hw = "h100_sxm5", context = 4097 }))
      assert.is_true(tw.inference.decode { model = "llama-2-7b", hw = "h100_sxm5", context = 4097,
                                           allow_long_context = true }.tpot_s > 0)
      assert.truthy(err_of(tw.inference.decode, { model = SMALL, hw = "h100_sxm5", context = 8, engine = "tgi" })
        :find("decode.engine: expected one of compiled, eager, fused, hf, ideal, llama.cpp, nim, sglang, sglang@0.3, sglang@0.4, trtllm, trtllm@0.5, trtllm@0.8, trtllm@0.x, trtllm@1.0, vllm, vllm@0.14, vllm@0.5, vllm@0.6, vllm@v1, got string 'tgi'", 1, true))
      assert.truthy(err_of(tw.inference.decode, { model = SMALL, hw = "h100_sxm5", context = 8,
                                                   engine = { decode_attention = "flashdecoding" } })
        :find("decode.engine.decode_attention: expected one of full, mmha, no_split, split_kv, xqa", 1, true))
    end)

    it("streams the KV cache from as many SMs as decode attention's thread blocks reach (FlashDecoding)", function()
      -- Llama-2-7B at batch 1, context 2048 on an H100: 32 KV heads of 128, 16 blocks of 128 keys.
      -- split_kv: flash-attn's heuristic picks 8 splits, 256 blocks on 132 SMs (src tests: c_decode).
      -- no_split: 32 blocks, 32 of 132 SMs: the KV cache (2*32*32*128*2048*2 = 1,073,741,824 B)
      -- streams at 32/132 of the rate, (132/32 - 1) x its time more: KV / (3.35e12 x mem_frac) x 3.125
      local split = tw.inference.decode { model = "llama-2-7b", hw = "h100_sxm5", context = 2048 }
      local none = tw.inference.decode { model = "llama-2-7b", hw = "h100_sxm5", context = 2048,
                                         engine = { base = "compiled", decode_attention = "no_split" } }
      assert.equal(8, split.kv_splits)
      assert.equal(1, split.kv_eff)
      assert.equal(1, none.kv_splits)
      assert.equal(32 / 132, none.kv_eff)
      assert.equal(1073741824, none.kv_bytes)
      local kv_s = 1073741824 / (3.35e12 * 0.77) -- compiled engine: mem_frac 0.77
      assert.near(kv_s * (132 / 32 - 1), none.tpot_s - split.tpot_s, 1e-9)
      -- batch 16 fills the device without a split (512 blocks >= 0.8 x 264): both the same
      local b16 = tw.inference.decode { model = "llama-2-7b", hw = "h100_sxm5", context = 2048, batch = 16,
                                        engine = { base = "compiled", decode_attention = "no_split" } }
      assert.equal(1, b16.kv_eff)
      -- the ideal engine streams from every SM; llama.cpp's matrix-vector attention too
      local ideal = tw.inference.decode { model = "llama-2-7b", hw = "h100_sxm5", context = 2048, engine = "ideal" }
      assert.equal(1, ideal.kv_eff)
      -- SGLang's and TensorRT-LLM's decode kernels (FlashInfer, XQA) and llama.cpp's keep every SM
      -- streaming; vLLM decodes with FlashAttention's split-KV kernel
      assert.equal(32 / 132, tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 512,
                                                   engine = "vllm" }.kv_eff)
      for _, e in ipairs { "sglang", "trtllm", "llama.cpp" } do
        assert.equal(1, tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 512, engine = e }.kv_eff)
      end
      -- a GQA group's queries share one block: Llama-3-8B (8 KV heads) at batch 1, context 512 has 8 blocks
      -- and 4 key blocks, so at most 4 splits: 32 blocks, 32/132 of the SMs even with FlashDecoding
      local gqa = tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 512 }
      assert.equal(4, gqa.kv_splits)
      assert.equal(32, gqa.kv_blocks)
      assert.equal(32 / 132, gqa.kv_eff)
      -- without a split (FlashAttention before 2.2) a block per query head: 32 blocks, one split
      local old = tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 8192,
                                        engine = { base = "compiled", decode_attention = "no_split" } }
      assert.equal(1, old.kv_splits)
      assert.equal(32, old.kv_blocks)
    end)

    it("streams each lone XQA block at its own rate, not a 1/SM share (TensorRT-LLM 0.8 - 0.11)", function()
      -- Llama-3-8B at batch 1 on an H100, xqa: one block per sequence and KV head, 8 blocks, no split.
      -- A lone block streams 14.4 elements a clock: 14.4 x 1.83e9 x 2 B = 52.704 GB/s; over the KV
      -- rate 3.35e12 x 0.77 (compiled mem_frac) that is 0.0204312..., x 8 blocks = 0.16345 of the chip
      -- (a 1/SM share would give 8/132 = 0.0606)
      local price = require "tilewave.cost.price"
      local share = 14.4 * 1.83e9 * 2 / (3.35e12 * 0.77)
      assert.near(share, price.lone_block_share(1.83e9, 2, 3.35e12 * 0.77), 1e-15)
      local eff, splits, blocks = price.decode_kv_eff("xqa", 132, 1, 8, 32, 128, 7000, share)
      assert.are.same({ 1, 8 }, { splits, blocks })
      assert.near(8 * share, eff, 1e-15)
      -- the other modes keep the 1/SM share; enough lone blocks reach the whole chip
      assert.equal(32 / 132, (price.decode_kv_eff("no_split", 132, 1, 8, 32, 128, 7000, share)))
      assert.equal(1, (price.decode_kv_eff("xqa", 132, 1, 8, 32, 128, 7000, 0.2)))
      local d = tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 7000,
                                      engine = { base = "compiled", decode_attention = "xqa" } }
      assert.near(8 * share, d.kv_eff, 1e-12)
      -- the release that runs it, and the one after (multi-block mode on from 0.12)
      assert.near(d.kv_eff, tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 7000,
                                                  engine = "trtllm@0.10" }.kv_eff, 1e-12)
      assert.equal(1, tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 7000,
                                            engine = "trtllm@0.12" }.kv_eff)
    end)

    it("reads a GQA group's KV cache once per query head under TensorRT-LLM's masked MHA (mmha)", function()
      -- Llama-3-8B at batch 16, context 2048 on an H100: 32 query heads share 8 KV heads (groups of
      -- 4); 16 x 32 = 512 blocks fill the 132 SMs (>= 0.8 x 264 slots), so only the reads differ.
      -- KV cache: 2 x 32 layers x 8 heads x 128 x 2 B = 131,072 B a token, x 2048 x 16 = 4,294,967,296 B,
      -- streamed 4 times: 3 x its time more than once, KV / (3.35e12 x 0.77) x 3
      local function at(mode, model)
        return tw.inference.decode { model = model or "llama-3-8b", hw = "h100_sxm5", context = 2048, batch = 16,
                                     engine = { base = "compiled", decode_attention = mode } }
      end
      local once, mmha = at("full"), at("mmha")
      assert.equal(4294967296, mmha.kv_bytes)
      assert.equal(4, mmha.kv_reads)
      assert.equal(1, once.kv_reads)
      assert.equal(1, mmha.kv_eff)
      assert.equal(512, mmha.kv_blocks)
      assert.equal("memory", mmha.bound)
      assert.near(4294967296 / (3.35e12 * 0.77) * 3, mmha.tpot_s - once.tpot_s, 1e-9)
      -- the bytes moved are the cache's, not the re-reads': the ceiling stays the cache's
      assert.equal(once.bytes, mmha.bytes)
      -- multi-head attention (Llama-2-7B: 32 KV heads for 32 query heads) reads it once: as no_split
      local mha, ns = at("mmha", "llama-2-7b"), at("no_split", "llama-2-7b")
      assert.equal(1, mha.kv_reads)
      assert.equal(ns.tpot_s, mha.tpot_s)
      -- the profile of releases 0.5-0.7 runs it; 0.8 and later (XQA) read the cache once
      assert.equal(4, tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 512,
                                            engine = "trtllm@0.5" }.kv_reads)
      assert.equal(1, tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 512,
                                            engine = "trtllm@0.x" }.kv_reads)
    end)
  end)

  describe("memory()", function()
    it("fits exactly at the device's memory and not one byte over", function()
      local m = tw.inference.memory { model = SMALL, hw = "h100_sxm5", context = 100, batch = 3, workspace_bytes = 0 }
      local exact = tw.inference.memory { model = SMALL, hw = "h100_sxm5", context = 100, batch = 3,
                                          workspace_bytes = 0, memory_bytes = m.total_bytes }
      assert.is_true(exact.fits)
      assert.equal(3, exact.max_batch)
      assert.equal(100, exact.max_context)
      local over = tw.inference.memory { model = SMALL, hw = "h100_sxm5", context = 100, batch = 3,
                                         workspace_bytes = 0, memory_bytes = m.total_bytes - 1 }
      assert.is_false(over.fits)
      assert.equal(2, over.max_batch)
      -- KV per token: 2 * 2 layers * 2 heads * 64 * 2 B = 1024 B
      assert.equal(1024, m.kv_bytes_per_token)
      assert.equal(1024 * 100 * 3, m.kv_bytes)
    end)

    it("keeps max_context inside the model unless allow_long_context", function()
      -- Llama-3-8B on an 80 GB H100 has room for ~480k tokens of KV cache, but was trained on 8192
      local m = tw.inference.memory { model = "llama-3-8b", hw = "h100_sxm5", context = 1024 }
      assert.equal(8192, m.max_context)
      assert.equal("max_position_embeddings", m.max_context_limit)
      assert.equal("integer", math.type(m.max_context))
      assert.equal("integer", math.type(m.max_batch))
      local long = tw.inference.memory { model = "llama-3-8b", hw = "h100_sxm5", context = 1024, allow_long_context = true }
      assert.is_true(long.max_context > 400000)
      assert.is_true(long.long_context)
      assert.equal("memory", long.max_context_limit)
      -- nothing fits: 0 sequences and 0 tokens, never negative
      local none = tw.inference.memory { model = "llama-2-70b", hw = "l4", context = 1024 }
      assert.equal(0, none.max_batch)
      assert.equal(0, none.max_context)
    end)

    it("says Llama-2-70B in bf16 does not fit one 80 GB H100 but fits two", function()
      assert.is_false(tw.inference.memory { model = "llama-2-70b", hw = "h100_sxm5", context = 4096 }.fits)
      assert.is_true(tw.inference.memory { model = "llama-2-70b", hw = "h100_sxm5", context = 4096, t = 2 }.fits)
    end)

    it("asks for memory_bytes on a device whose spec has none", function()
      assert.equal("memory.memory_bytes: apple_m2_ultra has no memory size in its spec; pass memory_bytes",
        err_of(tw.inference.memory, { model = "llama-2-7b", hw = "apple_m2_ultra", context = 512 }))
      assert.is_true(tw.inference.memory { model = "llama-2-7b", hw = "apple_m2_ultra", context = 512,
                                           memory_bytes = 192e9 }.fits)
    end)
  end)

  describe("prefill()", function()
    it("is the FlashAttention forward pass of the prompt", function()
      local p = tw.inference.prefill { model = "llama-3.1-8b", hw = "h100_sxm5", prompt = 2048 }
      local e = tw.transformer.estimate("llama-3.1-8b", "h100_sxm5", { b = 1, s = 2048, attention = "flash" })
      assert.equal(e.time_s, p.ttft_s)
      assert.is_true(p.mfu > 0.3 and p.mfu < 1)
    end)
  end)

  describe("sweep()", function()
    it("raises aggregate throughput with batch and finds where decode turns compute-bound", function()
      -- short context, so that the KV cache (512 KiB per token for this MHA model) stays small
      local s = tw.inference.sweep { model = "llama-2-7b", hw = "h100_sxm5", context = 16,
                                     batch = { 1, 16, 64, 256, 512, 1024 } }
      for i = 2, #s.rows do
        assert.is_true(s.rows[i].aggregate_tokens_per_s > s.rows[i - 1].aggregate_tokens_per_s)
      end
      assert.equal("memory", s.rows[1].bound)
      assert.is_not_nil(s.compute_bound_batch)
      assert.is_true(s.compute_bound_batch >= 256)
      -- intensity ~ batch FLOP/B while weights dominate the bytes: the ridge (~326 FLOP/B) near b = 512
      assert.equal(512, s.ridge_batch)
    end)
  end)

  it("stores FP4 weights with their block scales: MXFP4 4.25 bits, NVFP4 4.5 bits", function()
    -- OCP MX v1.0: 32 E2M1 elements + one E8M0 scale = 4 + 8/32 bits; NVIDIA NVFP4: 16 elements +
    -- one E4M3 scale = 4 + 8/16 bits. The same bits as gpt-fast's int4 with groups of 128 and 64
    -- (4 + 32/g), and the same dequantization work: the weight bytes agree exactly
    local function d(wdt, group)
      return tw.inference.decode { model = "llama-3-8b", hw = "b200", context = 2048, weight_dtype = wdt, group = group }
    end
    local mx, nv = d("mxfp4"), d("nvfp4")
    assert.same({ 4.25, 4.5 }, { mx.bits_per_weight, nv.bits_per_weight })
    assert.equal(d("int4", 128).weight_bytes, mx.weight_bytes)
    assert.equal(d("int4", 64).weight_bytes, nv.weight_bytes)
    -- both weight-only on an H100 (no FP4 tensor cores): NVFP4's extra scale bytes make it slower
    local function h(wdt) return tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", context = 2048,
                                                       weight_dtype = wdt } end
    assert.is_true(h("nvfp4").tpot_s > h("mxfp4").tpot_s)
  end)
end)

describe("one memory figure per GPU (issue 50)", function()
  it("is what NVML reports wherever the spec states it, in decode, serving and training alike", function()
    local tw = require "tilewave"
    local steps = require "tilewave.serve.steps"
    -- an H100 80GB reports 81,559 MiB = 85,520,809,984 bytes (hw/h100_sxm5.lua usable_memory_bytes)
    local spec = tw.hw.load("h100_sxm5")
    assert.equal(85520809984, tw.hw.memory(spec))
    assert.equal(85520809984, tw.inference.memory { model = "llama-3-8b", hw = "h100_sxm5", context = 2048 }.memory_bytes)
    local c = tw.models.load("llama-3-8b")
    local kv = steps.kv_capacity(c, spec, { t = 1 }, require("tilewave.serve.schedulers").resolve(nil, "vllm", spec, "s"))
    assert.equal(85520809984, kv.memory_bytes)
    assert.equal(85520809984, tw.training.step { model = "llama-3-8b", cluster = "dgx_h100", nodes = 1,
      global_batch = 8, s = 2048, t = 8 }.memory_bytes)
    -- a spec without it keeps the datasheet's
    assert.equal(tw.hw.load("h100_pcie").memory_bytes, tw.hw.memory(tw.hw.load("h100_pcie")))
  end)
end)

describe("NVFP4 W4A4 on FP4 tensor cores (issue 53 item 5)", function()
  local steps = require "tilewave.serve.steps"
  local price = require "tilewave.cost.price"

  it("computes in fp4 without ALU dequantization where the device has an FP4 peak, weight-only elsewhere", function()
    local b = tw.inference.decode { model = "llama-3.1-8b", hw = "b200", batch = 64, context = 2048, weight_dtype = "nvfp4" }
    assert.equal("fp4", b.compute_dtype)
    assert.equal(0, b.dequant_s)
    local h = tw.inference.decode { model = "llama-3.1-8b", hw = "h100_sxm5", batch = 64, context = 2048,
                                    weight_dtype = "nvfp4" }
    assert.equal("bf16", h.compute_dtype)
    assert.is_true(h.dequant_s > 0)
    -- 4 + 8/16 = 4.5 bits per weight either way (tilewave.data.quant)
    assert.equal(b.bits_per_weight, h.bits_per_weight)
    -- on the B200 NVFP4 streams fewer bytes than FP8 and no longer pays the dequantization: faster
    local f = tw.inference.decode { model = "llama-3.1-8b", hw = "b200", batch = 64, context = 2048, weight_dtype = "fp8" }
    assert.is_true(b.tpot_s < f.tpot_s)
    assert.equal("fp4", steps.prefill_dtype(tw.hw.resolve("b200"), "nvfp4"))
    assert.equal("bf16", steps.prefill_dtype(tw.hw.resolve("h100_sxm5"), "nvfp4"))
    assert.equal("bf16", steps.prefill_dtype(tw.hw.resolve("b200"), "mxfp4")) -- weight-only: no tensor_core
  end)

  it("runs an FP4 pass's attention at the FP8 rate, its GEMMs at the FP4 rate", function()
    local spec = tw.hw.resolve("b200")
    local c4, c8 = price.context(spec, "fp4", "compiled"), price.context(spec, "fp8", "compiled")
    assert.equal(spec.peak_flops.fp8, c4.attn_peak)
    assert.equal(2 * spec.peak_flops.fp8, c4.peak) -- 9000 against 4500 TFLOP/s dense (hw/b200.lua)
    local x = tw.transformer.estimate("llama-3.1-8b", "b200", { b = 1, s = 4096, dtype = "fp4", attention = "flash" })
    for _, op in ipairs(x.ops) do
      if op.kind == "attention" then
        -- the fused kernel's compute time: the same in an fp4 and an fp8 context (both at the fp8 rate)
        assert.equal(price.op(c8, op).compute_s, price.op(c4, op).compute_s)
      end
    end
  end)

  it("decode_tpots gives decode's serial step at each context, bit for bit, and names a bad context", function()
    local inf = require "tilewave.cost.inference"
    for _, o in ipairs {
      { model = "llama-3.1-8b", hw = "h100_sxm5", batch = 24 },
      { model = "llama-3.1-70b", hw = "h100_sxm5", batch = 8, t = 4, weight_dtype = "fp8" },
      { model = "mixtral-8x7b", hw = "h100_sxm5", batch = 16, t = 2 },
      { model = "llama-3.1-8b", hw = "h100_sxm5", batch = 8, engine = "sglang" },
    } do
      local contexts = { 1, 100, 1000, 8000 }
      local row = inf.decode_tpots(o, contexts)
      for i, cx in ipairs(contexts) do
        local q = {}
        for k, v in pairs(o) do q[k] = v end
        q.context = cx
        local d = inf.decode(q)
        -- a serving engine's floor of its kernels in sequence is the serving core's to apply
        if d.bound == "kernels" then assert.is_true(row[i] <= d.serial_s) else assert.are.equal(d.serial_s, row[i]) end
        -- without an overlapped scheduler the serial step is the TPOT
        if not o.engine then assert.are.equal(d.tpot_s, row[i]) end
      end
    end
    -- SGLang >= 0.4 overlaps 0.45 of its host work (tilewave.cost.engine_versions OVERLAP) with the
    -- GPU's step: host H = token_host_s 1 ms + seq_host_s 45 us x 8 = 1.36 ms, so the TPOT is the
    -- serial step less 0.45 x 1.36 ms = 0.612 ms (the GPU's part is far above H: no floor)
    local d = inf.decode { model = "llama-3.1-8b", hw = "h100_sxm5", batch = 8, context = 1000, engine = "sglang" }
    assert.near(1.36e-3, d.host_s, 1e-12)
    assert.near(d.serial_s - 0.612e-3, d.tpot_s, 1e-12)
    assert.near(0.612e-3, d.host_hidden_s, 1e-12)
    local ok, err = pcall(inf.decode_tpots, { model = "llama-3.1-8b", hw = "h100_sxm5" }, { 100, -3 })
    assert.is_false(ok)
    assert.are.equal("decode.context: expected positive integer, got -3", err)
  end)
end)
