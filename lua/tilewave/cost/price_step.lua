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
-- query heads reads the cache g times; multi-block mode off, its default then) or "full" (every
-- SM streams); `sms` nil gives "full" (with one read).
-- @return efficiency in (0, 1], splits (integer >= 1), thread blocks launched (nil for "full"),
--   reads (how many times a step streams the KV cache: 1, or the GQA group for "mmha"; source:
--   TensorRT-LLM blog "New XQA-kernel provides 2.4x more Llama-70B throughput", docs/source/blogs/
--   XQA-kernel.md, v0.8: XQA "reducing data loading" for MQA/GQA in the generation phase)
function M.decode_kv_eff(mode, sms, batch, kv_heads, q_heads, head_dim, context)
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
                           max_splits = per_head and 0 or 128 }
  return r.efficiency, r.splits, r.blocks, reads
end

--- The memory budget (src/tilewave.h, tw_memory_fit).
function M.memory_fit(args) return core.memory_fit(args) end

--- The roofline bound (src/tilewave.h, tw_roofline).
function M.roofline(args) return core.roofline(args) end

--- Attention HBM traffic, standard against FlashAttention (src/tilewave.h, tw_attention_io).
function M.attention_io(args) return core.attention_io(args) end

return M
