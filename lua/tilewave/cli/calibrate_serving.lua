--- tilewave.cli.calibrate_serving: `tilewave calibrate --serving FILE... --model M --hw H [--t T]
-- [--engine E] [--out engine.lua] [--force]`: the engine's host times fitted to the user's own
-- serving benchmark (tilewave.explore.serving_fit), the error on the requests held back, and an
-- engine file that `serve --engine FILE` takes. docs/calibrate_serving.md walks through it.
local M = {}
local format = string.format


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
  -- fit mode's options, and a format the serving fit does not write (issue 66: these were ignored)
  if args.holdout ~= nil and args.holdout ~= "random,layout" then
    error("calibrate.holdout: --holdout does not apply with --serving", 0)
  end
  if args.rounds ~= nil and tostring(args.rounds) ~= "6" then
    error("calibrate.rounds: --rounds does not apply with --serving (the serving fit runs to its own tolerance)", 0)
  end
  if args.format ~= nil and args.format ~= "text" then
    error(format("calibrate.format: --format %s does not apply with --serving (its report is text)", args.format), 0)
  end
  if not args.model then error("calibrate.model: expected --model with --serving (the model the benchmark served)", 0) end
  if #args.dir == 0 then
    error("calibrate.serving: expected benchmark result files (vLLM --save-result JSON, SGLang bench_serving JSONL)", 0)
  end
  if args.out then
    if not args.out:match("%.lua$") then error(format("calibrate.out: expected a .lua engine file, got '%s'", args.out), 0) end
    require("tilewave.util.output").check_target(args.out, "calibrate.out")
  end
  -- the server's limits: positive integers, named by their flag
  local check = require "tilewave.util.check"
  for _, k in ipairs { "max_model_len", "num_scheduler_steps", "max_num_seqs", "max_num_batched_tokens", "ep", "pp",
                       "replicas" } do
    if args[k] ~= nil then check.positive_int(args[k], "calibrate." .. k) end
  end
  local run = args.run
  if run ~= nil and run ~= "all" then
    run = tonumber(run)
    if not run or math.type(run) ~= "integer" or run < 1 then
      error(format("calibrate.run: expected a line number from 1 or 'all', got '%s'", tostring(args.run)), 0)
    end
  end
  local list, seen = {}, {}
  local lfs = require "lfs"
  for _, path in ipairs(args.dir) do
    -- one file given twice would count its requests twice
    local a = lfs.attributes(path)
    local key = a and format("%d:%d", a.dev, a.ino)
    if key and seen[key] then
      error(format("calibrate.serving: %s is %s, given twice", path, seen[key]), 0)
    end
    if key then seen[key] = path end
    for _, res in ipairs(results.read_runs(path, { run = run })) do
      list[#list + 1] = res
      -- a file that names another model than --model (a preset id) is refused unless --force
      local named = res.model
      if named and not args.force and not tostring(args.model):find("[/\\]") and not tostring(args.model):match("%.json$")
        and results.model_key(named) ~= results.model_key(args.model) then
        error(format("calibrate.model: %s ran %s, not %s (--force fits it anyway)", path, named, args.model), 0)
      end
    end
  end
  local sched
  local base_sched = require("tilewave.cost.engines").resolve(args.engine, "calibrate.engine").scheduler
  local budget = args.max_num_batched_tokens
  -- vLLM v0 (<= 0.6) sets its step budget from the context: max(max_model_len, 2048)
  -- (vllm/config.py SchedulerConfig, chunked prefill off; tilewave.serve.schedulers vllm_v0)
  if not budget and args.max_model_len and base_sched == "vllm_v0" then budget = math.max(args.max_model_len, 2048) end
  if args.max_num_seqs or budget or args.num_scheduler_steps then
    sched = { base = base_sched, max_num_seqs = args.max_num_seqs, max_num_batched_tokens = budget,
              multi_step = args.num_scheduler_steps }
  end
  local dep = { model = args.model, hw = args.hw, t = args.t, engine = args.engine, scheduler = sched,
                weight_dtype = args.weight_dtype, kv_dtype = args.kv_dtype, ep = args.ep, pp = args.pp,
                replicas = args.replicas }
  local ok, f = pcall(fit.fit, dep, list)
  if not ok then
    error(format("calibrate: the deployment (%s on %s, t = %d) cannot replay %s: %s", args.model, args.hw, args.t,
      table.concat(args.dir, ", "), tostring(f)), 0)
  end
  out:write(require("tilewave.report.calibration_text").serving(f, list, args))
  if not args.out then return 0 end
  if f.after.held.loss >= f.before.held.loss and not args.force then
    -- the same figures as the report's "held loss" column
    error(format("calibrate: the fit is no better than %s on the held-back requests (held loss %.3f against "
      .. "%.3f): nothing written (--force writes it anyway)", f.base, f.after.held.loss, f.before.held.loss), 0)
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
