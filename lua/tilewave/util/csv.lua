--- tilewave.util.csv: reading CSV files and the one number format of CSV output.
--
-- Reading follows RFC 4180 (quoted fields, doubled quotes, CRLF or LF line ends; no
-- embedded newlines).
-- Writing: integers (and integral floats below 2^53) as integers, other numbers
-- with 6 significant digits (`%.6g`), text quoted when it holds `,`, `"` or a newline.
local M = {}

local format, concat, type, tostring, floor, abs = string.format, table.concat, type, tostring, math.floor, math.abs

--- One CSV line -> array of fields.
-- @raise `csv: unterminated quote in: <line>`
function M.split(line)
  local out, i, n = {}, 1, #line
  while i <= n + 1 do
    if line:sub(i, i) == '"' then
      local buf, j = {}, i + 1
      while true do
        local q = line:find('"', j, true)
        if not q then error("csv: unterminated quote in: " .. line, 0) end
        buf[#buf + 1] = line:sub(j, q - 1)
        if line:sub(q + 1, q + 1) == '"' then buf[#buf + 1] = '"'; j = q + 2 else i = q + 2; break end
      end
      out[#out + 1] = concat(buf)
    else
      local c = line:find(",", i, true) or n + 1
      out[#out + 1] = line:sub(i, c - 1)
      i = c + 1
    end
  end
  return out
end

--- Rows of a CSV file as tables keyed by the header's names (strings); `nil, msg`
-- if the file cannot be read or its header names a column twice (which one would be read?).
function M.read(path)
  local okf, ferr = require("tilewave.util.sandbox").check_file(path)
  if not okf then return nil, ferr end
  local f, err = io.open(path, "r")
  if not f then return nil, err end
  local header, rows = nil, {}
  for line in f:lines() do
    if line:sub(-1) == "\r" then line = line:sub(1, -2) end -- CRLF, as RFC 4180 writes it
    if line ~= "" then
      local cells = M.split(line)
      if not header then
        header = cells
        local seen = {}
        for _, h in ipairs(header) do
          if seen[h] then
            f:close()
            return nil, string.format("column '%s' twice in the header", h)
          end
          seen[h] = true
        end
      else
        local r = {}
        for i, h in ipairs(header) do r[h] = cells[i] end
        rows[#rows + 1] = r
      end
    end
  end
  f:close()
  return rows
end

--- A value as a CSV field (the project's one number format).
function M.field(v)
  if type(v) == "number" then
    if math.type(v) == "integer" then return format("%d", v) end
    if v == floor(v) and abs(v) < 2 ^ 53 then return format("%d", v) end
    return format("%.6g", v)
  end
  v = tostring(v)
  if v:find('[,"\n]') then v = '"' .. v:gsub('"', '""') .. '"' end
  return v
end

--- A CSV text: the `header` line, then each row of `rows` (arrays of values), each value as
-- M.field.
-- @return the text, newline-terminated
function M.table(header, rows)
  local lines = { table.concat(header, ",") }
  for _, r in ipairs(rows) do
    local cells = {}
    for i, c in ipairs(r) do cells[i] = M.field(c) end
    lines[#lines + 1] = table.concat(cells, ",")
  end
  return table.concat(lines, "\n") .. "\n"
end

--- The shared reference folder beside the repository (../shared/reference).
function M.shared_dir()
  local src = debug.getinfo(1, "S").source:sub(2)
  local root = src:match("^(.*)/lua/tilewave/.*$") or "."
  return root .. "/../shared/reference"
end

return M
