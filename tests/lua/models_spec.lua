-- busted specs for tilewave.models and the family presets: parameter counts
-- against the published values, validation errors, Hugging Face configs.
local tw = require "tilewave"

-- Published counts (../shared/reference/model_configs.md): Pythia HF model
-- cards "Naming convention and parameter count" (total = embed_in + embed_out
-- + layers; non-embedding excludes both), GPT-NeoX-20B HF card n_parameters,
-- Llama-3.2 1B/3B third-party numel listings (cards: 1.23B / 3.21B),
-- ModernBERT backbone (paper: 149M / 395M; exact = ModernBertModel numel).
local PUBLISHED = {
  { "pythia-14m", 14067712, 1189888 },
  { "pythia-31m", 30494720, 4739072 },
  { "pythia-70m", 70426624, 18915328 },
  { "pythia-160m", 162322944, 85056000 },
  { "pythia-410m", 405334016, 302311424 },
  { "pythia-1b", 1011781632, 805736448 },
  { "pythia-1.4b", 1414647808, 1208602624 },
  { "pythia-2.8b", 2775208960, 2517652480 },
  { "pythia-6.9b", 6857302016, 6444163072 },
  { "pythia-12b", 11846072320, 11327027200 },
  { "gpt-neox-20b", 20554567680 },
  { "llama-3.2-1b", 1235814400 },
  { "llama-3.2-3b", 3212749824 },
  { "modernbert-base", 149014272 },
  { "modernbert-large", 394781696 },
}

-- Rounded published sizes: LLaMA paper Table 2 (6.7B, 13.0B, 32.5B; 65.2B is
-- truncated from 65.29B), Llama-2/3 model cards, GPT-3 Table 2.1.
local ROUNDED = {
  { "llama-7b", 6.7e9, 0.05e9 }, { "llama-13b", 13.0e9, 0.05e9 }, { "llama-33b", 32.5e9, 0.05e9 },
  { "llama-65b", 65.25e9, 0.1e9 }, { "llama-2-70b", 69e9, 0.5e9 }, { "llama-3.1-8b", 8.0e9, 0.05e9 },
  { "llama-3.1-70b", 70.6e9, 0.1e9 }, { "llama-3.1-405b", 405.9e9, 0.1e9 },
  { "gpt3-125m", 125e6, 0.5e6 }, { "gpt3-2.7b", 2.65e9, 0.01e9 }, { "gpt3-175b", 174.6e9, 0.1e9 },
}

