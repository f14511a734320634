--- tilewave.serve.workload_given: requests given rather than drawn - a trace file's rows, or a
-- benchmark's own requests as lists (tilewave.serve.workload's `trace` and `lengths`), each checked
-- field by field. Units: token, s.
-- @module tilewave.serve.workload_given
local check = require "tilewave.util.check"
local csv = require "tilewave.util.csv"

local M = {}

local format, rawlen, rawget = string.format, rawlen, rawget

M.MAX_TOKENS = 2 ^ 31 - 1
--- A token count at `path`: an integer from 1 to 2^31 - 1.
function M.tokens(v, path)
  if check.positive_int(v, path) > M.MAX_TOKENS then check.fail(path, "expected at most 2^31-1 tokens", v) end
  return v
end

--- The rows of trace file `path` (CSV: arrival_s, input_tokens, output_tokens; arrivals in order).
-- @return arrival_s, isl, osl (lists)
-- @raise `<where>: <path> row N: <column>: expected ..., got ...`
function M.read_trace(path, where)
  if type(path) ~= "string" then check.fail(where, "expected a CSV file name", path) end
  local rows, err = csv.read(path)
  if not rows then error(format("%s: cannot read %s: %s", where, path, tostring(err)), 0) end
  if #rows == 0 then error(format("%s: %s has no requests (expected arrival_s,input_tokens,output_tokens rows)", where, path), 0) end
  local arr, isl, osl = {}, {}, {}
  for i, r in ipairs(rows) do
    local function num(k, int)
      local v = tonumber(r[k])
      local ok = v and v == v and v >= 0 and v < 1e12 and (not int or (v >= 1 and v <= M.MAX_TOKENS and v == math.floor(v)))
      if not ok then
        error(format("%s: %s row %d: %s: expected %s, got %s", where, path, i + 1, k,
          int and "a positive integer up to 2^31-1" or "a non-negative number of seconds",
          r[k] == nil and "nothing (no such column in the header, or a short row)" or tostring(r[k])), 0)
      end
      return v
    end
    arr[i], isl[i], osl[i] = num("arrival_s"), num("input_tokens", true), num("output_tokens", true)
    if i > 1 and arr[i] < arr[i - 1] then
      error(format("%s: %s row %d: arrival_s: expected at least the previous row's %.17g, got %.17g", where, path,
        i + 1, arr[i - 1], arr[i]), 0)
    end
  end
  return arr, isl, osl
end

--- The lists `l` = `{ isl, osl, arrival_s (optional) }` at `path`: plain lists of one length (no
-- metatable: a table whose __len claims 10^9 entries is not a list of requests), at most 1e7,
-- token counts (M.tokens), send times in s, finite, >= 0 and in order.
-- @return isl, osl, arrival_s (or nil)
function M.lists(l, path)
  check.table(l, path)
  check.options(l, { isl = true, osl = true, arrival_s = true }, path)
  check.table(l.isl, path .. ".isl")
  check.table(l.osl, path .. ".osl")
  for _, k in ipairs { "isl", "osl", "arrival_s" } do
    if l[k] ~= nil and getmetatable(l[k]) ~= nil then
      check.fail(format("%s.%s", path, k), k == "arrival_s" and "expected a plain list of send times (no metatable)"
        or "expected a plain list of token counts (no metatable)", l[k])
    end
  end
  local n, m = rawlen(l.isl), rawlen(l.osl)
  if n == 0 or n ~= m then
    check.fail(path, "expected isl and osl lists of one length, at least 1", n .. " and " .. m)
  end
  if n > 1e7 then check.fail(path, "expected at most 1e7 requests", n) end
  local isl, osl = {}, {}
  for i = 1, n do
    isl[i] = M.tokens(rawget(l.isl, i), format("%s.isl[%d]", path, i))
    osl[i] = M.tokens(rawget(l.osl, i), format("%s.osl[%d]", path, i))
  end
  local arr
  if l.arrival_s ~= nil then
    check.table(l.arrival_s, path .. ".arrival_s")
    if rawlen(l.arrival_s) ~= n then
      check.fail(path .. ".arrival_s", format("expected %d send times, as isl", n), rawlen(l.arrival_s))
    end
    arr = {}
    for i = 1, n do
      local v = rawget(l.arrival_s, i)
      local where = format("%s.arrival_s[%d]", path, i)
      if type(v) ~= "number" or v ~= v or v < 0 or v >= 1e12 then
        check.fail(where, "expected a non-negative number of seconds", v)
      end
      if i > 1 and v < arr[i - 1] then check.fail(where, format("expected at least the previous %.17g", arr[i - 1]), v) end
      arr[i] = v
    end
  end
  return isl, osl, arr
end

return M
