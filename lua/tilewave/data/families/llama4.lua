--- Llama 4 family (Meta; Hugging Face model types llama4_text, and llama4 whose language model
-- is read from its `text_config`): the LLaMA block (RMSNorm, GQA, SwiGLU) with
--   * iRoPE: three layers in four (those `no_rope_layers` marks 1; default all but every 4th)
--     use rotary and attend within chunks of `attention_chunk_size` tokens (8192); every 4th
--     layer attends to the whole context without positions (NoPE). A chunked query sees 1 to
--     `attention_chunk_size` keys; it is priced as a sliding window of that many (the upper
--     bound: exact up to one chunk, at most 2x the attention FLOP beyond), and its KV cache as
--     that many tokens;
--   * a weightless L2 norm of the queries and keys in the rotary layers (`use_qk_norm`): one
--     elementwise kernel, no parameters;
--   * a mixture of experts in every `interleave_moe_layer_step`-th layer (1 on Scout: all, 2 on
--     Maverick: the odd ones) or those `moe_layers` lists: a router (h x E, no bias),
--     `num_local_experts` routed SwiGLU experts of `intermediate_size`, `num_experts_per_tok`
--     (1) per token, and one shared SwiGLU expert of the same width; the other layers a dense
--     SwiGLU of `intermediate_size_mlp`.
-- The vision encoder and projector of the checkpoints are left out (ops and parameters are the
-- text model's).
--
-- Parameters per layer: attention h*(a+2kv)*hd + a*hd*h, two RMSNorms 2h; a MoE layer the router
-- h*E, E + 1 experts of 3*h*I; a dense layer 3*h*I_mlp; final norm h; embeddings 2*v*h (untied).
-- Scout: 48 x 2,202,101,760 + 5,120 + 2 x 202048 x 5120 = 107,769,861,120; Maverick: 24 dense
-- layers of 314,583,040 and 24 MoE layers of 16,295,536,640: 400,711,848,960. Both are the
-- Hugging Face checkpoints' totals (108,641,793,536 and 401,583,781,376) less the same
-- 871,932,416 vision parameters. `active` (k of the E experts, both embeddings): Scout
-- 17,172,894,720, Maverick 17,184,691,200 ("17B active").
--
-- Sources: meta-llama/Llama-4-Scout-17B-16E and Llama-4-Maverick-17B-128E config.json
-- text_config (h 5120, 48 layers, 40 / 8 heads of 128, I 8192, I_mlp 16384, vocab 202048,
-- 16 / 128 experts, 1 per token, interleave step 1 / 2, chunk 8192, use_qk_norm), as read by
-- ml-explore/mlx-lm models/llama4.py and transformers' configuration_llama4.py (no_rope_layers,
-- moe_layers); the checkpoints' parameter totals from Hugging Face safetensors metadata; Meta,
-- "The Llama 4 herd" (2025-04-05: 17B active, 109B / 400B total).
local check = require "tilewave.util.check"
local layers = require "tilewave.ops.layers"
local llama = require "tilewave.data.families.llama"

local SRC = "meta-llama/Llama-4-%s config.json text_config: h 5120, 48 layers, 40/8 heads of 128, I 8192, "
  .. "I_mlp 16384, vocab 202048, %d experts (1 per token) + 1 shared, MoE every %d layer(s), chunk 8192; "
  .. "text backbone of the HF checkpoint (vision's 871,932,416 left out)"

local function preset(name, repo, E, step, ctx)
  return llama.preset(name, 48, 5120, 40, 8, 8192, 202048, false, ctx, string.format(SRC, repo, E, step),
    { head_dim = 128, num_local_experts = E, num_experts_per_tok = 1, intermediate_size_mlp = 16384,
      interleave_moe_layer_step = step, attention_chunk_size = 8192, use_qk_norm = true })
end

local TYPE_FIELDS = { num_local_experts = true, num_experts_per_tok = true, intermediate_size_mlp = true,
                      interleave_moe_layer_step = true, attention_chunk_size = true, use_qk_norm = true,
                      no_rope_layers = true, moe_layers = true, attention_bias = true }

local F = {
  name = "llama4",
  description = "Llama 4: chunked rotary attention with a global NoPE layer in four, routed + shared SwiGLU experts",
  hf_model_types = { llama4_text = { fields = TYPE_FIELDS }, llama4 = { fields = TYPE_FIELDS, nested = "text_config" } },
  glu = false, -- the expert and dense widths are not one free GLU width (rules.glu_width)
  fields = {
    hidden_act = "string", rope_theta = "positive", num_local_experts = "positive_int",
    num_experts_per_tok = "positive_int", intermediate_size_mlp = "positive_int",
    interleave_moe_layer_step = "positive_int", attention_chunk_size = "positive_int", use_qk_norm = "boolean",
    no_rope_layers = "table", moe_layers = "table", attention_bias = "boolean",
  },
  defaults = { tie_word_embeddings = false, hidden_act = "silu", interleave_moe_layer_step = 1, use_qk_norm = true },
  presets = {
    ["llama-4-scout"] = preset("Llama 4 Scout 17B-16E", "Scout-17B-16E", 16, 1, 10485760),
    ["llama-4-maverick"] = preset("Llama 4 Maverick 17B-128E", "Maverick-17B-128E", 128, 2, 1048576),
  },
}

