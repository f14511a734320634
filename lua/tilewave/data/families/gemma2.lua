--- Gemma 2 family (Google): the LLaMA block (tilewave.data.families.llama) with
--   * four RMSNorms per layer (pre- and post-norm around attention and around the MLP);
--   * attention alternating between a sliding window (`sliding_window`, 4096 on 9B) on the
--     even layers (0, 2, ...) and global attention on the odd ones: the KV cache and the keys a
--     query attends to follow each layer's span (models.kv_windows);
--   * GeGLU (gelu_pytorch_tanh; gate, up, down), `head_dim` 256 given explicitly (a * head_dim
--     may differ from h);
--   * the input embedding scaled by sqrt(h) (one elementwise pass) and tied to the LM head;
--   * final logit soft-capping (`final_logit_softcapping`, 30): logits / cap, tanh, x cap over the
--     b*s*v/t logits (one fused kernel, or three when unfused).
-- Left out: attention logit soft-capping (50) is fused in FlashAttention-2 (>= 2.6) and costs
-- nothing extra there; with materialized (standard) attention its three passes over the scores
-- are not priced.
--
-- Parameter count per layer: Q, K, V, O h*(a+2kv)*hd + a*hd*h, GeGLU 3*h*I, four RMSNorms 4h;
-- final norm h; embeddings v*h once (tied). Gemma-2-9B: 42 x 198,195,200 + 3,584 + 256000 x 3584 =
-- 9,241,705,984 (../shared/reference/model_configs.md, Gemma 2 9B: the HF-loaded total).
--
-- Source: ../shared/reference/model_configs.md, Gemma 2 9B (paper Tables 1-2, arXiv 2408.00118;
-- HF config: intermediate_size 14336, vocab 256000, head_dim 256, softcaps 50/30, window 4096,
-- global span 8192); layer order and the sqrt(h) embedding scale as in transformers'
-- models/gemma2/modeling_gemma2.py.
local llama = require "tilewave.data.families.llama"
local layers = require "tilewave.ops.layers"
local windows = require "tilewave.data.families.windows"

local G2 = "../shared/reference/model_configs.md, Gemma 2 9B: d 3584, 42 layers, 16/8 heads, head 256, "
  .. "HF intermediate_size 14336, vocab 256000, tied, sliding window 4096 alternating with global 8192, "
  .. "final logit softcap 30"

local F = llama.variant {
  name = "gemma2",
  description = "Gemma 2: 4 norms per layer, alternating sliding-window / global attention, GeGLU, soft-capped logits",
  fields = { sliding_window = "positive_int", final_logit_softcapping = "positive" },
  hf_model_types = { gemma2 = { fields = { sliding_window = true, final_logit_softcapping = true } } },
  presets = {
    ["gemma-2-9b"] = llama.preset("Gemma 2 9B", 42, 3584, 16, 8, 14336, 256000, true, 8192, G2,
      { head_dim = 256, sliding_window = 4096, final_logit_softcapping = 30 }),
  },
}
F.defaults = { tie_word_embeddings = true, hidden_act = "gelu_pytorch_tanh" }

--- Layers with a sliding window: the even ones, ceil(L / 2) (none without sliding_window).
function F.local_layers(c) return windows.sliding_layers(c, function(x) return (x.num_hidden_layers + 1) // 2 end) end

--- KV spans (models.kv_windows): the local layers keep sliding_window tokens, the rest all.
function F.kv_windows(c) return windows.kv_windows(c, F.local_layers(c)) end

--- Parameter count: the LLaMA block's with four RMSNorms per layer instead of two.
function F.params(c) return llama.params_plus(c, 2 * c.hidden_size) end

--- Ops of one forward pass with `n_local` sliding-window layers (shared with Gemma 3,
-- tilewave.data.families.gemma3, which adds its QK-norm).
function F.block_ops(c, w, n_local)
  local ops, L = {}, c.num_hidden_layers
  local e, bs, h = w.e, w.b * w.s, c.hidden_size
  ops[#ops + 1] = layers.embedding(c, w)
  -- the embedding times sqrt(h): read + write
  ops[#ops + 1] = layers.outside(layers.elementwise("scale", "embedding_scale", 2 * bs * h * e.in_bytes, 1, bs * h,
    e.in_bytes))
  ops[#ops + 1] = layers.norm("input_rmsnorm", c, w, L, "rms")
  windows.attention(ops, c, w, n_local)
  ops[#ops + 1] = layers.norm("post_attention_rmsnorm", c, w, L, "rms")
  ops[#ops + 1] = layers.residual("attention_residual", c, w, L, 2)
  ops[#ops + 1] = layers.norm("pre_feedforward_rmsnorm", c, w, L, "rms")
  layers.glu_mlp(ops, c, w, L, false)
  ops[#ops + 1] = layers.norm("post_feedforward_rmsnorm", c, w, L, "rms")
  ops[#ops + 1] = layers.residual("mlp_residual", c, w, L, 2)
  ops[#ops + 1] = layers.outside(layers.norm("final_rmsnorm", c, w, 1, "rms"))
  ops[#ops + 1] = layers.logits(c, w)
  if c.final_logit_softcapping then
    local v_t = layers.idiv_up(c.vocab_size, w.t)
    local op = layers.elementwise("softcap", "logit_softcap", 2 * bs * v_t * e.in_bytes, 1, bs * v_t, e.in_bytes)
    ops[#ops + 1] = layers.outside(op)
  end
  return ops
end

--- Ops of one forward pass.
function F.ops(c, w) return F.block_ops(c, w, F.local_layers(c)) end

return F
