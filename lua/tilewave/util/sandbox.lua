--- tilewave.util.sandbox: evaluating user files under budgets that hold.
--
-- Data files (hardware specs, clusters, architecture files) are loaded as text (never
-- bytecode) into an empty environment that holds only unit constants, so they cannot call
-- `os`, `io` or `require`:
--   KB, MB, GB, TB (10^3 ... 10^12 byte), KiB, MiB, GiB (2^10 ... 2^30 byte),
--   MHz, GHz (Hz), TFLOPS (10^12 FLOP/s), us (10^-6 s).
-- Spec files (sweep grids, check files, calibration bounds) are Lua programs that may
-- `require "tilewave"`; they run with the global environment behind their own.
-- Every user file is evaluated under:
--   * a size cap and a regular-file check before it is read (`/dev/zero` is refused);
--   * an instruction budget (a count hook) and a wall-clock deadline checked by the hook;
--   * a memory cap enforced in the allocator (core.memory_limit), so a single C call such as
--     ("x"):rep(2^33) fails as well as a table that grows without end;
--   * string methods whose work is bounded: pattern functions (find, match, gmatch, gsub)
--     refuse subjects over M.MAX_PATTERN_SUBJECT bytes and patterns with more than
--     M.MAX_QUANTIFIERS quantifiers (whose backtracking would otherwise run for hours), rep
--     refuses results over M.MAX_BYTES.
-- A budget exceeded ends in one line naming the file, the budget and the setting that raises
-- it, e.g. `hw/x.lua: memory budget of 64 MiB exceeded (tilewave.util.sandbox.MAX_BYTES)`.
local core = require "tilewave.core"
local lfs = require "lfs"
local tables = require "tilewave.util.tables"

local M = {}

local type, pairs, pcall, format, loadfile, tostring = type, pairs, pcall, string.format, loadfile, tostring
local sethook, gethook, clock = debug.sethook, debug.gethook, os.clock

