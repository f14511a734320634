--- tilewave.explore.measured_csv: the rows of a measurement folder's CSV files (the format of
-- ../shared/reference/calibration/h100/, README there; scripts/probe writes it), every column
-- the model reads checked before it is priced.
--
-- A bad value is refused naming the file, the row and the column:
-- `calibrate: DIR/gemm.csv row 5: m: expected a positive integer up to 2^31-1, got 'abc'`
-- (row 1 is the header). An error the model raises on a row's values takes the same prefix. A file
-- that is not there gives no rows; one that is there but cannot be read (an unterminated quote, a
-- column named twice, past the data-file budget) is refused.
-- @module tilewave.explore.measured_csv
local csv = require "tilewave.util.csv"

local M = {}
local format, ipairs, pairs, tonumber, type, sort = string.format, ipairs, pairs, tonumber, type, table.sort

-- Column kinds: "count" a positive integer up to 2^31 - 1 (tilewave.ops.transformer's bound on
-- b x s); "time" a number of seconds from 1e-9 to 1e6 (no timer in use resolves below a nanosecond; a
-- host op, the fastest row measured, takes 29 ns; no timed kernel, layer or step takes 11 days); "rate" a
-- positive finite number; "text" a non-empty string; a table: one of its keys. A
-- kind ending in "?" may be left empty (the value is then nil).
local EXPECT = { count = "a positive integer up to 2^31-1", time = "a number of seconds from 1e-9 to 1e6",
                 rate = "a positive finite number" }
local function shown(v) return v == nil and "nothing (a short row?)" or format("'%s'", v) end

local function value(kind, v, where, col)
  local optional = type(kind) == "string" and kind:sub(-1) == "?"
  if optional then kind = kind:sub(1, -2) end
  if v == nil or v:match("^%s*$") then
    if optional then return nil end
    error(format("%s: %s: expected a value, got %s", where, col, shown(v)), 0)
  end
  if type(kind) == "table" then
    if kind[v] then return v end
    local names = {}
    for k in pairs(kind) do names[#names + 1] = k end
    sort(names)
    error(format("%s: %s: expected one of %s, got %s", where, col, table.concat(names, ", "), shown(v)), 0)
  end
  if kind == "text" then return v end
  local x = not v:find("[xX]") and tonumber(v) or nil -- decimal only: no 0x hex
  local ok = x ~= nil and x > 0 and x < math.huge
  if kind == "count" then
    ok = ok and x % 1 == 0 and x <= 2 ^ 31 - 1
    x = ok and math.tointeger(x) or x
  elseif kind == "time" then
    ok = ok and x >= 1e-9 and x < 1e6
  end
  if not ok then error(format("%s: %s: expected %s, got %s", where, col, EXPECT[kind], shown(v)), 0) end
  return x
end

--- The columns each file's rows must hold, by file name (a column absent from this list is read
-- as text, unchecked).
M.COLUMNS = {
  gemm = { set = "text", m = "count", n = "count", k = "count", batch = "count", dtype = "text", time_s = "time" },
  layers = { id = "text", b = "count", s = "count", attention = { standard = true, flash = true },
             timing = { graph = true, eager = true }, time_s = "time" },
  decode = { id = "text", batch = "count", context = "count", timing = { graph = true, eager = true }, step_s = "time" },
  -- generate(): scripts/probe's rows give tpot_median_s and layers, the shared file tpot_s
  hf_generate = { id = "text", batch = "count", prompt = "count", new_tokens = "count", layers = "count?",
                  tpot_s = "time?", tpot_median_s = "time?" },
  attention = { impl = "text", b = "count", heads = "count", s = "count", hd = "count",
                pass = { fwd = true, ["fwd+bwd"] = true }, time_s = "time" },
  host = { op = "text", device = "text", time_s = "time" },
  bw = { kind = "text", gbps = "rate" },
  train_layer = { gpu = "text", id = "text", b = "count", s = "count", attention = { standard = true, flash = true },
                  time_s = "time", fwd_s = "time" },
}

-- the rows of `path` as csv.read gives them; nil when there is no such file
local function read(path)
  if not require("tilewave.util.sandbox").exists(path) then return nil end
  local ok, rows, err = pcall(csv.read, path)
  if not ok then error(format("calibrate: %s: %s", path, (tostring(rows):gsub("^csv: ", ""))), 0) end
  if not rows then error(format("calibrate: %s: cannot read it (%s)", path, tostring(err)), 0) end
  return rows
end

--- Call `fn(row, where)` for every row of file `path`, in order; nothing when the file is not
-- there. The columns of `cols` (a name of M.COLUMNS, or a table of column = kind) are checked (in
-- name order) and converted: counts to integers, times and rates to numbers; the others stay as
-- read. `where` is "calibrate: <path> row <n>".
-- @raise `calibrate: <path> row <n>: <column>: expected ..., got '<value>'`; an error `fn` raises
--   for a row, prefixed with its where (an internal error is raised as it is)
function M.each(path, cols, fn)
  local rows = read(path)
  if not rows then return end
  cols = type(cols) == "string" and M.COLUMNS[cols] or cols
  local names = {}
  for k in pairs(cols) do names[#names + 1] = k end
  sort(names)
  for i, raw in ipairs(rows) do
    local where = format("calibrate: %s row %d", path, i + 1)
    local r = {}
    for k, v in pairs(raw) do r[k] = v end
    for _, col in ipairs(names) do r[col] = value(cols[col], raw[col], where, col) end
    local ok, err = pcall(fn, r, where)
    if not ok then
      if type(err) == "string" and not err:find("lua/tilewave/", 1, true) and not err:find("^calibrate: ") then
        err = where .. ": " .. err
      end
      error(err, 0)
    end
  end
end

return M
