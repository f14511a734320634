--- Mistral family: the LLaMA block (tilewave.data.families.llama) with a sliding
-- attention window (Mistral 7B: each layer attends to the last 4096 tokens and the
-- KV cache keeps that many) and, for Mixtral, a routed SwiGLU mixture of experts
-- (num_local_experts E, num_experts_per_tok k; tilewave.ops.layers.moe_mlp).
--
-- Sources: Mistral 7B paper Table 1 and Mixtral-8x7B-v0.1 config.json, as
-- transcribed in ../shared/reference/model_configs.md §6 and §6b; Mixtral-8x22B-v0.1's config.json.
local llama = require "tilewave.data.families.llama"

local M6 = "../shared/reference/model_configs.md §6: Mistral 7B paper Table 1 (dim 4096, 32 layers, 32/8 heads, "
  .. "hidden 14336, window 4096, vocab 32000); max_position_embeddings 32768 from the HF config"
local X6 = "../shared/reference/model_configs.md §6b: mistralai/Mixtral-8x7B-v0.1 config.json (8 experts of 14336, "
  .. "2 per token, no sliding window); Jiang et al. 2024 (arXiv 2401.04088)"

local X22 = "mistralai/Mixtral-8x22B-v0.1 config.json (hidden_size 6144, 56 layers, 48/8 heads, 8 experts of "
  .. "16384, 2 per token, vocab_size 32000, max_position_embeddings 65536, rope_theta 1e6, no sliding window)"

local p = llama.preset
return llama.variant {
  name = "mistral",
  description = "Mistral: the LLaMA block with a sliding window; Mixtral: with 8 routed SwiGLU experts",
  fields = { sliding_window = "positive_int", num_local_experts = "positive_int", num_experts_per_tok = "positive_int" },
  hf_model_types = {
    mistral = { fields = { sliding_window = true } },
    mixtral = { fields = { sliding_window = true, num_local_experts = true, num_experts_per_tok = true } },
  },
  hf_type_fields = { num_local_experts = true, num_experts_per_tok = true },
  presets = {
    ["mistral-7b"] = p("Mistral 7B v0.1", 32, 4096, 32, 8, 14336, 32000, false, 32768, M6, { sliding_window = 4096 }),
    ["mixtral-8x7b"] = p("Mixtral 8x7B v0.1", 32, 4096, 32, 8, 14336, 32000, false, 32768, X6,
      { num_local_experts = 8, num_experts_per_tok = 2 }),
    ["mixtral-8x22b"] = p("Mixtral 8x22B v0.1", 56, 6144, 48, 8, 16384, 32000, false, 65536, X22,
      { num_local_experts = 8, num_experts_per_tok = 2 }),
  },
}
