--- tilewave.cost.inference: LLM serving - decode (TPOT), prefill (TTFT), the memory
-- budget and batch sweeps.
--
-- One concern past 400 lines: the decode step and what is priced from its validated options and
-- step terms - the step at one context (M.decode) or many (M.decode_tpots, the serving tables), the
-- memory budget (M.memory) and the batch sweep (M.sweep). They share one option validation
-- (workload, check_ep) and one step (stepper): a split would copy both.
--
--   tw.inference.decode{ model = "llama-2-7b", hw = "a100_sxm4_80gb", context = 512, weight_dtype = "int4" }
--   tw.inference.prefill{ model = "llama-3.1-8b", hw = "h100_sxm5", prompt = 2048 }
--   tw.inference.memory{ model = "llama-2-70b", hw = "h100_sxm5", batch = 8, context = 4096, t = 2 }
--   tw.inference.sweep{ model = "llama-3.1-8b", hw = "h100_sxm5", context = 1024, batch = { 1, 64 } }
--
-- A decode step reads every weight once and each sequence's KV cache (src/tilewave.h,
-- tw_decode_step); the weight list is the model's GEMMs at one token per sequence
-- (tilewave.transformer.ops with s = 1), at the bytes of the weight format (tilewave.quant). What
-- the numbers assume about the software is the engine (tilewave.cost.engines): kernel launches per
-- layer, the launch cost not hidden by the queue, the achievable bandwidth fraction. With t > 1
-- each rank holds 1/t of the heads, FFN columns and vocabulary (Megatron-LM) and every layer adds
-- two all-reduces of batch x h activations (the faster of ring and tree, alpha-beta, NVLink
-- bandwidth from the spec, one direction; the per-step latency is the engine's comm_latency_s, not
-- calibrated). A model's checkpoint format (its config.json quantization_config, or a preset's) is
-- the default weight_dtype; the result's weight_dtype_source names it. Units: s, byte, FLOP,
-- token/s.
-- @module tw.inference
local check = require "tilewave.util.check"
local dtype = require "tilewave.data.dtype"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local transformer = require "tilewave.ops.transformer"
local quant = require "tilewave.data.quant"
local engines = require "tilewave.cost.engines"
local forward = require "tilewave.cost.forward"
local price = require "tilewave.cost.price"
local expert_parallel = require "tilewave.cost.expert_parallel"
local tables = require "tilewave.util.tables"
local terms = require "tilewave.cost.decode_terms"

local M = {}
local format, ipairs, pairs = string.format, ipairs, pairs

--- Default workspace held besides weights and KV cache, byte: CUDA context,
-- library workspaces and one step's activations (an allowance, not a measurement).
M.WORKSPACE_BYTES = 1 * 1024 ^ 3

-- The dtype the GEMMs compute in: the format's tensor-core dtype where the device has a peak for it
-- (nvfp4 W4A4, tilewave.data.quant), else the weight dtype if a float one with a peak, else bf16.
local function compute_dtype(spec, fmt)
  local wdt, tc = fmt.name, fmt.tensor_core
  if tc and spec.peak_flops[tc] then return tc end
  if (wdt == "bf16" or wdt == "fp16" or wdt == "fp32") and spec.peak_flops[wdt] then return wdt end
  for _, d in ipairs { "bf16", "fp16", "fp32" } do
    if spec.peak_flops[d] then return d end
  end
  error(format("inference.hw: %s has no bf16, fp16 or fp32 peak", spec.id), 0)
end

local function decoder(model, path)
  local c = models.resolve(model, path .. ".model")
  if models.families[c.family].encoder then
    error(format("%s.model: %s is an encoder (%s): it has no autoregressive decode", path, c.id or c.name,
      c.family), 0)
  end
  return c
end

