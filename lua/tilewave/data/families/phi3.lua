--- Phi-3 family (Microsoft): the LLaMA block (tilewave.data.families.llama) with the weights
-- fused as the checkpoint stores them: one qkv_proj GEMM (tilewave prices QKV as one GEMM for
-- every family) and one gate_up_proj GEMM of width 2I (layers.glu_mlp fused), then the SwiGLU
-- and down_proj. A config's sliding_window caps the keys each query attends to and the KV cache,
-- as for Mistral: the 4k checkpoint lists 2047. Implementations differ there (FlashAttention
-- paths honour it; some eager paths ignore it), so a config without the field prices full
-- attention.
--
-- Parameter count as LLaMA's (fusing changes no count): Phi-3-mini, per layer 4 x 3072^2 =
-- 37,748,736 attention (32 heads, 32 KV heads), 3 x 3072 x 8192 = 75,497,472 MLP, 6,144 norms;
-- 32 layers 3,624,075,264 + final norm 3,072 + untied embeddings 2 x 32064 x 3072 = 197,001,216:
-- 3,821,079,552, the figure keras-hub's phi3 presets give from the model card
-- (keras-team/keras-hub keras_hub/src/models/phi3/phi3_presets.py, "params": 3821079552).
--
-- Source: microsoft/Phi-3-mini-4k-instruct config.json (model_type "phi3", transformers 4.40.2:
-- hidden 3072, intermediate 8192, 32 layers, 32/32 heads, vocab 32064, untied, 4096 positions,
-- sliding_window 2047), as transcribed in public repositories' copies of it (find_string
-- "\"sliding_window\": 2047" in the project's code search).
local llama = require "tilewave.data.families.llama"
local layers = require "tilewave.ops.layers"

local P3 = "microsoft/Phi-3-mini-4k-instruct config.json (transformers 4.40.2): hidden 3072, intermediate 8192, "
  .. "32 layers, 32/32 heads, vocab 32064, untied, 4096 positions, sliding_window 2047"

local F = llama.variant {
  name = "phi3",
  description = "Phi-3: the LLaMA block with fused QKV and gate-up weights",
  fields = { sliding_window = "positive_int" },
  hf_model_types = { phi3 = { fields = { sliding_window = true } } },
  presets = {
    ["phi-3-mini"] = llama.preset("Phi-3 mini 4k", 32, 3072, 32, 32, 8192, 32064, false, 4096, P3,
      { sliding_window = 2047 }),
  },
}

-- the fused gate_up SwiGLU MLP of every layer
local function mlp(ops, c, w, L) layers.glu_mlp(ops, c, w, L, true) end

--- Ops of one forward pass: the LLaMA block with a fused gate_up projection.
function F.ops(c, w) return llama.block_ops(c, w, mlp) end

--- Ops of the MLP of every layer alone (llama.mlp_ops_of, fused).
F.mlp_ops = llama.mlp_ops_of(mlp)

--- The MLP GEMMs (layers.glu_gemms, fused).
function F.mlp_gemms(c, w) return (layers.glu_gemms(c, w, true)) end

return F
