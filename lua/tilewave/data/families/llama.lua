--- LLaMA family (Meta): RMSNorm, SwiGLU MLP (gate, up, down; no biases),
-- rotary on the whole head, grouped-query attention, embeddings tied where the
-- model ties them (Llama-3.2 1B/3B). `F.variant` builds the families that share
-- this block with options: `mistral` (sliding_window: the KV cache and attention
-- span capped at that many tokens; num_local_experts E and num_experts_per_tok k:
-- Mixtral's routed SwiGLU MoE, tilewave.ops.layers.moe_mlp) and `qwen2`
-- (attention_bias: biases on Q, K and V). params() and ops() read the options
-- wherever they are set.
--
-- Sources: LLaMA-1 MODEL_CARD and llama/model.py (llama_v1); Llama-2
-- MODEL_CARD and model.py (llama_v2); meta-llama/llama-models@8c88b8c
-- models/sku_list.py (architecture args of Llama 3/3.1/3.2) and
-- models/llama3/model.py (FFN width rule); HF config.json of 3.1-8B/70B and
-- 3.2-1B/3B. See ../shared/reference/model_configs.md §2.
local check = require "tilewave.util.check"
local layers = require "tilewave.ops.layers"
local tables = require "tilewave.util.tables"

local F = {
  name = "llama",
  description = "LLaMA: RMSNorm, SwiGLU (gate/up/down), GQA, rotary",
  -- Hugging Face model_type -> fields the type may carry beyond the common ones, and
  -- fields it implies (tilewave.data.models.from_hf_config)
  hf_model_types = { llama = { fields = {} } },
  glu = true, -- gated MLP: intermediate_size is a free width (rules.glu_width, search)
  fields = { hidden_act = "string", rope_theta = "positive" },
  defaults = { tie_word_embeddings = false, hidden_act = "silu" },
}

--- The official FFN width rule (llama models.py `FeedForward`):
-- I = int(2 * 4h / 3); if ffn_dim_multiplier: I = int(multiplier * I);
-- then round up to a multiple of `multiple_of`.
function F.ffn_width(h, multiple_of, multiplier)
  local i = math.floor(2 * 4 * h / 3)
  if multiplier then i = math.floor(multiplier * i) end
  return multiple_of * ((i + multiple_of - 1) // multiple_of)
end

local V1 = "LLaMA-1 MODEL_CARD + llama/model.py (llama_v1 branch); Touvron et al. 2023 Table 2"
local V2 = "Llama-2 MODEL_CARD + llama_v2 model.py; HF config.json"
local V3 = "meta-llama/llama-models@8c88b8c models/sku_list.py + models/llama3/model.py; MODEL_CARD"

local function llama(name, L, h, a, kv, ffn, v, tied, ctx, src, extra)
  local c = { name = name, num_hidden_layers = L, hidden_size = h, num_attention_heads = a,
              num_key_value_heads = kv, intermediate_size = ffn, vocab_size = v,
              tie_word_embeddings = tied, max_position_embeddings = ctx, source = src }
  tables.copy(extra or {}, c)
  return c
end

F.preset = llama

local ffn = F.ffn_width
F.presets = {
  ["llama-7b"] = llama("LLaMA 7B", 32, 4096, 32, 32, ffn(4096, 256), 32000, false, 2048, V1),
  ["llama-13b"] = llama("LLaMA 13B", 40, 5120, 40, 40, ffn(5120, 256), 32000, false, 2048, V1),
  ["llama-33b"] = llama("LLaMA 33B", 60, 6656, 52, 52, ffn(6656, 256), 32000, false, 2048, V1),
  ["llama-65b"] = llama("LLaMA 65B", 80, 8192, 64, 64, ffn(8192, 256), 32000, false, 2048, V1),
  ["llama-2-7b"] = llama("Llama-2 7B", 32, 4096, 32, 32, ffn(4096, 256), 32000, false, 4096, V2),
  ["llama-2-13b"] = llama("Llama-2 13B", 40, 5120, 40, 40, ffn(5120, 256), 32000, false, 4096, V2),
  ["llama-2-70b"] = llama("Llama-2 70B", 80, 8192, 64, 8, ffn(8192, 4096, 1.3), 32000, false, 4096, V2),
  ["llama-3-8b"] = llama("Llama-3 8B", 32, 4096, 32, 8, ffn(4096, 1024, 1.3), 128256, false, 8192, V3),
  ["llama-3-70b"] = llama("Llama-3 70B", 80, 8192, 64, 8, ffn(8192, 4096, 1.3), 128256, false, 8192, V3),
  ["llama-3.1-8b"] = llama("Llama-3.1 8B", 32, 4096, 32, 8, ffn(4096, 1024, 1.3), 128256, false, 131072, V3),
  ["llama-3.1-70b"] = llama("Llama-3.1 70B", 80, 8192, 64, 8, ffn(8192, 4096, 1.3), 128256, false, 131072, V3),
  ["llama-3.1-405b"] = llama("Llama-3.1 405B", 126, 16384, 128, 8, ffn(16384, 4096, 1.2), 128256, false, 131072, V3),
  ["llama-3.2-1b"] = llama("Llama-3.2 1B", 16, 2048, 32, 8, ffn(2048, 256, 1.5), 128256, true, 131072, V3),
  ["llama-3.2-3b"] = llama("Llama-3.2 3B", 28, 3072, 24, 8, ffn(3072, 256, 1.0), 128256, true, 131072, V3),
  -- Seed article 001 (GENIAC, Megatron-DeepSpeed): a Llama-style block. The
  -- article calls it 12.3B; this config counts 12.04B untied (unresolved,
  -- model_configs.md §5).
  ["geniac-12b"] = llama("GENIAC 12.3B (seed 001)", 40, 5120, 40, 8, 13824, 100096, false, 4096,
    "../shared/seeds/001_1ec4f11793972e3e.txt (hidden 5120, ffn 13824, heads 40, kv 8, layers 40, vocab 100096)"),
}

--- Checks across fields: experts come as a pair, k <= E.
function F.validate(c, path)
  local E, k = c.num_local_experts, c.num_experts_per_tok
  if (E == nil) ~= (k == nil) then
    error(string.format("%s: expected num_local_experts and num_experts_per_tok together", check.field(path, "num_experts_per_tok")), 0)
  end
  if E and k > E then
    error(string.format("%s: expected at most num_local_experts %d, got %d", check.field(path, "num_experts_per_tok"), E, k), 0)
  end
end

--- Parameter count: per layer q,k,v,o h*(a+2kv)*hd + a*hd*h (+ Q, K, V biases),
-- SwiGLU 3*h*I (E experts and a router h*E for MoE), two RMSNorms 2h; final norm h;
-- embeddings v*h, twice when untied. non_embedding excludes the embedding (and
-- untied LM head) matrices; active counts k of the E experts (the router and every
-- other weight included): Mixtral-8x7B 46,702,792,704 total, 12,879,925,248 active
-- (model_configs.md §6b).
function F.params(c)
  local h, L = c.hidden_size, c.num_hidden_layers
  local E, k = c.num_local_experts or 1, c.num_experts_per_tok or 1
  local mlp = 3 * h * c.intermediate_size
  local shared = layers.attention_weights(c) + 2 * h + (c.num_local_experts and h * E or 0)
  local non_embedding = L * (shared + E * mlp) + h
  local embedding = c.vocab_size * h * (c.tie_word_embeddings and 1 or 2)
  local active = L * (shared + k * mlp) + h + embedding
  return { total = non_embedding + embedding, non_embedding = non_embedding, embedding = embedding, active = active }
end

--- F.params(c) with `extra` more parameters in every layer (weights a variant adds: Qwen3's
-- QK-norm, Gemma 2's second pair of norms), counted in total, non_embedding and active.
function F.params_plus(c, extra)
  local p = F.params(c)
  local n = extra * c.num_hidden_layers
  return { total = p.total + n, non_embedding = p.non_embedding + n, embedding = p.embedding, active = p.active + n }
end

--- Ops of one forward pass of the LLaMA block (pre-norm, sequential residual) with
-- `mlp(ops, c, w, L)` appending each layer's MLP. The LM head runs even when tied:
-- 2*v*h FLOP per token either way. Shared by the families built on this block.
function F.block_ops(c, w, mlp)
  local ops, L = {}, c.num_hidden_layers
  ops[#ops + 1] = layers.embedding(c, w)
  ops[#ops + 1] = layers.norm("input_rmsnorm", c, w, L, "rms")
  -- a sliding window caps the keys a query attends to (Mistral: 4096)
  layers.attention(ops, c, w, { count = L, s_kv = math.min(w.s, c.sliding_window or w.s), rotary_frac = 1 })
  ops[#ops + 1] = layers.residual("attention_residual", c, w, L, 2)
  ops[#ops + 1] = layers.norm("post_attention_rmsnorm", c, w, L, "rms")
  mlp(ops, c, w, L)
  ops[#ops + 1] = layers.residual("mlp_residual", c, w, L, 2)
  ops[#ops + 1] = layers.outside(layers.norm("final_rmsnorm", c, w, 1, "rms"))
  ops[#ops + 1] = layers.logits(c, w)
  return ops
end

-- the SwiGLU MLP, or Mixtral's routed experts when the config has them
local function mlp(ops, c, w, L)
  if c.num_local_experts then layers.moe_mlp(ops, c, w, L) else layers.glu_mlp(ops, c, w, L, false) end
end

--- Ops of one forward pass (F.block_ops with the SwiGLU or Mixtral MLP).
function F.ops(c, w) return F.block_ops(c, w, mlp) end

--- The `mlp_ops(c, w)` of a family whose layers append their MLP with `append(ops, c, w, L)`:
-- the ops of every layer's MLP alone (roles mlp_* and glu), for searches that vary only the MLP
-- width (tilewave.explore.rules glu_width).
function F.mlp_ops_of(append)
  return function(c, w)
    local ops = {}
    append(ops, c, w, c.num_hidden_layers)
    return ops
  end
end

--- Ops of the MLP of every layer alone (F.mlp_ops_of with the SwiGLU or Mixtral MLP).
F.mlp_ops = F.mlp_ops_of(mlp)

--- The MLP GEMMs of F.mlp_ops without its ops (layers.glu_gemms), or nil for routed experts.
function F.mlp_gemms(c, w)
  if c.num_local_experts then return nil end
  return (layers.glu_gemms(c, w, false))
end

--- A family sharing this block (params, ops, validation, the GLU width rule) with its
-- own name, description, extra fields, Hugging Face model types and presets.
-- @tparam table o `name`, `description`, `fields` (extra field -> validator), `hf_model_types`,
--   `hf_type_fields` (fields only the types listing them may carry), `presets`
function F.variant(o)
  local v = tables.copy(F)
  v.name, v.description, v.presets = o.name, o.description, o.presets
  v.hf_model_types, v.hf_type_fields = o.hf_model_types, o.hf_type_fields
  v.fields = {}
  tables.copy(F.fields, v.fields)
  tables.copy(o.fields or {}, v.fields)
  v.variant = nil
  return v
end

return F