--- The bandwidth between the ranks of a device (NVLink, fabric or PCIe), byte/s (bidirectional
-- total, as the spec states it); over PCIe with more than 2 ranks, times M.PCIE_COLLECTIVE_FRAC.
-- @raise `decode.<what>: <device> has no interconnect bandwidth for <what> = n`
-- Over PCIe (no NVLink or fabric) every rank's traffic crosses the host's PCIe switches and CPU
-- links at once: NCCL's all-reduce bus bandwidth there is a fraction of a link's. Measured on 8
-- and 4 PCIe Gen5 RTX 5090s, 28 and 35 GB/s of 64 GB/s per direction (NVIDIA/nccl issue #1639,
-- 2025-03; the NCCL maintainer there: "on PCI systems, the performance you get is usually
-- determined by the bandwidth your CPU and memory can deliver").
M.PCIE_COLLECTIVE_FRAC = { [4] = 35 / 64, [8] = 28 / 64 }
-- A tensor-parallel group of n ranks larger than the NVLink domain of the device's node (8 GPUs of a DGX node, 72
-- of a GB200 NVL72: tilewave.cost.expert_parallel.node) crosses the node's scale-out network: the
-- link is then at most twice its per-GPU one-way bandwidth (DGX H100: 2 x 50 GB/s).
function M.link_bw(spec, what, n)
  local ic = spec.interconnect
  local link = ic and (ic.nvlink_bw or ic.fabric_bw or ic.pcie_bw)
  if not link then error(format("decode.%s: %s has no interconnect bandwidth for %s = %d", what, spec.id, what, n), 0) end
  if not (ic.nvlink_bw or ic.fabric_bw) and n > 2 then
    link = link * (n <= 4 and M.PCIE_COLLECTIVE_FRAC[4] or M.PCIE_COLLECTIVE_FRAC[8])
  end
  if what == "t" and n > 8 then -- expert and pipeline groups split their own traffic (expert_parallel)
    local domain, inter = expert_parallel.node(spec)
    if n > domain then link = math.min(link, 2 * inter) end
  end
  return link
end

-- Validate an expert-parallel size (tilewave.cost.expert_parallel.check) and, for a step, that it
-- divides the batch (attention runs data-parallel: batch / ep sequences per rank).
local function check_ep(c, ep, t, batch, path)
  ep = expert_parallel.check(c, ep, t, path .. ".ep")
  if ep > 1 and batch and batch % ep ~= 0 then
    check.fail(path .. ".ep", format("expected a divisor of the batch %d (batch / ep sequences per rank)", batch), ep)
  end
  return ep
end

