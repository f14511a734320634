--- ModernBERT family (Answer.AI, Warner et al. 2024, arXiv 2412.13663):
-- encoder, pre-LN without biases, GeGLU (Wi: h -> 2I fused, Wo: I -> h),
-- global attention every `global_attn_every_n_layers`-th layer (layer 0
-- included) and a `local_attention`-token sliding window otherwise, tied
-- embeddings with an MLM head (dense h x h, norm, decoder with bias).
--
-- Sources: AnswerDotAI/ModernBERT@00220af yamls/modernbert/*.yaml and
-- src/bert_layers/mlp.py::FlexBertGLU; transformers ModernBertConfig; paper
-- §2.1.2-§2.2.1. See ../shared/reference/model_configs.md §3.
local layers = require "tilewave.ops.layers"

local F = {
  name = "modernbert",
  description = "ModernBERT encoder: GeGLU (up-projection 2I), alternating global / 128-token sliding-window attention",
  hf_model_type = "modernbert",
  glu = true,
  encoder = true, -- bidirectional encoder: no autoregressive decode -- gated MLP: intermediate_size is a free width (rules.glu_width, search)
  fields = { global_attn_every_n_layers = "positive_int", local_attention = "positive_int", hidden_act = "string" },
  defaults = { tie_word_embeddings = true, global_attn_every_n_layers = 3, local_attention = 128,
               max_position_embeddings = 8192, hidden_act = "gelu" },
}

local SRC = "AnswerDotAI/ModernBERT@00220af yamls/modernbert; transformers ModernBertConfig; arXiv 2412.13663"

F.presets = {
  ["modernbert-base"] = { name = "ModernBERT-base", num_hidden_layers = 22, hidden_size = 768,
    num_attention_heads = 12, intermediate_size = 1152, vocab_size = 50368, source = SRC },
  ["modernbert-large"] = { name = "ModernBERT-large", num_hidden_layers = 28, hidden_size = 1024,
    num_attention_heads = 16, intermediate_size = 2624, vocab_size = 50368, source = SRC },
}

--- Layers with global attention: i % n == 0 for i = 0 .. L-1 (HF layer_types).
function F.global_layers(c)
  return (c.num_hidden_layers - 1) // c.global_attn_every_n_layers + 1
end

--- Parameter count of the backbone (ModernBertModel, the published 149M /
-- 395M): per layer Wqkv 3h^2 (with GQA h*(a+2kv)*hd), Wo h^2, Wi h*2I,
-- Wo I*h, attn_norm + mlp_norm 2h (layer 0 has no attn_norm); token embedding
-- v*h, embedding norm h, final norm h. `mlm_head` adds the MLM head: dense
-- h^2, norm h, decoder bias v (decoder weight tied).
function F.params(c)
  local h, I = c.hidden_size, c.intermediate_size
  local per_layer = layers.attention_weights(c) + 3 * h * I + 2 * h
  local non_embedding = c.num_hidden_layers * per_layer - h + h + h
  local embedding = c.vocab_size * h * (c.tie_word_embeddings and 1 or 2)
  return { total = non_embedding + embedding, non_embedding = non_embedding, embedding = embedding,
           mlm_head = h * h + h + c.vocab_size }
end

-- the GeGLU MLP of `count` layers: up and gate fused in one GEMM
local function mlp(ops, c, w, count) layers.glu_mlp(ops, c, w, count, true) end

--- The MLP GEMMs of F.mlp_ops without its ops (layers.glu_gemms).
function F.mlp_gemms(c, w) return (layers.glu_gemms(c, w, true)) end

--- Ops of the MLP of every layer alone, as in F.ops (tilewave.explore.rules glu_width).
function F.mlp_ops(c, w)
  local ops = {}
  mlp(ops, c, w, c.num_hidden_layers)
  return ops
end

--- Ops of one forward pass of the MLM model. Local layers attend to
-- min(s, local_attention) keys per query (the banded work of a sliding-window
-- kernel; a kernel that materializes the full s x s scores and masks does more).
function F.ops(c, w)
  local ops, L = {}, c.num_hidden_layers
  local n_global = F.global_layers(c)
  local n_local = L - n_global
  local h, bs = c.hidden_size, w.b * w.s
  ops[#ops + 1] = layers.embedding(c, w)
  ops[#ops + 1] = layers.outside(layers.norm("embedding_norm", c, w, 1))
  ops[#ops + 1] = layers.norm("attention_norm", c, w, L - 1)
  ops[#ops + 1] = layers.qkv(c, w, L)
  layers.attention(ops, c, w, { count = n_global, s_kv = w.s, qkv = false, rotary_frac = 1, causal = false })
  if n_local > 0 then
    layers.attention(ops, c, w, { count = n_local, s_kv = math.min(w.s, c.local_attention), qkv = false, causal = false,
                                  rotary_frac = 1, suffix = "_local" })
  end
  ops[#ops + 1] = layers.attn_out(c, w, L)
  ops[#ops + 1] = layers.residual("attention_residual", c, w, L, 2)
  ops[#ops + 1] = layers.norm("mlp_norm", c, w, L)
  mlp(ops, c, w, L)
  ops[#ops + 1] = layers.residual("mlp_residual", c, w, L, 2)
  ops[#ops + 1] = layers.outside(layers.norm("final_norm", c, w, 1))
  -- MLM head: dense h -> h, GELU, norm, decoder h -> v (tied weight + bias)
  ops[#ops + 1] = layers.outside(layers.gemm("head_dense", "head_dense", bs, h, h, 1, w.e))
  ops[#ops + 1] = layers.outside(layers.norm("head_norm", c, w, 1))
  ops[#ops + 1] = layers.logits(c, w)
  return ops
end

return F
