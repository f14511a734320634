--- Qwen2 family: the LLaMA block (tilewave.data.families.llama) with biases on the
-- Q, K and V projections (not on O or the MLP). A config's sliding_window counts
-- only when use_sliding_window is true (Qwen2's config.json lists one it does not use).
--
-- Source: Qwen2.5-7B model card and the Qwen2-7B shapes, as transcribed in
-- ../shared/reference/model_configs.md §6 (7,615,616,512 parameters).
local llama = require "tilewave.data.families.llama"

local Q6 = "../shared/reference/model_configs.md §6: Qwen2.5-7B model card (7.61B, 28 layers, 28 Q / 4 KV heads, "
  .. "QKV bias, 131072 context) with the Qwen2-7B shapes (hidden 3584, intermediate 18944, vocab 152064, untied)"

return llama.variant {
  name = "qwen2",
  description = "Qwen2: the LLaMA block with Q, K, V biases",
  fields = { attention_bias = "boolean", sliding_window = "positive_int" },
  hf_model_types = {
    qwen2 = { fields = { sliding_window = true, use_sliding_window = true }, implies = { attention_bias = true } },
  },
  presets = {
    ["qwen2.5-7b"] = llama.preset("Qwen2.5 7B", 28, 3584, 28, 4, 18944, 152064, false, 131072, Q6,
      { attention_bias = true }),
  },
}
