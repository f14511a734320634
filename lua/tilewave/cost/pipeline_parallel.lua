--- tilewave.cost.pipeline_parallel: what pipeline parallelism changes in a serving step - each
-- stage's share of the weights and KV cache, and the activations a micro-batch hands from stage to
-- stage - priced through the collective model (tilewave.cost.price_step.collective, p2p).
--
-- Pipeline parallelism as vLLM runs it (`--pipeline-parallel-size`; docs "Distributed Inference
-- and Serving"; vllm/engine/llm_engine.py: one scheduler per "virtual engine", pp of them, each
-- keeping one micro-batch in flight; vllm/core/scheduler.py splits the KV blocks among them): pp
-- stages of t GPUs each hold ceil(L / pp) consecutive layers (the first also the embedding, the
-- last the LM head); a micro-batch passes through the stages in turn, so its step takes the whole
-- model's time at t plus pp - 1 hand-offs of its hidden states, while up to pp micro-batches keep
-- every stage busy. Units: s, byte.
-- @module tilewave.cost.pipeline_parallel
local check = require "tilewave.util.check"
local models = require "tilewave.data.models"
local price = require "tilewave.cost.price"

local M = {}

local format, ceil, max = string.format, math.ceil, math.max

--- GPUs one NVLink domain joins when none is given (hw/clusters/dgx_h100.lua gpus_per_node); a
-- pipeline of more crosses domains between some stages.
M.GPUS_PER_NODE = 8

--- Validate a pipeline-parallel size for model `c`: 1 to its num_hidden_layers.
-- @raise `<path>: expected positive integer, got X`; `<path>: expected at most num_hidden_layers
--   L of <model> (a stage holds one layer at least), got N`
function M.check(c, pp, path)
  pp = check.positive_int(pp or 1, path)
  if pp > c.num_hidden_layers then
    check.fail(path, format("expected at most num_hidden_layers %d of %s (a stage holds one layer at least)",
      c.num_hidden_layers, c.id or c.name), pp)
  end
  return pp
end

--- The busiest stage's share of a rank's weights and of its KV bytes per token, for model `c`
-- over `pp` stages: ceil(L / pp) / L of the layers (every layer's KV alike; a sliding-window layer
-- counted as the others), and of the weights that layer share of the non-embedding parameters
-- plus one v x h embedding matrix (the first stage's input embedding or the last's LM head),
-- parameters standing for bytes (tilewave.data.models.params).
-- @return weight_share, kv_share (fractions of the whole model's, in (0, 1])
function M.stage_share(c, pp)
  if pp <= 1 then return 1, 1 end
  local p, L = models.params(c), c.num_hidden_layers
  local layers = ceil(L / pp) / L
  local embed = c.vocab_size * c.hidden_size / p.total
  return math.min(1, (1 - p.embedding / p.total) * layers + embed), layers
end

--- The hand-offs of one micro-batch through `pp` stages of `t` GPUs, s: pp - 1 point-to-point
-- sends of `bytes` (its tokens x h x element bytes: each rank of a stage sends the whole hidden
-- state to its peer, as vLLM's IntermediateTensors) over the in-node link one way (`link_bw`,
-- byte/s), or the scale-out network (`inter_bw` per GPU one way) at the hops between NVLink
-- domains of `domain` GPUs (default M.GPUS_PER_NODE; tilewave.cost.expert_parallel.node):
-- ceil(t pp / domain) - 1 of them; `latency_s` each.
function M.handoff_s(bytes, t, pp, link_bw, inter_bw, latency_s, domain)
  if pp <= 1 or bytes <= 0 then return 0 end
  local across = max(0, ceil(t * pp / (domain or M.GPUS_PER_NODE)) - 1)
  return (pp - 1 - across) * price.collective("p2p", bytes, 2, link_bw, latency_s)
    + across * price.collective("p2p", bytes, 2, inter_bw, latency_s)
end

return M
