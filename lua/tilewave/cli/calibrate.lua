--- tilewave.cli.calibrate: `tilewave calibrate`, the model's error on every
-- calibration set, by set and engine (tilewave.explore.accuracy), and a check
-- against pinned bounds so that a change that worsens accuracy fails.
-- Only define() runs for every command line: the modules that do the work are required
-- when the command runs, so that other commands start without them.
local M = {}
local format = string.format

--- Add the `calibrate` command to argparse parser `p`.
function M.define(p)
  local c = p:command("calibrate", "Model error (MAPE, bias, interval coverage) on each calibration set, by set and "
    .. "engine: the published CSVs and measurement folders in the format of ../shared/reference/calibration/h100.")
  c:argument("dir", "Measurement folders (default: the shared h100 folder and its second_machine).")
    :args("*")
  c:option("--hw", "Device the folders were measured on."):default("h100_sxm5")
  c:flag("--rows", "Print every row (predicted, measured, interval).")
  c:option("--bounds", "A Lua file returning { [\"<set>|<engine>\"] = max MAPE (fraction), exempt = { [\"<set>|"
    .. "<engine>\"] = \"reason\" } }: exit 1 if a set exceeds its bound, a set has neither a bound nor an "
    .. "exemption, or a bound matches no set.")
  c:option("--format", "Output format."):choices({ "text", "json" }):default("text")
  c:option("--base", "Fit mode: the device to start from (id or spec file); its architecture's GEMM, "
    .. "bandwidth and attention parameters are fitted to the one folder DIR. Needs --out.")
  c:option("--out", "Fit mode: the hardware spec file to write (loadable by tw.hw.load and --hw).")
  c:option("--device", "Fit mode: the device whose figures (peaks, bandwidth, SMs) the fit prices with and the "
    .. "file takes (id or spec file; default: the GPU the folder names, when tilewave has it, else --base).")
  c:option("--date", "Fit mode: the measurement date for the sources (default: device.txt's Timestamp).")
  c:option("--holdout", "Fit mode: comma-separated gemm.csv sets left out of the fit and reported as held out "
    .. "(scripts/probe's 'random' shapes, and 'layout', the same shapes under other dtypes and layouts, by "
    .. "default; '' fits every set)."):default("random,layout")
  c:flag("--force", "Fit mode: write the fitted file even when it is worse than the base on the held-out rows.")
  c:option("--rounds", "Fit mode: coordinate-descent rounds."):default("6")
    :convert(require("tilewave.cli.args").num_arg("calibrate.rounds"))
  -- serving mode (tilewave.cli.calibrate_serving)
  c:flag("--serving", "Serving mode: fit the engine's host times to benchmark results (the DIR arguments: "
    .. "vLLM --save-result JSON or SGLang bench_serving JSONL) on the deployment --model, --hw, --t, --engine; "
    .. "--out writes the engine file.")
  c:option("--model", "Serving mode: the model the benchmark served (id, config.json or folder).")
  c:option("--t", "Serving mode: tensor-parallel size."):default("1")
    :convert(require("tilewave.cli.args").int_arg("calibrate.t"))
  c:option("--engine", "Serving mode: the engine and release the benchmark ran (e.g. vllm@0.6)."):default("vllm")
  c:option("--max-num-seqs", "Serving mode: the server's --max-num-seqs.")
    :convert(require("tilewave.cli.args").int_arg("calibrate.max_num_seqs"))
  c:option("--max-num-batched-tokens", "Serving mode: the server's --max-num-batched-tokens.")
    :convert(require("tilewave.cli.args").int_arg("calibrate.max_num_batched_tokens"))
  c:option("--num-scheduler-steps", "Serving mode: vLLM 0.6's multi-step scheduling, decode steps a "
    .. "scheduling round (tokens reach the client in bursts of this many).")
    :convert(require("tilewave.cli.args").int_arg("calibrate.num_scheduler_steps"))
  c:option("--max-model-len", "Serving mode: the server's --max-model-len, tokens (vLLM v0's step budget is "
    .. "max(it, 2048) unless --max-num-batched-tokens is given).")
    :convert(require("tilewave.cli.args").int_arg("calibrate.max_model_len"))
  c:option("--weight-dtype", "Serving mode: the served weight format (default: the checkpoint's).")
  c:option("--kv-dtype", "Serving mode: the server's KV cache dtype."):default("bf16")
  c:option("--ep", "Serving mode: expert-parallel GPUs per replica."):default("1")
    :convert(require("tilewave.cli.args").int_arg("calibrate.ep"))
  c:option("--pp", "Serving mode: pipeline-parallel stages per replica."):default("1")
    :convert(require("tilewave.cli.args").int_arg("calibrate.pp"))
  c:option("--replicas", "Serving mode: data-parallel replicas behind the benchmark's endpoint."):default("1")
    :convert(require("tilewave.cli.args").int_arg("calibrate.replicas"))
  c:option("--run", "Serving mode: the run of a JSON Lines file to fit (its line, from 1), or 'all' (each run a "
    .. "load of its own); default the last.")
