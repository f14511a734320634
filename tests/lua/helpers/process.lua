-- Test helper (not a spec): run the `tilewave` executable as a process.
-- Loaded with dofile from the repository root (where busted runs).
local EXE = os.getenv("TILEWAVE_EXE") or "build/tilewave"

local M = { EXE = EXE }

--- Run `tilewave <args>` (a shell-quoted string) within `timeout_s` seconds (default 60).
-- @return exit code, stdout, stderr
function M.run(args, timeout_s)
  local errf = os.tmpname()
  local p = io.popen(string.format("timeout %d %s %s 2>%s", timeout_s or 60, EXE, args, errf))
  local out = p:read("a")
  local _, _, code = p:close()
  local f = io.open(errf)
  local err = f:read("a")
  f:close()
  os.remove(errf)
  return code, out, err
end

return M
