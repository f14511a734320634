--- tilewave.util.tables: the one table-copy helper (Lua has none: table.move copies an array's
-- part, not a record).
-- @module tilewave.util.tables
local M = {}

local next, type = next, type

--- A shallow copy of table `t`: every key of `t` with the same value (nested tables shared, the
-- metatable not copied), into `into` when given (its other keys kept; a key of both gets `t`'s).
-- @param t table to copy
-- @param into optional table to copy into
-- @return `into`, or a new table
-- @raise `tables.copy: expected a table, got <type>` when `t` or `into` is not a table
function M.copy(t, into)
  if type(t) ~= "table" then error("tables.copy: expected a table, got " .. type(t), 2) end
  if into ~= nil and type(into) ~= "table" then error("tables.copy: expected a table to copy into, got " .. type(into), 2) end
  local out = into or {}
  for k, v in next, t do out[k] = v end
  return out
end

return M
