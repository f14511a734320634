--- tilewave.cost.expert_parallel: what expert parallelism adds to a MoE step - the busiest rank's
-- share of the routed tokens and the dispatch and combine all-to-alls - priced through the
-- collective model (tilewave.cost.price_step.collective).
--
-- Expert parallelism as SGLang (`--enable-dp-attention --ep-size N`, docs "Expert Parallelism";
-- LMSYS blog 2025-05-05 "Deploying DeepSeek with PD Disaggregation and Large-scale Expert
-- Parallelism on 96 H100 GPUs") and vLLM (`--enable-expert-parallel` with `--data-parallel-size`,
-- docs "Expert Parallel Deployment") run it: each of `ep` GPUs holds E/ep experts and the
-- attention, dense layers and shared experts whole (t = 1), runs attention data-parallel over its
-- own sequences, and every MoE layer sends each token copy to its expert's rank (dispatch) and
-- back (combine). All ranks run every MoE layer together, so a step takes the busiest rank's time.
-- Units: s, byte, token.
-- @module tilewave.cost.expert_parallel
local check = require "tilewave.util.check"
local models = require "tilewave.data.models"
local price = require "tilewave.cost.price"

local M = {}

local format, sqrt, log, min, max = string.format, math.sqrt, math.log, math.min, math.max

--- GPUs one NVLink domain joins when none is given: an 8-GPU HGX/DGX node
-- (hw/clusters/dgx_h100.lua gpus_per_node). An all-to-all over more ranks crosses the nodes'
-- InfiniBand.
M.GPUS_PER_NODE = 8

--- The node device `spec` ships in (its `node`, hw/clusters; DGX H100's when it names none:
-- tilewave.data.cluster.of_device): the GPUs one NVLink or Infinity Fabric domain joins, and the
-- scale-out bandwidth per GPU between domains, one way, byte/s (DGX H100: 8 and 8 x ConnectX-7
-- NDR 400 Gb/s = 50 GB/s; GB200 NVL72: 72 and 50 GB/s).
-- @return domain (GPUs), inter_bw (byte/s), the cluster
function M.node(spec)
  local cluster = require "tilewave.data.cluster"
  local cl = cluster.of_device(spec, (spec.id or "hw") .. ".node")
  return cluster.domain(cl), cl.inter.bw, cl
end

--- The scale-out bandwidth per GPU between two nodes of device `spec`, one way, byte/s (M.node).
function M.inter_node_bw(spec)
  local _, bw = M.node(spec)
  return bw
end

--- Routing skew, default: 1, the busiest rank's routed tokens equal to the mean apart from the
-- random spread of one batch (M.imbalance), as an expert placement balanced on the observed load
-- gives it: DeepSeek-V3 technical report (arXiv 2412.19437) §3.4 "redundant experts" and EPLB
-- (github.com/deepseek-ai/EPLB), which SGLang runs with `--enable-eplb` and vLLM with
-- `--enable-eplb`. A placement not balanced that way is a skew above 1 (`expert_imbalance`); SGLang's
-- LMSYS post of 2025-05-05 reports EPLB's speedup as 1.49x (prefill) and 2.54x (decode), the size of
-- the skew an unbalanced placement carries at that scale.
M.ROUTING_SKEW = 1

