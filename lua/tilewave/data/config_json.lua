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

--- `v` (a decoded config.json) with every integral number within 2^53 an integer, in place.
-- @raise never
function M.integers(v) return integers(v, 0) end

return M
