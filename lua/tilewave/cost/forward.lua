--- tilewave.cost.forward: the predicted cost of a forward pass.
--
--   tw.transformer.estimate(model, hw, { b = 4, s = 2048, t = 1, dtype = "bf16",
--                                        attention = "flash", engine = "compiled" })
--
-- `model` is a preset id or a config (tilewave.data.models); `hw` a device id,
-- path or spec (tilewave.data.hw). The ops come from tilewave.ops.transformer
-- and are priced one by one by tilewave.cost.price under the engine
-- (tilewave.cost.engines: which kernels, how they are launched). Tensor-parallel
-- communication is not part of this estimate (the time is one rank's compute).
-- Units: s, FLOP, FLOP/s, byte.
-- @module tw.transformer
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local transformer = require "tilewave.ops.transformer"
local engines = require "tilewave.cost.engines"
local price = require "tilewave.cost.price"
local tables = require "tilewave.util.tables"

local M = {}

local ipairs, pairs = ipairs, pairs

--- The FLOP convention of `model_flops` and MFU, stated in every result.
M.FLOPS_CONVENTION = "causal-aware: 2*M*N*K per GEMM, 4*hd per attention score a query needs (tilewave.ops.layers)"

local OPTIONS = { b = true, s = true, t = true, dtype = true, attention = true, engine = true, uneven_heads = true,
                  ep = true, imbalance = true, detail = true, weight_dtype = true, group = true }

-- a field of an op's prediction as the detailed rows have it: the op's own value, else the price's
local function field(op, p, k)
  local v = op[k]
  if v == nil then v = p[k] end
  return v
end

-- Everything an estimate resolves and validates before pricing, in the order its errors are raised.
local function resolve(model, device, opts)
  local path = "transformer.estimate"
  local c = models.resolve(model, path .. ".model")
  if opts ~= nil then check.table(opts, path) end
  local eng = engines.shared((opts or {}).engine, path .. ".engine")
  local w = transformer.workload(opts, path, OPTIONS, eng.attention)
  w.last_logits = eng.logits == "last" or nil -- serving engines: logits of the sampled positions only
  local spec = hw.resolve(device, path .. ".hw")
  local ctx = price.context(spec, w.dtype, eng, path)
  if opts and opts.detail ~= nil and type(opts.detail) ~= "boolean" then
    error(string.format("%s.detail: expected true or false, got %s", path, tostring(opts.detail)), 0)
  end
  return { c = c, eng = eng, w = w, spec = spec, ctx = ctx, ops = transformer.for_model(c, w, path) }
end

--- A forward pass resolved and compiled, for callers that price it themselves
-- (tilewave.cost.training: each op's time through tilewave.cost.price.pass_time).
-- @param model a preset id, a config.json path or a folder holding one, or a config table
--   (tilewave.data.models)
-- @param device a device id (hw/<id>.lua), a spec path or a spec table (tilewave.data.hw)
-- @tparam table opts as M.estimate's (its `detail` is ignored)
-- @return `{ c (config), eng, w (workload), spec, ctx (tilewave.cost.price context), ops,
--   prog (tilewave.cost.price.compile of ops) }`
-- @raise as M.estimate
function M.plan(model, device, opts)
  local x = resolve(model, device, opts)
  x.prog = price.compile(x.ctx, x.ops)
  return x
end

--- Most resolved and compiled passes kept for totals-only estimates of preset ids
-- (the whole store is dropped when it is full).
M.PLANS_MAX = 1024

local WEAK = { __mode = "k" }
local plans, n_plans = setmetatable({}, WEAK), 0
-- the workload fields that key a kept pass, after the model, device and engine
local KEY = { "b", "s", "t", "dtype", "attention", "uneven_heads", "ep", "imbalance", "weight_dtype", "group" }
local INTEGER = { b = true, s = true, t = true, ep = true }

-- The kept pass of a totals-only estimate, resolving and compiling it on first use; nil
-- (not kept) unless the model is a preset id and every option a plain value.
local function plan_of(model, device, opts)
  if type(model) ~= "string" or model:find(".json", 1, true) or device == nil then return nil end
  for k, v in next, opts do
    if not OPTIONS[k] or v ~= v or (INTEGER[k] and math.type(v) ~= "integer") then return nil end
  end
  local node = plans[model]
  if node then node = node[device] end
  if node then node = node[opts.engine or false] end
  for i = 1, #KEY do
    if not node then break end
    local v = opts[KEY[i]]
    if v == nil then v = false end
    node = node[v]
  end
  if node then return node end
  local plan = M.plan(model, device, opts)
  if n_plans >= M.PLANS_MAX then plans, n_plans = setmetatable({}, WEAK), 0 end
  n_plans = n_plans + 1
  local parent, key = plans, model
  local keys = { device, opts.engine or false }
  for i = 1, #KEY do
    local v = opts[KEY[i]]
    if v == nil then v = false end
    keys[#keys + 1] = v
  end
  for _, k in ipairs(keys) do
    local child = parent[key] or setmetatable({}, WEAK)
    parent[key] = child
    parent, key = child, k
  end
  parent[key] = plan
  return plan
end

-- the result of an estimate from its totals
local function result(x, total, layer, flops, model_flops, gemm_time, launches, preds)
  local c, w, spec = x.c, x.w, x.spec
  local peak = spec.peak_flops[w.dtype]
  return {
    model = c.id or c.name, hw = spec.id, b = w.b, s = w.s, t = w.t, dtype = w.dtype, attention = w.attention,
    engine = x.eng.name, ops = preds, time_s = total, layer_s = layer / c.num_hidden_layers, flops = flops,
    model_flops = model_flops, flops_convention = M.FLOPS_CONVENTION,
    tflops = flops / total / 1e12, mfu = model_flops / total / peak, hfu = flops / total / peak,
    gemm_share = gemm_time / total,
    kernels = launches, tokens_per_s = w.b * w.s / total, peak_flops = peak,
    interval = price.interval(spec, "forward", total),
  }
end

--- Predict one forward pass of `model` on `hw`.
-- @param model a preset id, a config.json path or a folder holding one, or a config table
--   (tilewave.data.models)
-- @param device a device id (hw/<id>.lua), a spec path or a spec table (tilewave.data.hw)
-- @tparam table opts `b`, `s`, `t`, `dtype` as tilewave.ops.transformer.ops;
--   `attention` ("standard": score matrix materialized, softmax in DRAM; or
--   "flash"; default: the engine's, else "standard"), `engine` (preset name
--   or table, default "compiled"; tilewave.cost.engines), `uneven_heads` (true: accept a t
--   that does not divide the heads, priced as ceil(a/t) heads per rank; for the co-design
--   paper's rules only, engines refuse it), `ep` (expert-parallel size of a MoE model, default 1:
--   this rank's E/ep experts run the tokens of ep ranks; the all-to-alls are the caller's),
--   `imbalance` (MoE: the busiest expert's tokens over the uniform b*s*k/E, default 1; every
--   expert GEMM is priced at the busiest M, as a grouped GEMM waits for its largest problem),
--   `weight_dtype` and `group` (the weights' stored format, tilewave.data.quant; default: the
--   compute dtype's: a weight-only format's GEMMs read their weights at its bits, scales included,
--   and compute in `dtype`, tilewave.ops.transformer),
--   `detail` (default true; false: no `ops` rows in the result, only the totals, which are
--   the same numbers, bit for bit: for sweeps and searches that read only the totals;
--   the pass is priced in one call into the core, src/tw_pass.h, and for a preset id the
--   resolved inputs and compiled ops are kept, M.PLANS_MAX of them, so asking again
--   costs that one call)
-- @return table `{ model, hw, b, s, t, dtype, attention, engine,
--   ops = { { role, name, kind, scope, m, n, k, batch, count, flops (per call),
--             bytes, time_s (per call), total_s (= time_s*count), tflops,
--             bound, loss, kernels, tile_eff, wave_eff, align_eff, ... } },
--   time_s (forward, s), layer_s (mean per layer, s), flops (FLOP the pass's kernels
--   execute: GEMMs, BMMs, attention over the scores it computes; elementwise ops carry
--   none), model_flops (FLOP the model needs: attention over the scores a causal query
--   needs, about half of s x s; tilewave.ops.layers states the convention), flops_convention
--   (M.FLOPS_CONVENTION), tflops (achieved, flops / time, 1e12 FLOP/s), mfu (model_flops /
--   time / dense peak of dtype), hfu (flops / time / peak; mfu <= hfu < 1: every op is
--   held to its floor, tilewave.cost.limits), gemm_share (fraction of time in
--   GEMM/BMM kernels, FlashAttention included), kernels (launched per pass), tokens_per_s,
--     peak_flops,
--   interval = { low, high (s), borrowed } of time_s (tilewave.cost.price.interval) }`
-- @raise `transformer.estimate.<field>: ...`; model and hw errors
function M.estimate(model, device, opts)
  if type(opts) == "table" and opts.detail == false then
    local x = plan_of(model, device, opts)
    x = x or M.plan(model, device, opts)
    local total, layer, gemm_time = price.pass_time(x.ctx, x.prog)
    return result(x, total, layer, x.prog.flops, x.prog.model_flops, gemm_time, x.prog.kernels, nil)
  end
  local x = resolve(model, device, opts)
  local ctx, preds = x.ctx, {}
  local total, layer, flops, model_flops, gemm_time, launches = 0, 0, 0, 0, 0, 0
  for i, op in ipairs(x.ops) do
    local p = price.op(ctx, op)
    local time_s, count = field(op, p, "time_s"), field(op, p, "count")
    local total_s = time_s * count
    total = total + total_s
    flops = flops + field(op, p, "flops") * count
    model_flops = model_flops + op.model_flops * count
    launches = launches + field(op, p, "kernels") * count
    if field(op, p, "scope") == "layer" then layer = layer + total_s end
    gemm_time = gemm_time + field(op, p, "gemm_s") * count
    tables.copy(op, p)
    p.total_s = total_s
    p.tflops = p.flops / p.time_s / 1e12
    preds[i] = p
  end
  return result(x, total, layer, flops, model_flops, gemm_time, launches, preds)
end

return M
