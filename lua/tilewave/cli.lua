--- tilewave.cli: the `tilewave` command line (lua-argparse).
--
--   tilewave run SCRIPT.lua [args...]   run a Lua script with require "tilewave"
--   tilewave gemm M N K --hw ID [--dtype DT] [--batch B] [--format text|json]
--   tilewave roofline --flops F --bytes B --hw ID [--dtype DT] [--achievable]
--   tilewave hw [ID] [--format text|json]
--   tilewave report [--hw ID] [--models LIST] [--b B] [--s S] [--t T] [--dtype DT]
--                   [--attention standard|flash] [--format markdown|csv|json] [--out FILE]
--   tilewave models [FAMILY]
--   tilewave sweep SPEC.lua [--shard I/N] [--out FILE] [--format csv|jsonl]
--   tilewave check FILE.lua... [--update-baseline] [--junit FILE] [--tap]
--   tilewave decode MODEL --hw ID --context N [--batch B] [--weight-dtype DT] [--group G] [--t T] [--engine E]
--   tilewave train MODEL --cluster ID --nodes N --global-batch B --s S [--t T --p P ...] [--search]
--   tilewave calibrate [DIR...] [--hw ID] [--rows] [--bounds FILE]   error per calibration set and engine
--
-- main(args) returns the exit status: 0 on success, 1 on bad input (one line
-- `tilewave: <message>` on stderr), 2 on a usage error.
local argparse = require "argparse"
local tw = require "tilewave"
local text = require "tilewave.report.text"
local calibrate = require "tilewave.cli.calibrate"

local M = {}

local format, stderr, stdout = string.format, io.stderr, io.stdout

local function to_int(s)
  local v = math.tointeger(tonumber(s))
  if v == nil then return nil, format("expected an integer, got '%s'", s) end
  return v
end

local ENGINE_HELP = "How software runs the kernels: compiled (fused, CUDA graph), fused (fused, host-launched), "
  .. "eager (PyTorch ops from Python), hf (generate()), llama.cpp, ideal. See tilewave.cost.engines."

