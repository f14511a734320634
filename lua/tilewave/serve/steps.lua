--- tilewave.serve.steps: the step-cost tables of a serving run and its KV capacity, priced once
-- per run through the pricing layer (tilewave.cost.forward, tilewave.cost.inference), never a
-- second model. src/tw_serve.h gives the step formula the tables feed:
--   lin(n)   every op of a b = 1, s = n forward but attention and the logits, s, plus with t > 1
--            two all-reduces per layer of n x h activations (as tilewave.cost.prefill);
--   A(S)     the attention ops of that forward (causal, from scratch), s;
--   lm(k)    the logits of k sampled positions (b = k, s = 1), s; 0 for an engine whose
--            logits = "all" (its lin already holds every position's);
--   kv_s     decode attention per cached token: the token's KV bytes at decode's bandwidth, s;
--   D(b, c)  tilewave.cost.inference.decode at batch b, context c (weights, KV, kernels, host), s;
--            under an engine's CUDA-graph capture sizes (graph_sizes) the device work at the next
--            captured batch (tilewave.cost.engine_versions.graph_batch), the host's at b.
-- So one whole prefill priced here is tilewave.inference.prefill's TTFT for the same engine, and
-- a decode step of b sequences its decode TPOT, at every grid point (linear in between).
-- Units: s, byte, token.
-- @module tilewave.serve.steps
local dtype = require "tilewave.data.dtype"
local hw = require "tilewave.data.hw"
local quant = require "tilewave.data.quant"
local forward = require "tilewave.cost.forward"
local inference = require "tilewave.cost.inference"
local price = require "tilewave.cost.price"
local ep_parallel = require "tilewave.cost.expert_parallel"
local pp_parallel = require "tilewave.cost.pipeline_parallel"
local versions = require "tilewave.cost.engine_versions"

local M = {}

local format, floor, max, min = string.format, math.floor, math.max, math.min

--- Allowance for what an engine holds besides weights, KV cache and one step's activations,
-- byte: CUDA context, cuBLAS workspaces, CUDA graphs (tilewave.cost.inference.WORKSPACE_BYTES).
M.RUNTIME_BYTES = inference.WORKSPACE_BYTES

-- Integers 1..n: every one up to 16, then a geometric progression of `ratio`, n last, and
-- the `extra` points inside the range.
local function grid(n, ratio, extra)
  local seen, g = {}, {}
  local function add(x)
    x = floor(x)
    if x >= 1 and x <= n and not seen[x] then seen[x] = true; g[#g + 1] = x end
  end
  for i = 1, min(16, n) do add(i) end
  local x = 16
  while x < n do x = max(x + 1, x * ratio); add(x) end
  add(n)
  for _, e in ipairs(extra or {}) do add(e) end
  table.sort(g)
  return g
end
M.grid = grid

-- The compute dtype of the prefill GEMMs: tilewave.cost.prefill's, as tilewave.inference.prefill
-- prices the same pass.
local prefill_dtype = require("tilewave.cost.step_parts").gemm_dtype
M.prefill_dtype = prefill_dtype

--- The KV capacity of one replica (per tensor-parallel rank), after the memory rules of the
-- scheduler's engine (tilewave.serve.schedulers: memory_basis) and
-- ../shared/reference/serving/facts.md §6 check 5: (M u - W - A) / KV bytes per token, in
-- whole blocks. A = one step's activations at the token budget (the MLP's gate and up outputs
-- and four h-wide tensors per token, in the compute dtype), the fp32 logits of max_num_seqs
-- sampled positions, and M.RUNTIME_BYTES.
-- @return `{ kv_capacity_tokens, kv_bytes_per_token, weight_bytes, activation_bytes, kv_bytes,
--   memory_bytes }` (byte, token)
-- @raise `serve: <model> does not fit ...` when no block is left
function M.kv_capacity(c, spec, o, sched)
  -- what the engine can allocate: the memory NVML reports where the spec states it (an "80 GB"
  -- H100 holds 81,559 MiB), else the datasheet's figure
  local mem = require("tilewave.data.hw").memory(spec)
  if not mem then error(format("serve.hw: %s has no memory size in its spec", spec.id), 0) end
  local m = inference.memory { model = c, hw = spec, t = o.t, weight_dtype = o.weight_dtype, group = o.group,
                               kv_dtype = o.kv_dtype, context = 1, workspace_bytes = 0, allow_long_context = true,
                               ep = o.ep }
  if o.draft then
    -- speculative decoding: the draft's weights, and its KV cache beside each sequence's (vLLM
    -- allocates both models' blocks from the one gpu_memory_utilization budget)
    local d = inference.memory { model = o.draft, hw = spec, t = o.t, kv_dtype = o.kv_dtype, context = 1,
                                 workspace_bytes = 0, allow_long_context = true }
    m = { weight_bytes = m.weight_bytes + d.weight_bytes, kv_bytes_per_token = m.kv_bytes_per_token + d.kv_bytes_per_token,
          weight_dtype = m.weight_dtype }
  end
  if (o.pp or 1) > 1 then -- pipeline stages: the busiest stage's layers and embedding matrix
    local ws, ks = pp_parallel.stage_share(c, o.pp)
    m = { weight_bytes = m.weight_bytes * ws, kv_bytes_per_token = m.kv_bytes_per_token * ks, weight_dtype = m.weight_dtype }
  end
  local e = dtype.get(prefill_dtype(spec, m.weight_dtype or o.weight_dtype or "bf16")).in_bytes
  local tokens = sched.max_num_batched_tokens
  local ffn = c.intermediate_size or 4 * c.hidden_size
  local act = tokens * (2 * ffn / o.t + 4 * c.hidden_size) * e
    + min(sched.max_num_seqs, tokens) * (-(-c.vocab_size // o.t)) * 4 + M.RUNTIME_BYTES
  local u, kv = sched.gpu_memory_utilization, 0
  if sched.memory_basis == "free" then kv = u * (mem - m.weight_bytes - act)
  elseif sched.memory_basis == "static" then kv = mem * u - m.weight_bytes
  else kv = mem * u - m.weight_bytes - act end
  local per = m.kv_bytes_per_token
  local cap = floor(max(0, kv) / per / sched.block_size) * sched.block_size
  if cap < sched.block_size then
    -- what one KV block needs beside the weights (and activations), against what the engine may
    -- take
    local block = sched.block_size * per
    local need, has = m.weight_bytes + act + block, mem * u
    if sched.memory_basis == "free" then need, has = m.weight_bytes + act + block / u, mem
    elseif sched.memory_basis == "static" then need = m.weight_bytes + block end
    -- how many such GPUs the weights alone take (tensor parallelism divides them; a lower bound)
    local gpus = (o.ep or 1) == 1 and (o.pp or 1) == 1 and -(-(m.weight_bytes * o.t) // has) or 0
    error(format("serve: %s does not fit on %s at t = %d%s: needs %.3g GB (weights %.3g GB, activations %.3g GB, "
      .. "one KV block), has %.3g GB (%.3g GB %s, gpu_memory_utilization %.2f)%s",
      c.id or c.name or "the model", spec.id, o.t, (o.ep or 1) > 1 and format(", ep = %d", o.ep)
      or (o.pp or 1) > 1 and format(", pp = %d", o.pp) or "", need / 1e9, m.weight_bytes / 1e9, act / 1e9, has / 1e9, mem / 1e9,
      spec.usable_memory_bytes and "as NVML reports it" or "on the datasheet", u,
      gpus > o.t and format("; its weights alone need %d such GPUs", gpus) or ""), 0)
  end
  return { kv_capacity_tokens = cap, kv_bytes_per_token = per, weight_bytes = m.weight_bytes, activation_bytes = act,
           kv_bytes = cap * per, memory_bytes = mem }
end

-- lin(n), A(n) and lm(k): tilewave.cost.step_parts, which tilewave.inference.decode prices its
-- step's kernels with too
local parts = require "tilewave.cost.step_parts"

--- The cost tables of one run (src/tw_serve.h, tw_serve_costs).
-- @param c the model config
-- @param spec the device (tilewave.data.hw)
-- @param eng the resolved engine (tilewave.cost.engines)
-- @tparam table o the run's options: t, weight_dtype, group, kv_dtype, allow_long_context, ep
--   (expert-parallel ranks of one replica, default 1: M.ep_lin; attention A(S), the cached-token
--   term and the per-sequence host time over ep, the ranks running their own sequences at once),
--   expert_imbalance (the routing skew of tilewave.cost.expert_parallel.imbalance), pp (pipeline
--   stages, default 1: the whole model's step at t plus pp - 1 hand-offs, M.handoff)
-- @tparam table lim `{ max_tokens (most tokens in one step), max_context (most tokens of one
--   request), max_seqs, exact (token counts to price exactly, e.g. a fixed prompt length) }`
-- @return `{ tok_grid, lin_s, ctx_grid, attn_s, seq_grid, logits_s, dctx_grid, decode_s, host_s,
--   seq_host_s, host_overlap, kv_s_per_token, decode_kernels }`
function M.tables(c, spec, eng, o, lim)
  local t = o.t
  local wfmt = quant.format(o.weight_dtype or "bf16", o.group, "serve.weight_dtype")
  local fdt = prefill_dtype(spec, wfmt.name)
  -- the forward's GEMMs read the weights in their stored format (tilewave.ops.transformer:
  -- w_bytes), as the decode step does
  local wdt, wgroup = wfmt.name, wfmt.group
  local tok = grid(lim.max_tokens, 1.12, lim.exact)
  local ctx = grid(lim.max_context, 1.12, lim.exact)
  local union, seen = {}, {}
  for _, g in ipairs { tok, ctx } do
    for _, x in ipairs(g) do if not seen[x] then seen[x] = true; union[#union + 1] = x end end
  end
  local link = t > 1 and inference.link_bw(spec, "t", t) / 2
  local e = dtype.residual_bytes(fdt) -- the all-reduce sums the residual stream
  local lin, attn = {}, {}
  local last = eng.logits == "last"
  local ep = o.ep or 1
  -- with expert parallelism lin(n) is M.ep_lin's: this forward prices only the attention grid
  for _, n in ipairs(ep > 1 and ctx or union) do
    local l, a = parts.forward(c, spec, eng, t, n, fdt, wdt, wgroup, link, last)
    -- expert parallelism: the group's requests spread over its ep ranks' attention
    lin[n], attn[n] = l, a / ep
  end
  if ep > 1 then
    for _, n in ipairs(tok) do lin[n] = M.ep_lin(c, spec, eng, ep, n, fdt, o.expert_imbalance, last, wfmt) end
  end
  -- pipeline stages: a micro-batch of n tokens hands its hidden states on pp - 1 times
  local handoff = M.handoff(spec, eng, t, o.pp or 1)
  for _, n in ipairs(tok) do lin[n] = lin[n] + handoff(n * c.hidden_size * e) end
  local r = { tok_grid = tok, ctx_grid = ctx, lin_s = {}, attn_s = {}, host_s = eng.token_host_s or 0,
              seq_host_s = (eng.seq_host_s or 0) / ep, host_overlap = eng.host_overlap or 0,
              -- a serving engine's decode step is bounded by its kernels in sequence too, as
              -- tilewave.inference.decode prices it (src/tw_serve.h decode_kernels)
              decode_kernels = eng.scheduler and 1 or 0 }
  -- decode attention per cached token: the KV bytes of one token on this rank at the bandwidth
  -- decode streams it (the difference of two decode steps one context token apart, memory-bound);
  -- with ep ranks each streams its own sequences' caches at once
  local d1 = inference.decode_step { model = c, hw = spec, batch = 1, context = 1, t = t, engine = eng, weight_dtype = o.weight_dtype,
                                group = o.group, kv_dtype = o.kv_dtype }
  r.kv_s_per_token = d1.kv_bytes / (spec.mem_bw * (eng.mem_frac or hw.gemm_params(spec).mem_frac)) / ep
  for i, n in ipairs(tok) do r.lin_s[i] = lin[n] end
  for i, n in ipairs(ctx) do r.attn_s[i] = attn[n] end
  -- the batch grid holds both ends of every CUDA-graph step (a captured size s and s + 1): a decode
  -- step pads its batch to the next captured size, a step function that interpolation between two
  -- grid batches across a capture size would price above tilewave.inference.decode's (the
  -- step-price property)
  local captured = {}
  for _, s in ipairs(versions.graph_list(eng.graph_sizes, lim.max_seqs, -(-lim.max_seqs // ep))) do
    captured[#captured + 1], captured[#captured + 2] = s * ep, s * ep + 1
  end
  r.seq_grid = grid(lim.max_seqs, 1.25, captured)
  r.dctx_grid = grid(lim.max_context, 1.25)
  r.logits_s, r.decode_s = {}, {}
  local rows = {} -- the decode steps at a captured batch, by batch: grid batches share their graph's
  for i, b in ipairs(r.seq_grid) do
    local lm = 0
    if last then -- with ep ranks, each samples its own sequences
      lm = parts.logits(c, spec, eng, t, -(-b // ep), fdt, wdt, wgroup)
    end
    r.logits_s[i] = lm
    -- a CUDA graph runs the next captured batch: the GPU's work at that batch, the host's at b;
    -- with ep ranks, the busiest rank's ceil(b / ep) sequences on every rank
    local g = versions.graph_batch(eng.graph_sizes, -(-b // ep), lim.max_seqs) * ep
    local row = rows[g]
    if not row then
      row = inference.decode_tpots({ model = c, hw = spec, batch = g, t = t, engine = eng,
                                     weight_dtype = o.weight_dtype, group = o.group, kv_dtype = o.kv_dtype,
                                     allow_long_context = true, ep = ep > 1 and ep or nil,
                                     expert_imbalance = ep > 1 and o.expert_imbalance or nil }, r.dctx_grid)
      rows[g] = row
    end
    for j = 1, #r.dctx_grid do
      r.decode_s[#r.decode_s + 1] = row[j] - r.seq_host_s * (g - b) + handoff(g * c.hidden_size * e)
    end
  end
  return r
end

--- lin(n) of an expert-parallel group of `ep` ranks: tilewave.cost.step_parts.ep_lin over the
-- device's link (tilewave.cost.inference.link_bw, one way), as tilewave.inference.decode prices its
-- step's kernels with it.
function M.ep_lin(c, spec, eng, ep, n, fdt, skew, last, wfmt)
  return parts.ep_lin(c, spec, eng, ep, n, fdt, skew, last, wfmt, inference.link_bw(spec, "ep", ep) / 2)
end

--- The hand-offs between `pp` pipeline stages of `t` GPUs on `spec` under engine `eng`, as a
-- function of the bytes one micro-batch hands on, s (tilewave.cost.pipeline_parallel.handoff_s; 0
-- when pp = 1).
function M.handoff(spec, eng, t, pp)
  if pp <= 1 then return function() return 0 end end
  local link = inference.link_bw(spec, "pp", pp) / 2
  local domain, inter = ep_parallel.node(spec)
  return function(bytes) return pp_parallel.handoff_s(bytes, t, pp, link, inter, eng.comm_latency_s or 0, domain) end
end

--- D(b, c) of model `c` on the grids given (row-major, seq x dctx): tilewave.inference.decode per
-- point, s (the draft model of speculative decoding; the target's own table in M.tables).
function M.decode_table(c, spec, eng, o, seq_grid, dctx_grid)
  local out = {}
  for _, b in ipairs(seq_grid) do
    for _, cx in ipairs(dctx_grid) do
      out[#out + 1] = inference.decode_step { model = c, hw = spec, batch = b, context = cx, t = o.t, engine = eng,
        kv_dtype = o.kv_dtype, allow_long_context = true }.tpot_s
    end
  end
  return out
end

--- The KV transfer of disaggregated serving, per prompt token: the whole model's KV bytes per token
-- (2 x layers x KV heads x head_dim x bytes per element) over the link between the pools - the
-- device's NVLink (or PCIe) one way when both pools fit one NVLink domain of its node (8 GPUs of a
-- DGX node, 72 of a GB200 NVL72: tilewave.cost.expert_parallel.node), else the node's scale-out
-- network (DGX H100: 50 GB/s of NDR InfiniBand per GPU each way), spread over the prefill
-- replica's t GPUs; between two GPU types (mixed pools: no shared NVLink domain) always the prefill
-- device's scale-out network, over the fewer of the two pools' t ranks - or `disagg.link_bw`;
-- latency: the engine's comm_latency_s.
-- @return `{ bytes_per_token, link_bw, s_per_token, latency_s, link }`
function M.transfer(c, spec, o, dis)
  local full = inference.memory { model = c, hw = spec, t = 1, weight_dtype = o.weight_dtype, group = o.group,
                                  kv_dtype = o.kv_dtype, context = 1, workspace_bytes = 0, allow_long_context = true }
  local gpus = dis.prefill.t * dis.prefill.replicas + dis.decode.t * dis.decode.replicas
  local bw, link = dis.link_bw, "given"
  local mixed = dis.decode.spec and dis.decode.spec.id ~= spec.id
  local domain, inter, node = ep_parallel.node(spec)
  if not bw and mixed then
    -- two GPU types share no NVLink domain: across nodes, at the slower end's ranks' NICs
    bw, link = inter * math.min(dis.prefill.t, dis.decode.t),
      format("across nodes between two GPU types (InfiniBand, hw/clusters/%s.lua)", node.id)
  elseif not bw then
    if gpus <= domain then
      local ic = spec.interconnect or {}
      bw, link = (ic.nvlink_bw or ic.fabric_bw or ic.pcie_bw or 32e9) / 2 * dis.prefill.t, "in-node (NVLink or PCIe)"
    else
      bw, link = inter * dis.prefill.t, format("across nodes (InfiniBand, hw/clusters/%s.lua)", node.id)
    end
  end
  return { bytes_per_token = full.kv_bytes_per_token, link_bw = bw, s_per_token = full.kv_bytes_per_token / bw,
           latency_s = 10e-6, link = link }
end

--- The prediction interval of a step time on `spec`, as the ratios { low, high } the
-- calibration residuals of decode steps give (tilewave.cost.price.interval, class "decode").
function M.interval(spec)
  local iv = price.interval(hw.resolve(spec, "serve.hw"), "decode", 1)
  return iv.low, iv.high, iv.borrowed
end

return M
