--- tilewave.cost.price: THE pricing layer - the only Lua code that calls the C core's cost
-- functions - in three modules, one concern each: this one, the price of an op by its kind (KINDS:
-- each kind's forward, compile-to-the-core and backward handlers in one table, with the GEMM
-- primitives they share; the core's pass array is written by tilewave.cost.pass_steps);
-- tilewave.cost.price_context, the context an op is priced in; and tilewave.cost.price_step, the
-- prices of a whole step or system (collectives, the decode step, the memory budget, the roofline,
-- attention IO; re-exported here).
--
-- A pricing context binds a device spec, a dtype and an engine (tilewave.cost.engines). Every
-- kernel costs its device time (the core's tile/wave/alignment GEMM model, or bytes at the
-- achievable bandwidth for memory-bound kernels) plus the engine's per-kernel cost:
--   launch "graph": time = device + kernel_s
--   launch "host":  time = max(device + kernel_s, host_s)   (the host dispatches
--                   each kernel; a kernel shorter than the dispatch waits for it)
-- GEMM timing "kernel" (default) is that device time among back-to-back kernels, as CUDA events,
-- profilers and graph replays report it; "isolated" is one synchronized call timed by wall clock
-- (the co-design paper's torch.mm, T1 of gemm_calibration.csv): the architecture's call_overhead_s
-- instead. Physical limits (tilewave.cost.limits, tilewave.data.ceilings): no op faster than its
-- FLOP and DRAM bytes at the best sustained fractions of its class, no collective faster than its
-- bytes over the link, no decode step faster than HBM; a context refuses fractions above the
-- ceilings, so core.gemm and core.gemm_many meet the floors by construction. Units: s, byte, FLOP,
-- FLOP/s, byte/s.
local hw = require "tilewave.data.hw"
local kernels = require "tilewave.cost.kernels"
local limits = require "tilewave.cost.limits"
local interval = require "tilewave.cost.interval"
local core = require "tilewave.core"

local M = {}

local format, ipairs, min, max = string.format, ipairs, math.min, math.max

--- A pricing context (tilewave.cost.price_context: device, dtype, engine and GEMM timing bound
-- once).
M.context = require("tilewave.cost.price_context").context

-- The cost of one kernel of device time `t` (without the per-kernel cost).
local function launched(ctx, t)
  t = t + ctx.kernel_s
  if ctx.host_s > t then return ctx.host_s end
  return t
end

--- One GEMM/BMM through the core: the core's result table (time_s includes the engine's per-kernel
-- cost, or the isolated call overhead, and the host floor). `w_bytes`: B's bytes per element as
-- stored when it is a weight-only format's (src/tw_gemm.h; nil: the context's dtype).
function M.gemm(ctx, m, n, k, batch, w_bytes)
  local e = ctx.e
  local r = core.gemm(ctx.dev, { m = m, n = n, k = k, batch = batch or 1, in_bytes = e.in_bytes,
                                 out_bytes = e.out_bytes, w_bytes = w_bytes })
  if ctx.host_s > r.time_s then r.time_s, r.bound = ctx.host_s, "overhead" end
  return r
end

--- One GEMM/BMM's time alone, s: M.gemm's time_s without its result table.
function M.gemm_time(ctx, m, n, k, batch, w_bytes)
  local e = ctx.e
  local t = core.gemm_time(ctx.dev, m, n, k, batch or 1, e.in_bytes, e.out_bytes, w_bytes)
  if ctx.host_s > t then return ctx.host_s end
  return t
end

--- Many GEMMs sharing `batch`: flat `{ m1, n1, k1, ... }` -> times (s), rates (FLOP/s).
function M.gemm_many(ctx, shapes, batch)
  local e = ctx.e
  local times, rates = core.gemm_many(ctx.dev, shapes, { batch = batch or 1, in_bytes = e.in_bytes,
                                                         out_bytes = e.out_bytes })
  if ctx.host_s > 0 then
    for i, t in ipairs(times) do
      if ctx.host_s > t then
        rates[i] = rates[i] * t / ctx.host_s
        times[i] = ctx.host_s
      end
    end
  end
  return times, rates
end

--- Time of memory-bound kernels of `list` (bytes each) run one after another, s.
function M.kernels_s(ctx, list, classes, scale)
  local t, kbw = 0, ctx.kbw
  scale = scale or 1
  for i, b in ipairs(list) do t = t + launched(ctx, scale * b / kbw[classes and classes[i] or "vector"]) end
  return t
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
M.loss_of = loss_of

