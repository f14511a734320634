--- tilewave.serve.parallel_groups: how a replica's GPUs become replicas of the event loop
-- (src/tw_serve.h) - an expert-parallel group as one replica of ep ranks' KV and limits, a pipeline
-- as pp micro-batch schedulers - and the combinations the simulator runs apart, refused by name.
-- @module tilewave.serve.parallel_groups
local check = require "tilewave.util.check"
local tables = require "tilewave.util.tables"

local M = {}

local format = string.format

--- Validate `expert_imbalance` (the routing skew of tilewave.cost.expert_parallel.imbalance, in
-- [1, ep]; default tilewave.cost.expert_parallel.ROUTING_SKEW) for an expert-parallel size `ep`: only with ep > 1, and
-- ep > 1 neither with disaggregated pools nor with speculative decoding (the simulator runs them apart).
-- @raise `serve.expert_imbalance: ...`, `serve.ep: ...`
function M.imbalance_of(skew, ep, dis, sd)
  skew = require("tilewave.cost.expert_parallel").check_skew(skew, ep, "serve.expert_imbalance")
  if ep > 1 and dis then
    check.fail("serve.ep", "expected 1 with disagg (pools run tensor parallelism only)", ep)
  end
  if ep > 1 and sd then check.fail("serve.ep", "expected 1 with speculative decoding (the simulator runs one or the other)", ep) end
  return skew
end

--- A pipeline-parallel size `pp` alone: with ep = 1, without disaggregated pools or speculative
-- decoding (the simulator runs them apart).
-- @raise `serve.pp: expected 1 with ...`
function M.pp_alone(pp, ep, dis, sd)
  if pp == 1 then return 1 end
  if ep > 1 then check.fail("serve.pp", "expected 1 with ep > 1 (expert parallelism runs one stage)", pp) end
  if dis then check.fail("serve.pp", "expected 1 with disagg (pools run tensor parallelism only)", pp) end
  if sd then check.fail("serve.pp", "expected 1 with speculative decoding (the simulator runs one or the other)", pp) end
  return pp
end

--- A pipeline of `pp` stages as pp replicas of the event loop: vLLM's virtual engines, each its
-- own scheduler with one micro-batch in flight and 1/pp of the KV blocks (vllm/core/scheduler.py),
-- a new request going to the one with the fewest unfinished requests (llm_engine.py add_request:
-- the router "least_loaded", unless `router` is given). Each step is the whole model's (the tables
-- at t plus the hand-offs), so one engine alone leaves pp - 1 stages idle: the bubble at low load.
-- @raise `serve: <model> leaves no KV block per pipeline micro-batch ...`
function M.pp_engines(kv, sched, pp, router)
  kv = tables.copy(kv)
  kv.pipeline_kv_capacity_tokens = kv.kv_capacity_tokens
  local per = math.floor(kv.kv_capacity_tokens / pp / sched.block_size) * sched.block_size
  if per < sched.block_size then
    error(format("serve.pp: %d tokens of KV cache leave no %d-token block to each of %d micro-batches in flight",
      kv.kv_capacity_tokens, sched.block_size, pp), 0)
  end
  kv.kv_capacity_tokens, kv.kv_bytes = per, kv.kv_bytes_per_token * per
  sched = tables.copy(sched)
  if router == nil then sched.router = "least_loaded" end
  return kv, sched
end

--- An expert-parallel group of `ep` ranks as one replica of the event loop: each rank holds its
-- own sequences' KV cache and schedules its own sequences (one scheduler per data-parallel
-- attention rank, every step in lockstep for the MoE layers), so the group's KV capacity and
-- sequence limit are ep times a rank's; its token budget too, unless the scheduler's
-- `dp_attention_tokens` is "global" (SGLang splits one budget over the ranks). A request still
-- needs one rank's KV (checked before).
function M.ep_group(kv, sched, ep)
  kv = tables.copy(kv)
  kv.rank_kv_capacity_tokens = kv.kv_capacity_tokens
  kv.kv_capacity_tokens, kv.kv_bytes = kv.kv_capacity_tokens * ep, kv.kv_bytes * ep
  sched = tables.copy(sched)
  sched.max_num_seqs = sched.max_num_seqs * ep
  if sched.dp_attention_tokens ~= "global" then sched.max_num_batched_tokens = sched.max_num_batched_tokens * ep end
  return kv, sched
end

return M
