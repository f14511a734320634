--- gpt-oss family (OpenAI, Hugging Face model type gpt_oss): the LLaMA block
-- (tilewave.data.families.llama: RMSNorm, GQA, rotary) with
--   * attention alternating between a sliding window (`sliding_window`, 128) and the full
--     context, as `layer_types` lists ("sliding_attention" / "full_attention"; default: the
--     even layers 0, 2, ... slide); the KV cache and the keys a query attends to follow each
--     layer's span (models.kv_windows);
--   * biases on Q, K, V and O (`attention_bias`) and one learned attention sink per head (a
--     logit added to each softmax denominator): both fused into their kernels, counted as
--     parameters, not priced;
--   * a routed mixture of `num_local_experts` SwiGLU experts of width `intermediate_size`,
--     `num_experts_per_tok` per token (tilewave.ops.layers.moe_mlp), each expert with biases
--     on its gate/up (2I) and down (h) projections, a router with a bias (h*E + E).
-- The checkpoints store the expert weights in MXFP4 (tilewave.data.quant `mxfp4`, 4.25 bits per
-- weight) and the rest in bf16; the presets default to mxfp4 (their `weight_dtype`), and a weight
-- format applies to every matrix (the experts are 97% of the 20B's weights).
--
-- Parameters per layer: attention h*(a+2kv)*hd + a*hd*h + (a+2kv)*hd + h biases + a sinks;
-- router h*E + E; E experts of 3*h*I + 2*I + h; two RMSNorms 2h; final norm h; embeddings
-- 2*v*h (untied). gpt-oss-20b: 24 x 823,186,976 + 2,880 + 2 x 201,088 x 2,880 = 20,914,757,184;
-- gpt-oss-120b: 36 x 3,213,080,192 + 2,880 + 1,158,266,880 = 116,829,156,672 (the model card's
-- 20.91B and 116.83B). `active` counts k of the E experts and both embedding matrices (the
-- model card's 3.61B / 5.13B active leave the input embedding out).
--
-- Sources: openai/gpt-oss-20b and openai/gpt-oss-120b config.json on Hugging Face (h 2880,
-- I 2880, 64 heads of 64, 8 KV heads, vocab 201088, window 128 alternating, 32 / 128 experts,
-- 4 per token, 24 / 36 layers; as transcribed in EchoCog/gpt-oss-20b
-- docs/gpt-oss-20b-architecture.md); OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card" (2025-08-05),
-- Table 1 (parameter counts, MXFP4 experts); transformers models/gpt_oss/modeling_gpt_oss.py
-- (biases, sinks, router bias).
local check = require "tilewave.util.check"
local layers = require "tilewave.ops.layers"
local llama = require "tilewave.data.families.llama"
local windows = require "tilewave.data.families.windows"

local SRC = "openai/gpt-oss-%s config.json (Hugging Face): h 2880, I 2880, 64 heads x 64, 8 KV heads, vocab 201088, "
  .. "sliding window 128 on even layers, %d experts, 4 per token, %d layers; OpenAI gpt-oss model card (2025-08-05)"

local function preset(name, size, L, E)
  return llama.preset(name, L, 2880, 64, 8, 2880, 201088, false, 131072, string.format(SRC, size, E, L),
    { head_dim = 64, sliding_window = 128, num_local_experts = E, num_experts_per_tok = 4, attention_bias = true,
      -- the published checkpoint's format, the default of every command (--weight-dtype bf16 for
      -- the other)
      weight_dtype = "mxfp4", weight_dtype_source = "OpenAI gpt-oss model card (2025-08-05): MoE weights in MXFP4" })
end

local F = llama.variant {
  name = "gpt_oss",
  description = "gpt-oss: GQA with biases and sinks, sliding window (128) alternating with full attention, "
    .. "routed SwiGLU experts with biases",
  fields = { sliding_window = "positive_int", num_local_experts = "positive_int", num_experts_per_tok = "positive_int",
             attention_bias = "boolean", layer_types = "table" },
  hf_model_types = {
    gpt_oss = { fields = { sliding_window = true, num_local_experts = true, num_experts_per_tok = true,
                           attention_bias = true, layer_types = true } },
  },
  presets = {
    ["gpt-oss-20b"] = preset("gpt-oss-20b", "20b", 24, 32),
    ["gpt-oss-120b"] = preset("gpt-oss-120b", "120b", 36, 128),
  },
}
F.defaults = { tie_word_embeddings = false, hidden_act = "silu", attention_bias = true,
               native_weight_dtype = "mxfp4" } -- the published checkpoints' format (model card, 2025-08-05)

--- Checks: experts present and k <= E; layer_types, when given, one known type per layer.
function F.validate(c, path)
  for _, k in ipairs { "num_local_experts", "num_experts_per_tok" } do
    if c[k] == nil then check.fail(check.field(path, k), "expected positive integer", nil) end
  end
  llama.validate(c, path)
  windows.validate(c, path)
end

--- Layers with a sliding window: those layer_types marks, else the even ones, ceil(L / 2)
-- (none without sliding_window).
function F.local_layers(c) return windows.sliding_layers(c, function(x) return (x.num_hidden_layers + 1) // 2 end) end

--- KV spans (models.kv_windows): the sliding layers keep sliding_window tokens, the rest all.
function F.kv_windows(c) return windows.kv_windows(c, F.local_layers(c)) end

--- Parameter counts (see the module comment).
function F.params(c)
  local h, L, I, v = c.hidden_size, c.num_hidden_layers, c.intermediate_size, c.vocab_size
  local E, k, a = c.num_local_experts, c.num_experts_per_tok, c.num_attention_heads
  local attn = layers.attention_weights(c) + (c.attention_bias and h or 0) + a
  local expert = 3 * h * I + 2 * I + h
  local shared = attn + h * E + E + 2 * h
  local non_embedding = L * (shared + E * expert) + h
  local embedding = v * h * (c.tie_word_embeddings and 1 or 2)
  return { total = non_embedding + embedding, non_embedding = non_embedding, embedding = embedding,
           active = L * (shared + k * expert) + h + embedding }
end

local function mlp(ops, c, w, L) layers.moe_mlp(ops, c, w, L) end

--- Ops of one forward pass: the LLaMA block's, with the full and the sliding layers' attention
-- as two ops each and the routed experts as the MLP.
function F.ops(c, w)
  local ops, L = {}, c.num_hidden_layers
  local n_local = F.local_layers(c)
  ops[#ops + 1] = layers.embedding(c, w)
  ops[#ops + 1] = layers.norm("input_rmsnorm", c, w, L, "rms")
  windows.attention(ops, c, w, n_local)
  ops[#ops + 1] = layers.residual("attention_residual", c, w, L, 2)
  ops[#ops + 1] = layers.norm("post_attention_rmsnorm", c, w, L, "rms")
  mlp(ops, c, w, L)
  return layers.pre_norm_tail(ops, c, w, L)
end

F.mlp_ops = llama.mlp_ops_of(mlp)
function F.mlp_gemms() return nil end

return F