-- a prediction `p` held to the op's floor (tilewave.cost.limits.op): p.floor_s is kept, and a
-- binding floor sets the time and the bound "ceiling"
local function floored(p, floor)
  p.floor_s = floor
  if floor > p.time_s then p.time_s, p.bound, p.loss = floor, "ceiling", "ceiling" end
  return p
end

-- zero-byte kernels of an unfused MoE router's loop (tilewave.cost.kernels.moe_loop), reused lists
local zeros = setmetatable({}, { __index = function(t, n)
  local z = {}
  for i = 1, n do z[i] = 0 end
  t[n] = z
  return z
end })

local function gemm_pred(ctx, op)
  local r = M.gemm(ctx, op.m, op.n, op.k, op.batch, op.w_bytes)
  local loop = kernels.moe_loop(op, ctx.fusion)
  local extra = loop > 0 and M.kernels_s(ctx, zeros[loop]) or 0
  return floored({
    time_s = r.time_s + extra, compute_s = r.compute_s, memory_s = r.memory_s, bound = r.bound, kernels = 1 + loop,
    gemm_s = r.time_s,
    tile = r.tile, tiles = r.tiles, waves = r.waves, split_k = r.split_k, stream_k = r.stream_k,
    tile_eff = r.tile_eff, wave_eff = r.wave_eff, align_eff = r.align_eff, align_bytes = r.align_bytes,
    loss = loss_of(r),
  }, limits.op(ctx, op))
end

-- Fused (flash) attention: one kernel (Dao et al. 2022, FlashAttention). Per computed score element
-- it does 4*hd FLOP of MMA (Q.K^T and P.V) and one exponential on the special-function units, which
-- FlashAttention-2-class kernels do not overlap with the MMA (Shah et al. 2024, FlashAttention-3,
-- Sec. 1 and 3.1: H100 SXM5 989 TFLOP/s of MMA against 3.9 TFLOP/s of exp). exp rate = fp32 peak /
-- 16: 16 SFU results per SM per clock against 128 FMA lanes (CUDA C++ Programming Guide, arithmetic
-- instruction throughput). A causal kernel skips the masked blocks (op.causal_elems). The MMA runs
-- at gemm.attention_frac of the dense peak (hw/arch; default: the GEMM compute fraction; the
-- backward's at gemm.attention_bwd_frac; an engine with flash_kernel = "fa2" uses
-- attention_frac_fa2 / attention_bwd_frac_fa2 where the architecture has them). Traffic: Q, K, V
-- read and O written once. `mma_x` scales the MMA work (backward: 2.5, five matmuls against two,
-- Dao 2023 FlashAttention-2 Sec. 3.1) and `exp_x` the exponentials (backward recomputes P: 1). The
-- MMA runs at the head dimension of the kernel instantiated for it: FlashAttention's kernels exist
-- for head dims in steps of 32 (Dao-AILab/flash-attention csrc/flash_attn/src, flash_fwd_hdim32 ...
-- hdim256), so a head dim of 80 runs the 96 kernel (+20% MMA work). flash_pred's terms: MMA FLOP
-- and their rate, exponentials and their rate
local function flash_terms(ctx, op, mma_x, exp_x, backward)
  local g, spec = ctx.gemm, ctx.spec
  local fa2 = ctx.engine.flash_kernel == "fa2"
  local frac = (fa2 and g.attention_frac_fa2) or g.attention_frac or hw.compute_frac(g, ctx.attn_dtype or ctx.dtype)
  if backward then frac = (fa2 and g.attention_bwd_frac_fa2) or g.attention_bwd_frac or frac end
  local elems = op.causal_elems or op.elems
  return mma_x * elems * 4 * (-(-op.head_dim // 32) * 32), ctx.attn_peak * frac, (exp_x or 1) * elems,
    (spec.peak_flops.fp32 or ctx.peak / 16) / 16
end

-- the fused kernel's compute and memory times, its time as launched (before the op's floor) and
-- its MMA's share of the compute time, s; M.compile's fused step prices the same terms in the core
local function flash_times(ctx, op, mma_x, backward)
  local work, rate, sfu, exp_rate = flash_terms(ctx, op, mma_x, 1, backward)
  local compute, memory = work / rate + sfu / exp_rate, op.qkv_bytes / ctx.bw
  return compute, memory, launched(ctx, max(compute, memory)), work / rate / compute
end

-- standard attention's tile and its tile and wave counts, from the GEMM that limits each (report text)
local function worse_of(p, s, v)
  local t, w = s.tile_eff <= v.tile_eff and s or v, s.wave_eff <= v.wave_eff and s or v
  p.tile, p.tiles, p.waves = t.tile, w.tiles, w.waves
  return p
end

-- the forward's prediction table
local function flash_pred(ctx, op)
  local compute, memory, t, exp_eff = flash_times(ctx, op, 1, false)
  local s = M.gemm(ctx, op.m, op.n, op.k, op.batch)
  local v = M.gemm(ctx, op.m, op.k, op.n, op.batch)
  local p = {
    time_s = t, compute_s = compute, memory_s = memory, bound = compute >= memory and "compute" or "memory",
    kernels = 1, gemm_s = t,
    tile_eff = min(s.tile_eff, v.tile_eff), wave_eff = min(s.wave_eff, v.wave_eff),
    align_eff = min(s.align_eff, v.align_eff), align_bytes = min(s.align_bytes, v.align_bytes),
  }
  -- its loss: the exponentials' share of a compute-bound kernel (exp_eff: the MMA's share of compute_s)
  p.exp_eff = exp_eff
  p.loss = p.bound ~= "compute" and p.bound .. "-bound" or (p.exp_eff < 0.985 and "exponentials" or "none")
  return floored(p, limits.op(ctx, op))
