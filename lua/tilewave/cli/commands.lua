--- tilewave.cli.commands: one handler per `tilewave` command. Each takes the
-- parsed arguments and returns the exit status; bad input raises a one-line
-- error (error(msg, 0)) that tilewave.cli prints.
local tw = require "tilewave"
local text = require "tilewave.report.text"
local output = require "tilewave.util.output"

local M = {}

-- every write to stdout checked: a full disk or closed pipe raises `cannot write to stdout: ...`
local format, stderr, stdout, floor = string.format, io.stderr, output.stdout(), math.floor

local function run_script(args)
  local script = args.script
  local chunk, err = loadfile(script)
  if not chunk then error(err, 0) end
  local a = { [0] = script }
  for i, v in ipairs(args.args) do a[i] = v end
  _G.arg = a
  local ok, res = pcall(chunk, table.unpack(a))
  if not ok then error(tostring(res), 0) end
  return math.tointeger(res) or 0
end

-- the default dtype of gemm and roofline: bf16, as every command's, or fp16 on a device without bf16
-- (V100, T4, P100: no bf16 tensor cores)
local function default_dtype(args, path)
  if args.dtype then return args.dtype end
  local spec = tw.hw.resolve(args.hw, path)
  return spec.peak_flops.bf16 and "bf16" or "fp16"
end

local function gemm_cmd(args)
  for _, k in ipairs { "m", "n", "k", "batch" } do
    if args[k] == nil then error(format("gemm.%s: expected positive integer", k), 0) end
  end
  local o = { m = args.m, n = args.n, k = args.k, batch = args.batch, dtype = default_dtype(args, "gemm.hw"), hw = args.hw,
              timing = args.timing, engine = args.engine }
  local r = tw.gemm(o)
  -- which of N and K is off, and the padded shape predicted faster (tilewave.explore.gemm_fix)
  local fixer = require "tilewave.explore.gemm_fix"
  local fix = fixer.pad(o, r)
  if args.format == "json" then
    local j = {}
    for k, v in pairs(r) do j[k] = v end
    j.fix = fix or false
    stdout:write(tw.report.json(j), "\n")
  else
    stdout:write(tw.report.gemm_text(r, tw.hw.resolve(args.hw, "gemm.hw"), fixer.describe(o, r), fix), "\n")
  end
  return 0
end

local function roofline_cmd(args)
  local r = tw.roofline { flops = args.flops, bytes = args.bytes, hw = args.hw, dtype = default_dtype(args, "roofline.hw"),
                          achievable = args.achievable or nil }
  if args.format == "json" then
    stdout:write(tw.report.json(r), "\n")
  else
    stdout:write(text.roofline(r, args.flops, args.bytes), "\n")
  end
  return 0
end

