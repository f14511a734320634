--- tilewave.cost.step_parts: the kernel-side parts of one inference step, priced once here for
-- both the serving simulator (tilewave.serve.steps: its tables lin(n), A(S), lm(k), src/tw_serve.h)
-- and tilewave.inference.decode (the same step's floor by its kernels), so the two price a step
-- through the same functions:
--   forward(n)  a forward over n tokens (b = 1, s = n: the step's tokens as one GEMM's M), every
--               op but attention (and but the logits where the engine computes only the sampled
--               positions' - logits = "last"), plus with t > 1 two all-reduces per layer of n x h
--               activations in the residual stream's dtype (Megatron-LM; the faster of ring and
--               tree, tilewave.cost.price.collective); and the attention ops apart
--   logits(b)   the logits of b sampled positions (b = b, s = 1)
-- Each through tilewave.cost.forward.plan and one call into the core (tilewave.cost.price.pass_time:
-- the same per-op times as forward.estimate's rows, bit for bit). Units: s.
-- @module tilewave.cost.step_parts
local dtype = require "tilewave.data.dtype"
local quant = require "tilewave.data.quant"
local forward = require "tilewave.cost.forward"
local price = require "tilewave.cost.price"
local ep_parallel = require "tilewave.cost.expert_parallel"

local M = {}

--- The dtype a step's GEMMs compute in for weights in format `wdt` on `spec`: fp8 for fp8 weights
-- on a device with an fp8 peak (W8A8, as TensorRT-LLM and vLLM run FP8 checkpoints); a format's
-- tensor-core dtype where the device has it (nvfp4 W4A4 on FP4 tensor cores, tilewave.data.quant);
-- fp16 or fp32 weights in their own dtype; else the 16-bit type the device has (weight-only formats
-- dequantize to it: W4A16, W8A16).
function M.gemm_dtype(spec, wdt)
  if wdt == "fp8" and spec.peak_flops.fp8 then return "fp8" end
  local tc = quant.formats[wdt] and quant.formats[wdt].tensor_core
  if tc and spec.peak_flops[tc] then return tc end
  if (wdt == "fp16" or wdt == "fp32") and spec.peak_flops[wdt] then return wdt end
  return spec.peak_flops.bf16 and "bf16" or "fp16"
end

--- The ops of a forward pass of `c` on `spec` (tilewave.cost.forward's options), each with its
-- role and total_s (time per call x count). An iterator over { role, total_s }.
function M.op_times(c, spec, opts)
  local x = forward.plan(c, spec, opts)
  local _, _, _, per = price.pass_time(x.ctx, x.prog, true)
  local i, row = 0, {}
  return function()
    i = i + 1
    local op = x.ops[i]
    if not op then return nil end
    row.role, row.total_s = op.role, per[i] * op.count
    return i, row
  end
end

--- lin(n) and A(n) of model `c` on `spec` under engine `eng` at tensor-parallel size `t`, the GEMMs
-- in dtype `fdt` with weights in format `wdt` (group `group`), `link` the all-reduce's bandwidth
-- per rank one way (byte/s; used when t > 1), `last` true when the engine computes only the
-- sampled positions' logits (they are then lm(k)'s).
-- @return lin (s), attention (s)
function M.forward(c, spec, eng, t, n, fdt, wdt, group, link, last)
  local a, l = 0, 0
  for _, op in M.op_times(c, spec, { b = 1, s = n, t = t, dtype = fdt, attention = "flash", engine = eng,
                                     weight_dtype = wdt, group = group }) do
    if op.role == "attention" then a = a + op.total_s
    elseif op.role ~= "logits" or not last then l = l + op.total_s end
  end
  if t > 1 then
    l = l + 2 * c.num_hidden_layers * price.collective("allreduce", n * c.hidden_size * dtype.residual_bytes(fdt), t,
      link, eng.comm_latency_s or 0)
  end
  return l, a
end

--- lm(b): the logits of `b` sampled positions, s (the options as M.forward's).
function M.logits(c, spec, eng, t, b, fdt, wdt, group)
  local lm = 0
  for _, op in M.op_times(c, spec, { b = b, s = 1, t = t, dtype = fdt, attention = "flash", engine = eng,
                                     weight_dtype = wdt, group = group }) do
    if op.role == "logits" then lm = lm + op.total_s end
  end
  return lm
end

--- lin(n) of an expert-parallel group of `ep` ranks (tilewave.cost.expert_parallel), s: the
-- step's n tokens spread over the ranks' data-parallel attention, ceil(n / ep) each; every MoE
-- layer's experts at the busiest rank's share of the n x k routed copies
-- (expert_parallel.imbalance, times `skew`), and its dispatch and combine all-to-alls of those
-- copies x h elements over the device's link (past 8 GPUs, InfiniBand); the logits apart when
-- `last`. `link`: the ranks' link bandwidth one way, byte/s (tilewave.cost.inference.link_bw / 2).
local moe_of = setmetatable({}, { __mode = "k" }) -- config -> { MoE layers, k }, from its ops once
function M.ep_lin(c, spec, eng, ep, n, fdt, skew, last, wfmt, link)
  local per = -(-n // ep)
  if not moe_of[c] then
    local probe = forward.estimate(c, spec, { b = 1, s = 1, t = 1, dtype = fdt, attention = "flash", engine = eng, ep = ep })
    moe_of[c] = { ep_parallel.moe_layers(probe.ops) }
  end
  local layers, k = moe_of[c][1], moe_of[c][2]
  local imb = ep_parallel.rank_imbalance(n, k, ep, skew)
  local est = forward.estimate(c, spec, { b = 1, s = per, t = 1, dtype = fdt, attention = "flash", engine = eng, ep = ep,
                                          imbalance = imb, weight_dtype = wfmt and wfmt.name,
                                          group = wfmt and wfmt.group })
  local l = 0
  for _, op in ipairs(est.ops) do
    if op.role ~= "attention" and (op.role ~= "logits" or not last) then l = l + op.total_s end
  end
  local bytes = per * k * imb * c.hidden_size * dtype.get(fdt).in_bytes
  local domain, inter = ep_parallel.node(spec)
  return l + layers * ep_parallel.alltoall_pair_s(bytes, ep, link, inter, eng.comm_latency_s or 0, domain)
end

return M