end

local function attention_pred(ctx, op)
  local fusion = ctx.fusion
  local score, softmax, av = op.parts[1], op.parts[2], op.parts[3]
  local s, v = gemm_pred(ctx, score), gemm_pred(ctx, av)
  local sm, sm_cls = kernels.elementwise(softmax, fusion)
  local copies, copy_cls = kernels.attention_copies(op, fusion)
  local mem_s = M.kernels_s(ctx, sm, sm_cls) + M.kernels_s(ctx, copies, copy_cls)
  local p = {
    time_s = s.time_s + v.time_s + mem_s, compute_s = s.compute_s + v.compute_s,
    memory_s = s.memory_s + v.memory_s + mem_s, kernels = 2 + #sm + #copies, gemm_s = s.time_s + v.time_s,
    tile_eff = min(s.tile_eff, v.tile_eff), wave_eff = min(s.wave_eff, v.wave_eff),
    align_eff = min(s.align_eff, v.align_eff), align_bytes = min(s.align_bytes, v.align_bytes),
  }
  p.bound = p.compute_s >= p.memory_s and "compute" or "memory"
  p.loss = loss_of(worse_of(p, s, v))
  return floored(p, limits.op(ctx, op))
end

-- the writers of core.pass's flat array (tilewave.cost.pass_steps)
local steps_ = require "tilewave.cost.pass_steps"
local push, kernel_steps, gemm_step = steps_.push, steps_.kernel_steps, steps_.gemm_step

-- the sum of a kernel list's bytes
local function sum(list)
  local bytes = 0
  for _, b in ipairs(list) do bytes = bytes + b end
  return bytes
end

