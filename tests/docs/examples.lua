-- The docs' worked examples, checked (issue 37: docs that cannot rot). Every ```console block in
-- docs/*.md is a transcript: a line "$ build/tilewave ARGS" is run (as `tilewave ARGS`, the
-- executable given), and the lines after it, up to the next "$ " line or the block's end, must be
-- its output exactly. Usage: tilewave run tests/docs/examples.lua TILEWAVE DOCS_DIR
-- Prints "docs examples: N checked, M failed"; exits 1 when one fails or none is found.
local lfs = require "lfs"
local exe, dir = arg[1], arg[2] or "docs"
assert(exe, "usage: examples.lua TILEWAVE [DOCS_DIR]")

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function run(args)
  local p = assert(io.popen(shell_quote(exe) .. " " .. args .. " 2>&1"))
  local out = p:read("a")
  p:close()
  return out
end

local files = {}
for f in lfs.dir(dir) do if f:match("%.md$") then files[#files + 1] = f end end
table.sort(files)
local checked, failed = 0, 0
for _, f in ipairs(files) do
  local path = dir .. "/" .. f
  local inblock, cmd, want, line_no = false, nil, nil, 0
  local function finish()
    if not cmd then return end
    local got = run(cmd)
    local expect = table.concat(want, "\n") .. "\n"
    checked = checked + 1
    if got ~= expect then
      failed = failed + 1
      io.write(string.format("FAIL %s: $ build/tilewave %s\n--- expected\n%s--- got\n%s", path, cmd, expect, got))
    end
    cmd, want = nil, nil
  end
  for l in io.lines(path) do
    line_no = line_no + 1
    if not inblock and l == "```console" then inblock = true
    elseif inblock and l == "```" then finish(); inblock = false
    elseif inblock then
      local args = l:match("^%$ build/tilewave (.*)$")
      if args then finish(); cmd, want = args, {}
      elseif cmd then want[#want + 1] = l
      else error(string.format("%s:%d: a console block must start with '$ build/tilewave ...'", path, line_no)) end
    end
  end
end
io.write(string.format("docs examples: %d checked, %d failed\n", checked, failed))
if failed > 0 or checked == 0 then os.exit(1) end
