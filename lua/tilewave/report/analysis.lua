--- tilewave.report.analysis: the main report's data - for each model, its parameter
-- count, forward-pass prediction, slowest GEMMs and why, rule violations with
-- fixes, and the best nearby shape. Computes; tilewave.report formats.
--
--   tw.analysis.models{ models = { "llama", "pythia-2.8b" }, hw = "h100_sxm5", b = 4, s = 2048 }
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local transformer = require "tilewave.cost.forward"
local transformer_ops = require "tilewave.ops.transformer"
local rules = require "tilewave.explore.rules"
local search = require "tilewave.explore.search"
local inference = require "tilewave.cost.inference"
local training = require "tilewave.explore.training_search"
local cluster = require "tilewave.data.cluster"
local quant = require "tilewave.data.quant"
local engines = require "tilewave.cost.engines"
local tables = require "tilewave.util.tables"

local M = {}

local ipairs, pairs, sort, format = ipairs, pairs, table.sort, string.format

--- A nearby shape is reported when it is at least this much faster at equal
-- size (smaller differences are within the model's error).
M.NEARBY_MIN = 1.01

--- The families the report covers by default, in report order.
M.DEFAULT_FAMILIES = { "llama", "gpt_neox", "modernbert" }

--- Expand a list of ids and family names into model ids: a family gives its
-- presets ordered by parameter count (then id).
-- @raise `report.models: unknown model or family 'x' (...)`
function M.expand(list)
  local out, seen = {}, {}
  for _, item in ipairs(list) do
    local ids
    if models.families[item] then
      ids = models.list(item)
      local size = {}
      for _, id in ipairs(ids) do size[id] = models.params(id).total end
      sort(ids, function(x, y) if size[x] ~= size[y] then return size[x] < size[y] end return x < y end)
    elseif models.load(item) then
      ids = { item }
    else
      local fams = {}
      for k in pairs(models.families) do fams[k] = true end
      error(("report.models: unknown model or family '%s' (families: %s; models: tilewave models)"):format(
        tostring(item), check.keys(fams)), 0)
    end
    for _, id in ipairs(ids) do
      if not seen[id] then seen[id] = true; out[#out + 1] = id end
    end
  end
  return out
end

--- Analyse one model.
-- @tparam table opts `hw`, workload `b`, `s`, `t`, `dtype`, `attention`;
--   `top` (slowest GEMMs listed, default 3), `tolerance` (nearby search),
--   `cluster` (a resolved tilewave.cluster for the training view, or nil)
-- @return `{ id, name, family, params, estimate (tilewave.transformer result),
--   slowest = { op rows }, violations (tilewave.rules), nearby (best row of
--   tilewave.search, or nil unless at least NEARBY_MIN faster at equal size),
--   inference (M.inference, nil for encoders), training (M.training or nil) }`
local MODEL_OPTIONS = { hw = true, b = true, s = true, t = true, dtype = true, attention = true, engine = true,
                        top = true, tolerance = true, cluster = true, allow_long_context = true, models = true }

function M.model(model, opts)
  check.table(opts, "report")
  check.options(opts, MODEL_OPTIONS, "report")
  local spec = hw.resolve(opts.hw, "report.hw")
  local w = { b = opts.b, s = opts.s, t = opts.t, dtype = opts.dtype, attention = opts.attention, engine = opts.engine }
  local c = models.resolve(model, "report.model")
  transformer_ops.check_t(c, w.t or 1, "report.t")
  inference.check_context(c, w.s or 2048, opts.allow_long_context, "report.s")
  local tokens = ((w.b or 4) + 0.0) * (w.s or 2048)
  if tokens > 2 ^ 31 - 1 then check.fail("report.b*s", "expected at most 2^31-1 tokens", tokens) end
  local est = transformer.estimate(c, spec, w)
  local gemms = {}
  for _, p in ipairs(est.ops) do
    if p.kind ~= "elementwise" then gemms[#gemms + 1] = p end
  end
  sort(gemms, function(x, y)
    if x.total_s ~= y.total_s then return x.total_s > y.total_s end
    return x.name < y.name
  end)
  local slowest = {}
  for i = 1, math.min(opts.top or 3, #gemms) do
    local p = gemms[i]
    p.share = p.total_s / est.time_s
    slowest[i] = p
  end
  -- the (h, a, I) search does not apply to latent attention (its head widths are not h/a)
  local near = models.families[c.family].latent_attention and {}
    or search.nearby(c, spec, { b = w.b, s = w.s, t = w.t, dtype = w.dtype, attention = w.attention,
                                engine = w.engine, tolerance = opts.tolerance, limit = 1 })
  local best = near[1]
  if best and (best.is_base or best.size_speedup < M.NEARBY_MIN) then best = nil end
  return {
    id = c.id or c.name, name = c.name, family = c.family, params = models.params(c), estimate = est,
    slowest = slowest, violations = rules.check(c, w, spec), nearby = best,
    config = c, inference = M.inference(c, spec, w, opts.allow_long_context),
    training = opts.cluster and M.training(c, opts.cluster, w) or nil,
  }
end

--- Node counts the report's training search tries, smallest first.
M.TRAINING_NODES = { 1, 2, 4, 8, 16, 32, 64 }
--- Tokens per optimizer step of the report's training search (2^21, about 2M).
M.TRAINING_TOKENS = 2 ^ 21 // 1

--- The report's training view: on the smallest node count of TRAINING_NODES
-- where some configuration fits, the fastest (t, p, d, micro-batch,
-- checkpointing, ZeRO) of tilewave.training.search (through its first row alone,
-- tilewave.training.best), FlashAttention, bf16,
-- TRAINING_TOKENS per step at sequence length s. nil if none fits.
function M.training(c, cl, w)
  local s = w.s or 2048
  local gb = math.max(1, M.TRAINING_TOKENS // s)
  local cache = {} -- this model's layer costs, shared by the node counts
  for _, nodes in ipairs(M.TRAINING_NODES) do
    local gpus = nodes * cl.gpus_per_node
    if gb % gpus == 0 or gpus <= gb then
      local res = training.best { model = c, cluster = cl, nodes = nodes, global_batch = gb, s = s,
                                    dtype = w.dtype == "fp16" and "fp16" or "bf16", micro_batch = { 1, 2, 4 },
                                    engine = w.engine, cost_cache = cache }
      local best = res.best
      if best then
        return { nodes = nodes, gpus = gpus, cluster = cl.id or cl.name, config = best.config,
                 tokens_per_s = best.tokens_per_s, model_tflops_per_gpu = best.model_tflops_per_gpu,
                 mfu = best.mfu, memory = best.memory.total, step_s = best.step_s, valid = res.valid,
                 rejected = res.rejected }
      end
    end
  end
  return nil
end

--- Batches tried for the decode ridge: 1, 2, 4 ... 4096.
M.DECODE_BATCHES = {}
for i = 0, 12 do M.DECODE_BATCHES[#M.DECODE_BATCHES + 1] = 2 ^ i // 1 end

--- The report's inference view of a decoder: decode at batch 1 with s tokens
-- of context (the report's engine, weights in the workload dtype when it is a
-- weight format, else bf16), and the first batch of DECODE_BATCHES at which
-- the step turns compute-bound (nil: memory-bound at every one), whether or
-- not that batch fits in memory (max_batch says what fits); intensity_limit
-- is the step's FLOP/byte as batch grows without bound (FLOP per KV-cache
-- byte), against the device's achievable ridge. nil for encoders.
function M.inference(c, spec, w, allow_long_context)
  if models.families[c.family].encoder then return nil end
  local wd = quant.formats[w.dtype or "bf16"] and (w.dtype or "bf16") or "bf16"
  local sw = inference.sweep { model = c, hw = spec, context = w.s or 2048, t = w.t, weight_dtype = wd,
                               batch = M.DECODE_BATCHES, engine = w.engine, allow_long_context = allow_long_context }
  local one = sw.rows[1]
  local fit
  if spec.memory_bytes then
    fit = inference.memory { model = c, hw = spec, context = w.s or 2048, t = w.t, weight_dtype = wd,
                             allow_long_context = allow_long_context }
  end
  -- as batch grows the weights are amortized and the step's intensity tends to FLOP per KV-cache
  -- byte
  local limit = one.flops / one.kv_bytes
  return { tokens_per_s = one.tokens_per_s, tpot_s = one.tpot_s, bound = one.bound, weight_dtype = wd,
           intensity_limit = limit, ridge = sw.ridge,
           context = one.context, engine = one.engine, compute_bound_batch = sw.compute_bound_batch,
           max_batch = fit and fit.max_batch or nil, kv_bytes_per_token = fit and fit.kv_bytes_per_token or nil }
end

--- Analyse a list of models (ids, family names or configs).
-- @tparam table opts `models` (default M.DEFAULT_FAMILIES), `hw` (default
--   "h100_sxm5"), `b` (default 4), `s` (default 2048), `t` (1), `dtype`
--   ("bf16"), `attention` ("standard"), `engine` (preset name, default
--   "compiled"; tilewave.cost.engines), `top`, `tolerance`
-- @return `{ hw = spec, workload = {b, s, t, dtype, attention}, version, models = { per-model
-- results } }`;
--   each estimate's tflops count the FLOP the kernels execute and its mfu the FLOP the model needs
--   (causal-aware: tilewave.cost.forward.FLOPS_CONVENTION, tilewave.ops.layers)
function M.models(opts)
  opts = opts or {}
  check.table(opts, "report")
  check.options(opts, { models = true, hw = true, b = true, s = true, t = true, dtype = true,
                        attention = true, top = true, tolerance = true, cluster = true, engine = true,
                        allow_long_context = true }, "report")
  local o = tables.copy(opts)
  o.hw = o.hw or "h100_sxm5"
  o.b = check.positive_int(o.b or 4, "report.b")
  o.s = check.positive_int(o.s or 2048, "report.s")
  o.t = check.positive_int(o.t or 1, "report.t")
  o.dtype, o.attention = o.dtype or "bf16", o.attention or "standard"
  o.engine = engines.resolve(o.engine, "report.engine").name
  local spec = hw.resolve(o.hw, "report.hw")
  -- training: the given cluster, else the cluster built of this device, if any
  if o.cluster == nil then
    for _, id in ipairs(cluster.list()) do
      local cl = cluster.resolve(id, "report.cluster")
      if cl.spec.id == spec.id and o.cluster == nil then o.cluster = cl end
    end
  elseif o.cluster then
    o.cluster = cluster.resolve(o.cluster, "report.cluster")
  end
  local list, seen = {}, {}
  local given = o.models or M.DEFAULT_FAMILIES
  check.table(given, "report.models")
  if #given == 0 then error("report.models: expected at least one model id or family name, got an empty list", 0) end
  for _, m in ipairs(given) do
    if type(m) == "table" then list[#list + 1] = m
    else
      for _, id in ipairs(M.expand { m }) do
        if seen[id] then
          error(format("report.models: '%s' is listed twice%s", id, seen[id] ~= id and
            format(" (also through '%s')", seen[id]) or ""), 0)
        end
        seen[id] = m
        list[#list + 1] = id
      end
    end
  end
  local results = {}
  for i, m in ipairs(list) do results[i] = M.model(m, o) end
  return {
    hw = spec, version = require("tilewave.core")._VERSION, models = results, cluster = o.cluster or nil,
    workload = { b = o.b, s = o.s, t = o.t, dtype = o.dtype, attention = o.attention, engine = o.engine },
  }
end

return M
