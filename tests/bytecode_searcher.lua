-- ctest cli_bytecode_searcher: build/tilewave loads the modules luac precompiled into
-- build/luac (src/main.c, bytecode_searcher) only where the bytecode is fresh, and the
-- chunks still name their source files (error positions, tilewave.util.csv.shared_dir).
-- arg[1]: the source tree's lua/ directory; arg[2]: the build's luac/ directory.
local src_dir, bc_dir = arg[1], arg[2]
local fails = 0
local function expect(ok, what)
  if not ok then fails = fails + 1; io.stderr:write("FAIL ", what, "\n") end
end

local searcher = package.searchers[2]
local loader, path = searcher("tilewave.util.csv")
expect(type(loader) == "function", "a fresh module is found by the bytecode searcher")
expect(path == src_dir .. "/tilewave/util/csv.lua", "its loader data is the source path, got " .. tostring(path))
-- the precompiled chunk is binary (the searcher opens it in mode "b")
local f = io.open(bc_dir .. "/tilewave/util/csv.lua", "rb")
expect(f and f:read(4) == "\27Lua", "build/luac holds bytecode")
if f then f:close() end
-- a chunk loaded from bytecode names its source file
local mod = loader("tilewave.util.csv", path)
for _, v in pairs(mod) do
  if type(v) == "function" then
    local src = debug.getinfo(v, "S").source
    expect(src == "@" .. src_dir .. "/tilewave/util/csv.lua", "function source " .. src)
    break
  end
end
-- not a module of the tree, no bytecode: the searcher says so and Lua's own searcher goes on
local none = searcher("tilewave.no_such_module")
expect(type(none) == "string" and none:find("no fresh bytecode", 1, true) ~= nil,
  "a missing module gets a message, got " .. tostring(none))
-- argparse, precompiled from the installed copy, has that copy as its source
local _, apath = searcher("argparse")
expect(apath == package.searchpath("argparse", package.path), "argparse's source " .. tostring(apath))

print(fails == 0 and "bytecode searcher: ok" or "bytecode searcher: failed")
return fails == 0 and 0 or 1
