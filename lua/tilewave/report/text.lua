--- tilewave.report.text: plain-text views of single results for the CLI
-- (roofline, decode step, training step). Formats only; never computes a cost.
local si = require "tilewave.util.si"
local interval = require("tilewave.report.format").interval

local M = {}

local format, concat = string.format, table.concat

--- Text of a tw.roofline result `r` for `flops` (FLOP) and `bytes` (byte).
function M.roofline(r, flops, bytes)
  return concat({
    format("roofline on %s, %s: %s, %s", r.hw, r.dtype, si(flops, "FLOP"), si(bytes, "B")),
    format("  time       %s (compute %s, memory %s)", si(r.time_s, "s"), si(r.compute_s, "s"), si(r.memory_s, "s")),
    format("  intensity  %.2f FLOP/B, ridge point %.2f FLOP/B -> %s-bound", r.intensity, r.ridge, r.bound),
  }, "\n")
end

--- The speculative decoding of a decode result, as a header names it ("" without one):
-- ", speculative: draft llama-3.2-1b, k = 4, acceptance 0.70 (2.77 tokens per target step)".
function M.speculative(sp)
  if not sp then return "" end
  return format(", speculative: draft %s, k = %d, acceptance %.2f%s (%.2f tokens per target step)", sp.draft, sp.k,
    sp.acceptance, sp.acceptance_assumed and " assumed (no acceptance= given)" or "", sp.tokens_per_step)
end

--- Text of a tw.inference.decode result `d` and, if given, its memory fit `m`.
function M.decode(d, m)
  local lines = {
    format("decode %s on %s: batch %d, context %d, %s weights (%.2f bits%s), %s KV cache, t = %d%s, %s engine%s%s",
      d.model, d.hw, d.batch, d.context, d.weight_dtype, d.bits_per_weight,
      d.weight_dtype_source and ", the checkpoint's: " .. d.weight_dtype_source or "", d.kv_dtype, d.t,
      (d.ep or 1) > 1 and format(", ep = %d", d.ep) or "", d.engine, M.speculative(d.speculative),
      (d.ep or 1) > 1 and " (bytes and times per rank)" or ""),
    format("  TPOT        %s%s (%.1f tokens/s per sequence, %.1f aggregate)", si(d.tpot_s, "s"),
      interval(d.interval), d.tokens_per_s,
      d.aggregate_tokens_per_s),
    format("  bytes       %s per step: weights %s, KV cache %s; achieved %s", si(d.bytes, "B"), si(d.weight_bytes, "B"),
      si(d.kv_bytes, "B"), si(d.achieved_bw, "B/s")),
    format("  bound       %s (memory %s, dequant %s, compute %s, %d kernels %s, host %s, communication %s)", d.bound,
      si(d.memory_s, "s"), si(d.dequant_s, "s"), si(d.compute_s, "s"), d.kernels, si(d.overhead_s, "s"),
      si(d.host_s, "s"), si(d.comm_s, "s")) .. (d.kernels_s and format("; kernels in sequence %s",
      si(d.kernels_s, "s")) or ""),
  }
  if d.kv_eff and d.kv_eff < 1 then
    lines[#lines + 1] = format("  attention   the KV cache streams from %d of %d SMs, %.0f%% of the rate: %d thread blocks "
      .. "(%d context split%s)", d.kv_blocks, math.floor(d.kv_blocks / d.kv_eff + 0.5), 100 * d.kv_eff, d.kv_blocks,
      d.kv_splits, d.kv_splits == 1 and "" or "s")
  end
  if d.kv_reads and d.kv_reads > 1 then
    lines[#lines + 1] = format("  attention   the KV cache is read %d times a step: one thread block per query head, each "
      .. "streaming its group's KV head (TensorRT-LLM's masked MHA before XQA)", d.kv_reads)
  end
  if d.speculative then
    local sp = d.speculative
    lines[#lines + 1] = format("  speculative draft %s, k = %d, acceptance %.2f: %.2f tokens per target step; %d draft steps of %s "
      .. "+ verification %s, against %s per token without (bytes and bound above: one step without)", sp.draft, sp.k,
      sp.acceptance, sp.tokens_per_step, sp.k, si(sp.draft_step_s, "s"), si(sp.verify_step_s, "s"), si(sp.plain_tpot_s, "s"))
  end
  if m then
    lines[#lines + 1] = format("  memory      %s of %s (weights %s, KV %s, %sworkspace %s): %s; max batch %d at this "
      .. "context, max context %d at this batch (%s)%s", si(m.total_bytes, "B"), si(m.memory_bytes, "B")
      .. (m.budget and " (" .. m.budget .. ")" or ""),
      si(m.weight_bytes, "B"), si(m.kv_bytes, "B"), m.draft_bytes and "draft " .. si(m.draft_bytes, "B") .. ", " or "",
      si(m.workspace_bytes, "B"), m.fits and "fits" or "does NOT fit",
      m.max_batch, m.max_context, m.max_context_limit == "memory" and "memory-bound" or "the model's trained maximum",
      m.long_context and ", beyond max_position_embeddings (allow_long_context)" or "")
  end
  return concat(lines, "\n")
