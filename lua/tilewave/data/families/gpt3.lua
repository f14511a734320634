--- GPT-3 family (Brown et al. 2020, "Language Models are Few-Shot Learners",
-- Table 2.1): GPT-2 architecture, learned positions (n_ctx 2048), d_ff = 4h,
-- tied embeddings, biases, LayerNorm, GELU; vocabulary 50257 (GPT-2 BPE).
--
-- The paper prints d_model 5140 for 13B, inconsistent with 40 heads x 128;
-- 5120 is used (model_configs.md §4). The alternating dense / locally banded
-- sparse attention of GPT-3 is not modeled: every layer is dense. The 2.7B
-- shape (h 2560, a 32, h/a 80) is the one the co-design paper starts from.
local layers = require "tilewave.ops.layers"

local F = {
  name = "gpt3",
  description = "GPT-3 (GPT-2 style): learned positions, tied embeddings, GELU MLP of width 4h",
  fields = { hidden_act = "string" },
  defaults = { tie_word_embeddings = true, max_position_embeddings = 2048, hidden_act = "gelu" },
}

local SRC = "Brown et al. 2020, arXiv 2005.14165, Table 2.1"

local function gpt3(name, L, h, a)
  return { name = name, num_hidden_layers = L, hidden_size = h, num_attention_heads = a,
           intermediate_size = 4 * h, vocab_size = 50257, source = SRC }
end

F.presets = {
  ["gpt3-125m"] = gpt3("GPT-3 Small", 12, 768, 12),
  ["gpt3-350m"] = gpt3("GPT-3 Medium", 24, 1024, 16),
  ["gpt3-760m"] = gpt3("GPT-3 Large", 24, 1536, 16),
  -- Table 2.1 prints n_heads 24 with d_head 128 for d_model 2048 (24 x 128 =
  -- 3072): inconsistent. 2048 = 16 x 128 keeps d_model and d_head.
  ["gpt3-1.3b"] = gpt3("GPT-3 XL", 24, 2048, 16),
  ["gpt3-2.7b"] = gpt3("GPT-3 2.7B", 32, 2560, 32),
  ["gpt3-6.7b"] = gpt3("GPT-3 6.7B", 32, 4096, 32),
  ["gpt3-13b"] = gpt3("GPT-3 13B", 40, 5120, 40),
  ["gpt3-175b"] = gpt3("GPT-3 175B", 96, 12288, 96),
}

--- Parameter count with GPT-2 conventions: per layer QKV + bias, projection +
-- bias, MLP 2hI + I + h, two LayerNorms 4h; final LayerNorm 2h; token
-- embedding v*h (tied with the LM head) and position embedding P*h.
-- non_embedding excludes both embeddings.
function F.params(c)
  local h = c.hidden_size
  local per_layer = layers.gpt_layer_params(c)
  local non_embedding = c.num_hidden_layers * per_layer + 2 * h
  local embedding = c.vocab_size * h * (c.tie_word_embeddings and 1 or 2) + c.max_position_embeddings * h
  return { total = non_embedding + embedding, non_embedding = non_embedding, embedding = embedding }
end

--- Ops of one forward pass (pre-LN, sequential residual).
function F.ops(c, w)
  local ops, L = {}, c.num_hidden_layers
  local emb = layers.embedding(c, w)
  emb.bytes = emb.bytes * 1.5 -- token + position rows read, one sum written
  ops[1] = emb
  ops[#ops + 1] = layers.norm("input_layernorm", c, w, L)
  layers.attention(ops, c, w, { count = L, s_kv = w.s })
  ops[#ops + 1] = layers.residual("attention_residual", c, w, L, 2)
  ops[#ops + 1] = layers.norm("post_attention_layernorm", c, w, L)
  layers.mlp(ops, c, w, L)
  ops[#ops + 1] = layers.residual("mlp_residual", c, w, L, 2)
  ops[#ops + 1] = layers.outside(layers.norm("final_layernorm", c, w, 1))
  ops[#ops + 1] = layers.logits(c, w)
  return ops
end

return F