describe("tilewave.data.models", function()
  describe("params()", function()
    for _, case in ipairs(PUBLISHED) do
      it("matches the published count of " .. case[1] .. " exactly", function()
        local p = tw.params(case[1])
        assert.equal(case[2], p.total)
        if case[3] then assert.equal(case[3], p.non_embedding) end
      end)
    end
    for _, case in ipairs(ROUNDED) do
      it("rounds to the published size of " .. case[1], function()
        assert.near(case[2], tw.params(case[1]).total, case[3])
      end)
    end

    it("counts the ModernBERT MLM head separately (149,655,232 with head)", function()
      local p = tw.params("modernbert-base")
      assert.equal(149655232, p.total + p.mlm_head)
    end)

    it("counts the GENIAC config by hand: 275,261,440 per layer, 12,035,445,760 untied", function()
      -- attention 5120*5120*2 + 2*5120*1024 = 62,914,560; MLP 3*5120*13824 = 212,336,640; norms 10,240
      local p = tw.params("geniac-12b")
      assert.equal(40 * 275261440 + 5120, p.non_embedding)
      assert.equal(12035445760, p.total)
    end)
  end)

  describe("presets", function()
    it("reproduce the official LLaMA FFN widths from the FeedForward rule", function()
      local ffn = tw.models.families.llama.ffn_width
      assert.equal(11008, ffn(4096, 256))
      assert.equal(13824, ffn(5120, 256))
      assert.equal(28672, ffn(8192, 4096, 1.3))
      assert.equal(14336, ffn(4096, 1024, 1.3))
      assert.equal(53248, ffn(16384, 4096, 1.2))
      assert.equal(8192, ffn(2048, 256, 1.5))
    end)

    it("allocate the padded Pythia vocabularies, not the tokenizer's 50277", function()
      assert.equal(50304, tw.models.load("pythia-2.8b").vocab_size)
      assert.equal(50432, tw.models.load("pythia-6.9b").vocab_size)
      assert.equal(50688, tw.models.load("pythia-12b").vocab_size)
      assert.equal(50432, tw.models.load("gpt-neox-20b").vocab_size)
    end)

    it("carry GQA, tying and the GPT-3 2.7B shape", function()
      local l = tw.models.load("llama-2-70b")
      assert.equal(8, l.num_key_value_heads)
      assert.equal(32, tw.models.load("llama-2-7b").num_key_value_heads)
      assert.is_true(tw.models.load("llama-3.2-1b").tie_word_embeddings)
      assert.is_false(tw.models.load("llama-3.1-8b").tie_word_embeddings)
      local g = tw.models.load("gpt3-2.7b")
      assert.same({ 2560, 32, 80 }, { g.hidden_size, g.num_attention_heads, g.head_dim })
    end)

    it("lists every family's presets, lower-case ids", function()
      local all = tw.models.list()
      -- 36 + mistral-7b, mixtral-8x7b, qwen2.5-7b, qwen3-8b, phi-3-mini, gemma-2-9b, deepseek-v3, gpt-oss-20b,
      -- gpt-oss-120b, gemma-3-1b, llama-4-scout, llama-4-maverick, mixtral-8x22b
      assert.equal(49, #all)
      for _, id in ipairs(all) do assert.equal(id:lower(), id) end
      assert.same({ "modernbert-base", "modernbert-large" }, tw.models.list("modernbert"))
      assert.equal(8, #tw.models.list("gpt3"))
    end)

    it("load returns a fresh copy each time", function()
      local a = tw.models.load("pythia-70m")
      a.vocab_size = 1
      assert.equal(50304, tw.models.load("pythia-70m").vocab_size)
    end)

    it("returns nil and a message for an unknown id: the nearest preset, or a path that is not there", function()
      local c, err = tw.models.load("pythia-3b")
      assert.is_nil(c)
      assert.truthy(err:find("model: unknown model 'pythia-3b' (did you mean 'pythia-1b'?) (known: ", 1, true))
      c, err = tw.models.load("models/qwen3-9b")
      assert.is_nil(c)
      assert.equal("model: models/qwen3-9b: no such file or directory (a preset id, a config.json or a folder "
        .. "holding one)", err)
      assert.truthy(select(2, tw.models.load("./qwen3-9b")):find("no such file or directory", 1, true))
    end)
  end)

  describe("define()", function()
    local function base()
      return { family = "llama", hidden_size = 2560, num_attention_heads = 32, num_key_value_heads = 8,
               num_hidden_layers = 4, intermediate_size = 6912, vocab_size = 32000 }
    end
    local function err_of(changes)
      local c = base()
      for k, v in pairs(changes) do c[k] = v end
      local ok, err = pcall(tw.models.define, c)
      assert.is_false(ok)
      return err
    end

    it("fills defaults: head_dim h/a, kv = a when absent", function()
      local c = base()
      c.num_key_value_heads = nil
      local d = tw.models.define(c)
      assert.equal(80, d.head_dim)
      assert.equal(32, d.num_key_value_heads)
      assert.is_nil(c.head_dim) -- argument untouched
    end)

    it("rejects zero heads", function()
      assert.equal("model.num_attention_heads: expected positive integer, got 0", err_of { num_attention_heads = 0 })
    end)
    it("rejects h not divisible by a", function()
      assert.equal("model.num_attention_heads: expected a divisor of hidden_size 2560, got 33",
        err_of { num_attention_heads = 33 })
    end)
    it("rejects kv heads not dividing the heads", function()
      assert.equal("model.num_key_value_heads: expected a divisor of num_attention_heads 32, got 5",
        err_of { num_key_value_heads = 5 })
    end)
    it("rejects NaN, strings and absurd sizes", function()
      assert.equal("model.hidden_size: expected positive integer, got NaN",
        (err_of { hidden_size = 0 / 0 }):gsub("%-nan", "nan"))
      assert.equal("model.vocab_size: expected positive integer, got string '32000'", err_of { vocab_size = "32000" })
      assert.equal("model.vocab_size: expected at most 16777216, got 1e+15", err_of { vocab_size = 1e15 })
    end)
    it("rejects a missing field, an unknown field and an unknown family", function()
      local c = base()
      c.num_hidden_layers = nil
      local _, missing = pcall(tw.models.define, c)
      assert.equal("model.num_hidden_layers: expected positive integer, got nil", missing)
      assert.truthy(err_of { hidden_sise = 1 }:find("model: unknown field 'hidden_sise' (did you mean 'hidden_size'?) for family llama", 1, true))
      assert.truthy(err_of { family = "mamba" }:find("model.family: expected one of deepseek, gemma2, gemma3, gpt3, gpt_neox, gpt_oss, llama, llama4, mistral, modernbert, phi3, qwen2, qwen3, qwen_moe, got string 'mamba'", 1, true))
    end)
    it("rejects a non-boolean tie_word_embeddings", function()
      assert.equal("model.tie_word_embeddings: expected boolean, got 1", err_of { tie_word_embeddings = 1 })
    end)
  end)

  describe("from_hf_config()", function()
    local function write(text)
      local path = os.tmpname()
      local f = io.open(path, "w")
      f:write(text)
      f:close()
      return path
    end

    it("reads integers in lists as transformers 5 writes them, and names null, 1.5 and rope_parameters", function()
      -- tests/lua/fixtures/hf/llama-4-scout-tf5.json: meta-llama/Llama-4-Scout-17B-16E-Instruct's fields
      -- as save_pretrained writes them (nested text_config, no_rope_layers and layer_types lists,
      -- rope_parameters, dtype): lua-cjson decodes no_rope_layers' 1 as 1.0, which is the integer 1
      local c = assert(tw.models.from_hf_config("tests/lua/fixtures/hf/llama-4-scout-tf5.json"))
      assert.equal("integer", math.type(c.no_rope_layers[1]))
      assert.equal(0, c.no_rope_layers[4])
      assert.equal(tw.params(assert(tw.models.load("llama-4-scout"))).total, tw.params(c).total)
      local function err(text)
        local path = write(text)
        local ok, e = pcall(tw.models.from_hf_config, path)
        os.remove(path)
        assert.is_false(ok)
        return (e:gsub("^.-: ", ""))
      end
      local llama = [["model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_key_value_heads":8,
        "num_hidden_layers":32,"intermediate_size":14336,"vocab_size":128256]]
      assert.equal("no_rope_layers[2]: expected an integer in [0, 1], got 1.5",
        err([[{"model_type":"llama4","text_config":{"model_type":"llama4_text","hidden_size":5120,
          "num_attention_heads":40,"num_key_value_heads":8,"num_hidden_layers":2,"intermediate_size":8192,
          "vocab_size":202048,"num_local_experts":16,"num_experts_per_tok":1,"no_rope_layers":[1,1.5]}}]]))
      assert.equal("rope_parameters.factor: expected a positive number, got -4",
        err("{" .. llama .. [[,"rope_parameters":{"rope_type":"linear","factor":-4.0}}]]))
      -- one object per layer type (transformers 5 for models with sliding layers)
      assert.equal("rope_parameters.sliding_attention.factor: expected a positive number, got 0",
        err("{" .. llama .. [[,"rope_parameters":{"full_attention":{"factor":8},"sliding_attention":{"factor":0}}}]]))
      assert.equal("layer_types[2]: expected sliding_attention or full_attention, got null",
        err([[{"model_type":"gemma3_text","hidden_size":640,"num_attention_heads":4,"num_key_value_heads":1,
          "num_hidden_layers":2,"intermediate_size":2048,"vocab_size":262144,"head_dim":256,"sliding_window":512,
          "layer_types":["sliding_attention",null]}]]))
      local path = write([[{"model_type":"gemma3","text_config":null}]])
      local c3, e3 = tw.models.from_hf_config(path)
      os.remove(path)
      assert.is_nil(c3)
      assert.truthy(e3:find("text_config: expected an object (the text model's config), got null", 1, true))
    end)

    it("takes the checkpoint's weight format from quantization_config as every command's default", function()
      -- openai/gpt-oss-20b config.json (tests/lua/fixtures/hf/gpt-oss-20b-tf5.json): quant_method mxfp4
      local c = assert(tw.models.from_hf_config("tests/lua/fixtures/hf/gpt-oss-20b-tf5.json"))
      assert.equal("mxfp4", c.weight_dtype)
      assert.equal("config.json quantization_config, quant_method mxfp4", c.weight_dtype_source)
      local d = tw.inference.decode { model = c, hw = "h100_sxm5", context = 2048 }
      assert.equal("mxfp4", d.weight_dtype)
      assert.equal(4.25, d.bits_per_weight)
      assert.equal("bf16", tw.inference.decode { model = c, hw = "h100_sxm5", context = 2048, weight_dtype = "bf16" }
        .weight_dtype)
      assert.equal("mxfp4", tw.inference.decode { model = "gpt-oss-20b", hw = "h100_sxm5", context = 2048 }.weight_dtype)
      local function qc(q)
        local path = write([[{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_key_value_heads":8,
          "num_hidden_layers":32,"intermediate_size":14336,"vocab_size":128256,"quantization_config":]] .. q .. "}")
        local ok, r = pcall(tw.models.from_hf_config, path)
        os.remove(path)
        return ok, r
      end
      -- AutoAWQ / GPTQ: 4 bits in groups of 128 (AwqConfig bits, group_size): int4 with groups of 128
      local ok, r = qc([[{"quant_method":"awq","bits":4,"group_size":128,"zero_point":true,"version":"gemm"}]])
      assert.is_true(ok)
      assert.equal("int4", r.weight_dtype)
      assert.equal(128, r.weight_group)
      -- DeepSeek-V3's fine-grained FP8 (FineGrainedFP8Config) and llm-compressor's FP8
      ok, r = qc([[{"quant_method":"fp8","fmt":"e4m3","activation_scheme":"dynamic","weight_block_size":[128,128]}]])
      assert.equal("fp8", r.weight_dtype)
      ok, r = qc([[{"quant_method":"compressed-tensors","config_groups":{"group_0":{"weights":{"num_bits":8,
        "type":"float","strategy":"channel"}}}}]])
      assert.equal("fp8", r.weight_dtype)
      -- a method tilewave does not price is named, never priced as bf16
      ok, r = qc([[{"quant_method":"hqq","nbits":3}]])
      assert.is_false(ok)
      assert.truthy(r:find("quantization_config: quant_method string 'hqq' is not a weight format tilewave prices", 1,
        true), r)
    end)

    it("maps a Llama config.json straight in, ignoring fields it does not use", function()
      -- meta-llama/Llama-3.2-1B config.json (fields as published)
      local path = write([[{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":2048,
        "intermediate_size":8192,"num_attention_heads":32,"num_hidden_layers":16,"num_key_value_heads":8,
        "vocab_size":128256,"tie_word_embeddings":true,"rope_theta":500000.0,"rms_norm_eps":1e-05,
        "rope_scaling":{"factor":32.0,"rope_type":"llama3"},"torch_dtype":"bfloat16","head_dim":64,
        "max_position_embeddings":131072}]])
      local c = assert(tw.models.from_hf_config(path))
      os.remove(path)
      assert.equal("llama", c.family)
      assert.equal(1235814400, tw.params(c).total)
    end)

    it("reads a Qwen3 config.json: explicit head_dim, QK-norm, no QKV bias (8,190,735,360 parameters)", function()
      -- Qwen/Qwen3-8B-Base config.json (fields as published). By hand, per layer: Q 4096 x 32 x 128 =
      -- 16,777,216, K and V 4096 x 8 x 128 = 4,194,304 each, O 16,777,216 (41,943,040); SwiGLU
      -- 3 x 4096 x 12288 = 150,994,944; two RMSNorms 8,192; q_norm and k_norm 2 x 128 = 256:
      -- 192,946,432. 36 layers 6,946,071,552 + final norm 4,096 + untied embeddings 2 x 151936 x 4096
      -- = 1,244,659,712: 8,190,735,360 (the figure issue 37 gives from the model card)
      local path = write([[{"architectures":["Qwen3ForCausalLM"],"attention_bias":false,"head_dim":128,
        "hidden_act":"silu","hidden_size":4096,"intermediate_size":12288,"max_position_embeddings":32768,
        "max_window_layers":36,"model_type":"qwen3","num_attention_heads":32,"num_hidden_layers":36,
        "num_key_value_heads":8,"rms_norm_eps":1e-06,"rope_scaling":null,"rope_theta":1000000,
        "sliding_window":null,"tie_word_embeddings":false,"torch_dtype":"bfloat16","use_sliding_window":false,
        "vocab_size":151936}]])
      local c = assert(tw.models.from_hf_config(path))
      os.remove(path)
      assert.equal("qwen3", c.family)
      assert.equal(128, c.head_dim)
      assert.is_nil(c.sliding_window)
      local p = tw.params(c)
      assert.equal(8190735360, p.total)
      assert.equal(1244659712, p.embedding)
      assert.equal(p.total, tw.params(tw.models.load("qwen3-8b")).total)
      -- QK-norm is priced: one RMSNorm kernel per layer over the (32 + 8) heads of 128 per token
      local ops = tw.transformer.ops(c, { b = 1, s = 16 })
      local qk
      for _, op in ipairs(ops) do if op.name == "qk_rmsnorm" then qk = op end end
      assert.same({ "norm", 36, 16 * 40 * 128, 2 * 16 * 40 * 128 * 2 }, { qk.role, qk.count, qk.elems, qk.bytes })
    end)

    it("reads a Phi-3 config.json: fused QKV and gate-up, its sliding window (3,821,079,552 parameters)", function()
      -- microsoft/Phi-3-mini-4k-instruct config.json (fields as published). By hand, per layer:
      -- attention 4 x 3072^2 = 37,748,736, SwiGLU 3 x 3072 x 8192 = 75,497,472, two RMSNorms 6,144:
      -- 113,252,352; 32 layers 3,624,075,264 + final norm 3,072 + untied embeddings
      -- 2 x 32064 x 3072 = 197,001,216: 3,821,079,552 (the model card's, via keras-hub's presets)
      local path = write([[{"architectures":["Phi3ForCausalLM"],"attention_dropout":0.0,"bos_token_id":1,
        "embd_pdrop":0.0,"eos_token_id":32000,"hidden_act":"silu","hidden_size":3072,"initializer_range":0.02,
        "intermediate_size":8192,"max_position_embeddings":4096,"model_type":"phi3","num_attention_heads":32,
        "num_hidden_layers":32,"num_key_value_heads":32,"original_max_position_embeddings":4096,
        "pad_token_id":32000,"resid_pdrop":0.0,"rms_norm_eps":1e-05,"rope_scaling":null,"rope_theta":10000.0,
        "sliding_window":2047,"tie_word_embeddings":false,"torch_dtype":"bfloat16","vocab_size":32064}]])
      local c = assert(tw.models.from_hf_config(path))
      os.remove(path)
      assert.same({ "phi3", 2047, 96 }, { c.family, c.sliding_window, c.head_dim })
      assert.equal(3821079552, tw.params(c).total)
      -- the checkpoint's fused weights: one gate_up GEMM of width 2I, keys capped at the window
      local names = {}
      for _, op in ipairs(tw.transformer.ops(c, { b = 1, s = 4096 })) do names[op.name] = op end
      assert.same({ 4096, 16384, 3072 }, { names.mlp_up_gate.m, names.mlp_up_gate.n, names.mlp_up_gate.k })
      assert.is_nil(names.mlp_gate)
      assert.equal(2047, names.attention.s_kv)
    end)

    it("reads a gpt-oss config.json: sliding and full layers, biased experts (20,914,757,184)", function()
      -- openai/gpt-oss-20b config.json fields. By hand, per layer: Q and O 2880 x 64 x 64 = 11,796,480
      -- each, K and V 2880 x 8 x 64 = 1,474,560 each, Q/K/V biases 4096 + 2 x 512, O bias 2880, 64 sinks:
      -- 26,550,144; router 2880 x 32 + 32 = 92,192; 32 experts of 3 x 2880 x 2880 + 2 x 2880 + 2880 =
      -- 24,891,840 (796,538,880); two RMSNorms 5,760: 823,186,976. 24 layers 19,756,487,424 + final
      -- norm 2,880 + embedding and LM head 2 x 201088 x 2880 = 1,158,266,880: 20,914,757,184 (the
      -- model card's 20.91B)
      local types = {}
      for i = 0, 23 do types[#types + 1] = i % 2 == 0 and '"sliding_attention"' or '"full_attention"' end
      local path = write([[{"architectures":["GptOssForCausalLM"],"attention_bias":true,"attention_dropout":0.0,
        "experts_per_token":4,"head_dim":64,"hidden_act":"silu","hidden_size":2880,"initial_context_length":4096,
        "intermediate_size":2880,"layer_types":[]] .. table.concat(types, ",") .. [[],
        "max_position_embeddings":131072,"model_type":"gpt_oss","num_attention_heads":64,"num_experts_per_tok":4,
        "num_hidden_layers":24,"num_key_value_heads":8,"num_local_experts":32,"rms_norm_eps":1e-05,
        "rope_scaling":{"beta_fast":32.0,"beta_slow":1.0,"factor":32.0,"rope_type":"yarn"},"rope_theta":150000,
        "router_aux_loss_coef":0.9,"sliding_window":128,"swiglu_limit":7.0,"tie_word_embeddings":false,
        "vocab_size":201088,"quantization_config":{"quant_method":"mxfp4"}}]])
      local c = assert(tw.models.from_hf_config(path))
      os.remove(path)
      assert.same({ "gpt_oss", 128, 32, 4, 24 },
        { c.family, c.sliding_window, c.num_local_experts, c.num_experts_per_tok, #c.layer_types })
      assert.equal(20914757184, tw.params(c).total)
      assert.equal(tw.params(c).total, tw.params("gpt-oss-20b").total)
      -- 120B: 36 layers of 128 experts: 36 x 3,213,080,192 + 2,880 + 1,158,266,880 (model card 116.83B)
      assert.equal(116829156672, tw.params("gpt-oss-120b").total)
      -- 12 layers attend over the 128-token window, 12 over all 4096 tokens; experts at M = 4096 x 4 / 32
      local by = {}
      for _, op in ipairs(tw.transformer.ops(c, { b = 1, s = 4096 })) do by[op.name] = op end
      assert.same({ 12, 4096 }, { by.attention.count, by.attention.s_kv })
      assert.same({ 12, 128 }, { by.attention_local.count, by.attention_local.s_kv })
      assert.same({ 512, 2880, 2880, 32 }, { by.expert_mlp_gate.m, by.expert_mlp_gate.n, by.expert_mlp_gate.k,
                                             by.expert_mlp_gate.experts })
      -- a KV cache of 12 x 128 + 12 x context tokens per sequence
      assert.equal(12 * 128 + 12 * 8192, tw.models.kv_layer_tokens(c, 8192))
      types[3] = '"global"'
      path = write([[{"model_type":"gpt_oss","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,
        "num_hidden_layers":24,"intermediate_size":64,"vocab_size":100,"num_local_experts":4,"num_experts_per_tok":2,
        "sliding_window":16,"layer_types":[]] .. table.concat(types, ",") .. "]}")
      local ok, err = pcall(tw.models.from_hf_config, path)
      os.remove(path)
      assert.is_false(ok)
      assert.truthy(err:find("layer_types[3]: expected sliding_attention or full_attention, got string 'global'", 1, true))
    end)

    it("reads a Gemma 3 config.json, nested or not: QK-norm, five sliding layers per global one (999,885,952)", function()
      -- google/gemma-3-1b-it config.json fields. By hand, per layer: Q and O 1152 x 4 x 256 = 1,179,648 each,
      -- K and V 1152 x 1 x 256 = 294,912 each (2,949,120); GeGLU 3 x 1152 x 6912 = 23,887,872; four RMSNorms
      -- 4,608; q_norm and k_norm 512: 26,842,112. 26 layers 697,894,912 + final norm 1,152 + one embedding
      -- 262144 x 1152 = 301,989,888: 999,885,952 (Hugging Face's count for google/gemma-3-1b-it)
      local text = [["model_type":"gemma3_text","hidden_size":1152,"intermediate_size":6912,"num_hidden_layers":26,
        "num_attention_heads":4,"num_key_value_heads":1,"head_dim":256,"sliding_window":512,"sliding_window_pattern":6,
        "vocab_size":262144,"final_logit_softcapping":null,"query_pre_attn_scalar":256,"rope_theta":1000000.0]]
      local path = write("{" .. text .. "}")
      local c = assert(tw.models.from_hf_config(path))
      os.remove(path)
      assert.same({ "gemma3", true, 256, 512 }, { c.family, c.tie_word_embeddings, c.head_dim, c.sliding_window })
      assert.equal(999885952, tw.params(c).total)
      assert.equal(999885952, tw.params("gemma-3-1b").total)
      -- the multimodal type: the language model's fields in text_config (the vision tower left out)
      path = write([[{"model_type":"gemma3","vision_config":{"hidden_size":1152},"text_config":{]] .. text .. "}}")
      assert.equal(999885952, tw.params(assert(tw.models.from_hf_config(path))).total)
      os.remove(path)
      path = write([[{"model_type":"gemma3","text_config":[1]}]])
      local none, msg = tw.models.from_hf_config(path)
      os.remove(path)
      assert.is_nil(none)
      assert.truthy(msg:find("text_config: expected an object (the text model's config)", 1, true))
      -- layers 5, 11, 17 and 23 are global (every 6th), the other 22 slide over 512 keys; QK-norm per layer
      local by = {}
      for _, op in ipairs(tw.transformer.ops(c, { b = 1, s = 4096 })) do by[op.name] = op end
      assert.same({ 4, 4096 }, { by.attention.count, by.attention.s_kv })
      assert.same({ 22, 512 }, { by.attention_local.count, by.attention_local.s_kv })
      assert.same({ 26, 4096 * 5 * 256 }, { by.qk_rmsnorm.count, by.qk_rmsnorm.elems })
      assert.is_nil(by.logit_softcap)
      assert.equal(4 * 8192 + 22 * 512, tw.models.kv_layer_tokens(c, 8192))
    end)

    it("reads a Llama 4 config.json: chunked and NoPE layers, shared + routed experts (107,769,861,120)", function()
      -- meta-llama/Llama-4-Scout-17B-16E config.json text_config fields. By hand, per layer: Q and O 5120 x
      -- 40 x 128 = 26,214,400 each, K and V 5120 x 8 x 128 = 5,242,880 each (62,914,560); router
      -- 5120 x 16 = 81,920; 16 routed + 1 shared experts of 3 x 5120 x 8192 = 125,829,120
      -- (2,139,095,040); two RMSNorms 10,240: 2,202,101,760. 48 layers 105,700,884,480 + final norm
      -- 5,120 + embedding and LM head 2 x 202048 x 5120 = 2,068,971,520: 107,769,861,120, the HF
      -- checkpoint's 108,641,793,536 less its 871,932,416 vision parameters
      local text = [["model_type":"llama4_text","hidden_size":5120,"intermediate_size":8192,
        "intermediate_size_mlp":16384,"num_hidden_layers":48,"num_attention_heads":40,"num_key_value_heads":8,
        "head_dim":128,"num_local_experts":16,"num_experts_per_tok":1,"interleave_moe_layer_step":1,
        "attention_chunk_size":8192,"use_qk_norm":true,"vocab_size":202048,"rope_theta":500000.0,
        "attention_bias":false,"tie_word_embeddings":false,"max_position_embeddings":10485760]]
      local path = write([[{"model_type":"llama4","vision_config":{"hidden_size":1408},"text_config":{]] .. text .. "}}")
      local c = assert(tw.models.from_hf_config(path))
      os.remove(path)
      assert.same({ "llama4", 16, 1, 8192 }, { c.family, c.num_local_experts, c.num_experts_per_tok, c.attention_chunk_size })
      assert.equal(107769861120, tw.params(c).total)
      assert.equal(17172894720, tw.params(c).active)
      -- Maverick: 24 dense layers (62,914,560 + 3 x 5120 x 16384 + 10,240 = 314,583,040) and 24 of
      -- 128 + 1 experts (16,295,536,640) + 5,120 + 2,068,971,520: the HF 401,583,781,376 less vision
      assert.equal(400711848960, tw.params("llama-4-maverick").total)
      assert.equal(17184691200, tw.params("llama-4-maverick").active)
      -- 12 NoPE layers over the whole context, 36 chunked (rotary, QK L2-norm) over 8192 keys at most
      local by = {}
      for _, op in ipairs(tw.transformer.ops(c, { b = 1, s = 16384 })) do by[op.name] = op end
      assert.same({ 12, 16384 }, { by.attention.count, by.attention.s_kv })
      assert.same({ 36, 8192 }, { by.attention_chunked.count, by.attention_chunked.s_kv })
      assert.same({ 36, 36 }, { by.qk_l2norm.count, by.rotary_chunked.count })
      assert.is_nil(by.rotary)
      -- every layer routes one token to 1 of 16 experts (M = 16384 / 16) beside the shared expert
      assert.same({ 48, 1024, 8192, 48 }, { by.expert_mlp_gate.count, by.expert_mlp_gate.m, by.expert_mlp_gate.n,
                                            by.shared_expert_gate.count })
      assert.is_nil(by.mlp_gate)
      assert.equal(36 * 8192 + 12 * 32768, tw.models.kv_layer_tokens(c, 32768))
      local bad = write("{" .. text:gsub('"interleave_moe_layer_step":1', '"interleave_moe_layer_step":2')
        :gsub('"intermediate_size_mlp":16384,', "") .. "}")
      local ok, err = pcall(tw.models.from_hf_config, bad)
      os.remove(bad)
      assert.is_false(ok)
      assert.truthy(err:find("intermediate_size_mlp: expected positive integer (the dense layers' width), got nil", 1, true))
      -- moe_layers: indices of layers, each once
      local cfg = tw.models.load("llama-4-maverick")
      cfg.moe_layers = { 1, 3, 3 }
      assert.has_error(function() tw.models.define(cfg) end, "model.moe_layers[3]: expected a layer not listed before, got 3")
      cfg.moe_layers = { 1, 48 }
      assert.has_error(function() tw.models.define(cfg) end, "model.moe_layers[2]: expected an integer in [0, 47], got 48")
    end)

    it("reads a Gemma 2 config.json: 4 norms, alternating windows, tied embeddings (9,241,705,984)", function()
      -- google/gemma-2-9b config.json fields (tie_word_embeddings absent: Gemma2Config's default, tied).
      -- By hand (model_configs.md, Gemma 2 9B), per layer: Q and O 3584 x 16 x 256 = 14,680,064 each,
      -- K and V 3584 x 8 x 256 = 7,340,032 each (44,040,192); GeGLU 3 x 3584 x 14336 = 154,140,672;
      -- four RMSNorms 14,336: 198,195,200. 42 layers 8,324,198,400 + final norm 3,584 + one embedding
      -- 256000 x 3584 = 917,504,000: 9,241,705,984
      local path = write([[{"architectures":["Gemma2ForCausalLM"],"attention_bias":false,
        "attn_logit_softcapping":50.0,"cache_implementation":"hybrid","final_logit_softcapping":30.0,
        "head_dim":256,"hidden_act":"gelu_pytorch_tanh","hidden_activation":"gelu_pytorch_tanh",
        "hidden_size":3584,"intermediate_size":14336,"max_position_embeddings":8192,"model_type":"gemma2",
        "num_attention_heads":16,"num_hidden_layers":42,"num_key_value_heads":8,"query_pre_attn_scalar":256,
        "rms_norm_eps":1e-06,"rope_theta":10000.0,"sliding_window":4096,"vocab_size":256000}]])
      local c = assert(tw.models.from_hf_config(path))
      os.remove(path)
      assert.same({ "gemma2", true, 256, 4096, 30 },
        { c.family, c.tie_word_embeddings, c.head_dim, c.sliding_window, c.final_logit_softcapping })
      assert.equal(9241705984, tw.params(c).total)
      assert.equal(tw.params(c).total, tw.params(tw.models.load("gemma-2-9b")).total)
      -- 21 layers attend over the 4096-token window, 21 over all 8192 tokens; four norms per layer
      local by = {}
      for _, op in ipairs(tw.transformer.ops(c, { b = 1, s = 8192 })) do by[op.name] = op end
      assert.same({ 21, 8192 }, { by.attention.count, by.attention.s_kv })
      assert.same({ 21, 4096 }, { by.attention_local.count, by.attention_local.s_kv })
      for _, n in ipairs { "input_rmsnorm", "post_attention_rmsnorm", "pre_feedforward_rmsnorm",
                           "post_feedforward_rmsnorm" } do assert.equal(42, by[n].count) end
      -- soft-capping reads and writes the 8192 x 256000 logits
      assert.equal(2 * 8192 * 256000 * 2, by.logit_softcap.bytes)
      -- the cache: 2 x 8 KV heads x 256 x 2 bytes = 8192 B per layer and token, over 21 x 8192 +
      -- 21 x 4096 = 258,048 layer-tokens at 8192 context: 2,113,929,216 B per sequence
      assert.equal(258048, tw.models.kv_layer_tokens(c, 8192))
      local m = tw.inference.memory { model = c, hw = "h100_sxm5", batch = 1, context = 8192 }
      assert.equal(2113929216, m.kv_bytes)
      -- the longest context memory allows at batch 64 is the inverse of the same sum
      m = tw.inference.memory { model = c, hw = "h100_sxm5", batch = 64, context = 8192 }
      local room = m.memory_bytes - m.weight_bytes - m.workspace_bytes
      assert.is_true(64 * 8192 * tw.models.kv_layer_tokens(c, m.max_context) <= room)
      assert.is_true(64 * 8192 * tw.models.kv_layer_tokens(c, m.max_context + 1) > room)
    end)

    it("reads GPT-NeoX and ModernBERT configs", function()
      local p1 = write([[{"model_type":"gpt_neox","hidden_size":2560,"intermediate_size":10240,
        "num_attention_heads":32,"num_hidden_layers":32,"vocab_size":50304,"rotary_pct":0.25,
        "use_parallel_residual":true,"tie_word_embeddings":false,"bos_token_id":0}]])
      assert.equal(2775208960, tw.params(assert(tw.models.from_hf_config(p1))).total)
      local p2 = write([[{"model_type":"modernbert","hidden_size":768,"intermediate_size":1152,
        "num_attention_heads":12,"num_hidden_layers":22,"vocab_size":50368,"global_attn_every_n_layers":3,
        "local_attention":128,"pad_token_id":50283}]])
      assert.equal(149014272, tw.params(assert(tw.models.from_hf_config(p2))).total)
      os.remove(p1); os.remove(p2)
    end)

    it("returns nil and a message for an unknown model_type or bad JSON", function()
      local p = write([[{"model_type":"mamba","hidden_size":768}]])
      local c, err = tw.models.from_hf_config(p)
      assert.is_nil(c)
      assert.truthy(err:find("model_type: expected one of deepseek_v2, deepseek_v3, gemma2, gemma3, gemma3_text, gpt_neox, gpt_oss, llama, llama4, llama4_text, mistral, mixtral, modernbert, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, got string 'mamba'", 1, true))
      local f = io.open(p, "w"); f:write("{not json"); f:close()
      c, err = tw.models.from_hf_config(p)
      assert.is_nil(c)
      assert.truthy(err:find("not a JSON object", 1, true))
      os.remove(p)
      assert.is_nil((tw.models.from_hf_config("/nonexistent/config.json")))
    end)

    it("names the file and field of an invalid value", function()
      local p = write([[{"model_type":"llama","hidden_size":2048,"intermediate_size":8192,
        "num_attention_heads":0,"num_hidden_layers":16,"vocab_size":128256}]])
      local ok, err = pcall(tw.models.from_hf_config, p)
      os.remove(p)
      assert.is_false(ok)
      assert.truthy(err:find(p .. ": num_attention_heads: expected positive integer, got 0", 1, true))
    end)
  end)
end)
