--- DeepSeek family (DeepSeek-V2 and V3): RMSNorm, multi-head latent attention
-- (tilewave.ops.layers.mla_attention), the first `first_k_dense_replace` layers a
-- dense SwiGLU of intermediate_size, the others a mixture of `n_routed_experts`
-- SwiGLU experts of moe_intermediate_size, `num_experts_per_tok` per token, plus
-- `n_shared_experts` always-on experts (tilewave.ops.layers.moe_mlp). The
-- multi-token-prediction module (num_nextn_predict_layers) is not counted.
--
-- Sources: deepseek-ai/DeepSeek-V3 config.json and DeepSeek-AI 2024 (arXiv 2412.19437),
-- as transcribed in ../shared/reference/model_configs.md §6b: 671B total, 37B active.
-- Parameter layout of an MLA layer (DeepSeek-V2, arXiv 2405.04434 §2.1, and the HF
-- modeling code's projection names): q_a h x q_lora (+ its RMSNorm), q_b q_lora x
-- a*(nope+rope), kv_a h x (kv_lora+rope) (+ its RMSNorm), kv_b kv_lora x a*(nope+v),
-- o a*v x h; the router h x E plus an E-wide score-correction bias (V3).
local check = require "tilewave.util.check"
local layers = require "tilewave.ops.layers"

local V3 = "../shared/reference/model_configs.md §6b: deepseek-ai/DeepSeek-V3 config.json (61 layers, first 3 dense of "
  .. "18432, 256 routed experts of 2048, 8 per token, 1 shared, MLA q_lora 1536 kv_lora 512 nope 128 rope 64 v 128, "
  .. "vocab 129280, untied); DeepSeek-AI 2024 (arXiv 2412.19437): 671B total, 37B active"

local F = {
  name = "deepseek",
  description = "DeepSeek-V2/V3: multi-head latent attention, dense first layers, routed + shared SwiGLU experts",
  hf_model_types = {
    deepseek_v2 = { fields = { n_routed_experts = true, num_experts_per_tok = true, moe_intermediate_size = true,
                               n_shared_experts = true } },
    deepseek_v3 = { fields = { n_routed_experts = true, num_experts_per_tok = true, moe_intermediate_size = true,
                               n_shared_experts = true } },
  },
  glu = false, -- the expert widths are not a free GLU width for rules.glu_width
  -- MLA: h/a is not a head dimension (the heads are qk 192 / v 128 wide), so the h/a rule
  -- and the (h, a, I) shape search of tilewave.explore do not apply
  latent_attention = true,
  fields = {
    hidden_act = "string", rope_theta = "positive", first_k_dense_replace = "positive_int",
    n_routed_experts = "positive_int", moe_intermediate_size = "positive_int", num_experts_per_tok = "positive_int",
    n_shared_experts = "positive_int", q_lora_rank = "positive_int", kv_lora_rank = "positive_int",
    qk_nope_head_dim = "positive_int", qk_rope_head_dim = "positive_int", v_head_dim = "positive_int",
  },
  defaults = { tie_word_embeddings = false, hidden_act = "silu", first_k_dense_replace = 1, n_shared_experts = 0 },
}

F.presets = {
  ["deepseek-v3"] = { name = "DeepSeek-V3", num_hidden_layers = 61, hidden_size = 7168, num_attention_heads = 128,
    num_key_value_heads = 128, intermediate_size = 18432, vocab_size = 129280, max_position_embeddings = 163840,
    first_k_dense_replace = 3, n_routed_experts = 256, moe_intermediate_size = 2048, num_experts_per_tok = 8,
    n_shared_experts = 1, q_lora_rank = 1536, kv_lora_rank = 512, qk_nope_head_dim = 128, qk_rope_head_dim = 64,
    v_head_dim = 128, source = V3,
    -- the published checkpoint's format, the default of every command (--weight-dtype bf16 for the
    -- other): its config.json's quantization_config
    weight_dtype = "fp8", weight_dtype_source = "deepseek-ai/DeepSeek-V3 config.json quantization_config: fp8 (e4m3), "
      .. "128 x 128 weight blocks" },
}

local REQUIRED = { "n_routed_experts", "moe_intermediate_size", "num_experts_per_tok", "kv_lora_rank",
                   "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim" }

