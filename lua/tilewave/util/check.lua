--- tilewave.util.check: argument validation with one message format for the project.
--
-- Every complaint reads `<path>: <expectation>, got <value>`, e.g.
-- `gemm.m: expected positive integer, got -3`, and is raised with
-- `error(msg, 0)` so that no source position is prepended.
local M = {}

local type, tostring, format = type, tostring, string.format
local error, pairs, sort, concat = error, pairs, table.sort, table.concat

--- Describe a value for an error message as Lua's tostring does: `-3`, `2.5`,
-- `string '80'`, `nil`, `table`.
function M.describe(v)
  local t = type(v)
  if t == "number" then
    if v ~= v then return "NaN" end -- tostring gives "-nan" or "nan" by platform
    return tostring(v)
  elseif t == "string" then
    return format("string '%s'", v)
  end
  return t
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

--- Reject keys of `opts` not in the set `allowed`: `<path>: unknown option 'x' (known: ...)`.
function M.options(opts, allowed, path)
  local clean = true
  for k in pairs(opts) do
    if not allowed[k] then clean = false break end
  end
  if clean then return opts end
  local bad = {}
  for k in pairs(opts) do
    if not allowed[k] then bad[#bad + 1] = tostring(k) end
  end
  sort(bad)
  error(format("%s: unknown option '%s' (known: %s)", path, bad[1], M.keys(allowed)), 0)
end

return M