end

--- A decode configuration that does not fit: its header, the shortfall and the nearest
-- configurations that fit (tilewave.explore.memory_fit), never a time.
function M.decode_unfit(d, m, near)
  local lines = {
    format("decode %s on %s: batch %d, context %d, %s weights (%.2f bits%s), %s KV cache, t = %d, %s engine",
      d.model, d.hw, d.batch, d.context, d.weight_dtype, d.bits_per_weight,
      d.weight_dtype_source and ", the checkpoint's: " .. d.weight_dtype_source or "", d.kv_dtype, d.t, d.engine),
    format("  memory      %s: weights %s, KV %s, %sworkspace %s", require("tilewave.explore.memory_fit").shortfall(m),
      si(m.weight_bytes, "B"), si(m.kv_bytes, "B"), m.draft_bytes and "draft " .. si(m.draft_bytes, "B") .. ", " or "",
      si(m.workspace_bytes, "B")),
  }
  local alts = {}
  for _, n in ipairs(near) do alts[#alts + 1] = n.text end
  lines[#lines + 1] = "  would fit   " .. (#alts > 0 and concat(alts, "; or ") or "nothing near (fewer sequences, a shorter "
    .. "context, 4-bit weights and 8 GPUs each fall short)")
  lines[#lines + 1] = "  TPOT        not priced: a configuration that does not fit has no time"
  return concat(lines, "\n")
end

--- One line of a tw.training.step result (a configuration that does not fit: its memory, no time).
function M.train_line(r)
  local k = r.config
  if not r.fits then
    return format("t %d p %d d %d mb %d %-9s ZeRO %d: does NOT fit (%s); not priced: a configuration that does "
      .. "not fit has no time (--search ranks the splits that fit)", k.t, k.p, k.d, k.micro_batch, k.checkpointing,
      k.zero, r.does_not_fit or format("%s/GPU", si(r.memory.total, "B")))
  end
  return format("t %d p %d d %d mb %d %-9s ZeRO %d: step %s, %s tokens/s, %.1f TFLOP/s/GPU (MFU %.1f%%, HFU %.1f%%), "
    .. "%s/GPU%s", k.t, k.p, k.d, k.micro_batch, k.checkpointing, k.zero,
    si(r.step_s, "s") .. interval(r.interval), si(r.tokens_per_s, ""),
    r.model_tflops_per_gpu, 100 * r.mfu, 100 * r.hfu, si(r.memory.total, "B"), r.fits and "" or " (does NOT fit)")
end

--- Text of a tw.training.step result: its line, time breakdown and memory.
function M.train(r)
  local b, m = r.breakdown, r.memory
  local mem = format("  memory  weights %s, gradients %s, optimizer %s, activations %s, workspace %s", si(m.weights, "B"),
    si(m.grads, "B"), si(m.optimizer, "B"), si(m.activations, "B"), si(m.workspace, "B"))
  if not b then return M.train_line(r) .. format(" (%s engine)", r.config.engine) .. "\n" .. mem end
  return concat({
    M.train_line(r) .. format(" (%s engine)", r.config.engine)
      .. (r.recompute_noop and "\n  selective recomputation is a no-op with flash attention: it stores no scores to recompute" or ""),
    format("  compute %s, exposed communication %s (TP %s%s, PP %s, DP %s), bubble %s, optimizer %s", si(b.compute_s, "s"),
      si(b.comm_exposed_s, "s"), si(b.tp_s, "s"), (b.ep_s or 0) > 0 and (", EP all-to-all " .. si(b.ep_s, "s")) or "",
      si(b.pp_s, "s"), si(b.dp_s, "s"), si(b.bubble_s, "s"),
      si(b.optimizer_s, "s")),
    format("  memory  weights %s, gradients %s, optimizer %s, activations %s, workspace %s", si(m.weights, "B"),
      si(m.grads, "B"), si(m.optimizer, "B"), si(m.activations, "B"), si(m.workspace, "B")),
  }, "\n")
end

return M