--- Checks across fields; sets head_dim to the attention op's effective (qk + v) / 2.
function F.validate(c, path)
  for _, k in ipairs(REQUIRED) do
    if c[k] == nil then error(string.format("%s: expected positive integer, got nil", check.field(path, k)), 0) end
  end
  if c.num_experts_per_tok > c.n_routed_experts then
    error(string.format("%s: expected at most n_routed_experts %d, got %d", check.field(path, "num_experts_per_tok"),
      c.n_routed_experts, c.num_experts_per_tok), 0)
  end
  if c.first_k_dense_replace > c.num_hidden_layers then
    error(string.format("%s: expected at most num_hidden_layers %d, got %d", check.field(path, "first_k_dense_replace"),
      c.num_hidden_layers, c.first_k_dense_replace), 0)
  end
  -- a low-rank projection is narrower than the hidden state (DeepSeek-V3: 512 and 1536 of 7168)
  for _, k in ipairs { "kv_lora_rank", "q_lora_rank" } do
    if c[k] and c[k] > c.hidden_size then
      error(string.format("%s: expected at most hidden_size %d (a low rank), got %d", check.field(path, k),
        c.hidden_size, c[k]), 0)
    end
  end
  local qkv = c.qk_nope_head_dim + c.qk_rope_head_dim + c.v_head_dim
  if qkv % 2 ~= 0 or (c.kv_lora_rank + c.qk_rope_head_dim) % 2 ~= 0 then
    error(string.format("%s: expected even qk+v and kv_lora+rope dims", check.field(path, "qk_rope_head_dim")), 0)
  end
  c.head_dim = qkv // 2
end

--- KV cache of MLA: the kv_lora_rank latent plus the rope key per token per layer,
-- one copy per rank (not split by t): as `heads` x `head_dim` with 2 * 1 * dim =
-- kv_lora + rope elements (DeepSeek-V3: 576). Decode absorbs kv_b into the query and
-- output projections (DeepSeek-V2 §2.1.2), so each query head scores the 576-wide cache
-- entry and sums the 512-wide latent: attn_dim = 576 + 512.
function F.kv_cache(c)
  return { heads = 1, head_dim = (c.kv_lora_rank + c.qk_rope_head_dim) // 2,
           attn_dim = 2 * c.kv_lora_rank + c.qk_rope_head_dim }
end

local function attention_params(c)
  local h, a = c.hidden_size, c.num_attention_heads
  local qk = c.qk_nope_head_dim + c.qk_rope_head_dim
  local q = c.q_lora_rank and (h * c.q_lora_rank + c.q_lora_rank + c.q_lora_rank * a * qk) or h * a * qk
  local kv = h * (c.kv_lora_rank + c.qk_rope_head_dim) + c.kv_lora_rank
    + c.kv_lora_rank * a * (c.qk_nope_head_dim + c.v_head_dim)
  return q + kv + a * c.v_head_dim * h
end

--- Parameters (the MTP module excluded): per layer MLA attention + 2 RMSNorms; dense
-- layers a SwiGLU 3*h*I; MoE layers E + shared experts of 3*h*I_moe, a router h*E and
-- an E-wide bias; final norm; embeddings untied. DeepSeek-V3: 671,026,419,200 total,
-- 37,552,297,472 active (model_configs.md §6b: 671B and 37B).
function F.params(c)
  local h, L = c.hidden_size, c.num_hidden_layers
  local dense, E, k = c.first_k_dense_replace, c.n_routed_experts, c.num_experts_per_tok
  local expert = 3 * h * c.moe_intermediate_size
  local base = attention_params(c) + 2 * h
  local shared = c.n_shared_experts * expert + h * E + E
  local dense_layer = base + 3 * h * c.intermediate_size
  local non_embedding = dense * dense_layer + (L - dense) * (base + shared + E * expert) + h
  local embedding = c.vocab_size * h * (c.tie_word_embeddings and 1 or 2)
  local active = dense * dense_layer + (L - dense) * (base + shared + k * expert) + h + embedding
  return { total = non_embedding + embedding, non_embedding = non_embedding, embedding = embedding, active = active }
end

--- Ops of one forward pass: MLA in every layer, the dense MLP in the first layers,
-- routed + shared experts in the rest.
function F.ops(c, w)
  local ops, L, dense = {}, c.num_hidden_layers, c.first_k_dense_replace
  ops[#ops + 1] = layers.embedding(c, w)
  ops[#ops + 1] = layers.norm("input_rmsnorm", c, w, L, "rms")
  layers.mla_attention(ops, c, w, L, w.s)
  ops[#ops + 1] = layers.residual("attention_residual", c, w, L, 2)
  ops[#ops + 1] = layers.norm("post_attention_rmsnorm", c, w, L, "rms")
  if dense > 0 then layers.glu_mlp(ops, c, w, dense, false) end
  if L > dense then
    layers.moe_mlp(ops, c, w, L - dense, { experts = c.n_routed_experts, per_token = c.num_experts_per_tok,
      width = c.moe_intermediate_size, shared_width = c.n_shared_experts > 0
        and c.n_shared_experts * c.moe_intermediate_size or nil })
  end
  return layers.pre_norm_tail(ops, c, w, L)
end

return F