local function parser()
  local p = argparse("tilewave", "Performance model of transformer workloads on GPUs: GEMM tile/wave/alignment, roofline, model forward, inference, training, sweeps and regression checks.")
    :epilog("Units: s, byte, FLOP, FLOP/s. See README.md.")
  p:command_target("command")
  p:require_command(true)

  local run = p:command("run", "Run a Lua script with require \"tilewave\" available and arg set.")
  run:argument("script", "Lua script to run.")
  run:argument("args", "Arguments passed to the script as arg[1..]."):args("*")

  local g = p:command("gemm", "Predict one GEMM C[MxN] = A[MxK].B[KxN].")
  g:argument("m", "Rows of A and C."):convert(to_int)
  g:argument("n", "Columns of B and C."):convert(to_int)
  g:argument("k", "Reduction dimension."):convert(to_int)
  g:option("--hw", "Device id (see `tilewave hw`) or spec path."):default("a100_sxm4_80gb")
  g:option("--dtype", "Element type: fp32, tf32, fp16, bf16, fp8, int8, fp64."):default("fp16")
  g:option("--batch", "Batch count (batched GEMM)."):default("1"):convert(to_int)
  g:option("--timing", "kernel: device time among back-to-back kernels (CUDA events, profilers); "
    .. "isolated: one synchronized call by wall clock (the co-design paper's torch.mm)."):choices({ "kernel", "isolated" })
    :default("kernel")
  g:option("--engine", ENGINE_HELP):default("compiled")
  g:option("--format", "Output format."):choices({ "text", "json" }):default("text")

  local r = p:command("roofline", "Roofline bound of a kernel of given FLOP and bytes.")
  r:option("--flops", "Work, FLOP."):convert(tonumber):count(1)
  r:option("--bytes", "DRAM traffic, byte."):convert(tonumber):count(1)
  r:option("--hw", "Device id or spec path."):default("a100_sxm4_80gb")
  r:option("--dtype", "Element type."):default("fp16")
  r:flag("--achievable", "Use the calibrated achievable fractions instead of datasheet peaks.")
  r:option("--format", "Output format."):choices({ "text", "json" }):default("text")

  local rep = p:command("report", "The main report: every preset of the LLaMA, GPT-NeoX/Pythia and ModernBERT "
    .. "families (or --models) on one device: parameters, forward time, TFLOP/s, MFU, slowest GEMMs and why, "
    .. "co-design rule violations with fixes, best nearby shape.")
  rep:option("--hw", "Device id or spec path."):default("h100_sxm5")
  rep:option("--models", "Comma-separated model ids and/or family names (llama, gpt_neox, modernbert, gpt3).")
    :default("llama,gpt_neox,modernbert")
  rep:option("--b", "Micro-batch size b."):default("4"):convert(to_int)
  rep:option("--s", "Sequence length s."):default("2048"):convert(to_int)
  rep:option("--t", "Tensor-parallel size t."):default("1"):convert(to_int)
  rep:option("--dtype", "Element type."):default("bf16")
  rep:option("--attention", "Attention kernel."):choices({ "standard", "flash" }):default("standard")
  rep:option("--engine", ENGINE_HELP):default("compiled")
  rep:option("--cluster", "Cluster for the training section (hw/clusters; default: the one built of --hw).")
  rep:option("--format", "Output format."):choices({ "markdown", "csv", "json" }):default("markdown")
  rep:option("--out", "Write the report to FILE instead of stdout.")

  local mo = p:command("models", "List model presets (of one family), with parameter counts.")
  mo:argument("family", "Family name."):args("?")

  local sw = p:command("sweep", "Estimate every config of a grid (a Lua spec file returning tw.sweep's options), "
    .. "streaming one row per config.")
  sw:argument("spec", "Sweep spec file: returns { base = , vary = , where = , hw = , workload = }.")
  sw:option("--shard", "I/N: only configs whose index % N == I (0 <= I < N); shards concatenate to the full grid.")
  sw:option("--out", "Write rows to FILE instead of stdout.")
  sw:option("--format", "Row format."):choices({ "csv", "jsonl" }):default("csv")

  local ck = p:command("check", "Regression checks of config families against bounds, co-design rules and baselines.")
  ck:argument("files", "Check files (Lua)."):args("+")
  ck:flag("--update-baseline", "Write or refresh each file's baseline JSON instead of checking.")
  ck:option("--junit", "Also write JUnit XML to FILE.")
  ck:flag("--tap", "Print TAP instead of one line per pair.")

  local de = p:command("decode", "Predict one decode step (TPOT, tokens/s) and the memory fit of a model on a device.")
  de:argument("model", "Model id.")
  de:option("--hw", "Device id or spec path."):default("h100_sxm5")
  de:option("--context", "Tokens in each sequence's KV cache."):default("2048"):convert(to_int)
  de:option("--batch", "Sequences decoded together."):default("1"):convert(to_int)
  de:option("--weight-dtype", "fp32, bf16, fp16, fp8, int8, int4, q8_0, q4_0, q4_k_m."):default("bf16")
  de:option("--group", "int4 quantization group size."):convert(to_int)
  de:option("--kv-dtype", "KV cache dtype."):default("bf16")
  de:option("--t", "Tensor-parallel size."):default("1"):convert(to_int)
  de:option("--engine", ENGINE_HELP):default("compiled")
  de:option("--format", "Output format."):choices({ "text", "json" }):default("text")

  local trn = p:command("train", "Predict a training step (or --search every split) of a model on a cluster.")
  trn:argument("model", "Model id.")
  trn:option("--cluster", "Cluster id (hw/clusters) or path."):default("dgx_h100")
  trn:option("--nodes", "Nodes."):default("1"):convert(to_int)
  trn:option("--global-batch", "Sequences per optimizer step."):default("512"):convert(to_int)
  trn:option("--s", "Sequence length."):default("2048"):convert(to_int)
  trn:option("--t", "Tensor-parallel size."):default("1"):convert(to_int)
  trn:option("--p", "Pipeline-parallel size."):default("1"):convert(to_int)
  trn:option("--micro-batch", "Micro-batch size."):default("1"):convert(to_int)
  trn:option("--zero", "ZeRO stage 0-3."):default("0"):convert(to_int)
  trn:option("--checkpointing", "none, selective, full."):default("none")
  trn:option("--attention", "flash or standard."):default("flash")
  trn:option("--engine", ENGINE_HELP):default("compiled")
  trn:flag("--search", "Rank every (t, p, micro-batch, checkpointing, ZeRO) instead.")
  trn:option("--top", "Rows of --search to print."):default("10"):convert(to_int)

  calibrate.define(p)
  local h = p:command("hw", "List devices, or show one.")
  h:argument("id", "Device id or spec path."):args("?")
  h:option("--format", "Output format."):choices({ "text", "json" }):default("text")
  return p
end

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

