--- tilewave.data.config_json: what a Hugging Face config.json holds beyond the model's sizes, made
-- safe to read (tilewave.data.models.from_hf_config): JSON numbers as Lua integers, and RoPE
-- scaling fields checked though not modeled. Field names as transformers writes them (4.x
-- `rope_scaling`, 5.x `rope_parameters`).
local check = require "tilewave.util.check"
local cjson = require "cjson"
local M = {}
local format = string.format

-- lua-cjson decodes every JSON number as a float: an integral one (within 2^53, where doubles
-- hold integers exactly) becomes an integer, in nested objects and lists too (no_rope_layers,
-- layer_types, text_config), so that 1 and 1.0 are one value and 1.5 stays refused by name
local function integers(v, depth)
  if type(v) == "number" then
    return (math.abs(v) <= 2 ^ 53 and math.tointeger(v)) or v
  elseif type(v) == "table" and depth < 8 then
    for k, x in pairs(v) do v[k] = integers(x, depth + 1) end
  end
  return v
end

-- rope_scaling (transformers 4) or rope_parameters (transformers 5, also one object per layer
-- type: { full_attention = {...}, sliding_attention = {...} }): an object whose factor, when given,
-- is a positive number. tilewave does not model RoPE scaling; it still must be sane.
function M.check_rope(path, name, rs)
  if rs == nil or rs == cjson.null then return end
  if type(rs) ~= "table" or rs[1] ~= nil then
    error(format("%s: %s: expected an object (e.g. {\"rope_type\": \"linear\", \"factor\": 2.0}), got %s",
      path, name, check.describe(rs)), 0)
  end
  if rs.factor ~= nil and (type(rs.factor) ~= "number" or not (rs.factor > 0) or rs.factor > 1e6) then
    error(format("%s: %s.factor: expected a positive number, got %s", path, name, check.describe(rs.factor)), 0)
  end
  for k, v in pairs(rs) do
    if type(v) == "table" and v[1] == nil and next(v) ~= nil then M.check_rope(path, name .. "." .. k, v) end
  end
end

-- quantization_config's quant_method -> the weight format tilewave prices (tilewave.data.quant),
-- from transformers' quantizers (transformers/quantizers/auto.py AUTO_QUANTIZATION_CONFIG_MAPPING
-- names the methods; each config class its fields: AwqConfig and GPTQConfig `bits`, `group_size`;
-- FineGrainedFP8Config `fmt`, `weight_block_size`; Mxfp4Config; BitsAndBytesConfig `load_in_4bit`,
-- `load_in_8bit`)
local function quant_of(q)
  local m = q.quant_method
  if m == "mxfp4" then return { name = "mxfp4" } end
  if m == "fp8" or m == "fbgemm_fp8" then return { name = "fp8" } end
  if m == "awq" or m == "gptq" then
    if q.bits == 4 then
      local g = q.group_size
      return { name = "int4", group = (g == 32 or g == 64 or g == 128 or g == 256) and g or 128 }
    end
    if q.bits == 8 then return { name = "int8" } end
    return nil, format("bits %s", check.describe(q.bits))
  end
  if m == "compressed-tensors" and type(q.config_groups) == "table" then
    -- llm-compressor's checkpoints: each group's `weights` = { num_bits, type = "float" | "int",
    -- group_size } (compressed_tensors QuantizationArgs); the first group names the format
    for _, key in ipairs { "group_0", "group_1" } do
      local w = type(q.config_groups[key]) == "table" and q.config_groups[key].weights
      if type(w) == "table" then
        if w.num_bits == 8 then return { name = w.type == "float" and "fp8" or "int8" } end
        if w.num_bits == 4 and w.type == "float" then return { name = "nvfp4" } end
        if w.num_bits == 4 then
          local g = w.group_size
          return { name = "int4", group = (g == 32 or g == 64 or g == 128 or g == 256) and g or 128 }
        end
        return nil, format("compressed-tensors num_bits %s", check.describe(w.num_bits))
      end
    end
  end
  if m == "bitsandbytes" then
    if q.load_in_4bit == true then return { name = "int4", group = 64 } end -- NF4 in blocks of 64
    if q.load_in_8bit == true then return { name = "int8" } end
  end
  return nil, format("quant_method %s", check.describe(m))
end

--- The weight format a config.json's `quantization_config` declares (mxfp4, fp8, AWQ/GPTQ 4 or 8
-- bits, bitsandbytes), as `{ name, group, source }` for tilewave.data.quant, or nil when none is
-- declared. A method tilewave does not price raises, naming it: a bf16 price for a 4-bit checkpoint
-- would be silently wrong.
-- @raise `<path>: quantization_config: ... (pass weight_dtype ...)`
function M.weight_dtype(path, q)
  if q == nil or q == cjson.null then return nil end
  if type(q) ~= "table" or q[1] ~= nil then
    error(format("%s: quantization_config: expected an object, got %s", path, check.describe(q)), 0)
  end
  local f, why = quant_of(q)
  if not f then
    error(format("%s: quantization_config: %s is not a weight format tilewave prices (known: awq and gptq "
      .. "with bits 4 or 8, bitsandbytes 4 or 8 bit, compressed-tensors 4 or 8 bit, fp8, fbgemm_fp8, mxfp4)", path, why), 0)
  end
  f.source = format("config.json quantization_config, quant_method %s", tostring(q.quant_method))
  return f
end

--- `v` (a decoded config.json) with every integral number within 2^53 an integer, in place.
-- @raise never
function M.integers(v) return integers(v, 0) end

return M
