--- Qwen3 dense family: the LLaMA block (tilewave.data.families.llama) without QKV biases,
-- with an explicit `head_dim` (128 on every size, so a * head_dim may differ from h) and
-- QK-norm: an RMSNorm over each query and key head (weights of head_dim each, shared by the
-- heads) before rotary. A config's sliding_window counts only when use_sliding_window is true.
--
-- Parameter count per layer: Q, K, V, O h*(a+2kv)*hd + a*hd*h, SwiGLU 3*h*I, two RMSNorms 2h,
-- q_norm and k_norm 2*hd; final norm h; embeddings v*h, twice when untied. Qwen3-8B:
-- 36 x 192,946,432 + 4,096 + 2 x 151,936 x 4,096 = 8,190,735,360 (worked in
-- tests/lua/families_spec.lua).
--
-- Source: Qwen/Qwen3-8B-Base config.json (model_type "qwen3", transformers 4.51.0: hidden 4096,
-- 36 layers, 32 Q / 8 KV heads, head_dim 128, intermediate 12288, vocab 151936, untied, 32768
-- positions), as transcribed in github.com/Chen-Oliver/qwen3-8b-base@1e44ee1 config.json; QK-norm
-- per head: transformers models/qwen3/modeling_qwen3.py (Qwen3Attention q_norm, k_norm over
-- head_dim).
local llama = require "tilewave.data.families.llama"
local layers = require "tilewave.ops.layers"

local Q3 = "Qwen/Qwen3-8B-Base config.json (github.com/Chen-Oliver/qwen3-8b-base@1e44ee1): hidden 4096, "
  .. "36 layers, 32/8 heads, head_dim 128, intermediate 12288, vocab 151936, untied, 32768 positions"

local F = llama.variant {
  name = "qwen3",
  description = "Qwen3 (dense): the LLaMA block with QK-norm and an explicit head_dim",
  fields = { sliding_window = "positive_int" },
  hf_model_types = { qwen3 = { fields = { sliding_window = true, use_sliding_window = true } } },
  presets = {
    ["qwen3-8b"] = llama.preset("Qwen3 8B (base)", 36, 4096, 32, 8, 12288, 151936, false, 32768, Q3,
      { head_dim = 128 }),
  },
}

--- Parameter count: the LLaMA block's plus q_norm and k_norm (head_dim each) per layer.
function F.params(c) return llama.params_plus(c, 2 * c.head_dim) end

-- the SwiGLU MLP of every layer
local function mlp(ops, c, w, L) layers.glu_mlp(ops, c, w, L, false) end

--- Ops of one forward pass: the LLaMA block's, and QK-norm, one RMSNorm kernel reading and
-- writing this rank's query and key heads ((a + kv) / t heads of head_dim per token).
function F.ops(c, w)
  local ops = llama.block_ops(c, w, mlp)
  local g = layers.heads(c, w)
  local elems = w.b * w.s * (g.a_t + g.kv_t) * g.hd
  local op = layers.elementwise("norm", "qk_rmsnorm", 2 * elems * w.e.in_bytes, c.num_hidden_layers, elems,
    w.e.in_bytes)
  op.norm = "rms"
  table.insert(ops, 3, op)
  return ops
end

return F
