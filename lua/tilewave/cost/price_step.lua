--- tilewave.cost.price_step: the step-level prices of the pricing layer (tilewave.cost.price
-- re-exports them; with it, the only Lua code that calls the C core's cost functions): collectives,
-- the decode step and its attention occupancy, the memory budget, the roofline and attention IO.
-- Units: s, byte, FLOP, FLOP/s, byte/s.
-- @module tilewave.cost.price_step
local engines = require "tilewave.cost.engines"
local limits = require "tilewave.cost.limits"
local core = require "tilewave.core"

local M = {}

local format, ipairs, min, max, huge = string.format, ipairs, math.min, math.max, math.huge

--- Time of a collective over `n` ranks (src/tilewave.h, tw_collective), s:
-- `kind` "allreduce" takes the faster of ring and tree for this message size,
-- as NCCL's tuner does; else one of allgather_ring, reducescatter_ring, p2p, alltoall.
-- 0 when n <= 1 or bytes <= 0.
function M.collective(kind, bytes, n, link_bw, latency_s)
  if n <= 1 or bytes <= 0 then return 0 end
  local best = huge
  local kinds = kind == "allreduce" and { "allreduce_ring", "allreduce_tree" } or { kind }
  for _, k in ipairs(kinds) do
    local ok, r = pcall(core.collective, { kind = k, bytes = bytes, group = n, link_bw = link_bw, latency_s = latency_s })
    if not ok then -- in the user's terms: the message and link, not the core's fields
      error(format("communication: a %s of %.4g bytes over %d ranks on a %.4g byte/s link gives no finite time "
        .. "(the model's size or the cluster's link_bw and latency_s out of range)", kind, bytes, n, link_bw), 0)
    end
    if r.time_s < best then best = r.time_s end
  end
  return max(best, limits.collective(kind, bytes, n, link_bw))
end

--- One decode step (src/tilewave.h, tw_decode_step) under engine `eng`
-- (resolved) with `kernels` launches: the core's result; with launch "host"
-- the step takes at least kernels * host_s, and every step adds the engine's
-- token_host_s and seq_host_s per sequence.
function M.decode(args, eng, vendor)
  local ks = engines.kernel_s(eng, vendor)
  args.launch_s = ks
  local r = core.decode(args)
  r.kernels = args.kernels
  local host = eng.launch == "host" and args.kernels * (eng.host_s or 0) or 0
  if host > r.tpot_s then
    r.overhead_s = r.overhead_s + host - r.tpot_s
    r.tpot_s = host
    r.bound = "host"
  end
  r.host_s = (eng.token_host_s or 0) + (eng.seq_host_s or 0) * args.batch
  -- no byte faster than HBM, no FLOP faster than the peak (tilewave.cost.limits)
  r.floor_s = limits.decode(r.bytes, r.flops, args.mem_bw, args.peak_flops)
  if r.floor_s > r.tpot_s then r.tpot_s, r.bound = r.floor_s, "ceiling" end
  r.tpot_s = r.tpot_s + r.host_s
  return r
end

--- Decode attention's share of the DRAM rate on the KV cache, and its context splits
-- (src/tilewave.h, tw_splitkv: flash-attn's num_splits_heuristic over 2 x `sms` slots, block_n
-- 256 / 128 / 64 keys for head dims <= 64 / <= 128 / above; a GQA group's queries packed in one
-- block of 64 rows, flash-attn's seqlenq_ngroups_swapped). `mode` "split_kv" (FlashDecoding,
-- flash-attn >= 2.2), "no_split" (one block per sequence and query head: FlashAttention before
-- 2.2), "mmha" (TensorRT-LLM's masked multi-head attention before its XQA kernel, releases < 0.8:
-- one block per sequence and query head, each streaming its KV head's cache, so a GQA group of g
-- query heads reads the cache g times; multi-block mode off, its default then), "xqa" (TensorRT-LLM's
-- XQA kernel, 0.8 - 0.11, multi-block mode off: one block per sequence and KV head, its group's
-- queries packed, streaming the whole context; multi-block mode became a runtime option on by
-- default in 0.12, NVIDIA/TensorRT-LLM#2119) or "full" (every SM streams); `sms` nil gives "full"
-- (with one read).
-- @return efficiency in (0, 1], splits (integer >= 1), thread blocks launched (nil for "full"),
--   reads (how many times a step streams the KV cache: 1, or the GQA group for "mmha"; source:
--   TensorRT-LLM blog "New XQA-kernel provides 2.4x more Llama-70B throughput", docs/source/blogs/
--   XQA-kernel.md, v0.8: XQA "reducing data loading" for MQA/GQA in the generation phase)
-- `lone` (optional, > 0): the rate one block streams at when few run, over the whole chip's KV
-- rate (M.lone_block_share): under "xqa", with fewer blocks than SMs each streams at that rate,
-- not a 1/sms share, up to the chip's. The other modes keep the 1/sms share their engines'
-- figures were fitted with (the gpt-fast decode rows: the rate was measured on XQA alone).
function M.decode_kv_eff(mode, sms, batch, kv_heads, q_heads, head_dim, context, lone)
  local group = -(-q_heads // kv_heads) -- query heads per KV head, packed as rows of one block
  local reads = mode == "mmha" and group or 1
  if mode == "full" or not sms then return 1, 1, nil, reads end
  local block_n = head_dim <= 64 and 256 or head_dim <= 128 and 128 or 64
  local per_head = mode == "no_split" or mode == "mmha"
  local per_seq = per_head and q_heads or kv_heads * -(-group // 64)
  -- in floating point, held below 2^53: past 0.8 x slots blocks the core picks one split at
  -- efficiency 1
  local r = core.splitkv { blocks = min(2 ^ 53, batch * 1.0 * per_seq),
                           kv_blocks = min(2 ^ 53, -(-context // block_n) * 1.0), sms = sms, slots = 2 * sms,
                           max_splits = (per_head or mode == "xqa") and 0 or 128 }
  local eff = r.efficiency
  if lone and mode == "xqa" and eff < 1 then eff = math.max(eff, math.min(1, r.blocks * lone)) end
  return eff, r.splits, r.blocks, reads
end

--- KV elements one decode-attention thread block streams per SM clock when it runs alone on its
-- SM (one block per sequence and KV head over the whole context, as TensorRT-LLM's XQA without
-- multi-block mode runs it): the block's own load issue, not the chip's bandwidth, sets its rate.
-- Fitted: the batch-1 ITL rise from 200 to 7,000 tokens of context in the NIM rows of
-- ../shared/reference/serving/published_given_2.csv (7 pairs: Llama 3 8B and 70B at t = 1, 4, 8 on
-- H100 and A100, FP16 and FP8 KV), each pair's rise over the context's KV elements a block streams
-- and the SM clock: 12.9 to 17.0 elements a clock, mean 14.4, spread within +-18%.
M.LONE_BLOCK_KV_ELEMS_PER_CLK = 14.4

--- One lone block's KV rate over the chip's (for M.decode_kv_eff's `lone`): the block's rate
-- (M.LONE_BLOCK_KV_ELEMS_PER_CLK x `clock_hz` x `kv_elem_bytes`, byte/s) over `kv_rate` (byte/s,
-- the DRAM rate the KV stream gets); nil without a clock.
function M.lone_block_share(clock_hz, kv_elem_bytes, kv_rate)
  if not clock_hz or not (kv_rate > 0) then return nil end
  return M.LONE_BLOCK_KV_ELEMS_PER_CLK * clock_hz * kv_elem_bytes / kv_rate
end

--- The memory budget (src/tilewave.h, tw_memory_fit).
function M.memory_fit(args) return core.memory_fit(args) end

--- The roofline bound (src/tilewave.h, tw_roofline).
function M.roofline(args) return core.roofline(args) end

--- Attention HBM traffic, standard against FlashAttention (src/tilewave.h, tw_attention_io).
function M.attention_io(args) return core.attention_io(args) end

--- The functions tilewave.cost.price re-exports as part of the one pricing layer.
M.EXPORTS = { "collective", "decode", "decode_kv_eff", "lone_block_share", "memory_fit", "roofline", "attention_io" }

return M
