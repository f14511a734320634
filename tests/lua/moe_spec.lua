-- busted specs: Mistral, Qwen2 and Mixtral (issue 16): presets, Hugging Face configs,
-- exact parameter counts, mixture-of-experts ops and decode.
-- Counts: ../shared/reference/model_configs.md §6 and §6b (worked out there from the configs).
local tw = require "tilewave"
local process = dofile("tests/lua/helpers/process.lua")
local HF = "tests/lua/fixtures/hf/"

describe("Mistral, Qwen2 and Mixtral", function()
  it("count parameters exactly", function()
    local p = tw.params("mistral-7b")
    assert.equal(7241732096, p.total)
    assert.equal(p.total, p.active)
    p = tw.params("qwen2.5-7b") -- Q, K, V biases (28 + 2*4) * 128 = 4608 per layer
    assert.equal(7615616512, p.total)
    assert.equal(6525621760, p.non_embedding)
    p = tw.params("mixtral-8x7b")
    assert.equal(46702792704, p.total)
    assert.equal(12879925248, p.active)
    -- Mixtral 8x22B by hand: a layer is attention 2 x 6144^2 + 2 x 6144 x 1024 = 88,080,384, 8 experts of
    -- 3 x 6144 x 16384 = 2,415,919,104, the router 6144 x 8 and two norms 2 x 6144; 56 of them, two
    -- 32000 x 6144 embeddings and the final norm
    p = tw.params("mixtral-8x22b")
    assert.equal(56 * (88080384 + 2415919104 + 49152 + 12288) + 2 * 32000 * 6144 + 6144, p.total)
    assert.equal(140620634112, p.total)
    assert.equal(56 * (88080384 + 2 * 301989888 + 49152 + 12288) + 2 * 32000 * 6144 + 6144, p.active)
  end)

  it("load each model type from its config.json, with the same counts as the presets", function()
    for _, x in ipairs { { "mistral-7b", 7241732096 }, { "qwen2.5-7b", 7615616512 }, { "mixtral-8x7b", 46702792704 } } do
      local c = assert(tw.models.from_hf_config(HF .. x[1] .. ".json"))
      assert.equal(x[2], tw.params(c).total, x[1])
    end
    local m = assert(tw.models.from_hf_config(HF .. "mistral-7b.json"))
    assert.equal(4096, m.sliding_window)
    local q = assert(tw.models.from_hf_config(HF .. "qwen2.5-7b.json"))
    assert.is_true(q.attention_bias)
    assert.is_nil(q.sliding_window) -- use_sliding_window is false
    local x = assert(tw.models.from_hf_config(HF .. "mixtral-8x7b.json"))
    assert.equal(8, x.num_local_experts)
    assert.equal(2, x.num_experts_per_tok)
    assert.is_nil(x.sliding_window) -- null in the config
  end)

  it("refuse experts on a dense type and list the supported types", function()
    local ok, err = pcall(tw.models.from_hf_config, HF .. "llama-with-experts.json")
    assert.is_false(ok)
    assert.truthy(err:find("num_local_experts: a mixture-of-experts field on model_type 'llama'", 1, true))
    local c, msg = tw.models.from_hf_config(HF .. "unknown-type.json")
    assert.is_nil(c)
    assert.truthy(msg:find("model_type: expected one of deepseek_v2, deepseek_v3, gemma2, gemma3, gemma3_text, gpt_neox, gpt_oss, llama, llama4, llama4_text, mistral, mixtral, "
      .. "modernbert, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, got string 'jamba'", 1, true))
    assert.has_error(function()
      tw.models.define { family = "mistral", hidden_size = 64, num_attention_heads = 4, num_hidden_layers = 1,
                         intermediate_size = 128, vocab_size = 100, num_local_experts = 2, num_experts_per_tok = 3 }
    end, "model.num_experts_per_tok: expected at most num_local_experts 2, got 3")
    local ok2, err2 = pcall(tw.models.define, { family = "llama", hidden_size = 64, num_attention_heads = 4,
      num_hidden_layers = 1, intermediate_size = 128, vocab_size = 100, num_local_experts = 2 })
    assert.is_false(ok2) -- the dense family does not understand experts
    assert.truthy(err2:find("unknown field 'num_local_experts' for family llama", 1, true))
  end)

  it("take a config.json wherever a model id goes (API and CLI)", function()
    local d = tw.inference.decode { model = HF .. "mixtral-8x7b.json", hw = "h200_sxm", context = 512 }
    assert.is_true(d.tpot_s > 0)
    local code, out, err = process.run("decode " .. HF .. "qwen2.5-7b.json --hw h100_sxm5 --context 1024")
    assert.equal(0, code, err)
    assert.truthy(out:find("decode qwen2.5-7b on h100_sxm5", 1, true))
    code, out, err = process.run("report --models " .. HF .. "mistral-7b.json --format csv")
    assert.equal(0, code, err)
    assert.truthy(out:find("\nmistral-7b,mistral,", 1, true))
  end)

  it("route tokens to experts: a grouped GEMM whose M is tokens * k / E", function()
    -- 64 tokens, 2 of 8 experts each: 16 tokens per expert, so the chosen tile's rows are
    -- mostly padding (tile quantization of the expert GEMMs)
    local e = tw.transformer.estimate("mixtral-8x7b", "h100_sxm5", { b = 1, s = 64 })
    local gate
    for _, op in ipairs(e.ops) do if op.role == "mlp_gate" then gate = op end end
    assert.equal(16, gate.m)
    assert.equal(8, gate.batch)
    assert.equal(14336, gate.n)
    assert.equal(8, gate.experts)
    assert.is_true(gate.tile_eff <= 0.125) -- at most 16 useful rows of a tile of 128 or more
    local big = tw.transformer.estimate("mixtral-8x7b", "h100_sxm5", { b = 4, s = 2048 })
    for _, op in ipairs(big.ops) do if op.role == "mlp_gate" then gate = op end end
    assert.equal(2048, gate.m) -- 8192 tokens * 2 / 8
    assert.is_true(gate.tile_eff > 0.99)
  end)

  it("decode Mixtral: about the active weights at batch 1, most experts at batch 64", function()
    local a = tw.params("mixtral-8x7b").active
    local d1 = tw.inference.decode { model = "mixtral-8x7b", hw = "h200_sxm", context = 2048, batch = 1 }
    local d64 = tw.inference.decode { model = "mixtral-8x7b", hw = "h200_sxm", context = 2048, batch = 64 }
    -- 8 * (1 - (6/8)^1) = 2 experts per layer at batch 1; 8 * (1 - 0.75^64) ~ 8 at batch 64
    local r = d1.weight_bytes / (2 * a)
    assert.is_true(r >= 0.9 and r <= 1.0, tostring(r))
    assert.is_true(d64.weight_bytes > 2.5 * d1.weight_bytes)
    assert.near(8 * (1 - 0.75 ^ 64), require("tilewave.data.quant").experts_touched(8, 2, 64), 1e-12)
    -- every expert is resident: ~2 bytes per parameter of the 46.7B
    local m = tw.inference.memory { model = "mixtral-8x7b", hw = "h200_sxm", context = 2048 }
    assert.is_true(m.weight_bytes > 2 * 46.4e9 and m.weight_bytes < 2 * 46.8e9)
  end)

  it("cap Mistral's KV cache at its sliding window", function()
    local d4 = tw.inference.decode { model = "mistral-7b", hw = "h100_sxm5", context = 4096 }
    local d16 = tw.inference.decode { model = "mistral-7b", hw = "h100_sxm5", context = 16384 }
    -- 2 * 32 layers * 8 KV heads * 128 * 2 bytes = 131,072 B per token, at most 4096 tokens
    assert.equal(131072 * 4096, d4.kv_bytes)
    assert.equal(131072 * 4096, d16.kv_bytes)
    local m = tw.inference.memory { model = "mistral-7b", hw = "h100_sxm5", context = 16384 }
    assert.equal(131072 * 4096, m.kv_bytes)
  end)

  it("warn when a micro-batch gives each expert less than a tile of rows, with the cost", function()
    -- b = 1, s = 64: 64 * 2 / 8 = 16 tokens per expert < 128; b = 8 gives 128
    local v
    for _, x in ipairs(tw.rules.check("mixtral-8x7b", { b = 1, s = 64 }, "h100_sxm5")) do
      if x.rule == "moe_tokens_per_expert" then v = x end
    end
    assert.is_not_nil(v)
    assert.equal(16, v.value)
    assert.same({ b = 8 }, v.fix)
    assert.equal("b 1 -> 8 (128 tokens per expert)", v.fix_text)
    local t1 = tw.transformer.estimate("mixtral-8x7b", "h100_sxm5", { b = 1, s = 64 })
    local t8 = tw.transformer.estimate("mixtral-8x7b", "h100_sxm5", { b = 8, s = 64 })
    assert.near((t1.time_s / 64) / (t8.time_s / 512), v.speedup, 1e-9)
    assert.is_true(v.speedup > 2)
    for _, x in ipairs(tw.rules.check("mixtral-8x7b", { b = 4, s = 2048 }, "h100_sxm5")) do
      assert.are_not.equal("moe_tokens_per_expert", x.rule)
    end
  end)

  describe("DeepSeek-V3", function()
    it("counts 671B total and 37B active without the MTP module", function()
      -- model_configs.md §6b; worked out in lua/tilewave/data/families/deepseek.lua
      local p = tw.params("deepseek-v3")
      assert.equal(671026419200, p.total)
      assert.equal(37552297472, p.active)
      assert.is_true(math.abs(p.total / 671e9 - 1) < 0.01)
      assert.is_true(math.abs(p.active / 37e9 - 1) < 0.03)
      local c = assert(tw.models.from_hf_config(HF .. "deepseek-v3.json"))
      assert.equal(671026419200, tw.params(c).total)
    end)

    it("caches the 576-wide latent per token per layer", function()
      -- (kv_lora 512 + rope 64) * 61 layers * 2 bytes = 70,272 B per token, against
      -- 2 * 128 * 128 * 61 * 2 = 3,997,696 B for plain MHA
      local m = tw.inference.memory { model = "deepseek-v3", hw = "h200_sxm", context = 4096, weight_dtype = "fp8" }
      assert.equal(70272, m.kv_bytes_per_token)
      assert.is_false(m.fits) -- 671 GB of fp8 weights on one 141 GB device
      local d = tw.inference.decode { model = "deepseek-v3", hw = "h200_sxm", context = 4096, weight_dtype = "fp8" }
      assert.equal(70272 * 4096, d.kv_bytes)
      -- batch 1 reads 8 of 256 experts per MoE layer: about the 37.6B active parameters at 1 byte
      assert.is_true(d.weight_bytes > 0.95 * 37.55e9 and d.weight_bytes < 1.0 * 37.55e9, tostring(d.weight_bytes))
    end)

    it("prices MLA's projections and the dense, routed and shared MLPs", function()
      local e = tw.transformer.estimate("deepseek-v3", "h200_sxm", { b = 1, s = 4096 })
      local by = {}
      for _, op in ipairs(e.ops) do by[op.name] = op end
      assert.equal(1536, by.mla_q_a_proj.n)
      assert.equal(128 * 192, by.mla_q_b_proj.n)
      assert.equal(576, by.mla_kv_a_proj_with_mqa.n)
      assert.equal(128 * 256, by.mla_kv_b_proj.n)
      assert.equal(3, by.mlp_gate.count)               -- the first 3 layers are dense
      assert.equal(58, by.expert_mlp_gate.count)       -- the other 58 route
      assert.equal(4096 * 8 // 256, by.expert_mlp_gate.m)  -- 128 tokens per expert
      assert.equal(2048, by.shared_expert_gate.n)
    end)
  end)

  it("spread experts over ep ranks, paying two all-to-alls per MoE layer", function()
    -- all-to-all by pairwise exchange (Thakur et al. 2005): (p-1) alpha + (p-1)/p n / beta
    local r = tw.core.collective { kind = "alltoall", bytes = 1e9, group = 8, link_bw = 1e11, latency_s = 5e-6 }
    assert.near(7 * 5e-6 + 7 / 8 * 1e9 / 1e11, r.time_s, 1e-15)
    local one = tw.inference.decode_step { model = "deepseek-v3", hw = "h200_sxm", context = 4096, batch = 64,
                                      weight_dtype = "fp8" }
    local ep8 = tw.inference.decode { model = "deepseek-v3", hw = "h200_sxm", context = 4096, batch = 64,
                                      weight_dtype = "fp8", ep = 8 }
    assert.equal(0, one.comm_s)
    assert.is_true(ep8.comm_s > 0)
    assert.is_true(ep8.weight_bytes < one.weight_bytes / 4) -- the experts, most of the bytes, split 8 ways
    assert.equal(one.kv_bytes / 8, ep8.kv_bytes)               -- 8 of the 64 sequences per rank
    assert.is_true(ep8.aggregate_tokens_per_s > one.aggregate_tokens_per_s)
    local m = tw.inference.memory { model = "deepseek-v3", hw = "h200_sxm", context = 4096, weight_dtype = "fp8",
                                    ep = 8 }
    assert.is_true(m.fits) -- 1/8 of the experts per 141 GB device
    assert.equal("decode.ep: llama-2-7b has no experts to spread (expected ep = 1)",
      select(2, pcall(tw.inference.decode, { model = "llama-2-7b", hw = "h100_sxm5", context = 64, ep = 2 })))
    assert.equal("decode.ep: expected a divisor of the 8 experts, got 3",
      select(2, pcall(tw.inference.decode, { model = "mixtral-8x7b", hw = "h100_sxm5", context = 64, ep = 3, batch = 6 })))
    local code, out, err = process.run("decode mixtral-8x7b --hw h100_sxm5 --context 512 --batch 16 --ep 8")
    assert.equal(0, code, err)
    assert.truthy(out:find("decode mixtral-8x7b on h100_sxm5", 1, true))
  end)

  it("read qwen2_moe and qwen3_moe configs: routed, shared and gated experts counted by hand", function()
    -- Qwen3-MoE fixture (h 2048, L 48, a 32, kv 4, head_dim 128, 128 experts of 768, 8 per token,
    -- v 151936, untied): per layer attention 2048*40*128 + 32*128*2048 = 18,874,368, q/k norms 256,
    -- RMSNorms 4,096, router 262,144, experts 128 * 3*2048*768 = 603,979,776 -> 623,120,640;
    -- x48 + 2,048 + 2 * 151936 * 2048 = 30,532,122,624; active with 8 experts 3,353,032,704
    local c = assert(tw.models.from_hf_config(HF .. "qwen3-moe-30b-a3b.json"))
    local p = tw.params(c)
    assert.equal(30532122624, p.total)
    assert.equal(3353032704, p.active)
    assert.equal(128, c.head_dim) -- not h/a = 64
    -- Qwen2-MoE fixture (h 1024, L 2, a = kv = 8, 16 experts of 512, 4 per token, shared 2048, v 1000):
    -- per layer 4,194,304 + QKV bias 3,072 + norms 2,048 + router 16,384 + shared 6,291,456 + gate
    -- 1,024 + experts 25,165,824 = 35,674,112; x2 + 1,024 + 2,048,000 = 73,397,248; active 35,648,512
    local q = assert(tw.models.from_hf_config(HF .. "qwen2-moe-small.json"))
    p = tw.params(q)
    assert.equal(73397248, p.total)
    assert.equal(35648512, p.active)
    local e = tw.transformer.estimate(q, "h100_sxm5", { b = 1, s = 64 })
    local names = {}
    for _, op in ipairs(e.ops) do names[op.name] = op end
    assert.equal(2048, names.shared_expert_gate.n)
    assert.equal(64 * 4 // 16, names.expert_mlp_gate.m) -- 16 tokens per expert
  end)

  it("check expert widths and MLA dimensions against the alignment rule", function()
    assert.same({}, (function()
      local out = {}
      for _, v in ipairs(tw.rules.check("deepseek-v3", { b = 4, s = 2048 }, "h200_sxm")) do out[#out + 1] = v.rule end
      return out
    end)())
    local c = tw.models.load("mixtral-8x7b")
    c.intermediate_size = 14300 -- 14300 = 4 * 3575: 8-byte rows in bf16
    local v
    for _, x in ipairs(tw.rules.check(c, { b = 4, s = 2048 }, "h100_sxm5")) do
      if x.rule == "expert_width_64" then v = x end
    end
    assert.same({ intermediate_size = 14336 }, v.fix)
    assert.is_true(v.speedup > 1)
    local d = tw.models.load("deepseek-v3")
    d.kv_lora_rank = 500
    local found
    for _, x in ipairs(tw.rules.check(d, { b = 1, s = 1024 }, "h200_sxm")) do
      if x.rule == "mla_dims_64" and x.field == "kv_lora_rank" then found = x end
    end
    assert.equal("kv_lora_rank 500 -> 512", found.fix_text)
  end)

  it("train with expert parallelism: 1/ep of the expert weights, all-to-alls, smaller expert all-reduce", function()
    local o = { model = "mixtral-8x7b", cluster = "dgx_h100", nodes = 8, global_batch = 512, t = 1, p = 4,
                micro_batch = 1, checkpointing = "full", zero = 1 }
    local one = tw.training.step(o)
    o.ep = 8
    local ep8 = tw.training.step(o)
    local P = tw.params("mixtral-8x7b")
    -- expert parameters: (total - active) * E / (E - k) = 45.1B; a stage of p = 4 holds 8 of the
    -- 32 layers and one v x h matrix (embedding or LM head), 2 bytes each
    local experts = (P.total - P.active) * 8 / 6
    local dense = (P.non_embedding - 4096 - experts) * 8 / 32 + 32000 * 4096
    assert.near(2 * dense + 2 * experts * 8 / 32 / 8, ep8.memory.weights, 1)
    assert.near(2 * dense + 2 * experts * 8 / 32, one.memory.weights, 1)
    assert.equal(0, one.breakdown.ep_s)
    assert.is_true(ep8.breakdown.ep_s > 0)
    assert.is_true(ep8.breakdown.dp_s < one.breakdown.dp_s) -- experts reduce over d/ep = 2 ranks
    assert.equal(8, ep8.config.ep)
    local ok, err = pcall(tw.training.step, { model = "llama-2-7b", cluster = "dgx_h100", global_batch = 8, ep = 2 })
    assert.is_false(ok)
    assert.equal("training.ep: llama-2-7b has no experts to spread (expected ep = 1)", err)
  end)

  it("price routing imbalance at the busiest expert", function()
    local u = tw.transformer.estimate("mixtral-8x7b", "h100_sxm5", { b = 1, s = 64 })
    local i = tw.transformer.estimate("mixtral-8x7b", "h100_sxm5", { b = 1, s = 64, imbalance = 2 })
    local function gate(e) for _, op in ipairs(e.ops) do if op.role == "mlp_gate" then return op end end end
    assert.equal(16, gate(u).m)
    assert.equal(32, gate(i).m) -- twice the uniform 16 tokens
    assert.has_error(function() tw.transformer.estimate("mixtral-8x7b", "h100_sxm5", { imbalance = 0.5 }) end,
      "transformer.estimate.imbalance: expected a number >= 1 (busiest expert over the uniform share), got 0.5")
  end)

  it("load a config.json of every supported type through the CLI", function()
    local cases = { ["mistral-7b.json"] = "7,241,732,096", ["qwen2.5-7b.json"] = "7,615,616,512",
                    ["mixtral-8x7b.json"] = "46,702,792,704", ["deepseek-v3.json"] = "671,026,419,200",
                    ["qwen3-moe-30b-a3b.json"] = "30,532,122,624", ["qwen2-moe-small.json"] = "73,397,248" }
    for file, total in pairs(cases) do
      local code, out, err = process.run("models " .. HF .. file)
      assert.equal(0, code, file .. ": " .. err)
      assert.truthy(out:find(total, 1, true), file)
    end
  end)
end)