local function gemm_cmd(args)
  for _, k in ipairs { "m", "n", "k", "batch" } do
    if args[k] == nil then error(format("gemm.%s: expected positive integer", k), 0) end
  end
  local r = tw.gemm { m = args.m, n = args.n, k = args.k, batch = args.batch, dtype = args.dtype, hw = args.hw,
                      timing = args.timing, engine = args.engine }
  if args.format == "json" then
    stdout:write(tw.report.json(r), "\n")
  else
    stdout:write(tw.report.gemm_text(r, tw.hw.resolve(args.hw, "gemm.hw")), "\n")
  end
  return 0
end

local function roofline_cmd(args)
  local r = tw.roofline { flops = args.flops, bytes = args.bytes, hw = args.hw, dtype = args.dtype,
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

local function sweep_cmd(args)
  local chunk, err = loadfile(args.spec)
  if not chunk then error(err, 0) end
  local ok, spec = pcall(chunk)
  if not ok then error(format("%s: %s", args.spec, tostring(spec)), 0) end
  if type(spec) ~= "table" then error(format("%s: expected the file to return a table", args.spec), 0) end
  local q = {}
  for k, v in pairs(spec) do q[k] = v end
  q.shard = parse_shard(args.shard)
  local it, stats = tw.sweep(q)
  local cols, fields = require("tilewave.explore.sweep").columns(spec)
  local out = stdout
  if args.out then
    local f, ferr = io.open(args.out, "w")
    if not f then error(ferr, 0) end
    out = f
  end
  if args.format == "csv" and (q.shard == nil or q.shard[1] == 0) then out:write(table.concat(cols, ","), "\n") end
  local tty = require("tilewave.sys").isatty(2)
  local clock, t0, last = os.clock, os.clock(), os.clock()
  local row = {}
  for cfg, hw_id, est in it do
    if args.format == "csv" then
      row[1], row[2] = format("%d", est.index), hw_id
      for i, f in ipairs(fields) do row[2 + i] = num_text(cfg[f]) end
      local n = 2 + #fields
      row[n + 1], row[n + 2], row[n + 3] = num_text(est.params), num_text(est.time_s), num_text(est.tflops)
      row[n + 4], row[n + 5] = num_text(est.mfu), num_text(est.tokens_per_s)
      out:write(table.concat(row, ","), "\n")
    else
      local obj = { index = est.index, hw = hw_id, params = est.params, time_s = tonumber(num_text(est.time_s)),
                    tflops = tonumber(num_text(est.tflops)), mfu = tonumber(num_text(est.mfu)),
                    tokens_per_s = tonumber(num_text(est.tokens_per_s)) }
      for _, f in ipairs(fields) do obj[f] = cfg[f] end
      out:write(tw.report.json(obj), "\n")
    end
    out:flush()
    if tty and clock() - last > 0.5 then
      last = clock()
      local seen = stats.done + stats.skipped
      local share = stats.total / (q.shard and q.shard[2] or 1)
      local rate = seen / math.max(last - t0, 1e-9)
      stderr:write(format("\r%d/%d configs, %.0f/s, ETA %.0f s   ", seen, math.floor(share), rate,
        math.max(0, (share - seen) / rate)))
    end
  end
  if tty then stderr:write(format("\r%d configs written, %d skipped (where / invalid)\n", stats.done, stats.skipped)) end
  if out ~= stdout then out:close() end
  return 0
end

local function check_cmd(args)
  local regress = require "tilewave.explore.regress"
  local runs = {}
  for _, file in ipairs(args.files) do
    local c = regress.load(file)
    if args.update_baseline then
      local path, n = regress.update_baseline(c)
      if path then stdout:write(format("wrote %s (%d entries)\n", path, n))
      else stdout:write(format("%s: no expect.baseline, nothing written\n", file)) end
    else
      runs[#runs + 1] = { check = c, results = regress.evaluate(c) }
    end
  end
  if args.update_baseline then return 0 end
  local passed, failed = 0, 0
  for _, run in ipairs(runs) do
    for _, r in ipairs(run.results) do
      if r.ok then passed = passed + 1 else failed = failed + 1 end
      if not args.tap then stdout:write(regress.line(run, r), "\n") end
    end
  end
  if args.tap then stdout:write(regress.tap(runs)) end
  if args.junit then
    local f, err = io.open(args.junit, "w")
    if not f then error(err, 0) end
    f:write(regress.junit(runs))
    f:close()
  end
  stdout:write(format("%s%d passed, %d failed\n", args.tap and "# " or "", passed, failed))
  return failed > 0 and 1 or 0
end

local function decode_cmd(args)
  local o = { model = args.model, hw = args.hw, context = args.context, batch = args.batch,
              weight_dtype = args.weight_dtype, group = args.group, kv_dtype = args.kv_dtype, t = args.t,
              engine = args.engine }
  local d = tw.inference.decode(o)
  local spec = tw.hw.resolve(args.hw, "decode.hw")
  local m
  if spec.memory_bytes then
    m = tw.inference.memory { model = args.model, hw = args.hw, context = args.context, batch = args.batch,
                              weight_dtype = args.weight_dtype, group = args.group, kv_dtype = args.kv_dtype, t = args.t }
  end
  if args.format == "json" then
    stdout:write(tw.report.json { decode = d, memory = m or false }, "\n")
    return 0
  end
  stdout:write(text.decode(d, m), "\n")
  return 0
end

local function train_cmd(args)
  local o = { model = args.model, cluster = args.cluster, nodes = args.nodes, global_batch = args.global_batch,
              s = args.s, attention = args.attention, engine = args.engine }
  local line = text.train_line
  if args.search then
    local res = tw.training.search(o)
    for i = 1, math.min(args.top, #res.ranked) do stdout:write(format("%3d. %s\n", i, line(res.ranked[i]))) end
    stdout:write(format("%d valid, %d rejected\n", #res.ranked, #res.rejected))
    return 0
  end
  o.t, o.p, o.micro_batch, o.zero, o.checkpointing = args.t, args.p, args.micro_batch, args.zero, args.checkpointing
  local r = tw.training.step(o)
  stdout:write(text.train(r), "\n")
  return 0
end

local function report_cmd(args)
  local res = tw.analysis.models { models = split(args.models), hw = args.hw, b = args.b, s = args.s, t = args.t,
                                   dtype = args.dtype, attention = args.attention, cluster = args.cluster,
                                   engine = args.engine }
  local text
  if args.format == "json" then text = tw.report.models_json(res)
  elseif args.format == "csv" then text = tw.report.models_csv(res)
  else text = tw.report.models_markdown(res) end
  if args.out then
    local f, err = io.open(args.out, "w")
    if not f then error(err, 0) end
    f:write(text)
    f:close()
  else
    stdout:write(text)
  end
  return 0
end

local function models_cmd(args)
  if args.family and not tw.models.families[args.family] then
    error(format("models: unknown family '%s' (known: llama, gpt_neox, modernbert, gpt3)", args.family), 0)
  end
  local rows = {}
  for _, id in ipairs(tw.analysis.expand(args.family and { args.family } or { "llama", "gpt_neox", "modernbert", "gpt3" })) do
    local c = tw.models.load(id)
    local p = tw.params(c)
    rows[#rows + 1] = { id, c.family, c.name, tw.report.group(p.total), tostring(c.hidden_size),
      tostring(c.num_attention_heads), tostring(c.num_key_value_heads), tostring(c.num_hidden_layers),
      tostring(c.intermediate_size), tostring(c.vocab_size) }
  end
  stdout:write(tw.report.table({ "id", "family", "name", "params", "h", "a", "kv", "L", "I", "v" }, rows), "\n")
  return 0
end

--- Run the CLI on `argv` (array of strings); returns the exit status.
function M.main(argv)
  local p = parser()
  -- `run` passes everything after the script to the script untouched, so its
  -- options are not parsed here.
  if argv[1] == "run" and argv[2] and not argv[2]:match("^%-") then
    local okr, status = pcall(run_script, { script = argv[2], args = table.move(argv, 3, #argv, 1, {}) })
    if not okr then
      stderr:write("tilewave: ", tostring(status), "\n")
      return 1
    end
    return status
  end
  local ok, args = p:pparse(argv)
  if not ok then
    stderr:write(format("tilewave: %s (try 'tilewave --help')\n", args))
    return 2
  end
  local handlers = { run = run_script, gemm = gemm_cmd, roofline = roofline_cmd, hw = hw_cmd,
                     report = report_cmd, models = models_cmd, sweep = sweep_cmd, check = check_cmd,
                     decode = decode_cmd, train = train_cmd, calibrate = function(a) return calibrate.run(a, stdout) end }
  local okr, status = pcall(handlers[args.command], args)
  if not okr then
    stderr:write("tilewave: ", (tostring(status):gsub("\n.*", "")), "\n")
    return 1
  end
  return status
end

return M