local function hw_cmd(args)
  if args.id then
    local spec = tw.hw.resolve(args.id, "hw")
    if args.format == "json" then
      stdout:write(tw.report.json(spec), "\n")
    else
      stdout:write(tw.report.hw_text(spec, tw.hw.gemm_params(spec)), "\n")
    end
    return 0
  end
  local rows, list = {}, {}
  for _, id in ipairs(tw.hw.list()) do
    local spec = tw.hw.resolve(id, "hw")
    local half = spec.peak_flops.bf16 or spec.peak_flops.fp16
    list[#list + 1] = spec
    rows[#rows + 1] = { id, spec.name, tostring(spec.sm_count),
      half and format("%.1f", half / 1e12) or "-", format("%.0f", spec.mem_bw / 1e9),
      half and format("%.1f", half / spec.mem_bw) or "-" }
  end
  if args.format == "json" then
    stdout:write(tw.report.json(list), "\n")
  else
    stdout:write(tw.report.table({ "id", "name", "SMs", "16-bit TFLOP/s", "GB/s", "ops:byte" }, rows), "\n")
  end
  return 0
end

local function split(list)
  local out = {}
  for item in list:gmatch("[^,%s]+") do out[#out + 1] = item end
  return out
end

local function parse_shard(text)
  if text == nil then return nil end
  local i, n = text:match("^(%d+)/(%d+)$")
  i, n = math.tointeger(tonumber(i)), math.tointeger(tonumber(n))
  if not i or not n or n < 1 or i >= n then
    error(format("sweep.shard: expected I/N with 0 <= I < N, got '%s'", text), 0)
  end
  return { i, n }
end

local num_text = require("tilewave.util.csv").field

-- the rows of a sweep written to `out` (checked writes), with progress on a terminal
local function sweep_rows(args, q, it, stats, cols, fields, out)
  if args.format == "csv" and (q.shard == nil or q.shard[1] == 0) then out:write(table.concat(cols, ","), "\n") end
  -- progress on a terminal rewrites one line twice a second; asked for (--progress) elsewhere,
  -- it writes a line every 5 s
  local tty = require("tilewave.sys").isatty(2)
  local progress, every, eol = tty or args.progress, tty and 0.5 or 5, tty and "   " or "\n"
  local clock, t0, last = os.clock, os.clock(), os.clock()
  local row = {}
  -- a config field's text is kept while its value repeats (most rows change one field)
  local last_v, last_t = {}, {}
  for cfg, hw_id, est in it do
    if args.format == "csv" then
      row[1], row[2] = format("%d", est.index), hw_id
      for i, f in ipairs(fields) do
        local v = cfg[f]
        if v ~= last_v[i] or math.type(v) ~= math.type(last_v[i]) then last_v[i], last_t[i] = v, num_text(v) end
        row[2 + i] = last_t[i]
      end
      local n = 2 + #fields
      row[n + 1] = num_text(est.params)
      local t, tf, mfu, tps = est.time_s, est.tflops, est.mfu, est.tokens_per_s
      if t ~= floor(t) and tf ~= floor(tf) and mfu ~= floor(mfu) and tps ~= floor(tps) then
        -- not integral: each is csv.field's "%.6g", here in one call (formatting is most of a row's time)
        out:write(table.concat(row, ",", 1, n + 1), ",", format("%.6g,%.6g,%.6g,%.6g", t, tf, mfu, tps), "\n")
      else
        row[n + 2], row[n + 3], row[n + 4], row[n + 5] = num_text(t), num_text(tf), num_text(mfu), num_text(tps)
        out:write(table.concat(row, ",", 1, n + 5), "\n")
      end
    else
      local obj = { index = est.index, hw = hw_id, params = est.params, time_s = tonumber(num_text(est.time_s)),
                    tflops = tonumber(num_text(est.tflops)), mfu = tonumber(num_text(est.mfu)),
                    tokens_per_s = tonumber(num_text(est.tokens_per_s)) }
      for _, f in ipairs(fields) do obj[f] = cfg[f] end
      out:write(tw.report.json(obj), "\n")
    end
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

local function sweep_cmd(args)
  -- generational collection: a sweep's rows make short-lived op lists and strings, reclaimed
  -- young; peak memory stays near the live data (10^5 distinct configs: 38 -> 22 MB) and it runs faster
  collectgarbage("generational")
  local spec = require("tilewave.util.sandbox").load_spec(args.spec)
  local q = {}
  for k, v in pairs(spec) do q[k] = v end
  q.shard = parse_shard(args.shard)
  local it, stats = tw.sweep(q)
  local cols, fields = require("tilewave.explore.sweep").columns(spec)
  if args.out then
    output.atomic(args.out, "sweep.out", function(out) return sweep_rows(args, q, it, stats, cols, fields, out) end)
  else
    sweep_rows(args, q, it, stats, cols, fields, output.stdout())
  end
  return 0
end

local function check_cmd(args)
  local regress = require "tilewave.explore.regress"
  local runs = {}
  local passed, failed = 0, 0
  -- plain output streams a line per pair as it is checked (a 10^6-config sweep included);
  -- TAP and JUnit need every result first
  local keep = args.tap or args.junit
  for _, file in ipairs(args.files) do
    local c = regress.load(file)
    if args.update_baseline then
      local path, n = regress.update_baseline(c)
      if path then stdout:write(format("wrote %s (%d entries)\n", path, n))
      else stdout:write(format("%s: no expect.baseline, nothing written\n", file)) end
    else
      local run = { check = c }
      local function emit(r)
        if r.ok then passed = passed + 1 else failed = failed + 1 end
        if not args.tap then stdout:write(regress.line(run, r), "\n") end
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
  if args.tap then stdout:write(regress.tap(runs)) end
  if passed + failed == 0 then
    error("check: no (model, hw) pair to check (an empty sweep or models list?)", 0)
  end
  if args.junit then output.write_file(args.junit, "check.junit", regress.junit(runs)) end
  stdout:write(format("%s%d passed, %d failed\n", args.tap and "# " or "", passed, failed))
  return failed > 0 and 1 or 0
end

local function train_cmd(args)
  local o = { model = args.model, cluster = args.cluster, nodes = args.nodes, global_batch = args.global_batch,
              s = args.s, attention = args.attention, engine = args.engine }
  if args.ep > 1 then o.ep = args.ep end
  local line = text.train_line
  if args.search then
    if args.top < 1 then error(format("train.top: expected positive integer, got %d", args.top), 0) end
    local res = tw.training.search(o)
    if #res.ranked == 0 then
      -- nothing to rank: say why, by the most common reasons, and fail
      local count, order = {}, {}
      for _, r in ipairs(res.rejected) do
        local why = r.reason:gsub("[%d.]+ GB per GPU", "N GB per GPU")
        if not count[why] then order[#order + 1] = why end
        count[why] = (count[why] or 0) + 1
      end
      table.sort(order, function(x, y) return count[x] > count[y] or (count[x] == count[y] and x < y) end)
      local parts = {}
      for i = 1, math.min(3, #order) do parts[i] = format("%d: %s", count[order[i]], order[i]) end
      error(format("train.search: no valid configuration of %s on %d node(s) of %s (%d rejected; %s)",
        args.model, args.nodes, args.cluster, #res.rejected, table.concat(parts, "; ")), 0)
    end
    if args.format == "json" then
      local top = {}
      for i = 1, math.min(args.top, #res.ranked) do top[i] = res.ranked[i] end
      stdout:write(tw.report.json { ranked = top, valid = #res.ranked, rejected = #res.rejected }, "\n")
      return 0
    end
    local k = res.ranked[1].config
    stdout:write(format("train %s on %d x %s (%d GPUs): global batch %d sequences x s = %d tokens (%s tokens per "
      .. "step), %s, %s attention, %s engine; every t, p, d, micro-batch, checkpointing and ZeRO stage that fits, "
      .. "fastest first\n", k.model, k.nodes, k.cluster, k.gpus, k.global_batch, k.s,
      tw.report.si(k.global_batch * k.s, ""), k.dtype, k.attention, k.engine))
    -- rows equal but for checkpointing, with the same step time and memory, print once (with FlashAttention,
    -- selective recomputation has nothing to recompute: it recomputes the attention scores, Korthikanti et
    -- al. 2022 Sec. 5, which a fused kernel never stores)
    local shown, tied = {}, false
    for _, r in ipairs(res.ranked) do
      local c, last = r.config, shown[#shown]
      local lc = last and last.r.config
      if last and lc.t == c.t and lc.p == c.p and lc.d == c.d and lc.micro_batch == c.micro_batch and lc.zero == c.zero
         and last.r.step_s == r.step_s and last.r.memory_bytes == r.memory_bytes then
        last.ckpt[#last.ckpt + 1] = c.checkpointing
        tied = true
      else
        shown[#shown + 1] = { r = r, ckpt = { c.checkpointing } }
      end
    end
    for i = 1, math.min(args.top, #shown) do
      local e, r = shown[i], shown[i].r
      if #e.ckpt > 1 then
        local cfg = {}
        for key, v in pairs(r.config) do cfg[key] = v end
        cfg.checkpointing = table.concat(e.ckpt, "=")
        local copy = {}
        for key, v in pairs(r) do copy[key] = v end
        copy.config, r = cfg, copy
      end
      stdout:write(format("%3d. %s\n", i, line(r)))
    end
    if tied then
      stdout:write("a=b: checkpointing a and b tie in step time and memory, one row (with flash attention selective "
        .. "recomputation has nothing to recompute: the attention scores it would redo are never stored)\n")
    end
    stdout:write(format("%d valid, %d rejected\n", #res.ranked, #res.rejected))
    return 0
  end
  o.t, o.p, o.micro_batch, o.zero, o.checkpointing = args.t, args.p, args.micro_batch, args.zero, args.checkpointing
  o.ep = args.ep
  local r = tw.training.step(o)
  if args.format == "json" then stdout:write(tw.report.json(r), "\n") return 0 end
  stdout:write(text.train(r), "\n")
  return 0
end

-- `report --plots DIR`: the roofline of the report's models and the decode curve of its first decoder, as
-- SVG in DIR; returns { { title, link } } for the Markdown (relative to the report file when it is in DIR).
local function report_figures(res, args, tx)
  local figures, plot = require "tilewave.explore.figures", require "tilewave.report.plot"
  local dir = plot.dir(args.plots, "report.plots")
  local function svg(chart, path) -- into a temporary, renamed with the report itself
    tx:add(path, "report.plots")
    tx:stage(path, "report.plots", nil, plot.svg_temp(chart, path))
  end
  local out_dir = args.out and (args.out:match("^(.*)/[^/]*$") or ".")
  local function link(name) return out_dir == dir and name or dir .. "/" .. name end
  local ids, decoder = {}, nil
  for _, m in ipairs(res.models) do
    ids[#ids + 1] = m.config
    if not decoder and m.inference then decoder = m end
  end
  local w, out = res.workload, {}
  svg(figures.roofline({ res.hw }, ids, { dtype = w.dtype, engine = w.engine, b = w.b, s = w.s, t = w.t }),
    dir .. "/roofline.svg")
  out[#out + 1] = { title = format("Roofline of the ops on %s", res.hw.id), link = link("roofline.svg") }
  if decoder then
    svg(figures.decode(decoder.config, { res.hw }, { context = w.s, engine = w.engine }), dir .. "/decode.svg")
    out[#out + 1] = { title = format("Decode of %s on %s", decoder.id, res.hw.id), link = link("decode.svg") }
  end
  return out
end

local function report_cmd(args)
  -- generational collection: the report's searches make many short-lived tables (op lists, candidate
  -- configs, splits), reclaimed young: ~10% faster. (gemm_many's large arrays fare better incremental.)
  collectgarbage("generational")
  -- the report file checked before the analysis runs (in the figures' directory, made first, if it is
  -- there); it and the figures are renamed together
  if args.plots then require("tilewave.report.plot").dir(args.plots, "report.plots") end
  local tx = output.transaction()
  if args.out then tx:add(args.out, "report.out") end
  local res = tw.analysis.models { models = split(args.models), hw = args.hw, b = args.b, s = args.s, t = args.t,
                                   dtype = args.dtype, attention = args.attention, cluster = args.cluster,
                                   engine = args.engine, allow_long_context = args.allow_long_context or nil }
  local text
  tx:run(function()
    if args.plots then res.figures = report_figures(res, args, tx) end
    if args.format == "json" then text = tw.report.models_json(res)
    elseif args.format == "csv" then text = tw.report.models_csv(res)
    else text = tw.report.models_markdown(res) end
    if args.out then tx:stage(args.out, "report.out", function(f) f:write(text) end) end
  end)
  if not args.out then stdout:write(text) end
  return 0
end

local function models_cmd(args)
  local names = {}
  for name in pairs(tw.models.families) do names[#names + 1] = name end
  table.sort(names)
  local path = args.family and (args.family:match("%.json$") or (not tw.models.families[args.family]
    and require("lfs").attributes(args.family, "mode") == "directory"))
  if args.family and not path and not tw.models.families[args.family] then
    error(format("models: unknown family '%s' (known: %s)", args.family, table.concat(names, ", ")), 0)
  end
  local rows = {}
  -- a config.json path (or a folder holding one) lists that one model
  local ids = path and { args.family }
    or tw.analysis.expand(args.family and { args.family } or names)
  local header = { "id", "family", "name", "params", "active", "h", "a", "kv", "L", "I", "v" }
  local objs = {}
  for _, id in ipairs(ids) do
    local c = tw.models.resolve(id, "models")
    local p = tw.params(c)
    objs[#objs + 1] = { id = c.id or id, family = c.family, name = c.name, params = p.total, active = p.active,
      hidden_size = c.hidden_size, num_attention_heads = c.num_attention_heads,
      num_key_value_heads = c.num_key_value_heads, num_hidden_layers = c.num_hidden_layers,
      intermediate_size = c.intermediate_size, vocab_size = c.vocab_size }
    local o = objs[#objs]
    local group = args.format == "text" and tw.report.group or function(x) return format("%d", x) end
    rows[#rows + 1] = { o.id, o.family, o.name, group(o.params), group(o.active), tostring(o.hidden_size),
      tostring(o.num_attention_heads), tostring(o.num_key_value_heads), tostring(o.num_hidden_layers),
      tostring(o.intermediate_size), tostring(o.vocab_size) }
  end
  if args.format == "json" then
    stdout:write(tw.report.json { models = objs }, "\n")
  elseif args.format == "csv" then
    local field = require("tilewave.util.csv").field
    stdout:write(table.concat(header, ","), "\n")
    for _, r in ipairs(rows) do
      local cells = {}
      for k, v in ipairs(r) do cells[k] = field(v) end
      stdout:write(table.concat(cells, ","), "\n")
    end
  else
    stdout:write(tw.report.table(header, rows), "\n")
  end
  return 0
end

M.run = run_script
M.gemm, M.roofline, M.hw, M.report, M.models = gemm_cmd, roofline_cmd, hw_cmd, report_cmd, models_cmd
M.sweep, M.check, M.train = sweep_cmd, check_cmd, train_cmd
M.decode = function(a) return require("tilewave.cli.inference").decode(a, stdout) end
M.prefill = function(a) return require("tilewave.cli.inference").prefill(a, stdout) end
M.calibrate = function(a) return require("tilewave.cli.calibrate").run(a, stdout) end
M.plot = function(a) return require("tilewave.cli.plot").run(a, stdout) end
M.serve = function(a) return require("tilewave.cli.serve").run(a, stdout) end
M.engines = function(a) return require("tilewave.cli.engines").run(a, stdout) end

return M
