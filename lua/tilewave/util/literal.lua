--- tilewave.util.literal: a Lua value as Lua source text, deterministically.
--
-- Used to write data files (a fitted hardware spec) that `tilewave.util.sandbox`
-- loads back. Keys are sorted (array parts first, in order), numbers are
-- written with 10 significant digits (integers exactly), strings with %q, so
-- the same value always gives the same bytes. Tables only nest (no cycles;
-- functions and userdata are refused).
local M = {}
local format, concat, sort, rep, type, tostring = string.format, table.concat, table.sort, string.rep, type, tostring

local function number(x)
  if x ~= x or x == math.huge or x == -math.huge then
    error(format("literal: expected a finite number, got %s", x ~= x and "nan" or tostring(x)), 0)
  end
  if math.type(x) == "integer" or (x == math.floor(x) and math.abs(x) < 2 ^ 53) then
    return format("%d", math.tointeger(x) or x)
  end
  return format("%.10g", x)
end

-- a string as a Lua literal on one line: %q, with its escaped newlines written \n
local function str(s)
  return (format("%q", s):gsub("\\\n", "\\n"))
end

local function key(k)
  if type(k) == "string" and k:match("^[%a_][%w_]*$") then return k end
  if type(k) == "string" then return "[" .. str(k) .. "]" end
  return "[" .. number(k) .. "]"
end

local function is_array(t)
  local n = #t
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local function value(v, indent, depth)
  local tv = type(v)
  if tv == "number" then return number(v) end
  if tv == "string" then return str(v) end
  if tv == "boolean" then return tostring(v) end
  if tv ~= "table" then error("literal: cannot write a " .. tv, 0) end
  if depth > 32 then error("literal: tables nested deeper than 32 (a cycle?)", 0) end
  if next(v) == nil then return "{}" end
  if is_array(v) then
    local parts, flat = {}, true
    for i = 1, #v do
      parts[i] = value(v[i], indent, depth + 1)
      if type(v[i]) == "table" then flat = false end
    end
    if flat then return "{ " .. concat(parts, ", ") .. " }" end
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta == "number" end
    return a < b
  end)
  local pad = rep("  ", indent + 1)
  local lines = {}
  for i, k in ipairs(keys) do
    local prefix = math.type(k) == "integer" and is_array(v) and "" or key(k) .. " = "
    lines[i] = pad .. prefix .. value(v[k], indent + 1, depth + 1) .. ","
  end
  return "{\n" .. concat(lines, "\n") .. "\n" .. rep("  ", indent) .. "}"
end

--- `v` (number, string, boolean or nested table) as Lua source text.
-- @raise `literal: ...` for non-finite numbers, functions, userdata, deep nesting
function M.encode(v) return value(v, 0, 0) end

--- A string as a Lua string literal on one line (%q, a newline written as \n).
M.string = str

--- A Lua comment line holding `text` as it is, but for its control characters, each a space: a
-- newline or carriage return (Lua ends a comment at either) in a name the user gave - an input
-- file's path, a folder, a model - would end the comment and make the rest of the name code in
-- the file tilewave writes. Free text in a written Lua file goes through here, values through
-- M.encode or %q.
-- @return "-- " .. text, on one line (no newline at its end)
function M.comment(text)
  return "-- " .. (tostring(text):gsub("%c", " "))
end

return M