--- The busiest of `ep` ranks' routed token copies over the mean, when `copies` token copies
-- (tokens x k, the step's across every rank) go to experts spread evenly over the ranks, times
-- `skew` (>= 1): the maximum load of `copies` balls in `ep` bins, m/n + sqrt(2 (m/n) ln n)
-- (Raab and Steger 1998, "Balls into bins - a simple and tight analysis", Theorem 1, m >= n ln n),
-- as a ratio to the mean m/n; at most ep (every copy on one rank). 1 when ep = 1.
-- Few tokens a step make the ratio large: the batch-size cliff of a wide expert-parallel group.
function M.imbalance(copies, ep, skew)
  skew = skew or M.ROUTING_SKEW
  if ep <= 1 then return 1 end
  local mean = max(copies, 1) / ep
  return min(ep, skew * (1 + sqrt(2 * log(ep) / mean)))
end

--- M.imbalance of a step of `tokens` tokens each routed to `k` experts: its tokens x k copies are
-- what the ranks' experts share, so the busiest rank's load is taken over the copies, never over
-- the tokens (decode's step and serve's lin(n), tilewave.cost.step_parts.ep_lin, both ask it here).
function M.rank_imbalance(tokens, k, ep, skew) return M.imbalance(tokens * k, ep, skew) end

--- Validate an expert-parallel size for model `c`: 1, or a divisor of its routed experts with
-- t = 1 (attention data-parallel across the ep ranks).
-- @raise `<path>: <model> has no experts to spread (expected ep = 1)`; `<path>: expected a divisor
--   of the E experts, got N`; `<path>: expected t = 1 with expert parallelism, got N`
function M.check(c, ep, t, path)
  ep = check.positive_int(ep or 1, path)
  if ep == 1 then return 1 end
  local E = models.experts(c)
  if not E then error(format("%s: %s has no experts to spread (expected ep = 1)", path, c.id or c.name), 0) end
  if E % ep ~= 0 then check.fail(path, format("expected a divisor of the %d experts", E), ep) end
  if t > 1 then check.fail(path, "expected t = 1 with expert parallelism (attention data-parallel)", ep) end
  return ep
end

--- Validate a routing skew `skew` (nil: the default) for an expert-parallel size `ep`: a number in
-- [1, ep], and none when ep = 1.
-- @raise `<path>: expected none without ep > 1, got X`; `<path>: expected a number in [1, ep] ...`
function M.check_skew(skew, ep, path)
  if skew == nil then return nil end
  if ep == 1 then check.fail(path, "expected none without ep > 1", skew) end
  if type(skew) ~= "number" or not (skew >= 1 and skew <= ep) then
    check.fail(path, format("expected a number in [1, %d] (the busiest rank's routed tokens over the mean)", ep), skew)
  end
  return skew
end

--- The MoE layers of model `c` and the experts each token goes to (k), from its op list `ops`
-- (tilewave.ops.layers.moe_mlp: the expert ops carry `experts_per_token` and their layer count).
-- @return moe_layers, k (0, 0 for a dense model)
function M.moe_layers(ops)
  -- the layers summed over the expert ops' variants (tilewave.ops.layers.experts_run: a grouped
  -- GEMM's two problem counts, each over its share of the layers)
  local layers, k = 0, 0
  for _, op in ipairs(ops) do
    if op.experts and op.role == "mlp_down" then layers, k = layers + op.count, op.experts_per_token end
  end
  return layers, k
end

--- The dispatch and combine all-to-alls of one MoE layer, s: each rank sends `bytes` (its token
-- copies x h x element bytes) spread over the other ranks. Within one NVLink domain (ep <=
-- `domain` GPUs, default M.GPUS_PER_NODE; a GB200 NVL72's 72, M.node) over `link_bw`, the domain's
-- link one way (byte/s); past it, the share bound for other domains crosses the scale-out network
-- (`inter_bw` per GPU, one way, byte/s: the node's, M.node) while the rest crosses NVLink, and the
-- slower of the two sets the time. `latency_s` per collective (the engine's comm_latency_s).
function M.alltoall_pair_s(bytes, ep, link_bw, inter_bw, latency_s, domain)
  if ep <= 1 or bytes <= 0 then return 0 end
  local g = domain or M.GPUS_PER_NODE
  if ep <= g then
    return 2 * price.collective("alltoall", bytes, ep, link_bw, latency_s)
  end
  -- g of the ep ranks share a node: (g - 1) / ep of the bytes stay on NVLink, (ep - g) / ep leave
  local intra = price.collective("alltoall", bytes * g / ep, g, link_bw, latency_s)
  local inter = price.collective("p2p", bytes * (ep - g) / ep, 2, inter_bw, latency_s)
  return 2 * max(intra, inter)
end

return M
