--- tilewave.cli.check: the `check` command - regression checks of config families against bounds,
-- co-design rules and baselines (tilewave.explore.regress): one line per (model, hw) pair, TAP or
-- JUnit XML; exit 1 when a pair fails.
local M = {}
local format = string.format

--- The command's argparse definition in parser `p`.
function M.define(p)
  local ck = p:command("check", "Regression checks of config families against bounds, co-design rules and baselines.")
  ck:argument("files", "Check files (Lua)."):args("+")
  ck:flag("--update-baseline", "Write or refresh each file's baseline JSON instead of checking.")
  ck:option("--junit", "Also write JUnit XML to FILE.")
  ck:flag("--tap", "Print TAP instead of one line per pair.")
end

--- Run the command on parsed `args`, writing to `out`; returns the exit status (1 when a pair
-- fails).
-- @raise `check: ...` for a bad check file or nothing to check
function M.run(args, out)
  local regress = require "tilewave.explore.regress"
  local runs = {}
  local passed, failed = 0, 0
  -- plain output streams a line per pair as it is checked (a 10^6-config sweep included);
  -- TAP and JUnit need every result first
  local keep = args.tap or args.junit
  if args.junit then -- refused before any pair runs: a special file, or one of the check files
    for _, file in ipairs(args.files) do require("tilewave.util.sandbox").check_file(file) end
    require("tilewave.util.output").check_target(args.junit, "check.junit")
  end
  for _, file in ipairs(args.files) do
    local c = regress.load(file)
    if args.update_baseline then
      local path, n = regress.update_baseline(c)
      if path then out:write(format("wrote %s (%d entries)\n", path, n))
      else out:write(format("%s: no expect.baseline, nothing written\n", file)) end
    else
      local run = { check = c }
      local function emit(r)
        if r.ok then passed = passed + 1 else failed = failed + 1 end
        if not args.tap then out:write(regress.line(run, r), "\n") end
      end
      if keep then
        run.results = regress.evaluate(c)
        for _, r in ipairs(run.results) do emit(r) end
        runs[#runs + 1] = run
      else
        regress.evaluate(c, emit)
      end
    end
  end
  if args.update_baseline then return 0 end
  if args.tap then out:write(regress.tap(runs)) end
  if passed + failed == 0 then
    error("check: no (model, hw) pair to check (an empty sweep or models list?)", 0)
  end
  if args.junit then require("tilewave.util.output").write_file(args.junit, "check.junit", regress.junit(runs)) end
  out:write(format("%s%d passed, %d failed\n", args.tap and "# " or "", passed, failed))
  return failed > 0 and 1 or 0
end

return M
