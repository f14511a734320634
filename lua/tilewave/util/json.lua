--- tilewave.util.json: the project's one JSON serializer (lua-cjson encodes the leaves).
--
-- Object keys are sorted, so the same value always gives the same bytes.
-- `encode` is compact; `pretty` puts one value per line with two-space indentation
-- (baseline files). `decode` is lua-cjson's.
local cjson = require "cjson"

local M = {}

local type, pairs, ipairs, tostring, tonumber = type, pairs, ipairs, tostring, tonumber
local concat, sort, math_type = table.concat, table.sort, math.type

M.null = cjson.null
M.decode = cjson.decode

-- the metatable that marks a table as a JSON array, so that an empty one encodes as [] (not {})
local ARRAY = {}

--- `t` (default a new table) marked as a JSON array: encoded `[]` when empty. Returns t.
function M.array(t) return setmetatable(t or {}, ARRAY) end

local function is_array(t)
  local n = #t
  if n == 0 then return next(t) == nil end
  for k in pairs(t) do
    if math_type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local function sorted_keys(v)
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  sort(keys)
  return keys
end

local function field(v, k)
  local x = v[k]
  if x == nil then x = v[tonumber(k)] end
  return x
end

--- Compact JSON text of a value, object keys sorted.
function M.encode(v)
  if type(v) ~= "table" then return cjson.encode(v) end
  local parts = {}
  if getmetatable(v) == ARRAY and next(v) == nil then return "[]" end
  if is_array(v) and #v > 0 then
    for i = 1, #v do parts[i] = M.encode(v[i]) end
    return "[" .. concat(parts, ",") .. "]"
  end
  for i, k in ipairs(sorted_keys(v)) do parts[i] = cjson.encode(k) .. ":" .. M.encode(field(v, k)) end
  return "{" .. concat(parts, ",") .. "}"
end

--- JSON with sorted keys, two-space indentation, one value per line.
function M.pretty(v, indent)
  indent = indent or ""
  if type(v) ~= "table" then return cjson.encode(v) end
  local inner = indent .. "  "
  if next(v) == nil then return getmetatable(v) == ARRAY and "[]" or "{}" end
  local parts = {}
  if is_array(v) then
    for i = 1, #v do parts[i] = inner .. M.pretty(v[i], inner) end
    return "[\n" .. concat(parts, ",\n") .. "\n" .. indent .. "]"
  end
  for i, k in ipairs(sorted_keys(v)) do parts[i] = inner .. cjson.encode(k) .. ": " .. M.pretty(field(v, k), inner) end
  return "{\n" .. concat(parts, ",\n") .. "\n" .. indent .. "}"
end

return M
