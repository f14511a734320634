--- GPT-NeoX / Pythia family (EleutherAI): parallel residual, partial rotary,
-- untied embeddings, LayerNorm with bias, GELU MLP of width 4h, biases on
-- every linear layer.
--
-- Sources: Pythia README model table and per-model GPT-NeoX YAMLs
-- (github.com/EleutherAI/pythia@a19eecb, models/*.yml); HF config.json
-- vocab sizes (EleutherAI/pythia issue #68); GPT-NeoX configs/20B.yml and
-- transformers GPTNeoXConfig. Padded vocabulary: GPT-NeoX pads the 50,277-entry
-- tokenizer to a multiple of 128 x model-parallel size
-- (megatron/tokenizer/tokenizer.py::_vocab_size_with_padding): MP 1 -> 50304,
-- MP 2 -> 50432, MP 4 -> 50688. See ../shared/reference/model_configs.md §1.
local layers = require "tilewave.ops.layers"

local F = {
  name = "gpt_neox",
  description = "GPT-NeoX / Pythia: parallel residual, rotary on rotary_pct of each head, untied embeddings",
  hf_model_type = "gpt_neox",
  -- family-specific config fields (HF GPTNeoXConfig names) and their checks
  fields = { rotary_pct = "fraction", use_parallel_residual = "boolean", hidden_act = "string" },
  defaults = { rotary_pct = 0.25, use_parallel_residual = true, tie_word_embeddings = false,
               hidden_act = "gelu", max_position_embeddings = 2048 },
}

local README = "github.com/EleutherAI/pythia@a19eecb README.md (model table) + models/*.yml; HF config.json vocab_size (pythia issue #68)"

local function pythia(name, L, h, a, v, src)
  return { name = name, num_hidden_layers = L, hidden_size = h, num_attention_heads = a,
           intermediate_size = 4 * h, vocab_size = v, source = src or README }
end

F.presets = {
  ["pythia-14m"] = pythia("Pythia-14M", 6, 128, 4, 50304),
  ["pythia-31m"] = pythia("Pythia-31M", 6, 256, 8, 50304),
  ["pythia-70m"] = pythia("Pythia-70M", 6, 512, 8, 50304),
  ["pythia-160m"] = pythia("Pythia-160M", 12, 768, 12, 50304),
  ["pythia-410m"] = pythia("Pythia-410M", 24, 1024, 16, 50304),
  ["pythia-1b"] = pythia("Pythia-1B", 16, 2048, 8, 50304),
  ["pythia-1.4b"] = pythia("Pythia-1.4B", 24, 2048, 16, 50304),
  ["pythia-2.8b"] = pythia("Pythia-2.8B", 32, 2560, 32, 50304),
  ["pythia-6.9b"] = pythia("Pythia-6.9B", 32, 4096, 32, 50432),
  ["pythia-12b"] = pythia("Pythia-12B", 36, 5120, 40, 50688),
  ["gpt-neox-20b"] = pythia("GPT-NeoX-20B", 44, 6144, 64, 50432,
    "github.com/EleutherAI/gpt-neox configs/20B.yml; transformers GPTNeoXConfig defaults (vocab 50432, I 24576)"),
}

--- Parameter count: per layer QKV h*(a+2kv)*hd + bias, dense a*hd*h + h,
-- MLP 2*h*I + I + h, two LayerNorms 4h; final LayerNorm 2h; embed_in and
-- embed_out v*h each unless tied. Pythia's "non-embedding" count excludes both
-- embedding matrices (model_configs.md §0, 12h^2 + 13h per layer at I = 4h).
function F.params(c)
  local h = c.hidden_size
  local per_layer = layers.gpt_layer_params(c)
  local non_embedding = c.num_hidden_layers * per_layer + 2 * h
  local embedding = c.vocab_size * h * (c.tie_word_embeddings and 1 or 2)
  return { total = non_embedding + embedding, non_embedding = non_embedding, embedding = embedding }
end

--- Ops of one forward pass. Parallel residual (GPT-J style): x + attn(ln1(x))
-- + mlp(ln2(x)), one three-input residual add; sequential residual otherwise.
function F.ops(c, w)
  local ops, L = {}, c.num_hidden_layers
  ops[#ops + 1] = layers.embedding(c, w)
  ops[#ops + 1] = layers.norm("input_layernorm", c, w, L)
  layers.attention(ops, c, w, { count = L, s_kv = w.s, rotary_frac = c.rotary_pct })
  if not c.use_parallel_residual then ops[#ops + 1] = layers.residual("attention_residual", c, w, L, 2) end
  ops[#ops + 1] = layers.norm("post_attention_layernorm", c, w, L)
  layers.mlp(ops, c, w, L)
  ops[#ops + 1] = layers.residual(c.use_parallel_residual and "parallel_residual" or "mlp_residual", c, w, L,
    c.use_parallel_residual and 3 or 2)
  ops[#ops + 1] = layers.outside(layers.norm("final_layernorm", c, w, 1))
  ops[#ops + 1] = layers.logits(c, w)
  return ops
end

return F