end

local function fit_run(args, out)
  local accuracy, fit = require "tilewave.explore.accuracy", require "tilewave.explore.fit"
  local literal, hw = require "tilewave.util.literal", require "tilewave.data.hw"
  if not args.base or not args.out then error("calibrate: fit mode needs both --base HW and --out FILE.lua", 0) end
  require("tilewave.util.output").check_target(args.out, "calibrate.out") -- before minutes of fitting
  if #args.dir ~= 1 then
    error(format("calibrate: fit mode: expected one measurement folder, got %d", #args.dir), 0)
  end
  if not args.rounds or args.rounds < 1 or args.rounds > 50 or args.rounds % 1 ~= 0 then
    error(format("calibrate.rounds: expected an integer from 1 to 50, got %s", tostring(args.rounds)), 0)
  end
  local dir = args.dir[1]:gsub("/+$", "")
  -- the folder's files are this run's inputs: --out may not be one of them (device.txt, gemm.csv,
  -- ...), refused before the fit reads and prices them (tilewave.util.output's rule, checked first)
  local lfs = require "lfs"
  local target = lfs.attributes(args.out)
  if target and lfs.attributes(dir, "mode") == "directory" then
    for name in lfs.dir(dir) do
      local a = lfs.attributes(dir .. "/" .. name)
      if a and a.mode == "file" and a.dev == target.dev and a.ino == target.ino then
        error(format("calibrate.out: %s is %s/%s, a file of the measurement folder this run reads: an output may "
          .. "not replace it", args.out, dir, name), 0)
      end
    end
  end
  local holdout = {}
  for set in (args.holdout or ""):gmatch("[^,%s]+") do holdout[#holdout + 1] = set end
  -- the fit's progress on a terminal only: elsewhere stderr carries nothing but an error's one line
  local tty = require("tilewave.sys").isatty(2)
  local r = fit.run(dir, args.base, { rounds = args.rounds, date = args.date, holdout = holdout, device = args.device,
                                      progress = tty and function(stage, i, n, l)
    io.stderr:write(format("\rfit %s: round %d/%d, mean group MAPE %.2f%%", stage, i, n, 100 * l))
    if i == n then io.stderr:write("\n") end
  end or nil })
  if r.worse and not args.force then
    error(format("calibrate: the fit is worse than %s on the rows it did not see (%s: MAPE %.1f%% fitted against "
      .. "%.1f%%): nothing written (--force writes it anyway)", args.base, r.check_rows, 100 * r.check_after,
      100 * r.check_before), 0)
  end
  local text = literal.comment(r.spec.name) .. "\n-- Generated by tilewave calibrate (tilewave.explore.fit); every "
    .. "fitted figure's source\n-- names the measurement folder, device and date. Pure data, schema in "
    .. "lua/tilewave/data/hw.lua.\nreturn " .. literal.encode(r.spec) .. "\n"
  require("tilewave.util.output").write_file(args.out, "calibrate.out", text)
  local spec, lerr = hw.load(args.out)
  if not spec then error("calibrate: the written file does not load: " .. tostring(lerr), 0) end
  local before = accuracy.summarize(accuracy.measured(dir, r.priced, "base"))
  local after = accuracy.summarize(accuracy.measured(dir, spec, "fitted"))
  out:write(require("tilewave.report.calibration_text").fit(r, { base = args.base, dir = dir, holdout = holdout },
    before, after))
  out:write(format("\nwrote %s\n", args.out))
  return 0
end

--- Run `tilewave calibrate` with parsed `args`; writes to `out`; returns the exit status.
function M.run(args, out)
  if args.serving then return require("tilewave.cli.calibrate_serving").run(args, out) end
  for _, k in ipairs { "model", "max_num_seqs", "max_num_batched_tokens", "max_model_len", "weight_dtype", "run",
                       "num_scheduler_steps" } do
    if args[k] ~= nil then error(format("calibrate.%s: --%s applies with --serving only", k, (k:gsub("_", "-"))), 0) end
  end
  -- serving options with defaults: given when they differ from them
  for _, d in ipairs { { "t", 1 }, { "engine", "vllm" }, { "kv_dtype", "bf16" }, { "ep", 1 }, { "pp", 1 },
                       { "replicas", 1 } } do
    if args[d[1]] ~= d[2] then
      error(format("calibrate.%s: --%s applies with --serving only", d[1], (d[1]:gsub("_", "-"))), 0)
    end
  end
  if args.base or args.out then return fit_run(args, out) end
  -- the fit's options, given without --base, would be silently ignored: refuse them by name
  for _, k in ipairs { "device", "date", "holdout", "force", "rounds" } do
    local defaults = { holdout = "random,layout", rounds = 6, force = false }
    if args[k] ~= nil and args[k] ~= defaults[k] then
      error(format("calibrate.%s: --%s applies in fit mode only (with --base HW --out FILE)", k, k), 0)
    end
  end
  local accuracy, csv = require "tilewave.explore.accuracy", require "tilewave.util.csv"
  local dirs = args.dir
  if #dirs == 0 then
    local h100 = csv.shared_dir() .. "/calibration/h100"
    dirs = { h100, h100 .. "/second_machine" }
  end
  local rows = accuracy.published()
  for _, d in ipairs(dirs) do
    local name = d:match("([^/]+)/*$")
    for _, r in ipairs(accuracy.measured(d, args.hw, name)) do rows[#rows + 1] = r end
  end
  if #args.dir == 0 then -- the given half of the random shapes, each file on its own device
    for _, r in ipairs(accuracy.random_half(csv.shared_dir() .. "/calibration/random_half")) do rows[#rows + 1] = r end
    for _, r in ipairs(accuracy.training_layers(csv.shared_dir() .. "/calibration/h200_training")) do rows[#rows + 1] = r end
  end
  local sums = accuracy.summarize(rows)
  for _, s in ipairs(accuracy.random_half_totals(rows)) do sums[#sums + 1] = s end
  local cv = args.format ~= "json" and #args.dir == 0 and accuracy.interval_cv(rows) or {}
  out:write(require("tilewave.report.calibration_text").accuracy(sums, args.rows and rows or nil, cv, args.format))
  if not args.bounds then return 0 end
  local bounds, err = require("tilewave.util.sandbox").load(args.bounds)
  if not bounds then error("calibrate.bounds: " .. err, 0) end
  local fails, missing = require("tilewave.explore.bounds").check(sums, bounds)
  for _, k in ipairs(missing) do fails[#fails + 1] = format("bound '%s' matches no set", k) end
  for _, f in ipairs(fails) do out:write("FAIL ", f, "\n") end
  if #fails == 0 then out:write("calibration bounds: all met\n") end
  return #fails == 0 and 0 or 1
end

return M
