--- tilewave.cost.training: training step time, memory and 3D parallelism.
--
--   tw.training.step{ model = "geniac-12b", cluster = "dgx_h100", nodes = 4, global_batch = 512,
--                     micro_batch = 1, s = 4096, t = 1, p = 4, zero = 1, checkpointing = "none" }
--   tw.training.search{ model = "geniac-12b", cluster = "dgx_h100", nodes = 4, global_batch = 512,
--     s = 4096 }
--
-- Compute: every GEMM of the forward pass through the GEMM model (per
-- tensor-parallel rank), and for the backward pass its two GEMMs - the data
-- gradient (M x K x N) and the weight gradient (K x N x M) - also through the
-- GEMM model, so backward is ~2x forward FLOPs with its own tile/wave losses;
-- memory-bound ops backward by the kernels autograd runs (tilewave.cost.kernels.backward:
-- softmax, norms, activations, residuals, rotary each by its formula); recomputation adds
-- the forward again (full: the layer; selective: the attention core,
-- Korthikanti et al. 2022 §4). Communication (alpha-beta, src/tilewave.h
-- tw_collective; a group inside one node uses NVLink, else the network):
-- tensor parallel 2 all-reduces per layer forward and 2 backward of
-- b*s*h activations (with sequence parallelism: reduce-scatter + all-gather,
-- the same volume; Korthikanti et al. 2022 §4.2.2); pipeline point-to-point
-- sends of b*s*h per micro-batch each way; data-parallel gradient all-reduce
-- (ZeRO-1/2: reduce-scatter + all-gather, the same volume; ZeRO-3 adds a
-- parameter all-gather forward and backward; Rajbhandari et al. 2020). How
-- much of each a framework hides behind compute is `overlap` (default none).
-- Pipeline bubble (p - 1) / (m * interleave) of the ideal time with m
-- micro-batches (Narayanan et al. 2021 §2.2). Memory per GPU: 16 bytes per
-- parameter for mixed-precision Adam (2 weight + 2 gradient + 12 fp32 master,
-- m, v), sharded over d by ZeRO stage (1: optimizer, 2: + gradients, 3: +
-- weights); activations per layer from Korthikanti et al. 2022 Table 2, times
-- the layers of the largest stage and the micro-batches in flight in 1F1B
-- (p, times 1 + (p-1)/(p*v) interleaved); a stated workspace allowance.
-- FLOPs: model FLOPs = 3 x the forward's model FLOPs (6*N*D with N the matmul parameters,
-- plus attention over the scores a causal query needs: tilewave.ops.layers states the
-- convention); hardware FLOPs = 3 x the forward's executed FLOPs plus the recomputed forward
-- (Megatron-LM's reported TFLOP/s: with materialized attention and full recomputation, its
-- eq. 3, Narayanan et al. 2021). mfu <= hfu < 1: every op is held to its physical floor
-- (tilewave.cost.limits). Units: s, byte, FLOP, token/s.
-- @module tw.training
local hw = require "tilewave.data.hw"
local cluster = require "tilewave.data.cluster"
local forward = require "tilewave.cost.forward"
local engines = require "tilewave.cost.engines"
local price = require "tilewave.cost.price"
local tmem = require "tilewave.cost.training_memory"
local tconfig = require "tilewave.cost.training_config"

local M = {}

local ipairs, ceil, max = ipairs, math.ceil, math.max

--- Memory each GPU keeps besides the model state and activations, byte
-- (tilewave.cost.training_config.WORKSPACE_BYTES).
M.WORKSPACE_BYTES = tconfig.WORKSPACE_BYTES
-- Bytes per parameter of mixed-precision Adam (tilewave.cost.training_memory).
M.BYTES_WEIGHT, M.BYTES_GRAD, M.BYTES_OPTIMIZER = tmem.BYTES_WEIGHT, tmem.BYTES_GRAD, tmem.BYTES_OPTIMIZER
--- Activation bytes of one layer (tilewave.cost.training_memory.activation_bytes).
M.activation_bytes = tmem.activation_bytes
local memory, expert_params = tmem.memory, tmem.expert_params
--- Bytes an Adam update moves per parameter: fp32 master, m and v read and
-- written (24), the gradient read (2), the bf16 weight written (2).
M.ADAM_BYTES = 28

