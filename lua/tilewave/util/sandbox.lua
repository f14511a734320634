--- tilewave.util.sandbox: loading pure-data Lua files (hardware specs, clusters).
--
-- A data file is loaded as text (never bytecode) into an empty environment that
-- holds only unit constants, so it cannot call `os`, `io` or `require`:
--   KB, MB, GB, TB (10^3 ... 10^12 byte), KiB, MiB, GiB (2^10 ... 2^30 byte),
--   MHz, GHz (Hz), TFLOPS (10^12 FLOP/s), us (10^-6 s).
-- It runs under a budget: at most M.MAX_INSTRUCTIONS Lua instructions and
-- M.MAX_BYTES of memory growth, so `while true do end` or a table of 10^12
-- entries ends in an error naming the file instead of a hang. A hardware spec is
-- a few hundred instructions and a few kB.
local M = {}

local type, pairs, pcall, format, loadfile, tostring = type, pairs, pcall, string.format, loadfile, tostring
local sethook, gethook, collectgarbage = debug.sethook, debug.gethook, collectgarbage

--- Instructions a data file may execute (10^6: ~1000x a hardware spec).
M.MAX_INSTRUCTIONS = 1000000
--- Memory a data file may allocate, byte (64 MiB).
M.MAX_BYTES = 64 * 1024 * 1024

-- Run chunk under the budget; returns pcall's results. The hook fires every
-- instruction (a data file is short) so that a doubling string is caught early.
local function run_limited(chunk)
  local base_kb, left = collectgarbage("count"), M.MAX_INSTRUCTIONS
  local limit_kb = M.MAX_BYTES / 1024
  local old = { gethook() }
  sethook(function()
    left = left - 1
    if left < 0 then
      sethook()
      error(format("exceeds the data-file budget of %d Lua instructions (a data file holds figures, not loops)",
        M.MAX_INSTRUCTIONS), 0)
    end
    if collectgarbage("count") - base_kb > limit_kb then
      collectgarbage()
      if collectgarbage("count") - base_kb > limit_kb then
        sethook()
        error(format("exceeds the data-file memory budget of %d MiB", M.MAX_BYTES // (1024 * 1024)), 0)
      end
    end
  end, "", 1)
  local res = { pcall(chunk) }
  sethook(table.unpack(old))
  return table.unpack(res)
end

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
  local ok, data = run_limited(chunk)
  if not ok then return nil, format("%s: %s", path, tostring(data)) end
  if type(data) ~= "table" then return nil, format("%s: expected the file to return a table, got %s", path, type(data)) end
  return data
end

return M
