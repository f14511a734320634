--- tilewave.util.output: writing files and stdout without losing data.
--
-- A file is written to a temporary in the same directory, every write checked, flushed and
-- closed (both checked), then renamed over the target: a failed write leaves the user's
-- existing file as it was. The target must be a regular file or not exist yet, in an
-- existing directory: special files (`/dev/full`, `/proc/...`, a FIFO, a directory) are
-- refused before anything is written. Standard output is checked too: tilewave.cli
-- flushes it at exit and turns a failure into `cannot write to stdout: <reason>`.
local lfs = require "lfs"

local M = {}

local format, tostring = string.format, tostring

--- Refuse `path` (option `opt`, e.g. "report.out") unless it names a regular file or a new
-- file in an existing directory. Returns the path.
-- @raise `<opt>: expected a regular file path, got <path> (a <kind>)`;
--   `<opt>: cannot write <path>: directory <dir> does not exist`
function M.check_target(path, opt)
  if type(path) ~= "string" or path == "" then
    error(format("%s: expected a file path, got %s", opt, type(path) == "string" and "''" or type(path)), 0)
  end
  local mode = lfs.attributes(path, "mode")
  if mode and mode ~= "file" then
    error(format("%s: expected a regular file path, got %s (a %s)", opt, path, mode), 0)
  end
  if path:match("^/proc/") or path:match("^/sys/") or path:match("^/dev/") then
    error(format("%s: expected a regular file path, got %s (a system file)", opt, path), 0)
  end
  local dir = path:match("^(.*)/[^/]*$") or "."
  if dir == "" then dir = "/" end
  if lfs.attributes(dir, "mode") ~= "directory" then
    error(format("%s: cannot write %s: directory %s does not exist", opt, path, dir), 0)
  end
  return path
end

-- a file handle whose writes and flushes raise `<what>: <reason>` on failure
local function checked(f, what)
  local w = {}
  function w:write(...)
    local ok, err = f:write(...)
    if not ok then error(format("%s: %s", what, tostring(err)), 0) end
    return self
  end
  function w:flush()
    local ok, err = f:flush()
    if not ok then error(format("%s: %s", what, tostring(err)), 0) end
    return self
  end
  return w
end

--- Standard output with every write and flush checked: `cannot write to stdout: <reason>`.
function M.stdout() return checked(io.stdout, "cannot write to stdout") end

--- Write `path` through `fill(w)` (w:write(...) as a file's, each call checked), atomically:
-- a temporary beside it, flushed, closed and renamed over it. On any failure the temporary is
-- removed, the target is untouched, and the error names `opt` and the path.
-- @return path
function M.atomic(path, opt, fill)
  M.check_target(path, opt)
  local tmp = format("%s.tmp-%d-%d", path, os.time(), math.random(1, 1e9))
  local f, err = io.open(tmp, "w")
  if not f then error(format("%s: cannot write %s: %s", opt, path, tostring(err)), 0) end
  local ok, ferr = pcall(fill, checked(f, format("%s: cannot write %s", opt, path)))
  if ok then
    local fl, e1 = f:flush()
    if not fl then ok, ferr = false, format("%s: cannot write %s: %s", opt, path, tostring(e1)) end
  end
  local cl, e2 = f:close()
  if ok and not cl then ok, ferr = false, format("%s: cannot write %s: %s", opt, path, tostring(e2)) end
  if ok then
    local rn, e3 = os.rename(tmp, path)
    if not rn then ok, ferr = false, format("%s: cannot write %s: %s", opt, path, tostring(e3)) end
  end
  if not ok then
    os.remove(tmp)
    error(ferr, 0)
  end
  return path
end

--- Write the string `text` to `path` atomically (M.atomic).
function M.write_file(path, opt, text)
  return M.atomic(path, opt, function(w) w:write(text) end)
end

--- Flush standard output; nil on success, else the message `cannot write to stdout: <reason>`.
function M.flush_stdout()
  local ok, err = io.stdout:flush()
  if ok then return nil end
  return "cannot write to stdout: " .. tostring(err):gsub("^%(?stdout%)?:? ?", "")
end

return M
