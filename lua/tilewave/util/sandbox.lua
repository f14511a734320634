--- tilewave.util.sandbox: loading pure-data Lua files (hardware specs, clusters).
--
-- A data file is loaded as text (never bytecode) into an empty environment that
-- holds only unit constants, so it cannot call `os`, `io` or `require`:
--   KB, MB, GB, TB (10^3 ... 10^12 byte), KiB, MiB, GiB (2^10 ... 2^30 byte),
--   MHz, GHz (Hz), TFLOPS (10^12 FLOP/s), us (10^-6 s).
local M = {}

local type, pairs, pcall, format, loadfile, tostring = type, pairs, pcall, string.format, loadfile, tostring

M.units = {
  KB = 1e3, MB = 1e6, GB = 1e9, TB = 1e12,
  KiB = 1024, MiB = 1024 ^ 2, GiB = 1024 ^ 3,
  MHz = 1e6, GHz = 1e9, TFLOPS = 1e12, us = 1e-6,
}

--- Load the data file at `path`: its returned table, or `nil, msg` (the file
-- cannot be read or parsed, it raises an error, or it returns no table).
function M.load(path)
  local env = {}
  for k, v in pairs(M.units) do env[k] = v end
  local chunk, err = loadfile(path, "t", env)
  if not chunk then return nil, err end
  local ok, data = pcall(chunk)
  if not ok then return nil, format("%s: %s", path, tostring(data)) end
  if type(data) ~= "table" then return nil, format("%s: expected the file to return a table, got %s", path, type(data)) end
  return data
end

return M