--- Instructions a data file may execute (10^6: ~1000x a hardware spec).
M.MAX_INSTRUCTIONS = 1000000
--- Instructions a spec file may execute while it is loaded, and each call of a function it
-- gives (a sweep's `where`) (10^7).
M.MAX_SPEC_INSTRUCTIONS = 10000000
--- Memory a user file may allocate while it is evaluated, byte (64 MiB; spec files 256 MiB).
M.MAX_BYTES = 64 * 1024 * 1024
M.MAX_SPEC_BYTES = 256 * 1024 * 1024
--- Wall-clock seconds a user file may run while it is evaluated (CPU time, os.clock).
M.MAX_SECONDS = 5
--- Largest user file read, byte (16 MiB: the largest config.json or measured CSV in use is
-- under 1 MiB).
M.MAX_FILE_BYTES = 16 * 1024 * 1024
--- Pattern functions in user files: longest subject, byte, and most quantifiers (* + - ?).
M.MAX_PATTERN_SUBJECT = 4096
M.MAX_QUANTIFIERS = 3

-- the user files this process has read, by device and inode: tilewave.util.output refuses to
-- write over one (a sweep's --out onto its own spec, a check's --junit onto its check file)
local inputs = {}

--- The path a user file read by this process was read as, when `path` is that file (the same
-- device and inode: `./x`, `x` and a link to x are one file, as long as the file read is still
-- there: an inode a deleted file freed is another file); nil otherwise.
function M.read_as(path)
  local attr = type(path) == "string" and lfs.attributes(path)
  local key = attr and format("%d:%d", attr.dev, attr.ino)
  local read = key and inputs[key]
  if not read then return nil end
  local now = lfs.attributes(read.abs)
  if now and now.dev == attr.dev and now.ino == attr.ino then return read.path end
  inputs[key] = nil -- gone, or replaced: no longer an input
  return nil
end

--- `path` if it names a regular file of at most `max_bytes` (default M.MAX_FILE_BYTES),
-- else `nil, "<path>: <what is wrong>"`: not found, a directory, a special file, too large.
-- A file it accepts is recorded as read (M.read_as).
function M.check_file(path, max_bytes)
  if type(path) ~= "string" or path == "" then return nil, "expected a file path, got " .. type(path) end
  max_bytes = max_bytes or M.MAX_FILE_BYTES
  local attr, err = lfs.attributes(path)
  if not attr then return nil, format("%s: cannot read (%s)", path, tostring(err):gsub("^[^:]*: ", "")) end
  if attr.mode ~= "file" then
    return nil, format("%s: cannot read: expected a regular file, got a %s", path, attr.mode)
  end
  if attr.size > max_bytes then
    return nil, format("%s: cannot read: %d bytes, above the %d MiB a user file may hold "
      .. "(tilewave.util.sandbox.MAX_FILE_BYTES)", path, attr.size, max_bytes // (1024 * 1024))
  end
  local key = format("%d:%d", attr.dev, attr.ino)
  inputs[key] = inputs[key] or { path = path, abs = path:sub(1, 1) == "/" and path or (lfs.currentdir() .. "/" .. path) }
  return path
end

--- Whether `path` names anything (a file, a folder, a special file), without opening it: opening a
-- named pipe to look blocks until a writer comes, so no reader here probes with io.open.
function M.exists(path)
  return type(path) == "string" and lfs.attributes(path, "mode") ~= nil
end

--- The whole text of a user file (checked by M.check_file first: a regular file within the size
-- limit), or `nil, msg`. At most max_bytes are read, whatever the file holds by then (one that grew
-- after the check is refused, not read on).
function M.read_file(path, max_bytes)
  max_bytes = max_bytes or M.MAX_FILE_BYTES
  local ok, err = M.check_file(path, max_bytes)
  if not ok then return nil, err end
  local f, oerr = io.open(path, "r")
  if not f then return nil, format("%s: cannot read (%s)", path, tostring(oerr)) end
  local text, rerr = f:read(max_bytes + 1)
  f:close()
  if text == nil and rerr == nil then text = "" end -- an empty file
  if not text then return nil, format("%s: cannot read (%s)", path, tostring(rerr)) end
  if #text > max_bytes then
    return nil, format("%s: cannot read: above the %d MiB a user file may hold (it grew after it was checked)",
      path, max_bytes // (1024 * 1024))
  end
  return text
end

-- the string methods a user file gets: every function of `string`, with bounded work
local function quantifiers(p)
  local n, i = 0, 1
  while i <= #p do
    local c = p:sub(i, i)
    if c == "%" then i = i + 1
    elseif c == "*" or c == "+" or c == "-" or c == "?" then n = n + 1 end
    i = i + 1
  end
  return n
end

local function bounded(name, f)
  return function(s, p, ...)
    if name == "find" and select(2, ...) == true then return f(s, p, ...) end -- plain: linear
    if type(s) == "string" and #s > M.MAX_PATTERN_SUBJECT then
      error(format("string.%s: a subject of %d bytes, above the %d a user file may search "
        .. "(tilewave.util.sandbox.MAX_PATTERN_SUBJECT)", name, #s, M.MAX_PATTERN_SUBJECT), 2)
    end
    if type(p) == "string" and (#p > 256 or quantifiers(p) > M.MAX_QUANTIFIERS) then
      error(format("string.%s: a pattern with more than %d quantifiers or 256 bytes "
        .. "(tilewave.util.sandbox.MAX_QUANTIFIERS)", name, M.MAX_QUANTIFIERS), 2)
    end
    return f(s, p, ...)
  end
end

M.string = {}
tables.copy(string, M.string)
for _, k in ipairs { "find", "match", "gmatch", "gsub" } do M.string[k] = bounded(k, string[k]) end
M.string.rep = function(s, n, sep)
  local size = #tostring(s) * (tonumber(n) or 0) + (sep and #tostring(sep) * math.max(0, (tonumber(n) or 0) - 1) or 0)
  if size > M.MAX_BYTES then
    error(format("string.rep: a result of %.0f bytes, above the memory budget of %d MiB "
      .. "(tilewave.util.sandbox.MAX_BYTES)", size, M.MAX_BYTES // (1024 * 1024)), 2)
  end
  return string.rep(s, n, sep)
end

-- `<path>: <msg>`, unless msg already starts with the path (an error with its position)
local function at(path, msg)
  msg = tostring(msg)
  if msg:sub(1, #path + 1) == path .. ":" then return msg end
  return format("%s: %s", path, msg)
end

-- Run f(...) under budget b = { instructions, bytes, seconds, what ("data-file" or "spec") };
-- returns pcall's results, a budget exceeded as `<budget> exceeded (<setting>)`. Nested runs
-- (a spec file that loads a hw file) count their own instructions; the outermost run holds
-- the memory cap and the bounded string methods.
local depth = 0
local function run_limited(b, f, ...)
  local left, deadline = b.instructions, clock() + M.MAX_SECONDS
  local mt = getmetatable("")
  local old_index, old_hook = mt.__index, { gethook() }
  local STEP = 1000
  depth = depth + 1
  if depth == 1 then
    mt.__index = M.string
    core.memory_limit(b.bytes)
  end
  sethook(function()
    left = left - STEP
    if left < 0 then
      sethook()
      error(format("exceeds the %s budget of %d Lua instructions (%s)", b.what, b.instructions, b.setting), 0)
    end
    if clock() > deadline then
      sethook()
      error(format("exceeds the %s time budget of %g s (tilewave.util.sandbox.MAX_SECONDS)", b.what, M.MAX_SECONDS), 0)
    end
  end, "", STEP)
  local res = table.pack(pcall(f, ...))
  sethook(table.unpack(old_hook))
  depth = depth - 1
  if depth == 0 then
    core.memory_limit(nil)
    mt.__index = old_index
  end
  if not res[1] and tostring(res[2]):find("not enough memory", 1, true) then
    collectgarbage()
    res[2] = format("exceeds the %s memory budget of %d MiB (%s)", b.what, b.bytes // (1024 * 1024),
      b.what == "data-file" and "tilewave.util.sandbox.MAX_BYTES" or "tilewave.util.sandbox.MAX_SPEC_BYTES")
  end
  return table.unpack(res, 1, res.n)
end

local function data_budget()
  return { instructions = M.MAX_INSTRUCTIONS, bytes = M.MAX_BYTES, what = "data-file",
           setting = "a data file holds figures, not loops; tilewave.util.sandbox.MAX_INSTRUCTIONS" }
end
local function spec_budget()
  return { instructions = M.MAX_SPEC_INSTRUCTIONS, bytes = M.MAX_SPEC_BYTES, what = "spec",
           setting = "tilewave.util.sandbox.MAX_SPEC_INSTRUCTIONS" }
end

M.units = {
  KB = 1e3, MB = 1e6, GB = 1e9, TB = 1e12,
  KiB = 1024, MiB = 1024 ^ 2, GiB = 1024 ^ 3,
  MHz = 1e6, GHz = 1e9, TFLOPS = 1e12, us = 1e-6,
}

--- Load the data file at `path`: its returned table, or `nil, msg` (the file cannot be
-- read or parsed, it raises an error or exceeds a budget, or it returns no table).
function M.load(path)
  local okf, ferr = M.check_file(path)
  if not okf then return nil, ferr end
  local env = tables.copy(M.units)
  local chunk, err = loadfile(path, "t", env)
  if not chunk then return nil, err end
  local ok, data = run_limited(data_budget(), chunk)
  if not ok then return nil, at(path, data) end
  if type(data) ~= "table" then return nil, format("%s: expected the file to return a table, got %s", path, type(data)) end
  return data
end

-- The environment of a spec file: Lua's pure functions and libraries (string with bounded
-- pattern functions), `require` of "tilewave" only (without its core, whose memory_limit
-- would lift the cap), no io, os.execute, debug, coroutine or load (a coroutine would run
-- outside the count hook, debug could remove it).
local function spec_env()
  local tw = require "tilewave"
  local tw_view = setmetatable({}, { __index = function(_, k) if k ~= "core" then return tw[k] end end })
  local env = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = pcall, select = select,
    tonumber = tonumber, tostring = tostring, type = type, rawequal = rawequal, rawget = rawget, rawlen = rawlen,
    rawset = rawset, setmetatable = setmetatable, getmetatable = getmetatable, xpcall = xpcall, print = print,
    math = math, table = table, utf8 = utf8, string = M.string,
    os = { time = os.time, clock = os.clock, date = os.date, getenv = os.getenv },
    _VERSION = _VERSION,
  }
  env.require = function(name)
    if name == "tilewave" then return tw_view end
    error(format("require: a spec file may require \"tilewave\" only, got '%s'", tostring(name)), 2)
  end
  tables.copy(M.units, env)
  env._G = env
  return env
end

-- metatables of tilewave's own objects a spec may return (their code is tilewave's, hidden from
-- the spec by __metatable): tilewave.explore.sweep's ranges
local trusted = setmetatable({}, { __mode = "k" })

--- Let spec files return tables with metatable `mt` (tilewave's own, hidden by __metatable so a
-- spec cannot change it).
function M.trust(mt) trusted[mt] = true end

-- Refuse tables with metatables in what a spec file returns (a __index or __pairs would run
-- its code later, outside the budget) unless the metatable is trusted (M.trust); walks at most
-- 10^5 values.
local function plain(t, path)
  local seen, stack, n = {}, { t }, 0
  while #stack > 0 do
    local x = table.remove(stack)
    if not seen[x] then
      seen[x] = true
      local mt = debug.getmetatable(x)
      if mt ~= nil and not trusted[mt] then
        error(format("%s: expected plain tables (no metatables) in what the file returns", path), 0)
      end
      local k, v = next(x)
      while k ~= nil do
        n = n + 1
        if n > 100000 then return end
        if type(v) == "table" then stack[#stack + 1] = v end
        if type(k) == "table" then stack[#stack + 1] = k end
        k, v = next(x, k)
      end
    end
  end
end

--- Load the spec file at `path` (a Lua program: `require "tilewave"` works, `string` has
-- bounded pattern functions) under the spec budget; its returned table, with every function
-- in it (a sweep's `where`) wrapped to run under the same budget per call.
-- @raise `<path>: <reason>` (cannot read, syntax, a budget exceeded, an error it raises,
--   no table returned)
function M.load_spec(path)
  local okf, ferr = M.check_file(path)
  if not okf then error(ferr, 0) end
  local chunk, err = loadfile(path, "t", spec_env())
  if not chunk then error(err, 0) end
  local ok, data = run_limited(spec_budget(), chunk)
  if not ok then error(at(path, data), 0) end
  if type(data) ~= "table" then error(format("%s: expected the file to return a table, got %s", path, type(data)), 0) end
  plain(data, path)
  return M.guard_functions(data, path)
end

--- Wrap every function value of `t` and of its tables (one level deep: a sweep's `where`,
-- a check file's `sweep.where`) to run under the spec budget; returns t.
function M.guard_functions(t, path)
  local function guard(f)
    return function(...)
      local res = table.pack(run_limited(spec_budget(), f, ...))
      if not res[1] then error(at(path, res[2]), 0) end
      return table.unpack(res, 2, res.n)
    end
  end
  for k, v in pairs(t) do
    if type(v) == "function" then t[k] = guard(v)
    elseif type(v) == "table" then
      for k2, v2 in pairs(v) do
        if type(v2) == "function" then v[k2] = guard(v2) end
      end
    end
  end
  return t
end

return M
