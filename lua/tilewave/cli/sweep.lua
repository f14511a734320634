--- tilewave.cli.sweep: the `sweep` command - every configuration of a grid (a Lua spec file
-- returning tw.sweep's options), streamed one row each (tilewave.report.sweep_rows), optionally one
-- shard of it, with progress on stderr.
local M = {}
local format, stderr = string.format, io.stderr

--- The command's argparse definition in parser `p`.
function M.define(p)
  local sw = p:command("sweep", "Estimate every config of a grid (a Lua spec file returning tw.sweep's options), "
    .. "streaming one row per config.")
  sw:argument("spec", "Sweep spec file: returns { base = , vary = , where = , hw = , workload = }.")
  sw:option("--shard", "I/N: shard I of N (0 <= I < N): the configs that pass the filters, dealt out in turn, so "
    .. "shards differ by at most one row; shards concatenate to the full grid.")
  sw:option("--out", "Write rows to FILE instead of stdout.")
  sw:option("--format", "Row format."):choices({ "csv", "jsonl" }):default("csv")
  sw:flag("--progress", "Report configs done, configs per second and an ETA on stderr (on by default when stderr "
    .. "is a terminal).")
end

-- `--shard I/N` -> { I, N }
local function parse_shard(text)
  if text == nil then return nil end
  local i, n = text:match("^(%d+)/(%d+)$")
  i, n = math.tointeger(tonumber(i)), math.tointeger(tonumber(n))
  if not i or not n or n < 1 or i >= n then
    error(format("sweep.shard: expected I/N with 0 <= I < N, got '%s'", text), 0)
  end
  return { i, n }
end

-- the rows of a sweep written to `out` (checked writes), with progress on a terminal
local function sweep_rows(args, q, it, stats, cols, fields, out)
  if args.format == "csv" and (q.shard == nil or q.shard[1] == 0) then out:write(table.concat(cols, ","), "\n") end
  -- progress on a terminal rewrites one line twice a second; asked for (--progress) elsewhere,
  -- it writes a line every 5 s
  local tty = require("tilewave.sys").isatty(2)
  local progress, every, eol = tty or args.progress, tty and 0.5 or 5, tty and "   " or "\n"
  local clock, t0, last = os.clock, os.clock(), os.clock()
  local write = require("tilewave.report.sweep_rows").writer(args.format, fields)
  for cfg, hw_id, est in it do
    write(out, cfg, hw_id, est)
    -- no flush per row (10^6 write syscalls); rows go out with the progress ticks and at the end
    if progress and clock() - last > every then
      out:flush()
      last = clock()
      local seen = stats.done + stats.skipped
      local share = stats.total / (q.shard and q.shard[2] or 1)
      local rate = seen / math.max(last - t0, 1e-9)
      stderr:write(format("%s%d/%d configs, %.0f/s, ETA %.0f s%s", tty and "\r" or "", seen, math.floor(share), rate,
        math.max(0, (share - seen) / rate), eol))
    end
  end
  out:flush()
  if progress then
    stderr:write(format("%s%d configs written, %d skipped (where / invalid), %.1f s\n", tty and "\r" or "", stats.done,
      stats.skipped, clock() - t0))
  end
end

--- Run the command on parsed `args`, writing to `out` (or --out, atomically); returns the exit
-- status.
-- @raise `sweep.<field>: ...` for a bad spec or shard
function M.run(args, out)
  -- generational collection: a sweep's rows make short-lived op lists and strings, reclaimed young;
  -- peak memory stays near the live data (10^5 distinct configs: 38 -> 22 MB) and it runs faster
  collectgarbage("generational")
  local spec = require("tilewave.util.sandbox").load_spec(args.spec)
  local q = require("tilewave.util.tables").copy(spec)
  q.shard = parse_shard(args.shard)
  local it, stats = require("tilewave").sweep(q)
  local cols, fields = require("tilewave.explore.sweep").columns(spec)
  local output = require "tilewave.util.output"
  if args.out then
    output.atomic(args.out, "sweep.out", function(f) return sweep_rows(args, q, it, stats, cols, fields, f) end)
  else
    sweep_rows(args, q, it, stats, cols, fields, out)
  end
  return 0
end

return M