-- Per-micro-batch costs of the model at (b, s, t) under engine w.engine:
-- forward, backward and recompute time of one average layer and of the ops
-- outside the layers (forward from tilewave.cost.forward, backward from
-- tilewave.cost.price.backward).
local function costs(c, spec, w, cache)
  local key = string.format("%d/%d/%d/%s/%s/%s/%s/%s/%d", w.b, w.s, w.t, w.dtype, w.attention, tostring(w.sp),
    tostring(w.dropout), engines.key(w.engine), w.ep or 1)
  if cache and cache[key] then return cache[key] end
  -- the forward and backward passes, each priced in one call (every op's time per call)
  local x = forward.plan(c, spec, { b = w.b, s = w.s, t = w.t, dtype = w.dtype, attention = w.attention,
                                    engine = w.engine, ep = w.ep })
  local ctx = price.context(spec, w.dtype, w.engine, "training")
  local ks, bw = ctx.kernel_s, ctx.bw
  local _, _, _, fwd = price.pass_time(x.ctx, x.prog, true)
  local _, _, _, bwd = price.pass_time(ctx, price.compile(ctx, x.ops, true), true)
  local L = c.num_hidden_layers
  local r = { f = 0, b = 0, sel = 0, sel_flops = 0, out_f = 0, out_b = 0, flops = 0, out_flops = 0, model_flops = 0,
              out_model_flops = 0 }
  for i, p in ipairs(x.ops) do
    local f, kernels = fwd[i], x.prog.op_kernels[i]
    if w.sp and (p.role == "norm" or p.role == "residual") then
      f = kernels * ks + (f - kernels * ks) / w.t -- sequence parallel: norms and residuals on s/t tokens
    end
    -- a materialized attention's backward is its parts' (tilewave.cost.price.compile)
    local b = (p.kind == "attention" and p.impl ~= "flash") and price.backward(ctx, p) or bwd[i]
    if p.scope == "layer" then
      r.f, r.b = r.f + f * p.count / L, r.b + b * p.count / L
      r.flops, r.model_flops = r.flops + p.flops * p.count / L, r.model_flops + p.model_flops * p.count / L
      -- selective recomputation recomputes what a materialized attention stored (its scores,
      -- softmax); a fused kernel stores none of them and recomputes them in its own backward,
      -- so selective recomputation has nothing to do (Korthikanti et al. 2022 §4.3)
      if p.role == "attention" and p.impl ~= "flash" then
        r.sel, r.sel_flops = r.sel + f * p.count / L, r.sel_flops + p.flops * p.count / L
      end
    else
      r.out_f, r.out_b = r.out_f + f * p.count, r.out_b + b * p.count
      r.out_flops, r.out_model_flops = r.out_flops + p.flops * p.count, r.out_model_flops + p.model_flops * p.count
    end
  end
  if w.dropout and w.dropout > 0 then
    -- dropout (Megatron GPT: on the attention probabilities and after the projection and the MLP):
    -- read + write bf16 and a 1-byte mask; backward reads the gradient and the mask, writes one
    local hidden = 2 * w.b * w.s * c.hidden_size * 5
    local probs = 0
    if w.attention == "standard" then
      probs = -(-w.b * c.num_attention_heads // w.t) * w.s * w.s * 5
    end
    local f = (hidden + probs) / bw + 3 * ks
    r.f, r.b = r.f + f, r.b + f
    r.sel = r.sel + probs / bw
  end
  if cache then cache[key] = r end
  return r
end

local function collective(kind, bytes, n, stride, cl, memo)
  if n <= 1 or bytes <= 0 then return 0 end
  local m = memo and memo[kind]
  if m then m = m[n]; if m then m = m[stride]; if m and m[bytes] then return m[bytes] end end end
  local l = cluster.link(cl, n, stride)
  local t = price.collective(kind, bytes, n, cluster.collective_bw(l), l.latency_s)
  if memo then
    for _, key in ipairs { kind, n, stride } do
      memo[key] = memo[key] or {}
      memo = memo[key]
    end
    memo[bytes] = t
  end
  return t
end


--- Predict one training step.
-- @tparam table o `model`, `cluster` (id or table, default "dgx_h100"),
--   `nodes` (default 1), `global_batch` (sequences per step, required),
--   `micro_batch` (default 1), `s` (sequence length), `t`, `p` (default 1),
--   `d` (default nodes*gpus_per_node/(t*p)), `zero` (0-3, default 0),
--   `checkpointing` ("none" default, "selective", "full"), `dtype` ("bf16"),
--   `sequence_parallel` (false), `interleave` (virtual stages, default 1),
--   `attention` ("flash" default or "standard"), `dropout` (probability, default
--   0: adds its memory-bound kernels when > 0), `overlap` ({ tp=, pp=, dp= },
--   fractions of each communication hidden behind compute, default 0),
--   `workspace_bytes` (default M.WORKSPACE_BYTES), `engine` (preset name or
--   table, default "compiled"; tilewave.cost.engines: kernels, launch costs), `ep`
--   (expert-parallel size of a MoE model, default 1, dividing d and the experts: each rank
--   holds and runs E/ep experts over the tokens of ep ranks; dispatch and combine
--   all-to-alls in the forward, backward and full recompute; expert gradients reduce over
--   d/ep ranks), `grad_accumulation` ("autograd" default, "main_grad" (Megatron-LM), "fused":
--   tilewave.cost.training_config.GRAD_ACCUMULATION, the bytes per parameter per micro-batch)
-- @return `{ step_s, interval (tilewave.cost.price.interval), breakdown = { compute_s,
-- comm_exposed_s, bubble_s,
--   optimizer_s, tp_s, ep_s (exposed all-to-alls), pp_s, dp_s, accum_s (gradient accumulation, all
--   micro-batches), layer_s (one layer, forward + backward +
--   recompute + exposed TP, per micro-batch), outside_s (embedding, final
--   norm, LM head), stage_s (the slowest stage per micro-batch) },
--   tokens_per_s, model_tflops_per_gpu,
--   hardware_tflops_per_gpu, mfu, hfu, model_flops, hardware_flops (FLOP per step, all GPUs),
--   flops_convention, recompute_noop (true when checkpointing "selective" recomputes nothing:
--   fused attention stores no scores, so it costs nothing), memory = { weights, grads, optimizer,
--   activations, workspace, total }, fits, memory_bytes, config = {...} }`; when the memory per GPU
--   passes the device's (`fits` false) no time: M.TIME_FIELDS are absent and `does_not_fit` says by
--   how much ("needs 142.6 GB per GPU, has 85.5 GB")
-- @param cache (optional) a table the caller keeps between calls: priced layer costs are reused
-- @raise `training.<field>: ...`
function M.step(o, cache)
  local x = tconfig.config(o, "training")
  local r = M._step(x, cache)
  if not r.fits then
    -- a configuration that does not fit has no time: its memory and why, and no step figure
    for _, k in ipairs(M.TIME_FIELDS) do r[k] = nil end
    r.does_not_fit = string.format("needs %.1f GB per GPU, has %.1f GB", r.memory.total / 1e9, r.memory_bytes / 1e9)
  end
  return r
end

--- The fields of a step result that a configuration that does not fit leaves out (step() removes
-- them: it has no time, only its memory, `fits = false` and `does_not_fit`).
M.TIME_FIELDS = { "step_s", "interval", "breakdown", "tokens_per_s", "model_tflops_per_gpu", "hardware_tflops_per_gpu",
                  "mfu", "hfu" }

-- What step_core shares across a split's checkpointing and ZeRO values (a search tries every
-- pair on one split), kept on x as x.step_: layer costs, stage layer counts, the collectives.
local function step_base(x, cache)
  local sb = x.step_
  if sb then return sb end
  local c, cl, memo = x.c, x.cl, x.memo
  local L, h = c.num_hidden_layers, c.hidden_size
  local by_mb = memo.costs[x.mb]
  local k = by_mb and by_mb[x.t]
  if not k then
    k = costs(c, x.spec, { b = x.mb, s = x.s, t = x.t, dtype = x.dtype, attention = x.attention, sp = x.sp,
                           dropout = x.dropout, engine = x.engine, ep = x.ep }, cache)
    memo.costs[x.mb] = by_mb or {}
    memo.costs[x.mb][x.t] = k
  end
  local coll = memo.coll
  local e = 2 -- bytes per activation element (bf16/fp16)
  local layers = ceil(L / x.p)
  local last_layers = L - (x.p - 1) * layers
  if last_layers < 1 then last_layers = L - (x.p - 1) * (L // x.p) end
  local act = x.mb * x.s * h * e
  -- expert parallelism: dispatch and combine all-to-alls of the micro-batch's k token copies on
  -- the MoE layers (a fraction of the layers)
  local a2a, moe_frac = 0, 0
  if x.ep > 1 then
    moe_frac = expert_params(x) > 0 and 1 or 0
    local dense_layers = c.first_k_dense_replace or 0
    moe_frac = moe_frac * (L - dense_layers) / L
    a2a = collective("alltoall", act * x.k, x.ep, x.t * x.p, cl, coll)
  end
  -- pipeline point-to-point: activations forward, gradients backward, per micro-batch; with v
  -- virtual stages per GPU a micro-batch crosses v times as many stage boundaries (the interleaved
  -- schedule's extra communication, Narayanan et al. 2021 §2.2.2: "increases by v")
  local pp = 0
  if x.p > 1 then
    pp = 2 * x.v * collective("p2p", act / (x.sp and x.t or 1), 2, x.t, cl, coll) * (1 - x.overlap.pp)
  end
  -- data parallel: gradients (bf16) of this rank's parameters
  local stage_params, dense_params, expert_rank = tmem.stage_params(x)
  local dp = collective("allreduce", M.BYTES_GRAD * dense_params, x.d, x.t * x.p, cl, coll)
  if expert_rank > 0 then
    -- expert gradients reduce over the d/ep ranks holding the same experts
    dp = dp + collective("allreduce", M.BYTES_GRAD * expert_rank, x.d // x.ep, x.t * x.p * x.ep, cl, coll)
  end
  memo.bw = memo.bw or price.context(x.spec, x.dtype, x.engine, "training").bw
  sb = { k = k, layers = layers, last_layers = last_layers, tp_ar = collective("allreduce", act, x.t, 1, cl, coll),
         a2a = a2a, moe_frac = moe_frac, pp = pp, dp = dp, stage_params = stage_params }
  x.step_ = sb
  return sb
end

-- The step time of a validated split x and the parts step() reports, as numbers (no tables:
-- a search prices every split through this and builds step()'s table for those it keeps).
local function step_core(x, cache)
  local sb = step_base(x, cache)
  local k, layers, last_layers = sb.k, sb.layers, sb.last_layers
  -- per layer and micro-batch: recompute and tensor-parallel communication (and the all-to-alls
  -- of expert parallelism), in the forward, the backward and a full recompute
  local rc = x.ckpt == "full" and k.f or x.ckpt == "selective" and k.sel or 0
  local passes = 4 + (x.ckpt == "full" and 2 or 0)
  local tp_per_layer = passes * sb.tp_ar * (1 - x.overlap.tp)
  local a2a_per_layer = x.ep > 1 and passes * sb.a2a * sb.moe_frac or 0
  local layer = k.f + k.b + rc + tp_per_layer + a2a_per_layer
  -- the slowest stage: the most layers, or the last stage's layers plus the LM head
  local outside = k.out_f + k.out_b
  local stage = max(layers * layer + (x.p == 1 and outside or 0), x.p > 1 and (last_layers * layer + outside) or 0)
  local pp = sb.pp
  -- each micro-batch's weight gradients accumulated into the step's (tilewave.cost.training_config
  -- GRAD_ACCUMULATION), at memory speed; over the d ranks' shards with ZeRO-2/3
  local accum = x.accum_bytes * sb.stage_params / (x.zero >= 2 and x.d or 1) / x.memo.bw
  local per_mb = stage + pp + accum
  local compute = x.m * per_mb
  local bubble = (x.p - 1) / x.v * per_mb
  local dp = sb.dp
  if x.zero >= 3 then
    -- ZeRO-3 gathers the stage's weights (forward and backward); worked out on first use
    sb.gather = sb.gather or collective("allgather_ring", M.BYTES_WEIGHT * sb.stage_params, x.d, x.t * x.p, x.cl,
                                        x.memo.coll)
    dp = dp + 2 * sb.gather
  end
  dp = dp * (1 - x.overlap.dp)
  local optimizer = M.ADAM_BYTES * sb.stage_params / (x.zero >= 1 and x.d or 1) / x.memo.bw
  local step = compute + bubble + dp + optimizer
  return step, k, layers, last_layers, layer, outside, stage, tp_per_layer, a2a_per_layer, pp, bubble, dp, optimizer,
    accum
end

--- Tokens per second of a validated split (M.config / M.split), token/s: step()'s
-- `tokens_per_s` without the rest of its table.
function M.tokens_per_s(x, cache)
  return x.gb * x.s / step_core(x, cache)
end

function M._step(x, cache)
  local c, cl, spec = x.c, x.cl, x.spec
  local L, h = c.num_hidden_layers, c.hidden_size
  local step, k, layers, last_layers, layer, outside, stage, tp_per_layer, a2a_per_layer, pp, bubble, dp, optimizer,
    accum = step_core(x, cache)
  local mem = memory(x)
  -- FLOPs per step over all GPUs: forward FLOPs per micro-batch x micro-batches x d x t; model
  -- FLOPs as the model needs them (tilewave.ops.layers), hardware FLOPs as the kernels execute
  -- them plus the recomputed forward
  local seqs = x.gb
  local model_flops = 3 * (k.model_flops * L + k.out_model_flops) * x.t / x.mb * seqs
  local executed = 3 * (k.flops * L + k.out_flops) * x.t / x.mb * seqs
  local recompute_flops = 0
  if x.ckpt == "full" then recompute_flops = k.flops * L * x.t / x.mb * seqs end
  if x.ckpt == "selective" then recompute_flops = k.sel_flops * L * x.t / x.mb * seqs end
  local tp_s = x.m * layers * tp_per_layer
  local ep_s = x.m * layers * a2a_per_layer
  local pp_s = x.m * pp
  local peak = spec.peak_flops[x.dtype]
  return {
    step_s = step, interval = price.interval(spec, "training", step),
    breakdown = { compute_s = x.m * stage - tp_s - ep_s, comm_exposed_s = tp_s + ep_s + pp_s + dp, bubble_s = bubble,
                  optimizer_s = optimizer, tp_s = tp_s, ep_s = ep_s, pp_s = pp_s, dp_s = dp, accum_s = x.m * accum,
                  layer_s = layer, outside_s = outside, stage_s = stage },
    tokens_per_s = seqs * x.s / step,
    model_tflops_per_gpu = model_flops / step / x.gpus / 1e12,
    hardware_tflops_per_gpu = (executed + recompute_flops) / step / x.gpus / 1e12,
    mfu = model_flops / step / x.gpus / peak,
    hfu = (executed + recompute_flops) / step / x.gpus / peak,
    model_flops = model_flops, hardware_flops = executed + recompute_flops,
    flops_convention = forward.FLOPS_CONVENTION .. "; hardware: 3 x executed forward + recomputed forward",
    -- selective recomputation with a fused attention kernel: nothing stored to recompute
    recompute_noop = x.ckpt == "selective" and k.sel == 0 or nil,
    memory = mem, fits = mem.total <= hw.memory(spec), memory_bytes = hw.memory(spec),
    config = { model = c.id or c.name, cluster = cl.id or cl.name, nodes = x.nodes, gpus = x.gpus, t = x.t, p = x.p,
               d = x.d, ep = x.ep, micro_batch = x.mb, micro_batches = x.m, global_batch = x.gb, s = x.s, zero = x.zero,
               checkpointing = x.ckpt, sequence_parallel = x.sp, interleave = x.v, attention = x.attention,
               dtype = x.dtype, stage_layers = layers, last_stage_layers = last_layers, engine = x.engine.name },
  }
end

-- Validate and complete step options (tilewave.explore.training_search): config(o, path), or
-- shared(o, path) once and split(fresh shallow copy of its table, o, path) per split; raise
-- `<path>.<field>: ...`.
M.config, M.shared, M.split = tconfig.config, tconfig.shared, tconfig.split
-- Most GPUs a step may span, most sequences per step (tilewave.cost.training_config).
M.MAX_GPUS, M.MAX_GLOBAL_BATCH = tconfig.MAX_GPUS, tconfig.MAX_GLOBAL_BATCH
--- Memory per GPU of a validated configuration (M.config): `{ weights, grads, optimizer,
-- activations, workspace, total }`, byte; the same figures as step()'s `memory`.
M.memory = function(x) return (memory(x)) end
--- Its total alone, byte (a search's fit test).
M.memory_total = tmem.total

--- One layer's forward and backward on one GPU, per micro-batch (what a step is built of): `{ f, b
-- (s, one average layer), sel (selective recompute, s), out_f, out_b (outside the layers, s),
-- flops, model_flops (per layer) }` for config `c` (validated), spec and workload `{ b, s, t,
-- dtype, attention, engine (resolved; as it trains: tilewave.cost.engines.for_training), sp,
-- dropout, ep }`.
M.layer_costs = function(c, spec, w) return costs(c, spec, w) end

return M
