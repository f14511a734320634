--- tilewave.util.output: writing files and stdout without losing data.
--
-- A file is written to a temporary in the same directory, every write checked, flushed and
-- closed (both checked), then renamed over the target: a failed write leaves the user's
-- existing file as it was. The target must be a regular file or not exist yet, in an
-- existing directory: special files (`/dev/full`, `/proc/...`, a FIFO, a directory) are
-- refused before anything is written, and so is a file this run has read as an input
-- (tilewave.util.sandbox.read_as: a sweep's --out onto its own spec). Standard output is checked too: tilewave.cli
-- flushes it at exit and turns a failure into `cannot write to stdout: <reason>`.
local lfs = require "lfs"

local M = {}

local format, tostring = string.format, tostring

-- refuse `path` when it is a user file this run has read (tilewave.util.sandbox.read_as)
local function not_input(path, opt)
  local src = require("tilewave.util.sandbox").read_as(path)
  if src then error(format("%s: %s is an input of this run (read as %s): an output may not replace it", opt, path, src), 0) end
end

--- Refuse `path` (option `opt`, e.g. "report.out") unless it names a regular file or a new
-- file in an existing directory, and, unless `replaces` (a baseline refreshed in place), one
-- that is not a file this run has read. Returns the path.
-- @raise `<opt>: expected a regular file path, got <path> (a <kind>)`;
--   `<opt>: cannot write <path>: directory <dir> does not exist`;
--   `<opt>: <path> is an input of this run (read as <path>): an output may not replace it`
function M.check_target(path, opt, replaces)
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
  if mode and not replaces then not_input(path, opt) end
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
-- `replaces`: the target may be a file this run read (M.check_target).
-- @return path
function M.atomic(path, opt, fill, replaces)
  M.check_target(path, opt, replaces)
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

--- Several files written as one (a command with several outputs): each `add` is checked against
-- the others (two outputs with one path are refused) and M.check_target before anything runs;
-- `stage` writes a file's temporary; `commit` renames every temporary over its target once all are
-- written, and `abort` removes them: a run that fails midway leaves every file as it was.
-- @usage local t = output.transaction(); t:add(a.out, "serve.out"); ...; t:stage(a.out, fill);
-- t:commit()
function M.transaction()
  local t = { targets = {}, staged = {} }
  -- @raise `<opt>: the same file as <other> (<path>)`, and M.check_target's errors
  function t:add(path, opt)
    M.check_target(path, opt)
    local key = (path:gsub("^%./", ""):gsub("/+", "/"))
    for _, o in ipairs(self.targets) do
      if o.key == key then error(format("%s: the same file as %s (%s)", opt, o.opt, path), 0) end
    end
    self.targets[#self.targets + 1] = { key = key, opt = opt, path = path }
    return path
  end
  -- write `path`'s temporary through fill(w) (as M.atomic's), or take `tmp`, a file already written
  function t:stage(path, opt, fill, tmp)
    if not tmp then
      tmp = format("%s.tmp-%d-%d", path, os.time(), math.random(1, 1e9))
      local ok, err = pcall(M.atomic, tmp, opt, fill)
      if not ok then self:abort() error(err, 0) end
    end
    self.staged[#self.staged + 1] = { tmp = tmp, path = path, opt = opt }
  end
  function t:abort()
    for _, s in ipairs(self.staged) do os.remove(s.tmp) end
    self.staged = {}
  end
  -- run f(), then commit; a failure anywhere in f removes every temporary staged and is raised
  -- again
  -- @return the paths written, in order
  function t:run(f)
    local ok, err = pcall(f)
    if not ok then
      self:abort()
      error(err, 0)
    end
    return self:commit()
  end
  -- @return the paths written, in order
  function t:commit()
    local done = {}
    for _, s in ipairs(self.staged) do -- the inputs read since the targets were added
      local ok, err = pcall(not_input, s.path, s.opt)
      if not ok then self:abort() error(err, 0) end
    end
    for i, s in ipairs(self.staged) do
      local ok, err = os.rename(s.tmp, s.path)
      if not ok then
        for j = i, #self.staged do os.remove(self.staged[j].tmp) end
        error(format("%s: cannot write %s: %s", s.opt, s.path, tostring(err)), 0)
      end
      done[#done + 1] = s.path
    end
    self.staged = {}
    return done
  end
  return t
end

--- Write the string `text` to `path` atomically (M.atomic; `replaces` as there).
function M.write_file(path, opt, text, replaces)
  return M.atomic(path, opt, function(w) w:write(text) end, replaces)
end

--- Flush standard output; nil on success, else the message `cannot write to stdout: <reason>`.
function M.flush_stdout()
  local ok, err = io.stdout:flush()
  if ok then return nil end
  return "cannot write to stdout: " .. tostring(err):gsub("^%(?stdout%)?:? ?", "")
end

return M
