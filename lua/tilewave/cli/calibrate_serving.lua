--- tilewave.cli.calibrate_serving: `tilewave calibrate --serving FILE... --model M --hw H [--t T]
-- [--engine E] [--out engine.lua] [--force]`: the engine's host times fitted to the user's own
-- serving benchmark (tilewave.explore.serving_fit), the error on the requests held back, and an
-- engine file that `serve --engine FILE` takes. docs/calibrate_serving.md walks through it.
local M = {}
local format = string.format

local function pct(x) return format("%.1f%%", 100 * x) end
local function spct(x) return format("%+.1f%%", 100 * x) end

--- Run it for parsed `args`, writing to `out`; returns the exit status.
-- @raise `calibrate.<field>: ...`; the reader's `<file>: <field>: ...`; a deployment that cannot
--   hold the file's requests, naming both
function M.run(args, out)
  local results = require "tilewave.data.serving_results"
  local fit = require "tilewave.explore.serving_fit"
  for _, k in ipairs { "base", "device", "date", "bounds" } do
    if args[k] ~= nil then error(format("calibrate.%s: --%s does not apply with --serving", k, k), 0) end
  end
  if args.rows then error("calibrate.rows: --rows does not apply with --serving", 0) end
  if not args.model then error("calibrate.model: expected --model with --serving (the model the benchmark served)", 0) end
  if #args.dir == 0 then
    error("calibrate.serving: expected benchmark result files (vLLM --save-result JSON, SGLang bench_serving JSONL)", 0)
  end
  if args.out then
    if not args.out:match("%.lua$") then error(format("calibrate.out: expected a .lua engine file, got '%s'", args.out), 0) end
    require("tilewave.util.output").check_target(args.out, "calibrate.out")
  end
  local list = {}
  for i, path in ipairs(args.dir) do list[i] = results.read(path) end
  local sched
  if args.max_num_seqs or args.max_num_batched_tokens then
    sched = { base = require("tilewave.cost.engines").resolve(args.engine, "calibrate.engine").scheduler,
              max_num_seqs = args.max_num_seqs, max_num_batched_tokens = args.max_num_batched_tokens }
  end
  local dep = { model = args.model, hw = args.hw, t = args.t, engine = args.engine, scheduler = sched }
  local ok, f = pcall(fit.fit, dep, list)
  if not ok then
    error(format("calibrate: the deployment (%s on %s, t = %d) cannot replay %s: %s", args.model, args.hw, args.t,
      table.concat(args.dir, ", "), tostring(f)), 0)
  end
  local tbl = require("tilewave.report.format").table
  local rows = {}
  for _, r in ipairs { { "base " .. f.base, f.before }, { "fitted", f.after } } do
    local e = r[2].held
    rows[#rows + 1] = { r[1], pct(e.ttft_mape), spct(e.ttft_bias), pct(e.tpot_mape), spct(e.tpot_bias),
                        spct(e.throughput), format("%.3f", r[2].fit.loss) }
  end
  local what = {}
  for i, res in ipairs(list) do
    what[i] = format("%s (%s, %d requests, %s)", res.path, res.format, res.completed,
      res.rate < math.huge and format("%g req/s", res.rate) or "unpaced")
  end
  out:write(format("calibrate --serving %s: %s on %s, t = %d\n", table.concat(what, "; "), args.model, args.hw, args.t))
  out:write(format("fitted token_host_s %.4g ms (base %.4g ms), seq_host_s %.4g us (base %.4g us), %d replays\n",
    1e3 * f.token_host_s, 1e3 * f.base_token_host_s, 1e6 * f.seq_host_s, 1e6 * f.base_seq_host_s, f.evaluations))
  local agg = false
  for _, res in ipairs(list) do agg = agg or res.aggregate end
  out:write(agg and "errors on the summaries' statistics (a summary holds no requests to hold back); TTFT and TPOT "
    .. "over their mean, p50 and p90:\n" or "errors on the held-back (odd-numbered) requests; TTFT and TPOT over "
    .. "their mean, p50 and p90:\n")
  out:write(tbl({ "engine", "TTFT MAPE", "TTFT bias", "TPOT MAPE", "TPOT bias", "throughput", "fit loss" }, rows), "\n")
  if not args.out then return 0 end
  if f.after.held.loss >= f.before.held.loss and not args.force then
    error(format("calibrate: the fit is no better than %s on the held-back requests (loss %.3f against %.3f): "
      .. "nothing written (--force writes it anyway)", f.base, f.after.held.loss, f.before.held.loss), 0)
  end
  local tx = require("tilewave.util.output").transaction()
  tx:add(args.out, "calibrate.out")
  local wrote = tx:run(function()
    tx:stage(args.out, "calibrate.out", function(fh) fh:write(fit.engine_file(f, list, dep)) end)
  end)
  for _, p in ipairs(wrote) do out:write("wrote ", p, " (serve --engine ", p, ")\n") end
  return 0
end

return M
