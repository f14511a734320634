--- tilewave.explore.figures: chart descriptions (tilewave.report.plot) built from the
-- cost layer - a roofline with a model's ops on it, a GEMM sweep's tile and wave
-- sawtooth, a sweep's metric against a field, decode throughput against batch.
-- Each returns a chart table; tilewave.report.plot draws it. Units: FLOP, byte, s.
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local forward = require "tilewave.cost.forward"
local gemm = require "tilewave.cost.gemm"
local inference = require "tilewave.cost.inference"
local sweep = require "tilewave.explore.sweep"
local gemm_sweeps = require "tilewave.explore.gemm_sweeps"

local M = {}

local format, ipairs, pairs, sort = string.format, ipairs, pairs, table.sort

-- Intensity range drawn on the roofline (FLOP/byte).
local X_MIN, X_MAX = 0.5, 1e5

-- The roof min(peak, x * bw) as three points over [X_MIN, X_MAX].
local function roof(peak, bw)
  local ridge = peak / bw
  return { { X_MIN, X_MIN * bw }, { ridge, peak }, { X_MAX, peak } }
end

--- Roofline: each device's datasheet roof and achievable roof (compute_frac,
-- mem_frac of its GEMM parameters) for `dtype`, the ridge points, and every GEMM,
-- batched GEMM and attention op of `models` (forward pass, b = 4, s = 2048 unless
-- `opts.b`, `opts.s`) on the first device at its arithmetic intensity and predicted
-- rate, one series per role. Elementwise ops carry no FLOP and are not drawn.
-- @tparam table hw_ids device ids, paths or specs (at least one)
-- @tparam table model_ids model ids or configs (may be empty)
-- @tparam table opts `engine`, `dtype` (default "bf16"), `b`, `s`, `t`
function M.roofline(hw_ids, model_ids, opts)
  opts = opts or {}
  check.options(opts, { engine = true, dtype = true, b = true, s = true, t = true }, "plot")
  check.table(hw_ids, "plot.hw")
  if #hw_ids == 0 then error("plot.hw: expected at least one device", 0) end
  local dtype = opts.dtype or "bf16"
  local chart = { title = "Roofline, " .. dtype, logx = true, logy = true, series = {}, marks = {},
                  xlabel = "arithmetic intensity (FLOP/byte)", ylabel = "rate", yunit = "FLOP/s" }
  local first, names = nil, {}
  for i, id in ipairs(hw_ids) do
    local spec = hw.resolve(id, format("plot.hw[%d]", i))
    first = first or spec
    names[#names + 1] = spec.id
    local peak = spec.peak_flops[dtype]
    if not peak then error(format("plot.dtype: %s has no %s peak", spec.id, dtype), 0) end
    local g = hw.gemm_params(spec)
    local cpeak, cbw = peak * hw.compute_frac(g, dtype), spec.mem_bw * g.mem_frac
    -- one colour per device: the datasheet roof solid, the achievable one dashed
    chart.series[#chart.series + 1] = { title = spec.id .. " datasheet roof", points = roof(peak, spec.mem_bw),
                                        group = spec.id }
    chart.series[#chart.series + 1] = { title = spec.id .. " achievable roof", points = roof(cpeak, cbw), dash = true,
                                        group = spec.id }
    chart.marks[#chart.marks + 1] = { x = peak / spec.mem_bw,
                                      label = format("ridge %s %.0f FLOP/B", spec.id, peak / spec.mem_bw) }
  end
  local by_role, roles = {}, {}
  for _, m in ipairs(model_ids or {}) do
    local est = forward.estimate(m, first, { b = opts.b or 4, s = opts.s or 2048, t = opts.t or 1, dtype = dtype,
                                            engine = opts.engine })
    for _, p in ipairs(est.ops) do
      if p.flops > 0 and p.bytes > 0 then
        if not by_role[p.role] then by_role[p.role] = {}; roles[#roles + 1] = p.role end
        local pts = by_role[p.role]
        pts[#pts + 1] = { p.flops / p.bytes, p.flops / p.time_s }
      end
    end
  end
  sort(roles)
  for _, role in ipairs(roles) do
    chart.series[#chart.series + 1] = { title = "op: " .. role, points = by_role[role], with = "points" }
  end
  -- every device drawn is named; the ops are priced on the first
  chart.title = format("Roofline, %s: %s", dtype, table.concat(names, ", "))
  if #roles > 0 then
    chart.title = format("%s; ops of %d model(s) on %s, b = %d, s = %d", chart.title, #model_ids, first.id,
      opts.b or 4, opts.s or 2048)
  end
  chart.xrange, chart.yrange = { X_MIN, X_MAX }, nil
  return chart
end

--- A GEMM sweep of tilewave.explore.gemm_sweeps: the predicted rate, the roofline bound
-- of each shape (achievable peak times its alignment factor, or its bytes at the
-- achievable bandwidth: no tile or wave loss), measured points on the curve (rows of a CSV
-- in the calibration format: m, n, k, dtype and tflops or time_s), and the cliffs
-- (drops of more than 20% between neighbours) as marks, and the achievable peak.
-- @tparam string name "square", "tile", "wave" or "logit"
-- @tparam table opts `hw` (id, path or spec), `dtype` (default "fp16"), `measured` (rows)
function M.gemm(name, opts)
  check.table(opts, "plot")
  check.options(opts, { hw = true, dtype = true, measured = true }, "plot")
  local sw = gemm_sweeps.get(name, "plot.sweep")
  local spec = hw.resolve(opts.hw, "plot.hw")
  local dtype = opts.dtype or "fp16"
  local on = {}
  local pred, bound, cliffs = {}, {}, {}
  local cfrac = hw.compute_frac(hw.gemm_params(spec), dtype)
  local peak = (spec.peak_flops[dtype] or error(format("plot.dtype: %s has no %s peak", spec.id, dtype), 0)) * cfrac
  local prev
  for _, s in ipairs(sw.shapes()) do
    local r = gemm.gemm { m = s[1], n = s[2], k = s[3], dtype = dtype, hw = spec }
    local x = s[sw.x]
    on[format("%d/%d/%d", s[1], s[2], s[3])] = x
    pred[#pred + 1] = { x, r.flop_rate }
    -- the roofline of this shape: achievable peak at its alignment, or its bytes at achievable
    -- bandwidth
    bound[#bound + 1] = { x, math.min(r.peak_flops * cfrac * r.align_eff, r.flops / r.memory_s) }
    if prev and r.flop_rate < 0.8 * prev then
      cliffs[#cliffs + 1] = { x = x, label = format("%s = %d: -%.0f%%", sw.x_name, x, 100 * (1 - r.flop_rate / prev)) }
    end
    prev = r.flop_rate
  end
  local chart = { title = format("%s on %s, %s", sw.title, spec.id, dtype), logx = sw.logx,
                  xlabel = sw.x_label, ylabel = "rate", yunit = "FLOP/s", marks = cliffs,
                  series = { { title = "predicted", points = pred, with = sw.with or "lines" },
                             { title = "roofline bound (no tile or wave loss)", points = bound, dash = true },
                             { title = format("achievable peak (%.0f%% of the %s peak)", 100 * cfrac, dtype),
                               points = { { pred[1][1], peak }, { pred[#pred][1], peak } },
                               dash = true } } }
  local meas = {}
  for _, row in ipairs(opts.measured or {}) do
    local m, n, k = tonumber(row.m), tonumber(row.n), tonumber(row.k)
    local x = m and n and k and on[format("%d/%d/%d", m, n, k)]
    if x and (row.dtype == nil or row.dtype == dtype) and (row.batch == nil or tonumber(row.batch) == 1) then
      local rate = tonumber(row.tflops) and tonumber(row.tflops) * 1e12
        or (tonumber(row.time_s) and 2 * m * n * k / tonumber(row.time_s))
      if rate then meas[#meas + 1] = { x, rate } end
    end
  end
  sort(meas, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  if #meas > 0 then
    chart.series[#chart.series + 1] = { title = format("measured (%d points)", #meas), points = meas, with = "points" }
  end
  return chart
end

local METRICS = { time_s = "forward time (s)", tflops = "achieved rate (TFLOP/s)", mfu = "MFU (fraction of peak)",
                  tokens_per_s = "throughput (tokens/s)", params = "parameters (count)" }

--- One metric of a sweep (tilewave.explore.sweep spec) against one varied field,
-- one line per device (`by` = "hw") or per combination of the other varied fields
-- (`by` = "model"); where several configs share a point, the best (lowest time,
-- else highest value) is drawn.
-- @tparam table spec a sweep spec (tilewave.sweep options)
-- @tparam string x a field of spec.vary
-- @tparam string y time_s, tflops, mfu, tokens_per_s or params
-- @tparam string by "hw" (default) or "model"
function M.sweep(spec, x, y, by)
  check.table(spec, "plot.sweep")
  if type(spec.vary) ~= "table" or spec.vary[x] == nil then
    error(format("plot.x: expected a varied field of the sweep, got '%s'", tostring(x)), 0)
  end
  if not METRICS[y] then check.fail("plot.y", "expected one of " .. check.keys(METRICS), y) end
  by = by or "hw"
  if by ~= "hw" and by ~= "model" then check.fail("plot.by", "expected hw or model", by) end
  local others = {}
  for f in pairs(spec.vary) do if f ~= x then others[#others + 1] = f end end
  sort(others)
  local lines, order = {}, {}
  local it = sweep.sweep(spec)
  for cfg, hw_id, est in it do
    local key = hw_id
    if by == "model" then
      local parts = {}
      for _, f in ipairs(others) do parts[#parts + 1] = format("%s=%s", f, tostring(cfg[f])) end
      key = #parts > 0 and table.concat(parts, ", ") or (cfg.id or cfg.name or "model")
    end
    if not lines[key] then lines[key] = {}; order[#order + 1] = key end
    local v = y == "params" and est.params or est[y]
    local xv, cur = cfg[x], lines[key][cfg[x]]
    if cur == nil or (y == "time_s" and v < cur) or (y ~= "time_s" and v > cur) then lines[key][xv] = v end
  end
  if #order == 0 then error("plot.sweep: no config of the sweep is valid (where / invalid combinations)", 0) end
  local chart = { title = format("%s against %s", METRICS[y], x), xlabel = x, ylabel = METRICS[y], series = {} }
  for _, key in ipairs(order) do
    local pts = {}
    for xv, v in pairs(lines[key]) do pts[#pts + 1] = { xv, v } end
    sort(pts, function(a, b) return a[1] < b[1] end)
    chart.series[#chart.series + 1] = { title = key, points = pts, with = "linespoints" }
  end
  return chart
end

--- Decode throughput against batch (1, 2, 4 ... 1024) for `model` on each device:
-- tokens/s per sequence and in aggregate, the aggregate rate a compute-bound step would
-- reach (achievable peak over FLOP per token), with marks where memory runs out (the
-- largest batch whose KV cache fits) and where the step turns compute-bound.
-- @tparam table opts `context` (default 2048), `engine`, `weight_dtype`
function M.decode(model, hw_ids, opts)
  opts = opts or {}
  check.options(opts, { context = true, engine = true, weight_dtype = true }, "plot")
  check.table(hw_ids, "plot.hw")
  if #hw_ids == 0 then error("plot.hw: expected at least one device", 0) end
  local c = models.resolve(model, "plot.model")
  local context = opts.context or 2048
  local chart = { title = format("Decode of %s, context %d, %s engine", c.id or c.name, context,
                                 opts.engine or "compiled"),
                  logx = true, logy = true, xlabel = "batch (sequences)", ylabel = "throughput", yunit = "tokens/s",
                  series = {}, marks = {} }
  for i, id in ipairs(hw_ids) do
    local spec = hw.resolve(id, format("plot.hw[%d]", i))
    local sw = inference.sweep { model = c, hw = spec, context = context, engine = opts.engine,
                                 weight_dtype = opts.weight_dtype }
    local per, agg, ceil = {}, {}, {}
    local g = hw.gemm_params(spec)
    -- a batch whose KV cache does not fit has no time: its points are cut (the mark says where)
    local fit = hw.memory(spec) and inference.memory { model = c, hw = spec, context = context,
                                                      weight_dtype = opts.weight_dtype }
    for _, r in ipairs(sw.rows) do
      -- the ceiling is a bound, drawn over every batch; the predictions stop where memory does
      if not fit or r.batch <= fit.max_batch then
        per[#per + 1] = { r.batch, r.tokens_per_s }
        agg[#agg + 1] = { r.batch, r.aggregate_tokens_per_s }
      end
      -- the aggregate rate if the step were compute-bound: achievable peak over FLOP per token
      local peak = spec.peak_flops[r.compute_dtype] * hw.compute_frac(g, r.compute_dtype)
      ceil[#ceil + 1] = { r.batch, peak / (r.flops / r.batch) }
    end
    -- one colour per device: per sequence solid, aggregate dashed, the ceiling dotted
    if #per > 0 then
      chart.series[#chart.series + 1] = { title = spec.id .. " per sequence", points = per, with = "linespoints",
                                          group = spec.id }
      chart.series[#chart.series + 1] = { title = spec.id .. " aggregate", points = agg, with = "linespoints",
                                          dash = true, group = spec.id }
    end
    chart.series[#chart.series + 1] = { title = spec.id .. " compute ceiling (aggregate)", points = ceil,
                                        dash = "dot", group = spec.id }
    if fit then
      local label = fit.max_batch >= 1 and format("%s: memory full past batch %d", spec.id, fit.max_batch)
        or format("%s: weights do not fit", spec.id)
      chart.marks[#chart.marks + 1] = { x = math.max(fit.max_batch, 1), label = label }
    end
    if sw.compute_bound_batch then
      chart.marks[#chart.marks + 1] = { x = sw.compute_bound_batch,
        label = format("%s: compute-bound from batch %d", spec.id, sw.compute_bound_batch) }
    end
  end
  return chart
end

return M
