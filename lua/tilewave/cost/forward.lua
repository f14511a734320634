--- tilewave.transformer: a model's forward pass as ops, and its predicted cost.
--
--   tw.transformer.ops(model, { b = 4, s = 2048, t = 1, dtype = "bf16" })
--   tw.transformer.estimate(model, hw, { b = 4, s = 2048, t = 1, dtype = "bf16", attention = "standard" })
--
-- `model` is a preset id or a config (tilewave.models); `hw` a device id, path
-- or spec (tilewave.hw). The decomposition and its sources are in
-- tilewave.layers; each GEMM/BMM goes through the C core's tile/wave/alignment
-- model (src/tilewave.h, tw_gemm_estimate); elementwise ops are memory-bound
-- (bytes / achievable DRAM bandwidth). Tensor-parallel communication is not
-- part of this estimate (the time is one rank's compute). Units: s, FLOP,
-- FLOP/s, byte.
local check = require "tilewave.util.check"
local dtype = require "tilewave.data.dtype"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local core = require "tilewave.core"

local M = {}

local format, ipairs, min = string.format, ipairs, math.min

--- Default per-kernel overhead of a forward pass, s: the GPU-side gap between
-- back-to-back kernels queued in one stream (launch latency is hidden by the
-- queue). An assumption of 2 us, not calibrated: the calibration set has
-- isolated-call timings only (whose 39 us wall-clock overhead per call would
-- be wrong here).
M.LAUNCH_S = 2e-6

local WORKLOAD = { b = true, s = true, t = true, dtype = true, attention = true, launch_s = true }

-- Validated workload with defaults: b 1, s 2048, t 1, dtype "bf16".
local function workload(opts, path, allowed)
  opts = opts or {}
  check.table(opts, path)
  check.options(opts, allowed, path)
  local w = {
    b = check.positive_int(opts.b or 1, path .. ".b"),
    s = check.positive_int(opts.s or 2048, path .. ".s"),
    t = check.positive_int(opts.t or 1, path .. ".t"),
    dtype = opts.dtype or "bf16",
  }
  w.e = dtype.get(w.dtype)
  if not w.e then check.fail(path .. ".dtype", "expected one of " .. check.keys(dtype.sizes), w.dtype) end
  if w.b * w.s > 2 ^ 31 - 1 then check.fail(path .. ".b*s", "expected at most 2^31-1 tokens", w.b * w.s) end
  return w
end

local function ops_of(c, w, path)
  if w.t > c.num_attention_heads then
    check.fail(path .. ".t", format("expected at most num_attention_heads %d", c.num_attention_heads), w.t)
  end
  return models.families[c.family].ops(c, w)
end

--- The ordered ops of one forward pass (see tilewave.layers for the op
-- fields and shapes), per tensor-parallel rank.
-- @tparam table opts `b` (micro-batch, default 1), `s` (sequence length,
--   default 2048), `t` (tensor-parallel size, default 1, at most a),
--   `dtype` (default "bf16"; sets the bytes)
-- @raise `transformer.ops.<field>: ...`; model errors as tilewave.models
function M.ops(model, opts)
  local c = models.resolve(model, "transformer.ops.model")
  local w = workload(opts, "transformer.ops", { b = true, s = true, t = true, dtype = true })
  return ops_of(c, w, "transformer.ops")
end

-- The main reason a GEMM runs below the device's achievable rate.
local function loss_of(r)
  if r.bound ~= "compute" then return r.bound .. "-bound" end
  local name, worst = "none", 0.985
  for _, k in ipairs { "tile", "wave", "align" } do
    local v = r[k .. "_eff"]
    if v < worst then name, worst = k == "align" and "alignment" or k, v end
  end
  return name
end

local function predict_gemm(dev, op, e)
  local r = core.gemm(dev, { m = op.m, n = op.n, k = op.k, batch = op.batch,
                             in_bytes = e.in_bytes, out_bytes = e.out_bytes })
  return {
    time_s = r.time_s, compute_s = r.compute_s, memory_s = r.memory_s, bound = r.bound,
    tile = r.tile, tiles = r.tiles, waves = r.waves, split_k = r.split_k,
    tile_eff = r.tile_eff, wave_eff = r.wave_eff, align_eff = r.align_eff, align_bytes = r.align_bytes,
    loss = loss_of(r),
  }
end

-- FlashAttention (Dao et al. 2022): score, softmax and attention-over-value
-- fused into one kernel; the score matrix never reaches DRAM. Compute is the
-- two BMMs at the GEMM model's rate (their tile/wave/alignment losses, e.g.
-- from h/a); traffic is Q, K, V read and O written once.
local function fuse_flash(preds, c, w, bw, launch_s)
  local out, i = {}, 1
  while i <= #preds do
    local p = preds[i]
    local sfx = p.name:match("^attention_score(.*)$")
    if sfx and preds[i + 1] and preds[i + 1].name == "softmax" .. sfx
       and preds[i + 2] and preds[i + 2].name == "attention_over_value" .. sfx then
      local av = preds[i + 2]
      local hd = c.head_dim
      local a_t, kv_t = -(-c.num_attention_heads // w.t), -(-c.num_key_value_heads // w.t)
      local bytes = w.b * w.s * (2 * a_t + 2 * kv_t) * hd * w.e.in_bytes * 1.0
      local compute = p.compute_s + av.compute_s
      local memory = bytes / bw
      local f = {
        name = "flash_attention" .. sfx, kind = "attention", scope = p.scope, count = p.count,
        m = p.m, n = p.n, k = p.k, batch = p.batch,
        flops = p.flops + av.flops, bytes = bytes,
        time_s = launch_s + (compute > memory and compute or memory),
        compute_s = compute, memory_s = memory, bound = compute >= memory and "compute" or "memory",
        tile_eff = min(p.tile_eff, av.tile_eff), wave_eff = min(p.wave_eff, av.wave_eff),
        align_eff = min(p.align_eff, av.align_eff), align_bytes = min(p.align_bytes, av.align_bytes),
      }
      f.loss = compute >= memory and loss_of({ bound = "compute", tile_eff = f.tile_eff, wave_eff = f.wave_eff,
        align_eff = f.align_eff }) or "memory-bound"
      out[#out + 1] = f
      i = i + 3
    else
      out[#out + 1] = p
      i = i + 1
    end
  end
  return out
end

--- Predict one forward pass of `model` on `hw`.
-- @tparam table opts `b`, `s`, `t`, `dtype` as ops(); `attention`
--   ("standard" default: score matrix materialized, softmax in DRAM; or
--   "flash"), `launch_s` (per-kernel overhead, s, default M.LAUNCH_S)
-- @return table `{ model, hw, b, s, t, dtype, attention,
--   ops = { { name, kind, scope, m, n, k, batch, count, flops (per call),
--             bytes, time_s (per call), total_s (= time_s*count), tflops,
--             bound, loss, tile_eff, wave_eff, align_eff, ... } },
--   time_s (forward, s), layer_s (mean per layer, s), flops (GEMM/BMM FLOP of
--   the pass; elementwise ops carry none), tflops (achieved, 1e12 FLOP/s),
--   mfu (flops / time / dense peak of dtype), gemm_share (fraction of time in
--   GEMM/BMM), tokens_per_s, peak_flops }`
-- @raise `transformer.estimate.<field>: ...`; model and hw errors
function M.estimate(model, device, opts)
  local c = models.resolve(model, "transformer.estimate.model")
  local path = "transformer.estimate"
  local w = workload(opts, path, WORKLOAD)
  local attention = check.one_of((opts or {}).attention or "standard", { standard = true, flash = true },
    path .. ".attention")
  local launch_s = (opts or {}).launch_s
  if launch_s == nil then launch_s = M.LAUNCH_S end
  check.nonneg(launch_s, path .. ".launch_s")
  local spec = hw.resolve(device, path .. ".hw")
  local dev, e = hw.gemm_device(spec, w.dtype, path .. ".dtype", launch_s)
  local g = hw.gemm_params(spec)
  local bw = spec.mem_bw * g.mem_frac
  local preds = {}
  for i, op in ipairs(ops_of(c, w, path)) do
    local p
    if op.kind == "elementwise" then
      local mem = op.bytes / bw
      p = { time_s = launch_s + mem, compute_s = 0, memory_s = mem, bound = "memory", loss = "memory-bound",
            tile_eff = 1, wave_eff = 1, align_eff = 1 }
    else
      p = predict_gemm(dev, op, e)
    end
    for k, v in pairs(op) do p[k] = v end
    preds[i] = p
  end
  if attention == "flash" then preds = fuse_flash(preds, c, w, bw, launch_s) end
  local total, layer, flops, gemm_time = 0, 0, 0, 0
  for _, p in ipairs(preds) do
    p.total_s = p.time_s * p.count
    p.tflops = p.flops / p.time_s / 1e12
    total = total + p.total_s
    flops = flops + p.flops * p.count
    if p.scope == "layer" then layer = layer + p.total_s end
    if p.kind ~= "elementwise" then gemm_time = gemm_time + p.total_s end
  end
  local peak = spec.peak_flops[w.dtype]
  return {
    model = c.id or c.name, hw = spec.id, b = w.b, s = w.s, t = w.t, dtype = w.dtype, attention = attention,
    ops = preds, time_s = total, layer_s = layer / c.num_hidden_layers, flops = flops,
    tflops = flops / total / 1e12, mfu = flops / total / peak, gemm_share = gemm_time / total,
    tokens_per_s = w.b * w.s / total, peak_flops = peak,
  }
end

return M
