--- tilewave.util.check: argument validation with one message format for the project.
--
-- Every complaint reads `<path>: <expectation>, got <value>`, e.g.
-- `gemm.m: expected positive integer, got -3`, and is raised with
-- `error(msg, 0)` so that no source position is prepended.
local M = {}

local type, tostring, format = type, tostring, string.format
local error, pairs, ipairs, sort, concat = error, pairs, ipairs, table.sort, table.concat

--- Describe a value for an error message as Lua's tostring does: `-3`, `2.5`,
-- `string '80'`, `nil`, `table`.
-- JSON's null as lua-cjson decodes it (a light userdata), named "null" in messages
local ok_cjson, cjson = pcall(require, "cjson")
local JSON_NULL = ok_cjson and cjson.null or nil

function M.describe(v)
  local t = type(v)
  if v ~= nil and v == JSON_NULL then return "null" end
  if t == "number" then
    if v ~= v then return "NaN" end -- tostring gives "-nan" or "nan" by platform
    return tostring(v)
  elseif t == "string" then
    return format("string '%s'", v)
  end
  return t
end

--- The path of field `k` under `path`: `path.k`, or `path k` when path ends with ":" (a
-- file, as in `config.json: hidden_size`).
function M.field(path, k)
  if path:sub(-1) == ":" then return path .. " " .. tostring(k) end
  return path .. "." .. tostring(k)
end

--- Raise `<path>: <expect>, got <value>`.
function M.fail(path, expect, value)
  error(format("%s: %s, got %s", path, expect, M.describe(value)), 0)
end

local math_type = math.type

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

--- A positive integer (integral floats accepted); returns it.
function M.positive_int(v, path)
  if math_type(v) == "integer" then
    if v >= 1 then return v end -- the common case, without the float checks
  elseif type(v) == "number" and finite(v) and v >= 1 and v % 1 == 0 then
    return v
  end
  M.fail(path, "expected positive integer", v)
end

--- A positive finite number; returns it.
function M.positive(v, path)
  if type(v) ~= "number" or not finite(v) or v <= 0 then
    M.fail(path, "expected positive number", v)
  end
  return v
end

--- A finite number >= 0; returns it.
function M.nonneg(v, path)
  if type(v) ~= "number" or not finite(v) or v < 0 then
    M.fail(path, "expected non-negative number", v)
  end
  return v
end

--- A number in (0, 1]; returns it.
function M.fraction(v, path)
  if type(v) ~= "number" or not finite(v) or v <= 0 or v > 1 then
    M.fail(path, "expected number in (0, 1]", v)
  end
  return v
end

--- A number in [lo, hi] (a physical range: absurd figures such as a bandwidth
-- of 1e-300 byte/s would give finite but meaningless times); returns it.
-- `unit` names what is expected, e.g. "byte/s".
function M.within(v, lo, hi, unit, path)
  if type(v) ~= "number" or not finite(v) or v < lo or v > hi then
    M.fail(path, string.format("expected %s from %g to %g", unit, lo, hi), v)
  end
  return v
end

--- A string; returns it.
function M.string(v, path)
  if type(v) ~= "string" then M.fail(path, "expected string", v) end
  return v
end

--- A table; returns it.
function M.table(v, path)
  if type(v) ~= "table" then M.fail(path, "expected table", v) end
  return v
end

--- Sorted keys of a set-like table, joined by ", ".
function M.keys(set)
  local ks = {}
  for k in pairs(set) do ks[#ks + 1] = tostring(k) end
  sort(ks)
  return concat(ks, ", ")
end

--- One of the keys of `choices` (a set); returns it.
function M.one_of(v, choices, path)
  if type(v) ~= "string" or not choices[v] then
    M.fail(path, "expected one of " .. M.keys(choices), v)
  end
  return v
end

-- Levenshtein distance between strings a and b, stopping early above `limit`.
local function distance(a, b, limit)
  local la, lb = #a, #b
  if math.abs(la - lb) > limit then return limit + 1 end
  local prev = {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    local cur, best = { [0] = i }, i
    local ca = a:byte(i)
    for j = 1, lb do
      local cost = ca == b:byte(j) and 0 or 1
      local v = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
      cur[j] = v
      if v < best then best = v end
    end
    if best > limit then return limit + 1 end
    prev = cur
  end
  return prev[lb]
end

--- The key of the set `known` nearest to `key` within two edits (insertions, deletions,
-- substitutions; one for keys of up to 3 characters, and fewer than the key's length; case
-- ignored), or nil. Ties go to a key that starts as `key` does (a product line's letter: "b100"
-- suggests "b200", not "a100"), then to the first in sorted order.
function M.nearest(key, known)
  if type(key) ~= "string" then return nil end
  local names = {}
  for k in pairs(known) do if type(k) == "string" then names[#names + 1] = k end end
  sort(names)
  local limit = math.min(#key <= 3 and 2 or 3, #key)
  local best, best_score = nil, math.huge
  local lk = key:lower()
  for _, k in ipairs(names) do
    local lo = k:lower()
    local d = distance(lk, lo, 2)
    local score = 2 * d + (lo:sub(1, 1) == lk:sub(1, 1) and 0 or 1)
    if d < limit and score < best_score then best, best_score = k, score end
  end
  return best
end

--- The first key of `tbl` (sorted as strings) not in the set `allowed`, or nil.
function M.unknown_key(tbl, allowed)
  local bad
  for k in pairs(tbl) do
    if not allowed[k] and (bad == nil or tostring(k) < tostring(bad)) then bad = k end
  end
  return bad
end

--- " (did you mean 'x'?)" for an unknown `key` near a key of `known`, else "".
function M.did_you_mean(key, known)
  local near = M.nearest(key, known)
  return near and format(" (did you mean '%s'?)", near) or ""
end

--- Reject keys of `opts` not in the set `allowed`:
-- `<path>: unknown option 'x' (did you mean 'y'?) (known: ...)`, the first bad key in sorted
-- order, with the nearest known key when one is within two edits.
function M.options(opts, allowed, path)
  local clean = true
  for k in pairs(opts) do
    if not allowed[k] then clean = false break end
  end
  if clean then return opts end
  local bad = M.unknown_key(opts, allowed)
  error(format("%s: unknown option '%s'%s (known: %s)", path, tostring(bad), M.did_you_mean(bad, allowed),
    M.keys(allowed)), 0)
end

return M
