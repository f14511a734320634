--- tilewave.explore.accuracy: the model's error on every calibration set, by set and engine.
--
-- Sets:
--   * a measurement folder in the format of ../shared/reference/calibration/h100/
--     (README there; CUDA-graph replays timed with CUDA events = device time,
--     `eager` rows launched from Python): gemm.csv (tw.gemm, kernel timing),
--     layers.csv (one layer's forward), decode.csv (one decode step),
--     hf_generate.csv (generate() TPOT), attention.csv (fused SDPA kernels,
--     forward and forward + backward). Each file is optional.
--   * the published sets: gemm_calibration.csv (tilewave.explore.calibration)
--     and decode_calibration.csv (tilewave.explore.decode_calibration).
-- Every row: `{ set, engine, class, predicted (s), measured (s), low, high }`
-- where [low, high] is the prediction interval (tilewave.cost.price.interval).
-- Layers and decode rows are compared under two engines: the one matching how
-- they were run (graph rows: { base = "eager", launch = "graph" }; eager rows:
-- "eager"; generate(): "hf") and the default, "compiled".
local tw_gemm = require "tilewave.cost.gemm"
local forward = require "tilewave.cost.forward"
local inference = require "tilewave.cost.inference"
local price = require "tilewave.cost.price"
local layers = require "tilewave.ops.layers"
local models = require "tilewave.data.models"
local hw = require "tilewave.data.hw"
local mcsv = require "tilewave.explore.measured_csv"
local calibration = require "tilewave.explore.calibration"
local measured_models = require "tilewave.explore.measured_models"
local decode_calibration = require "tilewave.explore.decode_calibration"
local tables = require "tilewave.util.tables"

local M = {}
local format, ipairs, abs = string.format, ipairs, math.abs

local ENGINE_OF = { graph = { base = "eager", launch = "graph" }, eager = "eager" }
--- A short name of an engine as the rows use it.
function M.engine_name(e) return type(e) == "table" and "eager+graph" or e end

-- the measured rows' model ids -> configs (tilewave.explore.measured_models)
M.layer_model, M.depth_model = measured_models.layer_model, measured_models.depth_model

local function row(rows, set, engine, class, spec, predicted, measured, label, iv)
  iv = iv or price.interval(spec, class, predicted) -- the estimate's own when it has one
  rows[#rows + 1] = { set = set, engine = M.engine_name(engine), class = class, predicted = predicted,
                      measured = measured, low = iv.low, high = iv.high, label = label }
end

local function gemm_rows(rows, dir, spec)
  mcsv.each(dir .. "/gemm.csv", "gemm", function(r)
    local g = tw_gemm.gemm { m = r.m, n = r.n, k = r.k, batch = r.batch, dtype = r.dtype, hw = spec }
    row(rows, format("gemm %s %s", r.set, r.dtype), "compiled", "gemm", spec, g.time_s, r.time_s,
        format("%s %sx%sx%s b%s", r.label, r.m, r.n, r.k, r.batch), g.interval)
  end)
end

local function layer_rows(rows, dir, spec)
  mcsv.each(dir .. "/layers.csv", "layers", function(r)
    local c = M.layer_model(r.id)
    for _, eng in ipairs { ENGINE_OF[r.timing], "compiled" } do
      local est = forward.estimate(c, spec, { b = r.b, s = r.s, dtype = "bf16", attention = r.attention, engine = eng })
      row(rows, format("layers %s %s", r.timing, r.attention), eng, "forward", spec, est.layer_s, r.time_s,
          format("%s b%s s%s", r.id, r.b, r.s))
    end
  end)
end

-- one generate() row (scripts/probe's hf set, or the shared file's)
local function hf_row(rows, spec, r, set)
  -- scripts/probe's own rows (with `rep`): the second call of each model, its median per-token gap
  -- (the steady state; a first call can run slower, tilewave.cost.engines hf.cold_token_s); `mode`
  -- forward rows (a plain forward loop) are left out: no engine models them. The shared rows:
  -- (t(72) - t(8)) / 64 of single calls.
  if (r.rep == nil or r.rep == "2") and r.mode ~= "forward" then
    if not (r.tpot_median_s or r.tpot_s) then error("tpot_s: expected a value (or tpot_median_s), got nothing", 0) end
    local d = inference.decode_step { model = M.depth_model(r.id, r.layers), hw = spec, batch = r.batch, engine = "hf",
                                 -- mean context over the timed tokens: prompt + 8 ... prompt +
                                 -- new_tokens
                                 context = r.prompt + (8 + r.new_tokens) // 2 }
    row(rows, set, "hf", "decode", spec, d.tpot_s, r.tpot_median_s or r.tpot_s,
        format("%s%s batch %s", r.id, r.layers and (" L" .. r.layers) or "", r.batch), d.interval)
  end
end

local function decode_rows(rows, dir, spec)
  mcsv.each(dir .. "/decode.csv", "decode", function(r)
    for _, eng in ipairs { ENGINE_OF[r.timing], "compiled" } do
      local d = inference.decode_step { model = r.id, hw = spec, batch = r.batch, context = r.context, engine = eng,
                                   allow_long_context = true } -- llama-2-7b was measured at 8192 (trained 4096)
      row(rows, "decode " .. r.timing, eng, "decode", spec, d.tpot_s, r.step_s,
          format("%s batch %s context %s", r.id, r.batch, r.context), d.interval)
    end
  end)
  mcsv.each(dir .. "/hf_generate.csv", "hf_generate", function(r) hf_row(rows, spec, r, "generate() TPOT") end)
  -- scripts/probe's first format: one call per point after a 4-token warm-up, (t(40) - t(8)) / 32
  mcsv.each(dir .. "/hf_generate_single.csv", "hf_generate", function(r)
    hf_row(rows, spec, r, "generate() TPOT, single calls")
  end)
end

-- Fused SDPA kernels: cuDNN's (the backend PyTorch chose in layers.csv) and
-- FlashAttention-2's, causal, bf16, priced as one flash attention op; fwd+bwd adds its backward
-- (the main kernel and the kernels around it) and the harness's gradient accumulation.
local FA2 = { base = "eager", launch = "graph", flash_kernel = "fa2" }
local function attention_rows(rows, dir, spec)
  local cudnn, fa2 = price.context(spec, "bf16", ENGINE_OF.graph, "accuracy"), price.context(spec, "bf16", FA2, "accuracy")
  mcsv.each(dir .. "/attention.csv", "attention", function(r)
    if r.impl == "cudnn" or r.impl == "flash" then
      local ctx = r.impl == "flash" and fa2 or cudnn
      local b, h, s, hd = r.b, r.heads, r.s, r.hd
      local op = { kind = "attention", impl = "flash", m = s, n = s, k = hd, batch = b * h, head_dim = hd,
                   elems = b * h * s * s, causal_elems = b * h * layers.causal_elems(s, s),
                   qkv_bytes = 4.0 * b * s * h * hd * 2, q_elems = 1.0 * b * h * s * hd, kv_elems = 1.0 * b * h * s * hd }
      op.flops, op.model_flops = 4.0 * hd * op.causal_elems, 4.0 * hd * b * h * layers.needed_elems(s, s, true)
      op.bytes = op.qkv_bytes
      local t = price.op(ctx, op).time_s
      if r.pass == "fwd+bwd" then
        -- scripts/probe's timer_eager repeats o.backward(grad) on leaf q, k, v: autograd
        -- accumulates each gradient into its .grad (grad += new: read two, write one, bf16), three
        -- vectorized kernels
        local acc = 3 * op.q_elems * 2
        t = t + price.backward(ctx, op) + price.kernels_s(ctx, { acc, acc, acc })
      end
      row(rows, format("attention %s %s", r.impl == "flash" and "fa2" or r.impl, r.pass), M.engine_name(ctx.engine),
          "attention", spec, t, r.time_s, format("b%s s%s hd%s", r.b, r.s, r.hd))
    end
  end)
end

local READERS = { gemm = gemm_rows, layers = layer_rows, decode = decode_rows, attention = attention_rows }
local ALL_KINDS = { "gemm", "layers", "decode", "attention" }

--- The host figure of a measurement folder: host.csv's module_linear on cuda (scripts/probe
-- --host), s; nil without one.
function M.host_op_s(dir)
  local host
  mcsv.each(dir .. "/host.csv", "host", function(r)
    if not host and r.op == "module_linear" and r.device == "cuda" then host = r.time_s end
  end)
  return host
end

--- Rows of a measurement folder `dir` on device `hw_id` (an id or a spec
-- table; default "h100_sxm5"), each set prefixed with `prefix` (default: the
-- folder's name). `kinds` (optional) limits the files read: an array of
-- "gemm", "layers", "decode" (with hf_generate), "attention".
-- A folder with scripts/probe --host's host.csv prices on its own host (spec.host_op_s) unless the
-- spec has one.
-- @raise `calibrate: <dir>: no ... .csv there` when none is there
function M.measured(dir, hw_id, prefix, kinds)
  local spec = hw.resolve(hw_id or "h100_sxm5", "calibrate.hw")
  local host = M.host_op_s(dir)
  if host and not spec.host_op_s then -- the folder's own host, measured beside its rows
    local s = tables.copy(spec)
    s.host_op_s, s.sources = host, {}
    tables.copy(spec.sources or {}, s.sources)
    s.sources.host_op_s = dir .. "/host.csv: module_linear on cuda (scripts/probe --host)"
    spec = s
  end
  local rows = {}
  for _, k in ipairs(kinds or ALL_KINDS) do READERS[k](rows, dir, spec) end
  if #rows == 0 then error(format("calibrate: %s: no gemm/layers/decode/hf_generate/attention .csv there", dir), 0) end
  prefix = prefix or dir:match("([^/]+)/*$")
  for _, r in ipairs(rows) do r.set = prefix .. ": " .. r.set end
  return rows
end

--- The device of a measured row's `gpu` column (torch.cuda.get_device_name): an id.
local GPU_SPEC = { ["NVIDIA H100 80GB HBM3"] = "h100_sxm5", ["NVIDIA H200"] = "h200_sxm" }

--- The spec id of a GPU as torch.cuda.get_device_name() names it in a measurement folder
-- (gemm.csv's `gpu` column, device.txt), or nil when tilewave has no spec for it.
function M.gpu_spec_id(name) return GPU_SPEC[name] end

--- Rows of the random-shape sets of ../shared/reference/calibration/random_half/ (README there:
-- each *_random.csv one device, gemm.csv's format), by file, dtype and layout, each on the
-- device its `gpu` column names: `random_half <file>: gemm random <dtype> <layout>`.
-- Empty when the folder is not there.
function M.random_half(dir)
  local rows = {}
  local lfs = require "lfs"
  if lfs.attributes(dir, "mode") ~= "directory" then return rows end
  local files = {}
  for f in lfs.dir(dir) do if f:match("_random%.csv$") then files[#files + 1] = f end end
  table.sort(files)
  for _, f in ipairs(files) do
    local name = f:gsub("_random%.csv$", "")
    mcsv.each(dir .. "/" .. f, "gemm", function(r)
      local id = GPU_SPEC[r.gpu]
      if id then
        local spec = hw.resolve(id, "calibrate.hw")
        local g = tw_gemm.gemm { m = r.m, n = r.n, k = r.k, batch = r.batch, dtype = r.dtype, hw = spec }
        row(rows, format("random_half %s: gemm random %s %s", name, r.dtype, r.layout), "compiled", "gemm", spec,
            g.time_s, r.time_s, format("%sx%sx%s", r.m, r.n, r.k), g.interval)
      end
    end)
  end
  return rows
end

--- The layer of a train_layer.csv id: a preset, or "gpt3-2.7b-a32", GPT-3 2.7B's shape with 32
-- heads (h 2560, head dim 80) in the README's "Pythia/GPT layers" (LayerNorm, GELU, biases;
-- taken with GPT's sequential residual and GPT-NeoX's partial rotary, as the harness's layer
-- applies rotary to every model).
local function train_layer_model(id)
  if id == "gpt3-2.7b-a32" then
    return models.define { family = "gpt_neox", name = id, hidden_size = 2560, num_attention_heads = 32,
                           num_hidden_layers = 32, intermediate_size = 10240, vocab_size = 50257,
                           use_parallel_residual = false }
  end
  return measured_models.preset(id)
end

--- Rows of ../shared/reference/calibration/h200_training/train_layer.csv (README there: one
-- layer's forward + backward, eager PyTorch, device time, on an H200): the layer costs of
-- tilewave.cost.training (eager engine; backward per kernel class, tilewave.cost.kernels),
-- `h200_training: layer fwd+bwd <attention>` and `... fwd <attention>`. Empty when absent.
function M.training_layers(dir)
  local rows = {}
  local training = require "tilewave.cost.training"
  local engines = require "tilewave.cost.engines"
  local eng = engines.resolve("eager", "calibrate.engine")
  local train_eng = engines.for_training(eng)
  mcsv.each(dir .. "/train_layer.csv", "train_layer", function(r)
    local spec = hw.resolve(GPU_SPEC[r.gpu] or "h200_sxm", "calibrate.hw")
    -- fwd+bwd as it trains (engines.for_training: FlashAttention-2 under autograd), fwd alone under
    -- no_grad
    local function layer(e)
      return training.layer_costs(train_layer_model(r.id), spec, { b = r.b, s = r.s, t = 1,
        dtype = "bf16", attention = r.attention, engine = e, ep = 1 })
    end
    local k, inf = layer(train_eng), layer(eng)
    local label = format("%s b%s s%s", r.id, r.b, r.s)
    row(rows, "h200_training: layer fwd+bwd " .. r.attention, "eager", "training", spec, k.f + k.b, r.time_s, label)
    row(rows, "h200_training: layer fwd " .. r.attention, "eager", "forward", spec, inf.f, r.fwd_s, label)
  end)
  return rows
end

--- Rows of the published sets (gemm_calibration.csv, decode_calibration.csv);
-- rows for devices without a spec are left out.
function M.published()
  local rows = {}
  local results = calibration.evaluate(assert(calibration.load()))
  for _, x in ipairs(results) do
    local e, r = x.estimate, x.row
    -- the set compares FLOP/s; as times: FLOP / rate, the interval scaled with the prediction
    local flops = 2 * r.m * r.n * r.k * (r.batch or 1)
    local predicted = flops / (x.predicted_tflops * 1e12)
    local scale = predicted / e.time_s
    rows[#rows + 1] = { set = "published GEMM " .. r.gpu, engine = e.timing, class = "gemm", predicted = predicted,
      measured = flops / (r.tflops_measured * 1e12), low = e.interval.low * scale, high = e.interval.high * scale,
      label = format("%dx%dx%d", r.m, r.n, r.k) }
  end
  local dresults = decode_calibration.evaluate(assert(decode_calibration.load()))
  for _, x in ipairs(dresults) do
    local d, r = x.decode, x.row
    rows[#rows + 1] = { set = "published decode " .. r.hw, engine = r.engine, class = "decode",
      predicted = 1 / x.predicted, measured = 1 / r.measured,
      low = d.interval.low / d.tpot_s / x.predicted, high = d.interval.high / d.tpot_s / x.predicted,
      label = r.model_id .. " " .. r.format }
  end
  return rows
end

--- Per (set, engine), in first-seen order: `{ set, engine, n, mape, bias,
-- worst (signed relative errors), coverage (fraction of measurements inside
-- the interval) }`. Errors are (predicted - measured) / measured.
function M.summarize(rows)
  local order, by = {}, {}
  for _, r in ipairs(rows) do
    local key = r.set .. "|" .. r.engine
    local s = by[key]
    if not s then
      s = { set = r.set, engine = r.engine, n = 0, mape = 0, bias = 0, worst = 0, coverage = 0 }
      by[key] = s
      order[#order + 1] = s
    end
    local e = (r.predicted - r.measured) / r.measured
    s.n, s.mape, s.bias = s.n + 1, s.mape + abs(e), s.bias + e
    if abs(e) > abs(s.worst) then s.worst = e end
    if r.measured >= r.low and r.measured <= r.high then s.coverage = s.coverage + 1 end
  end
  for _, s in ipairs(order) do s.mape, s.bias, s.coverage = s.mape / s.n, s.bias / s.n, s.coverage / s.n end
  return order
end

--- The random half's rows of each file under one set, `random_half <file>: gemm random, all dtypes`
-- (issue 33's headline figure), as M.summarize gives them; `rows` as M.random_half returns them.
function M.random_half_totals(rows)
  local all = {}
  for _, r in ipairs(rows) do
    local file = r.set:match("^random_half (%S+): gemm random ")
    if file then
      all[#all + 1] = { set = format("random_half %s: gemm random, all dtypes", file), engine = r.engine,
                        predicted = r.predicted, measured = r.measured, low = r.low, high = r.high }
    end
  end
  return M.summarize(all)
end

--- Interval coverage out of sample on the random half (issue 33): per dtype, the 5th-95th
-- percentile interval of measured / predicted (the method of hw/arch `intervals`, nominal 90%)
-- refit on `k` - 1 folds of the first H100's shapes and tested on the fold left out (folds by
-- shape, the k-th of the shapes in file order), and the interval fitted on all of the first
-- H100's shapes tested on each other device's rows.
-- @tparam table rows as M.random_half returns them
-- @tparam[opt=5] integer k folds
-- @return `{ { dtype, n, in_sample, kfold, devices = { { name, n, coverage } } } }` (fractions),
--   dtypes sorted; empty without the first H100's file
function M.interval_cv(rows, k)
  k = k or 5
  local by = {}
  for _, r in ipairs(rows) do
    local file, dt = r.set:match("^random_half (%S+): gemm random (%S+) ")
    if file then
      by[dt] = by[dt] or { fit = {}, other = {} }
      local ratio = r.measured / r.predicted
      if file == "h100_first_machine" then
        local f = by[dt].fit
        f[#f + 1] = ratio
      else
        local o = by[dt].other
        o[file] = o[file] or {}
        o[file][#o[file] + 1] = ratio
      end
    end
  end
  local out = {}
  for dt, d in pairs(by) do
    local xs = d.fit
    if #xs >= 2 * k then
      local lo, hi = M.quantile(xs, 0.05), M.quantile(xs, 0.95)
      local inside = function(x, a, b) return x >= a and x <= b and 1 or 0 end
      local ins, cv = 0, 0
      for _, x in ipairs(xs) do ins = ins + inside(x, lo, hi) end
      for f = 0, k - 1 do
        local train, test = {}, {}
        for i, x in ipairs(xs) do
          if (i - 1) % k == f then test[#test + 1] = x else train[#train + 1] = x end
        end
        local a, b = M.quantile(train, 0.05), M.quantile(train, 0.95)
        for _, x in ipairs(test) do cv = cv + inside(x, a, b) end
      end
      local devices = {}
      for name, ys in pairs(d.other) do
        local c = 0
        for _, y in ipairs(ys) do c = c + inside(y, lo, hi) end
        devices[#devices + 1] = { name = name, n = #ys, coverage = c / #ys }
      end
      table.sort(devices, function(a, b) return a.name < b.name end)
      out[#out + 1] = { dtype = dt, n = #xs, in_sample = ins / #xs, kfold = cv / #xs, devices = devices }
    end
  end
  table.sort(out, function(a, b) return a.dtype < b.dtype end)
  return out
end

--- The q-quantile (0..1) of measured / predicted over `rows` with class `class`
-- and engine `engine` (any when nil): how the intervals of hw/arch are derived.
function M.ratio_quantile(rows, class, q, engine)
  local xs = {}
  for _, r in ipairs(rows) do
    if r.class == class and (engine == nil or r.engine == engine) then xs[#xs + 1] = r.measured / r.predicted end
  end
  if #xs == 0 then return nil end
  return M.quantile(xs, q), #xs
end

--- The q-quantile (0 <= q <= 1) of the numbers `xs` (not modified) for a prediction
-- interval: the order statistic of rank r = q * (n + 1), interpolated linearly between
-- ranks floor(r) and floor(r) + 1 (Hyndman and Fan 1996, definition 6), the smallest value
-- below rank 1 and the largest above rank n; nil when empty. The method of every prediction
-- interval (hw/arch). Of n exchangeable values, a new one falls between the i-th and the
-- j-th smallest (i < j) with probability (j - i) / (n + 1) (Wilks 1941, distribution-free
-- prediction intervals), so [quantile(xs, 0.05), quantile(xs, 0.95)] covers about 90% of
-- new values even for a few dozen rows, where nearest ranks q * (n - 1) + 1 cover less
-- (82% expected at n = 22).
function M.quantile(xs, q)
  if #xs == 0 then return nil end
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local r = q * (#s + 1)
  if r <= 1 then return s[1] end
  if r >= #s then return s[#s] end
  local i = math.floor(r)
  return s[i] + (r - i) * (s[i + 1] - s[i])
end

return M