-- a list field of integers in [lo, hi], each checked
local function int_list(c, k, lo, hi, path)
  for i, v in ipairs(c[k]) do
    if math.type(v) ~= "integer" or v < lo or v > hi then
      check.fail(check.field(path, k) .. "[" .. i .. "]", string.format("expected an integer in [%d, %d]", lo, hi), v)
    end
  end
end

--- Checks: experts present, k <= E; no_rope_layers one 0 or 1 per layer; moe_layers indices.
function F.validate(c, path)
  for _, k in ipairs { "num_local_experts", "num_experts_per_tok" } do
    if c[k] == nil then check.fail(check.field(path, k), "expected positive integer", nil) end
  end
  llama.validate(c, path)
  local L = c.num_hidden_layers
  if c.no_rope_layers then
    if #c.no_rope_layers ~= L then
      check.fail(check.field(path, "no_rope_layers"), string.format("expected one entry per layer (%d)", L),
        #c.no_rope_layers .. " entries")
    end
    int_list(c, "no_rope_layers", 0, 1, path)
  end
  if c.moe_layers then
    int_list(c, "moe_layers", 0, L - 1, path)
    local seen = {}
    for i, v in ipairs(c.moe_layers) do
      if seen[v] then check.fail(check.field(path, "moe_layers") .. "[" .. i .. "]", "expected a layer not listed before", v) end
      seen[v] = true
    end
  end
  if F.moe_layers(c) < L and c.intermediate_size_mlp == nil then
    check.fail(check.field(path, "intermediate_size_mlp"), "expected positive integer (the dense layers' width)", nil)
  end
end

--- Layers with rotary and chunked attention: those no_rope_layers marks 1, else all but every 4th
-- (none without attention_chunk_size: every layer then attends to the whole context).
function F.chunked_layers(c)
  if not c.attention_chunk_size then return 0 end
  local L = c.num_hidden_layers
  if not c.no_rope_layers then return L - L // 4 end
  local n = 0
  for _, v in ipairs(c.no_rope_layers) do n = n + v end
  return n
end

--- Layers with experts: moe_layers' count, else every interleave_moe_layer_step-th.
function F.moe_layers(c)
  if c.moe_layers then return #c.moe_layers end
  return c.num_hidden_layers // c.interleave_moe_layer_step
end

--- KV spans (models.kv_windows): a chunked layer keeps at most attention_chunk_size tokens.
function F.kv_windows(c)
  local n = F.chunked_layers(c)
  local spans = { { count = c.num_hidden_layers - n } }
  if n > 0 then spans[2] = { count = n, window = c.attention_chunk_size } end
  return spans
end

--- Parameter counts (see the module comment).
function F.params(c)
  local h, L, I, v = c.hidden_size, c.num_hidden_layers, c.intermediate_size, c.vocab_size
  local E, k = c.num_local_experts, c.num_experts_per_tok
  local n_moe = F.moe_layers(c)
  local base = layers.attention_weights(c) + 2 * h
  local expert = 3 * h * I
  local moe = base + h * E + expert -- the router and the shared expert
  local dense = L > n_moe and base + 3 * h * c.intermediate_size_mlp or 0
  local non_embedding = n_moe * (moe + E * expert) + (L - n_moe) * dense + h
  local embedding = v * h * (c.tie_word_embeddings and 1 or 2)
  return { total = non_embedding + embedding, non_embedding = non_embedding, embedding = embedding,
           active = n_moe * (moe + k * expert) + (L - n_moe) * dense + h + embedding }
end

--- Ops of one forward pass: the global (NoPE) and chunked (rotary, QK L2-norm) layers' attention,
-- the MoE layers' router, shared and routed experts, and the dense layers' SwiGLU.
function F.ops(c, w)
  local ops, L = {}, c.num_hidden_layers
  local n_chunked, n_moe = F.chunked_layers(c), F.moe_layers(c)
  ops[#ops + 1] = layers.embedding(c, w)
  ops[#ops + 1] = layers.norm("input_rmsnorm", c, w, L, "rms")
  if L - n_chunked > 0 then
    layers.attention(ops, c, w, { count = L - n_chunked, s_kv = w.s, rotary_frac = 0 })
  end
  if n_chunked > 0 then
    local first = #ops + 1
    layers.attention(ops, c, w, { count = n_chunked, s_kv = math.min(w.s, c.attention_chunk_size), rotary_frac = 1,
                                  suffix = "_chunked" })
    if c.use_qk_norm then
      -- a weightless L2 norm over this rank's query and key heads, after the projection
      local g = layers.heads(c, w)
      local elems = w.b * w.s * (g.a_t + g.kv_t) * g.hd
      local op = layers.elementwise("norm", "qk_l2norm", 2 * elems * w.e.in_bytes, n_chunked, elems, w.e.in_bytes)
      op.norm = "rms"
      table.insert(ops, first + 1, op)
    end
  end
  ops[#ops + 1] = layers.residual("attention_residual", c, w, L, 2)
  ops[#ops + 1] = layers.norm("post_attention_rmsnorm", c, w, L, "rms")
  if L > n_moe then
    layers.glu_mlp(ops, setmetatable({ intermediate_size = c.intermediate_size_mlp }, { __index = c }), w, L - n_moe,
      false)
  end
  if n_moe > 0 then layers.moe_mlp(ops, c, w, n_moe, { shared_width = c.intermediate_size }) end
  return layers.pre_norm_tail(ops, c, w, L)
end

return F
