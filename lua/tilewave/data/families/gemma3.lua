--- Gemma 3 family (Google; Hugging Face model types gemma3_text, and gemma3 whose text model
-- is read from its `text_config`): the Gemma 2 block (tilewave.data.families.gemma2: four
-- RMSNorms per layer, GeGLU, tied embeddings scaled by sqrt(h), explicit head_dim) with
--   * five sliding-window layers for each global one: `sliding_window_pattern` 6 makes every
--     6th layer (5, 11, ...) global and the rest slide over `sliding_window` tokens (512 on
--     1B, 1024 above), or as `layer_types` lists them ("sliding_attention" / "full_attention");
--     the KV cache and the keys a query attends to follow each layer's span;
--   * QK-norm (an RMSNorm over each query and key head, head_dim weights each) instead of
--     Gemma 2's attention soft-capping; no final logit soft-capping unless the config sets it.
-- The vision tower of the multimodal sizes (4B, 12B, 27B: SigLIP and its projector) is left out:
-- the ops and parameters are the text model's.
--
-- Parameter count per layer: Q, K, V, O h*(a+2kv)*hd + a*hd*h, GeGLU 3*h*I, four RMSNorms 4h,
-- q_norm and k_norm 2*hd; final norm h; embeddings v*h once (tied). Gemma-3-1B: 26 x 26,842,112
-- + 1,152 + 262144 x 1152 = 999,885,952 (the safetensors total Hugging Face reports for
-- google/gemma-3-1b-it).
--
-- Sources: google/gemma-3-1b-it config.json (model_type gemma3_text: hidden 1152, 26 layers,
-- 4 / 1 heads of 256, intermediate 6912, vocab 262144, sliding window 512, pattern 6, 32768
-- positions); its parameter count 999,885,952 (Hugging Face safetensors metadata, as quoted by
-- KerasHub's gemma3 presets, keras-team/keras-hub gemma3_presets.py "params": 999885952);
-- transformers models/gemma3/modeling_gemma3.py (q_norm / k_norm, layer pattern).
local gemma2 = require "tilewave.data.families.gemma2"
local layers = require "tilewave.ops.layers"
local llama = require "tilewave.data.families.llama"
local windows = require "tilewave.data.families.windows"

local G3 = "google/gemma-3-1b-it config.json: hidden 1152, 26 layers, 4/1 heads of 256, intermediate 6912, "
  .. "vocab 262144, tied, sliding window 512 with every 6th layer global; 999,885,952 parameters (HF)"

local TYPE_FIELDS = { sliding_window = true, sliding_window_pattern = true, layer_types = true,
                      final_logit_softcapping = true }

local F = llama.variant {
  name = "gemma3",
  description = "Gemma 3: the Gemma 2 block with QK-norm and five sliding-window layers per global one",
  fields = { sliding_window = "positive_int", sliding_window_pattern = "positive_int", layer_types = "table",
             final_logit_softcapping = "positive" },
  hf_model_types = { gemma3_text = { fields = TYPE_FIELDS },
                     gemma3 = { fields = TYPE_FIELDS, nested = "text_config" } },
  presets = {
    ["gemma-3-1b"] = llama.preset("Gemma 3 1B", 26, 1152, 4, 1, 6912, 262144, true, 32768, G3,
      { head_dim = 256, sliding_window = 512, sliding_window_pattern = 6 }),
  },
}
F.defaults = { tie_word_embeddings = true, hidden_act = "gelu_pytorch_tanh" }

--- Checks: layer_types, when given, one known type per layer.
function F.validate(c, path)
  llama.validate(c, path)
  windows.validate(c, path)
end

-- all but every sliding_window_pattern-th layer (default 6)
local function by_pattern(c) return c.num_hidden_layers - c.num_hidden_layers // (c.sliding_window_pattern or 6) end

--- Layers with a sliding window: those layer_types marks; else all but every
-- sliding_window_pattern-th (default 6); none without sliding_window.
function F.local_layers(c) return windows.sliding_layers(c, by_pattern) end

--- KV spans (models.kv_windows): the sliding layers keep sliding_window tokens, the rest all.
function F.kv_windows(c) return windows.kv_windows(c, F.local_layers(c)) end

--- Parameter count: the LLaMA block's plus two more RMSNorms (2h) and q_norm, k_norm (2 head_dim)
-- per layer.
function F.params(c) return llama.params_plus(c, 2 * c.hidden_size + 2 * c.head_dim) end

--- Ops of one forward pass: Gemma 2's, and QK-norm, one RMSNorm kernel reading and writing this
-- rank's query and key heads after the QKV projection (as tilewave.data.families.qwen3).
function F.ops(c, w)
  local ops = gemma2.block_ops(c, w, F.local_layers(c))
  local g = layers.heads(c, w)
  local elems = w.b * w.s * (g.a_t + g.kv_t) * g.hd
  local op = layers.elementwise("norm", "qk_rmsnorm", 2 * elems * w.e.in_bytes, c.num_hidden_layers, elems,
    w.e.in_bytes)
  op.norm = "rms"
  table.insert(ops, 5, op) -- after the first QKV projection
  return ops
end

return F