--- The op kinds (tilewave.ops.layers builds "gemm", "bmm", "attention" of impl "standard" or
-- "flash", and "elementwise"): every kind's handlers in this one table, so that a kind is added in
-- one place.
--   forward(ctx, op)  the prediction table of one call (M.op)
--   time(ctx, op)     its time_s alone, s (M.op_time; optional: forward's time_s otherwise)
--   compile(ctx, op, flat, n, backward)  the op's steps of core.pass's array from index n + 1
--                     (M.compile): returns the new n, the steps written, the op's floor (s)
--   backward(ctx, op) the backward's time per call for training, s (M.backward)
-- A kind whose handlers depend on its implementation carries `impl = { name = handlers }`.
-- @table KINDS
local KINDS = {}
local handler -- the handlers of an op: KINDS[op.kind], or KINDS[op.kind].impl[op.impl]

KINDS.gemm = {
  forward = gemm_pred,
  -- the GEMM model's time with the host floor, held to the op's floor, as gemm_pred does
  time = function(ctx, op)
    if kernels.moe_loop(op, ctx.fusion) > 0 then return gemm_pred(ctx, op).time_s end
    local t, floor = M.gemm_time(ctx, op.m, op.n, op.k, op.batch, op.w_bytes), limits.op(ctx, op)
    return floor > t and floor or t
  end,
  -- forward: the GEMM and an unfused MoE router's loop; backward: the data gradient (M x K x N),
  -- then the weight gradient (K x N x M)
  compile = function(ctx, op, flat, n, backward)
    local floor = limits.op(ctx, op, nil, backward)
    if backward then
      n = gemm_step(ctx, flat, n, op.m, op.k, op.n, op.batch)
      return gemm_step(ctx, flat, n, op.k, op.n, op.m, op.batch), 2, floor
    end
    n = gemm_step(ctx, flat, n, op.m, op.n, op.k, op.batch, op.w_bytes)
    local loop, aux = kernels.moe_loop(op, ctx.fusion), 0
    if loop > 0 then n, aux = kernel_steps(ctx, flat, n, zeros[loop], nil, 1, 1) end
    return n, 1 + aux, floor
  end,
  backward = function(ctx, op)
    return max(M.gemm(ctx, op.m, op.k, op.n, op.batch).time_s + M.gemm(ctx, op.k, op.n, op.m, op.batch).time_s,
      limits.op(ctx, op, nil, true))
  end,
}
KINDS.bmm = KINDS.gemm

KINDS.attention = { impl = {
  -- materialized: the score BMM, the softmax's kernels, the AV BMM, and the head copies around them
  standard = {
    forward = attention_pred,
    compile = function(ctx, op, flat, n, backward)
      if backward then return n, 0, 0 end -- M.backward prices it: its parts' sum in its order
      local score, av = op.parts[1], op.parts[3]
      n = gemm_step(ctx, flat, n, score.m, score.n, score.k, score.batch)
      n = gemm_step(ctx, flat, n, av.m, av.n, av.k, av.batch)
      local sm, sm_cls = kernels.elementwise(op.parts[2], ctx.fusion)
      local copies, copy_cls = kernels.attention_copies(op, ctx.fusion)
      local a, b
      n, a = kernel_steps(ctx, flat, n, sm, sm_cls, 1, 1)
      n, b = kernel_steps(ctx, flat, n, copies, copy_cls, 2, 1)
      return n, 2 + a + b, limits.op(ctx, op)
    end,
    backward = function(ctx, op)
      local t = 0
      for _, p in ipairs(op.parts) do t = t + handler(p).backward(ctx, p) end
      return t
    end,
  },
  -- fused: one kernel (flash_terms); the backward's main kernel, then the kernels around it
  flash = {
    forward = flash_pred,
    compile = function(ctx, op, flat, n, backward)
      local work, rate, sfu, sfu_rate = flash_terms(ctx, op, backward and 2.5 or 1, 1, backward)
      n = push(flat, n, 2, 0, op.qkv_bytes, ctx.bw, work, rate, sfu, sfu_rate)
      local aux = 0
      if backward then
        local l, cls = kernels.flash_backward(op, ctx.e.out_bytes)
        n, aux = kernel_steps(ctx, flat, n, l, cls, 1, 1)
      end
      return n, 1 + aux, limits.op(ctx, op, nil, backward)
    end,
    backward = function(ctx, op)
      local _, _, main = flash_times(ctx, op, 2.5, true)
      local l, cls = kernels.flash_backward(op, ctx.e.out_bytes)
      return max(main + M.kernels_s(ctx, l, cls), limits.op(ctx, op, nil, true))
    end,
  },
} }

-- memory-bound: the fusion's kernels (tilewave.cost.kernels.elementwise, .backward), each its bytes
-- at its class's bandwidth
KINDS.elementwise = {
  forward = function(ctx, op)
    local list, cls = kernels.elementwise(op, ctx.fusion)
    local bytes = sum(list)
    return floored({ time_s = M.kernels_s(ctx, list, cls), compute_s = 0, memory_s = bytes / ctx.bw, bound = "memory",
                     loss = "memory-bound", gemm_s = 0, kernels = #list, dram_bytes = bytes, tile_eff = 1,
                     wave_eff = 1, align_eff = 1 }, limits.op(ctx, op, bytes))
  end,
  compile = function(ctx, op, flat, n, backward)
    if not backward and kernels.single(op, ctx.fusion) then -- one vector kernel: no lists built
      return push(flat, n, 1, 1, op.bytes, ctx.kbw.vector, 0, 0, 0, 0), 1, limits.op(ctx, op, op.bytes)
    end
    local l, cls
    if backward then l, cls = kernels.backward(op, ctx.fusion) else l, cls = kernels.elementwise(op, ctx.fusion) end
    local steps, bytes
    n, steps, bytes = kernel_steps(ctx, flat, n, l, cls, 1, 1)
    return n, steps, limits.op(ctx, op, bytes, backward)
  end,
  backward = function(ctx, op)
    local list, cls = kernels.backward(op, ctx.fusion)
    return max(M.kernels_s(ctx, list, cls), limits.op(ctx, op, sum(list), true))
  end,
}

handler = function(op)
  local h = KINDS[op.kind]
  if h and h.impl then h = h.impl[op.impl] end
  if not h then
    error(format("price: op '%s': no pricing for kind '%s' (impl '%s')", tostring(op.name), tostring(op.kind),
      tostring(op.impl)), 2)
  end
  return h
end

--- Price one op (tilewave.ops.layers) under the context's engine: a prediction `{ time_s (per call,
-- s), compute_s, memory_s, bound, loss, kernels, gemm_s (time in GEMM/BMM kernels, s), tile_eff,
-- wave_eff, align_eff, ... }`; the op's fields are not copied.
-- @raise `price: op '<name>': no pricing for kind ...` for a kind KINDS does not hold (a bug)
function M.op(ctx, op) return handler(op).forward(ctx, op) end

--- One op's time per call, s: M.op's time_s, without its prediction table where the kind has a
-- faster path (a GEMM/BMM).
function M.op_time(ctx, op)
  local h = handler(op)
  if h.time then return h.time(ctx, op) end
  return h.forward(ctx, op).time_s
end

--- A forward pass of ops (tilewave.ops.layers) compiled for the core's one-call pricing
-- (src/tw_pass.h) under context `ctx`: the same kernels M.op prices, in the same order; with
-- `backward`, the kernels M.backward prices (each kind's compile, KINDS), except that a
-- materialized attention op gets no steps (M.backward prices it: its parts' sum in its order). Each
-- op carries its floor (tilewave.cost.limits.op), as M.op and M.backward apply it.
-- @return `{ pass (core userdata), flops (executed FLOP per pass), model_flops (FLOP per pass
--   the model needs, tilewave.ops.layers), kernels (launches per pass),
--   op_kernels = { launches per call of each op } }`; M.pass_time prices it
local flat = {} -- compile's array, reused: core.pass copies the first n values out of it

function M.compile(ctx, ops, backward)
  local n, flops, model_flops, launches, op_kernels = 0, 0, 0, 0, {}
  for i, op in ipairs(ops) do
    local head, steps, floor = n, nil, nil
    flat[n + 1], flat[n + 2] = op.count, op.scope == "layer" and 1 or 0
    n, steps, floor = handler(op).compile(ctx, op, flat, n + 4, backward)
    flat[head + 3], flat[head + 4] = steps, floor
    local count = op.count
    flops, model_flops = flops + op.flops * count, model_flops + op.model_flops * count
    op_kernels[i] = steps -- one kernel per step
    launches = launches + steps * count
  end
  return { pass = core.pass(flat, n), flops = flops, model_flops = model_flops, kernels = launches,
           op_kernels = op_kernels }
end

--- Price a compiled pass (M.compile) under its context: time_s, layer_s (the ops inside the
-- layers), gemm_s (in GEMM and fused attention kernels), s; the sums M.op's predictions give, bit
-- for bit. With `per_op`, a 4th value: each op's time per call, s.
function M.pass_time(ctx, prog, per_op)
  return core.pass_time(ctx.dev, prog.pass, ctx.kernel_s, ctx.host_s, per_op)
end

--- Backward time of one op for training, s (each kind's backward, KINDS): a GEMM/BMM's data
-- gradient (M x K x N) and weight gradient (K x N x M) through the GEMM model; memory-bound ops by
-- their backward kernels (tilewave.cost.kernels.backward); FlashAttention's backward does five
-- matmuls against two forward and recomputes the exponentials (Dao 2023, FlashAttention-2 Sec. 3.1;
-- see flash_pred); materialized attention as the backward of its parts.
function M.backward(ctx, op) return handler(op).backward(ctx, op) end

--- Prediction interval of a time (tilewave.cost.interval.of): `{ low, high (s), borrowed }`.
M.interval = interval.of

-- The step-level primitives (collectives, the decode step and its attention occupancy, the memory
-- budget, the roofline, attention IO): tilewave.cost.price_step, part of this layer.
do
  local step = require "tilewave.cost.price_step"
  for _, k in ipairs(step.EXPORTS) do M[k] = step[k] end
end

return M