-- Call a core cost function through the pricing layer; a core refusal (a step or cache whose bytes
-- or FLOP leave a double's exact range) is named in the user's terms, never the core's (act_bytes).
local function in_range(path, batch, context, f, ...)
  local ok, r = pcall(f, ...)
  if ok then return r end
  local field, what = tostring(r):match("^[%w_]+%.([%w_.%*/]+): (.*)$")
  if field == "context" or field == "batch" then error(r, 0) end -- the user's own
  what = field == "context*batch" and "the KV cache's elements, layers x 2 x KV heads x head_dim x tokens" or what or tostring(r)
  error(format("%s.%s: expected a model, batch and context whose bytes and FLOP per step stay below 2^53 (%s), "
    .. "got batch %.17g, context %.17g", path, field == "context*batch" and field or "batch*context", what, batch,
    context), 0)
end

local DECODE = { model = true, hw = true, batch = true, context = true, weight_dtype = true, group = true,
                 kv_dtype = true, t = true, engine = true, allow_long_context = true, ep = true, speculative = true,
                 expert_imbalance = true, memory_bytes = true }

--- A context length within the model's trained maximum (max_position_embeddings), unless
-- `allow` (the user's allow_long_context = true, e.g. for RoPE scaling the config does not show).
-- @raise `<path>: expected at most max_position_embeddings N (or allow_long_context), got C`
function M.check_context(c, n, allow, path)
  if allow ~= nil and type(allow) ~= "boolean" then
    check.fail(path:gsub("%.[^.]*$", "") .. ".allow_long_context", "expected true or false", allow)
  end
  local max = c.max_position_embeddings
  if not allow and max and n > max then
    check.fail(path, format("expected at most max_position_embeddings %d of %s (or allow_long_context)", max,
      c.id or c.name), n)
  end
  return n
end

-- The options decode() and memory() share, validated: model (through `resolve`), device,
-- t, batch, context, weight format and KV element size; errors prefixed by `path`.
local function workload(o, path, allowed, resolve)
  check.table(o, path)
  check.options(o, allowed, path)
  local c = resolve(o.model, path)
  local spec = hw.resolve(o.hw, path .. ".hw")
  local t = transformer.check_t(c, check.positive_int(o.t or 1, path .. ".t"), path .. ".t")
  local batch = check.positive_int(o.batch or 1, path .. ".batch")
  if o.context == nil then check.fail(path .. ".context", "expected positive integer", nil) end
  local context = M.check_context(c, check.positive_int(o.context, path .. ".context"), o.allow_long_context,
    path .. ".context")
  -- the checkpoint's own format (config.json's quantization_config, a preset's) unless one is given
  local own = o.weight_dtype == nil and c.weight_dtype
  local fmt = quant.format(own or o.weight_dtype or "bf16", own and c.weight_group or o.group, path .. ".weight_dtype")
  fmt.source = own and c.weight_dtype_source or nil
  return c, spec, t, batch, context, fmt, dtype.kv_bytes(o.kv_dtype, path .. ".kv_dtype")
end

-- The decode step of `o` at any context: everything but the context validated and worked out once
-- (the options, the weight bytes, the kernels); returns the step at a context (the core's result
-- with the collectives added; they are priced after it, as errors are raised in that order), and
-- the terms M.decode finishes its result with (`no_floor`: see kernel_floor below).
local function stepper(o, no_floor)
  local c, spec, t, batch, context, fmt, kvb = workload(o, "decode", DECODE, decoder)
  -- an engine that cannot run on the device is refused; a measured host scales its host terms
  local eng = engines.on_host(engines.check_device(engines.resolve(o.engine, "decode.engine"), spec, "decode.engine"),
    spec)
  local g = hw.gemm_params(spec)
  local cdt = compute_dtype(spec, fmt)
  local ep = check_ep(c, o.ep, t, batch, "decode")
  local wbytes, params, ops, moe_layers, expert_op, expert_params = terms.weights(c, t, fmt, batch, ep)
  -- the busiest rank's share of the batch's routed copies (tilewave.cost.expert_parallel.imbalance)
  local skew = expert_parallel.check_skew(o.expert_imbalance, ep, "decode.expert_imbalance")
  local imb = expert_parallel.rank_imbalance(batch, expert_op and expert_op.experts_per_token or 0, ep, skew)
  params = params + expert_params * (imb - 1)
  local batch_all = batch
  batch = batch // ep -- sequences per rank
  local L, h = c.num_hidden_layers, c.hidden_size
  local kv = models.kv_cache(c, t)
  local e = dtype.get(cdt).in_bytes
  local a_t = -(-c.num_attention_heads // t)
  local kernels = terms.launches(c, t, eng, batch_all, ep)
  local comm
  -- A serving engine's step (an engine with a scheduler: vLLM, SGLang, TensorRT-LLM, NIM) takes at
  -- least its kernels in sequence, the serving core's G (src/tw_serve.h, tilewave.cost.step_parts):
  -- the forward over the batch's tokens but attention (GEMMs by the tile and wave model, in the
  -- dtype and weight format a serving step uses), the sampled logits, and the KV cache at the GEMM
  -- model's bandwidth; with expert parallelism step_parts.ep_lin's forward. Where a large batch's
  -- GEMMs leave the roofline (tile and wave quantization) this binds: the published serving table
  -- (scripts/serving_published.lua) is at 11.0% MAPE with it, 13.8% without. A standalone engine's
  -- step is the stream above alone: on the decode sets G would take gpt-fast (published decode,
  -- a100) from 2.5% to 7.5% MAPE and eager PyTorch (h100 decode eager) from 9.6% to 19.9%.
  -- `no_floor` (M.decode_tpots) leaves it out: the serving core applies it from its own tables.
  local floor_fixed
  local function kernel_floor()
    if no_floor or not eng.scheduler then return false end
    local parts = require "tilewave.cost.step_parts"
    local fdt = parts.gemm_dtype(spec, fmt.name)
    local last = eng.logits == "last"
    local l
    if ep > 1 then
      l = parts.ep_lin(c, spec, eng, ep, batch_all, fdt, skew, last, fmt, M.link_bw(spec, "ep", ep) / 2)
    else
      l = parts.forward(c, spec, eng, t, batch, fdt, fmt.name, fmt.group, t > 1 and M.link_bw(spec, "t", t) / 2, last)
    end
    if last then l = l + parts.logits(c, spec, eng, t, batch, fdt, fmt.name, fmt.group) end
    return l
  end
  -- the core's inputs that do not depend on the context, built once; at() sets the rest
  local args = {
    weight_bytes = wbytes, matmul_params = params,
    dequant_ops = (eng.dequant == false or cdt == fmt.tensor_core) and 0 or fmt.dequant_ops,
    layers = 1, -- the core's KV and attention terms scale with layers x context: kv_tokens is that sum
    kv_heads = kv.heads, q_heads = a_t, head_dim = kv.head_dim, attn_dim = kv.attn_dim,
    kv_elem_bytes = kvb, batch = batch,
    peak_flops = spec.peak_flops[cdt], compute_frac = eng.compute_frac or hw.compute_frac(g, cdt),
    vector_flops = spec.peak_flops.fp32 or spec.peak_flops[cdt],
    mem_bw = spec.mem_bw, mem_frac = eng.mem_frac or g.mem_frac,
    kernels = kernels,
  }
  local mode = eng.decode_attention or "split_kv"
  local function at(cx)
    -- KV tokens summed over layers: a sliding-window layer keeps its window (models.kv_layer_tokens)
    local kv_tokens = models.kv_layer_tokens(c, cx)
    -- activations: about ten (b x h) passes per layer (norms, residuals, rotary, attention out), the
    -- scores (b x a x context, read + write), the logits (b x v/t, fp32)
    local act = L * 10.0 * batch * h * e + 2.0 * batch * a_t * kv_tokens * e + batch * (-(-c.vocab_size // t)) * 4.0
    local lone = price.lone_block_share(spec.boost_clock_hz, kvb, spec.mem_bw * args.mem_frac)
    local kv_eff, splits, blocks, reads = price.decode_kv_eff(mode, spec.sm_count, batch, kv.heads, a_t, kv.head_dim, cx,
      lone)
    args.context, args.act_bytes = kv_tokens, act
    args.kv_eff = kv_eff / reads -- a cache read `reads` times streams at 1/reads of the rate
    local r = in_range("decode", batch_all, cx, price.decode, args, eng, spec.vendor)
    r.kv_eff, r.kv_splits, r.kv_blocks, r.kv_reads = kv_eff, splits, blocks, reads
    if not comm then
      comm = 0
      if t > 1 then
        local link = M.link_bw(spec, "t", t)
        -- NCCL picks the faster algorithm per message size: ring for large, tree for small messages
        comm = 2 * L * price.collective("allreduce", batch * h * dtype.residual_bytes(cdt), t, link / 2,
          eng.comm_latency_s or 0)
      end
      if ep > 1 then
        -- dispatch and combine: each rank's batch * k token copies of h elements, past one node over
        -- its InfiniBand (tilewave.cost.expert_parallel.alltoall_pair_s)
        local msg = batch * expert_op.experts_per_token * imb * h * e
        local domain, inter = expert_parallel.node(spec)
        comm = comm + moe_layers * expert_parallel.alltoall_pair_s(msg, ep, M.link_bw(spec, "ep", ep) / 2,
          inter, eng.comm_latency_s or 0, domain)
      end
    end
    r.comm_s = comm
    r.tpot_s = r.tpot_s + comm
    if floor_fixed == nil then floor_fixed = kernel_floor() end
    if floor_fixed then
      local kseq = floor_fixed + r.kv_bytes / (spec.mem_bw * (eng.mem_frac or g.mem_frac))
      r.kernels_s = kseq
      if kseq > r.tpot_s - r.host_s then r.tpot_s, r.bound = kseq + r.host_s, "kernels" end
    end
    -- the host's work and the GPU's in turn; an overlapped scheduler (host_overlap f: SGLang >= 0.4,
    -- TensorRT-LLM >= 1.0) does a share f of the host's work while the GPU runs the previous step,
    -- so a steady decode step takes max(G + (1 - f) H, H), G the GPU's part, H the host's: the
    -- serving core's step formula (src/tw_serve.h), so decode and serve give one TPOT
    r.serial_s = r.tpot_s
    local f = eng.host_overlap or 0
    if f > 0 and r.host_s > 0 then
      local dev = r.tpot_s - r.host_s
      local t = dev + (1 - f) * r.host_s
      r.tpot_s = t > r.host_s and t or r.host_s
      r.host_hidden_s = r.serial_s - r.tpot_s
    end
    return r
  end
  return at, { c = c, spec = spec, t = t, context = context, fmt = fmt, eng = eng, ep = ep, imb = imb, cdt = cdt,
               batch_all = batch_all, ops = ops, params = params }
end

--- Time per output token of one decode step.
-- @tparam table o `model` (id or config), `hw` (id, path or spec), `batch`
--   (sequences, default 1), `context` (tokens in each KV cache, required),
--   `weight_dtype` (fp32, bf16, fp16, fp8, int8, int4, mxfp4, nvfp4, q8_0, q4_0, q4_k_m;
--   default: the checkpoint's format (a config.json's quantization_config, a preset's weight_dtype: gpt-oss
--   mxfp4, deepseek-v3 fp8; weight_dtype_source names it), else "bf16"), `group` (int4 group size, default 128), `kv_dtype`
--   (bf16, fp16, fp32, fp8, int8; default "bf16"), `t` (tensor-parallel size,
--   default 1), `engine` ("compiled" default, "ideal", "fused", "eager", "hf",
--   "llama.cpp", or a table, see tilewave.cost.engines), `allow_long_context` (true: accept a
--   context above the model's max_position_embeddings), `ep` (expert-parallel size for MoE
--   models, default 1: each of ep ranks holds 1/ep of the experts and runs attention over
--   batch/ep sequences; every MoE layer adds two all-to-alls, dispatch and combine, of the
--   rank's batch/ep * k token copies of h elements; the step is the busiest rank's, its expert
--   FLOP and copies times the imbalance of tilewave.cost.expert_parallel.imbalance),
--   `expert_imbalance` (with ep > 1: the routing skew there, in [1, ep], default 1)
-- @return `{ tpot_s, tokens_per_s, aggregate_tokens_per_s, bytes, flops,
--   weight_bytes, kv_bytes, achieved_bw, bound, compute_s, memory_s,
--   dequant_s, overhead_s (kernel costs), host_s (per-token host work), comm_s, serial_s (the step
--   with the host's work and the GPU's in turn; tpot_s = max(serial_s - host_overlap x host_s,
--   host_s) under an engine whose scheduler overlaps them, src/tw_serve.h), host_hidden_s (the host
--   time that overlap hides; nil without it), kernels_s (a serving engine's step's kernels in
--   sequence, tilewave.cost.step_parts, the serving core's G: lin(b) + lm(b) + the KV cache at the
--   GEMM model's bandwidth; the step takes at least it, `bound` "kernels" where it binds; nil for a
--   standalone engine), 
--   kernels, bits_per_weight, engine, kv_eff, kv_splits, kv_blocks and kv_reads (the attention
--   kernel's share of the DRAM rate on the KV cache, its context splits and thread blocks, and how
--   many times a step streams the cache, price.decode_kv_eff),
--     interval = { low, high (s), borrowed } of
--   tpot_s (tilewave.cost.price.interval), ... }` (s, byte,
--   FLOP, token/s, byte/s)
-- @raise `decode.<field>: ...`
function M.decode(o)
  local r = M.decode_step(o)
  local spec = hw.resolve(o.hw, "decode.hw")
  if not o.memory_bytes and not hw.memory(spec) then return r end -- no memory size: nothing to judge
  local q = tables.copy(o)
  q.engine, q.expert_imbalance, q.batch = nil, nil, r.batch
  local m = q.speculative and require("tilewave.cost.speculative").memory(q) or (function()
    q.speculative = nil
    return M.memory(q, "decode")
  end)()
  r.fits = m.fits
  r.memory = { total_bytes = m.total_bytes, memory_bytes = m.memory_bytes, weight_bytes = m.weight_bytes,
               kv_bytes = m.kv_bytes, workspace_bytes = m.workspace_bytes, max_batch = m.max_batch }
  if not m.fits then
    -- a configuration that does not fit has no time: its memory and by how much it falls short
    local sp = r.speculative
    for _, k in ipairs(M.DECODE_TIME_FIELDS) do r[k] = nil end
    if sp then -- what was asked, without its times
      r.speculative = { draft = sp.draft, k = sp.k, acceptance = sp.acceptance, acceptance_assumed = sp.acceptance_assumed,
                        tokens_per_step = sp.tokens_per_step }
    end
    r.does_not_fit = format("needs %.2f GB per GPU, has %.2f GB", m.total_bytes / 1e9, m.memory_bytes / 1e9)
  end
  return r
end

--- The fields of a decode result that a configuration that does not fit leaves out (M.decode: it
-- has no time, only `fits = false`, `memory` and `does_not_fit`).
M.DECODE_TIME_FIELDS = { "tpot_s", "interval", "tokens_per_s", "aggregate_tokens_per_s", "achieved_bw", "serial_s",
                         "kernels_s", "host_hidden_s", "compute_s", "memory_s", "overhead_s", "comm_s", "host_s",
                         "dequant_s", "bound", "speculative" }

--- M.decode's step priced whether or not it fits in memory, with no `fits`: for tables over a grid
-- whose corners pass the memory (tilewave.serve.steps, which bounds the batch by the KV capacity
-- itself) and for calibration against measured steps (they ran). Options, result and errors as
-- M.decode's.
function M.decode_step(o)
  -- the step's terms (bytes, collectives, host), each beside its source: stepper above
  if type(o) == "table" and o.speculative ~= nil then
    check.options(o, DECODE, "decode")
    return require("tilewave.cost.speculative").decode(M.decode_step, o)
  end
  local at, x = stepper(o)
  local r = at(x.context)
  local spec, eng, fmt, comm = x.spec, x.eng, x.fmt, r.comm_s
  -- bits per stored weight: every matrix (all experts) once, scales included
  local stored_bytes, stored = terms.stored(x.c, x.t, fmt, x.ops)
  r.interval = price.interval(spec, "decode", r.tpot_s)
  -- the host's share of the step, known within the engine's spread (tilewave.cost.interval.host)
  require("tilewave.cost.interval").host(r.interval, r.tpot_s, eng, r.bound)
  r.tokens_per_s = 1 / r.tpot_s
  r.aggregate_tokens_per_s = x.batch_all / r.tpot_s
  r.achieved_bw = r.bytes / r.tpot_s
  -- the step's kernels in sequence, where they bind, include the all-reduces (step_parts.forward)
  local kseq = r.bound == "kernels" and r.kernels_s or 0
  if r.bound ~= "kernels" and comm > math.max(r.compute_s, r.memory_s + r.dequant_s, r.overhead_s) then
    r.bound = "communication"
  end
  if r.host_s > math.max(comm, r.compute_s, r.memory_s + r.dequant_s, r.overhead_s, kseq) then r.bound = "host" end
  r.model, r.hw, r.batch, r.context, r.t, r.ep = x.c.id or x.c.name, spec.id, x.batch_all, x.context, x.t, x.ep
  r.expert_imbalance = x.ep > 1 and x.imb or nil
  r.weight_dtype, r.kv_dtype, r.engine, r.compute_dtype = fmt.name, o.kv_dtype or "bf16", eng.name, x.cdt
  r.group, r.weight_dtype_source = fmt.group, fmt.source -- the source when the format is the checkpoint's
  r.bits_per_weight = 8 * stored_bytes / stored
  r.matmul_params = x.params
  return r
end

--- The time of M.decode's step at each of `contexts` (token counts, each validated as
-- `decode.context`) with the host's work and the GPU's in turn and without a serving engine's floor
-- of its kernels in sequence (the serving core applies both from its own tables, src/tw_serve.h),
-- s: M.decode{ ..., context = c }.serial_s, bit for bit, wherever that floor does not bind
-- (bound ~= "kernels"), with
-- the options (`o` as M.decode's, its context ignored; a `speculative` draft is refused: M.decode
-- prices those steps) validated and the context-free terms worked out once. For tables over contexts (tilewave.serve.steps).
-- @return a list of s, one per context
-- @raise as M.decode
function M.decode_tpots(o, contexts)
  local q = tables.copy(o)
  q.context = contexts[1]
  if q.speculative ~= nil then check.fail("decode.speculative", "expected none (decode_tpots)", q.speculative) end
  local at, x = stepper(q, true)
  local out = {}
  for i, cx in ipairs(contexts) do
    out[i] = at(M.check_context(x.c, check.positive_int(cx, "decode.context"), o.allow_long_context, "decode.context")).serial_s
  end
  return out
end

local MEMORY = { model = true, hw = true, batch = true, context = true, weight_dtype = true, group = true,
                 allow_long_context = true, ep = true,
                 kv_dtype = true, t = true, workspace_bytes = true, memory_bytes = true }

--- The inference memory budget per GPU.
-- @tparam table o `model`, `hw`, `batch` (default 1), `context` (required),
--   `weight_dtype`, `group`, `kv_dtype`, `t`, `ep` as decode() (per rank); `workspace_bytes`
--   (default M.WORKSPACE_BYTES); `memory_bytes` (default: the device's)
-- @return `{ weight_bytes, kv_bytes, kv_bytes_per_token, workspace_bytes,
--   total_bytes, free_bytes, memory_bytes, fits, max_batch (sequences of `context` tokens that
--   fit; integer >= 0), max_context (tokens per sequence at `batch`; integer >= 0, at most
--   max_position_embeddings unless allow_long_context), max_context_limit ("memory" or
--   "max_position_embeddings": what bounds max_context), long_context (true when
--   allow_long_context let max_context pass max_position_embeddings) }`
-- @param path (optional) the name its errors start with, default "memory" (a command's: "prefill")
-- @raise `memory.<field>: ...` (`<path>.<field>`)
function M.memory(o, path)
  local c, spec, t, batch, context, fmt, kvb = workload(o, path or "memory", MEMORY, function(m, p)
    return models.resolve(m, p .. ".model")
  end)
  local mem = o.memory_bytes or hw.memory(spec)
  if mem == nil then
    error(format("memory.memory_bytes: %s has no memory size in its spec; pass memory_bytes", spec.id), 0)
  end
  check.positive(mem, "memory.memory_bytes")
  local workspace = check.nonneg(o.workspace_bytes or M.WORKSPACE_BYTES, "memory.workspace_bytes")
  local ep = check_ep(c, o.ep, t, nil, "memory")
  local wbytes = terms.weights(c, t, fmt, nil, ep)
  batch = -(-batch // ep) -- sequences whose KV cache this rank holds (the busiest rank)
  -- the input embedding is resident too (untied models): in 16 bits, or the GGUF format's bits
  local p = models.params(c)
  local lm_head = c.vocab_size * c.hidden_size
  local resident_embedding = p.embedding - lm_head -- the LM head is among the GEMM weights already
  local emb_bits = fmt.name:match("^q") and fmt.bits or 16
  wbytes = wbytes + resident_embedding * emb_bits / 8 / t
  local kv = models.kv_cache(c, t)
  local per_layer_token = 2 * kv.heads * kv.head_dim * kvb
  local per_token = c.num_hidden_layers * per_layer_token
  -- the fit counts KV tokens summed over the layers, each window capped (models.kv_layer_tokens)
  local r = in_range("memory", batch, context, price.memory_fit, { weight_bytes = wbytes,
                              kv_bytes_per_token = per_layer_token, context = models.kv_layer_tokens(c, context),
                              batch = batch, workspace_bytes = workspace, memory_bytes = mem })
  r.max_context_limit = "memory"
  local bound = models.kv_layer_tokens_max(c)
  if bound and r.max_context >= bound then
    -- the cache stops growing at the window: memory no longer bounds the context
    r.max_context, r.max_context_limit = c.max_position_embeddings or r.max_context, "max_position_embeddings"
  else
    -- the longest context whose KV tokens over the layers fit (kv_layer_tokens grows with it)
    local lo, hi = 0, models.MAX_DIM
    while lo < hi do
      local mid = (lo + hi + 1) // 2
      if models.kv_layer_tokens(c, mid) <= r.max_context then lo = mid else hi = mid - 1 end
    end
    r.max_context = lo
  end
  -- the answer stays inside the model: its trained context, unless the caller allows more
  local trained = c.max_position_embeddings
  if trained and r.max_context > trained then
    if o.allow_long_context then r.long_context = true -- memory allows more than it was trained for
    else r.max_context, r.max_context_limit = trained, "max_position_embeddings" end
  end
  -- whole sequences and tokens, never below 0
  r.max_batch = math.tointeger(math.max(0, r.max_batch)) or r.max_batch
  r.max_context = math.tointeger(math.max(0, r.max_context)) or r.max_context
  r.weight_bytes, r.kv_bytes_per_token, r.workspace_bytes, r.memory_bytes = wbytes, per_token, workspace, mem
  r.model, r.hw, r.batch, r.context, r.t, r.ep = c.id or c.name, spec.id, o.batch or 1, context, t, ep
  return r
end

--- Time to first token (tilewave.cost.prefill.prefill; loaded on first use).
function M.prefill(o) return require("tilewave.cost.prefill").prefill(o) end

--- Decode against batch size: where decode turns compute-bound.
-- @tparam table o decode()'s options with `batch` a list (default 1, 2, 4 ... 1024)
-- @return `{ rows = { decode_step() results: priced whether or not the batch fits in memory, the
--   roofline of the step as the batch grows; M.memory's max_batch says what fits, and
--   tilewave.explore.figures cuts the rows past it }, compute_bound_batch (first batch
--   whose step is compute-bound, or nil), ridge_batch (the batch at which
--   the step's intensity reaches the device's ridge point, FLOP/byte) }`
function M.sweep(o)
  check.table(o, "sweep")
  check.options(o, DECODE, "sweep")
  local batches = o.batch or { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 }
  check.table(batches, "sweep.batch")
  if #batches == 0 then error("sweep.batch: expected a non-empty list of batch sizes, got an empty list", 0) end
  local rows, first = {}, nil
  for i, b in ipairs(batches) do
    local q = tables.copy(o)
    q.batch = check.positive_int(b, format("sweep.batch[%d]", i))
    local r = M.decode_step(q)
    rows[i] = r
    if not first and r.bound == "compute" then first = r.batch end
  end
  -- ridge: intensity grows ~linearly with batch at fixed context; find where it meets the ridge
  local spec = hw.resolve(o.hw, "sweep.hw")
  local g = hw.gemm_params(spec)
  local r1 = rows[1]
  local ridge = spec.peak_flops[r1.compute_dtype] * hw.compute_frac(g, r1.compute_dtype) / (spec.mem_bw * g.mem_frac)
  local ridge_batch
  for _, r in ipairs(rows) do
    if not ridge_batch and r.intensity >= ridge then ridge_batch = r.batch end
  end
  return { rows = rows, compute_bound_batch = first, ridge_batch = ridge_batch, ridge = ridge }
end

return M
