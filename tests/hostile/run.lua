-- The hostile-input catalogue (issue 32): runs every case of tests/hostile/catalogue.lua
-- through the tilewave executable and checks its outcome. A case is a command (run in a
-- fresh scratch directory holding the case's files) and what it must give:
--   err   exit 1 or 2 (or `code`), one line on stderr containing each of the strings in err
--         (plain text) and one of err_any's when given, nothing on stdout unless `stdout_ok`
--   ok    exit 0 and stdout containing the string
--   and always: done within the time limit, no "internal error", no path into tilewave's
--   own Lua sources, and `after(dir)` (a check of the files left behind) when given.
-- Prints the cases per class and every failure; exits 1 on any.
-- Usage: build/tilewave run tests/hostile/run.lua [EXE] [--class NAME] [--list]
local catalogue = dofile((arg[0]:match("^(.*)/[^/]*$") or ".") .. "/catalogue.lua")

local exe, only, list = "build/tilewave", nil, false
local i = 1
while arg[i] do
  if arg[i] == "--class" then only = arg[i + 1]; i = i + 1
  elseif arg[i] == "--list" then list = true
  else exe = arg[i] end
  i = i + 1
end
-- the working directory ctest gives (the repository root), not $PWD: ctest changes directory
-- without updating the shell's PWD
local repo = require("lfs").currentdir()
local function abs(p) return p:sub(1, 1) == "/" and p or (repo .. "/" .. p) end
exe = abs(exe)

local format = string.format
local TIME_LIMIT = 30 -- s per case (an ASan build is several times slower); a hang ends here

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function read(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read("a")
  f:close()
  return s
end

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local tmp_root = os.tmpname()
os.remove(tmp_root)
assert(os.execute("mkdir -p " .. shell_quote(tmp_root)))

local counts, order, failures, n = {}, {}, {}, 0
local function fail(case, why)
  failures[#failures + 1] = format("[%s] %s: %s", case.class, case.name, why)
end

for _, case in ipairs(catalogue.cases(repo)) do
  if not only or case.class == only then
    n = n + 1
    if not counts[case.class] then counts[case.class] = 0; order[#order + 1] = case.class end
    counts[case.class] = counts[case.class] + 1
    if list then
      print(format("%-12s %s: tilewave %s", case.class, case.name, case.cmd))
    else
      local dir = format("%s/%d", tmp_root, n)
      assert(os.execute("mkdir -p " .. shell_quote(dir)))
      for name, text in pairs(case.files or {}) do write(dir .. "/" .. name, text) end
      if case.setup then assert(os.execute("cd " .. shell_quote(dir) .. " && " .. case.setup)) end
      local stdout = case.stdout or (dir .. "/.out")
      local cmd = format("cd %s && TILEWAVE_SHARED=%s timeout %d %s %s > %s 2> %s; echo $? > %s", shell_quote(dir),
        shell_quote(repo .. "/../shared"), TIME_LIMIT, shell_quote(exe), case.cmd, stdout, dir .. "/.err",
        dir .. "/.code")
      local t0 = os.time()
      os.execute(cmd)
      local code = tonumber(read(dir .. "/.code")) or -1
      local out, err = case.stdout and "" or read(dir .. "/.out"), read(dir .. "/.err")
      local msg = err:gsub("\n$", "")
      if code == 124 then
        fail(case, format("timed out after %d s", os.time() - t0))
      elseif err:find("internal error", 1, true) then
        fail(case, "internal error: " .. msg)
      elseif err:find("lua/tilewave/", 1, true) then
        fail(case, "a path into tilewave's sources: " .. msg)
      elseif case.err then
        local want = type(case.err) == "table" and case.err or { case.err }
        if not (code == (case.code or 1) or (case.code == nil and code == 2)) then
          fail(case, format("exit %d, expected %s; stderr: %s", code, tostring(case.code or "1 or 2"), msg))
        elseif msg:find("\n") then
          fail(case, "more than one line on stderr: " .. msg)
        elseif out ~= "" and not case.stdout_ok then
          fail(case, "output on stdout with an error: " .. out:sub(1, 120))
        else
          for _, w in ipairs(want) do
            if not msg:find(w, 1, true) then fail(case, format("message lacks '%s': %s", w, msg)) break end
          end
          if case.err_any then
            local any = false
            for _, w in ipairs(case.err_any) do any = any or msg:find(w, 1, true) ~= nil end
            if not any then fail(case, format("message names none of %s: %s", table.concat(case.err_any, ", "), msg)) end
          end
        end
      else
        if code ~= 0 then
          fail(case, format("exit %d, expected 0; stderr: %s", code, msg))
        elseif case.ok and not out:find(case.ok, 1, true) then
          fail(case, format("stdout lacks '%s': %s", case.ok, out:sub(1, 200)))
        end
      end
      if case.after then
        local okc, why = case.after(dir, read)
        if not okc then fail(case, "after: " .. tostring(why)) end
      end
    end
  end
end
os.execute("rm -rf " .. shell_quote(tmp_root))

if list then return 0 end
for _, class in ipairs(order) do print(format("%5d  %s", counts[class], class)) end
print(format("%d hostile cases: %d failed", n, #failures))
for _, f in ipairs(failures) do print("FAIL " .. f) end
return #failures == 0 and 0 or 1
