--- Qwen mixture-of-experts family (Hugging Face model types qwen2_moe and
-- qwen3_moe): the LLaMA-style block (RMSNorm, GQA, rotary) whose MLP is
-- `num_experts` routed SwiGLU experts of moe_intermediate_size, `num_experts_per_tok`
-- per token (tilewave.ops.layers.moe_mlp), with, in qwen2_moe, a shared SwiGLU
-- expert of shared_expert_intermediate_size behind a sigmoid gate (h x 1) and Q, K, V
-- biases; qwen3_moe has no shared expert and no biases but an RMSNorm on each
-- query and key head (2 * head_dim parameters per layer), and a head_dim that need
-- not be h/a (the Q/K norms are counted as parameters; their kernels are not priced).
-- Every layer is sparse (decoder_sparse_step 1, no mlp_only_layers:
-- configs that say otherwise are refused).
--
-- Sources: the Hugging Face configuration fields of Qwen2MoeConfig and Qwen3MoeConfig
-- (transformers' configuration_qwen2_moe.py / configuration_qwen3_moe.py), read from
-- a model's config.json; no preset is shipped.
local check = require "tilewave.util.check"
local layers = require "tilewave.ops.layers"
local llama = require "tilewave.data.families.llama"

local F = {
  name = "qwen_moe",
  description = "Qwen2-MoE / Qwen3-MoE: GQA, routed SwiGLU experts (+ a gated shared expert in Qwen2-MoE)",
  hf_model_types = {
    qwen2_moe = { fields = { num_experts = true, num_experts_per_tok = true, moe_intermediate_size = true,
                             shared_expert_intermediate_size = true }, implies = { attention_bias = true } },
    qwen3_moe = { fields = { num_experts = true, num_experts_per_tok = true, moe_intermediate_size = true },
                  implies = { qk_norm = true } },
  },
  glu = false,
  fields = {
    hidden_act = "string", rope_theta = "positive", num_experts = "positive_int", num_experts_per_tok = "positive_int",
    moe_intermediate_size = "positive_int", shared_expert_intermediate_size = "positive_int",
    attention_bias = "boolean", qk_norm = "boolean", decoder_sparse_step = "positive_int", mlp_only_layers = "table",
  },
  defaults = { tie_word_embeddings = false, hidden_act = "silu" },
  presets = {},
}

function F.validate(c, path)
  for _, k in ipairs { "num_experts", "num_experts_per_tok", "moe_intermediate_size" } do
    if c[k] == nil then error(string.format("%s: expected positive integer, got nil", check.field(path, k)), 0) end
  end
  if c.num_experts_per_tok > c.num_experts then
    error(string.format("%s: expected at most num_experts %d, got %d", check.field(path, "num_experts_per_tok"), c.num_experts,
      c.num_experts_per_tok), 0)
  end
  if (c.decoder_sparse_step or 1) ~= 1 or (c.mlp_only_layers and #c.mlp_only_layers > 0) then
    error(string.format("%s: expected every layer sparse (1, no mlp_only_layers)", check.field(path, "decoder_sparse_step")), 0)
  end
  c.decoder_sparse_step, c.mlp_only_layers = nil, nil
end

--- Parameters: per layer attention (+ Q, K, V biases or + 2 * head_dim of Q/K norms),
-- 2 RMSNorms, router h * E, E experts of 3 * h * I_moe, the shared expert 3 * h * I_shared
-- and its gate h; final norm; embeddings. active counts k of the E experts.
function F.params(c)
  local h, L, E, k = c.hidden_size, c.num_hidden_layers, c.num_experts, c.num_experts_per_tok
  local expert = 3 * h * c.moe_intermediate_size
  local shared = c.shared_expert_intermediate_size and (3 * h * c.shared_expert_intermediate_size + h) or 0
  local base = layers.attention_weights(c) + (c.qk_norm and 2 * c.head_dim or 0) + 2 * h + h * E + shared
  local non_embedding = L * (base + E * expert) + h
  local embedding = c.vocab_size * h * (c.tie_word_embeddings and 1 or 2)
  local active = L * (base + k * expert) + h + embedding
  return { total = non_embedding + embedding, non_embedding = non_embedding, embedding = embedding, active = active }
end

-- routed experts, and Qwen2-MoE's shared expert
local function mlp(ops, c, w, L)
  layers.moe_mlp(ops, c, w, L, { experts = c.num_experts, per_token = c.num_experts_per_tok,
    width = c.moe_intermediate_size, shared_width = c.shared_expert_intermediate_size })
end

--- Ops of one forward pass: the LLaMA block (tilewave.data.families.llama.block_ops) with the MoE
-- MLP.
function F.ops(c, w) return llama.block_ops(c, w, mlp) end

return F
