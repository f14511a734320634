--- tilewave.cost.decode_terms: the terms of a decode step that do not depend on its context - the
-- weight bytes it reads, the parameters it multiplies, the kernels it launches - for
-- tilewave.cost.inference.decode and .memory, each worked out once per config, tensor-parallel
-- size, weight format, batch (only where it changes them: a MoE step reads the experts its tokens
-- touch, an unfused MoE loop launches per expert hit) and engine fusion, then read. A serving
-- table prices hundreds of decode steps of one deployment at other contexts
-- (tilewave.serve.steps); these are the same for all of them.
--
-- Caches are keyed weakly by the config (and the engine's fusion table), so a config no longer
-- used is collected with its entries; a cached value is returned as computed, never copied: the
-- op lists are shared and only read. Sources: the formulas are inference's (weight bytes:
-- tilewave.data.quant.weight_bytes over the step's GEMMs; kernels: tilewave.cost.kernels.count).
-- Units: byte, parameters, kernels.
-- @module tilewave.cost.decode_terms
local models = require "tilewave.data.models"
local transformer = require "tilewave.ops.transformer"
local quant = require "tilewave.data.quant"
local kernels = require "tilewave.cost.kernels"

local M = {}
local ipairs = ipairs

local function weak() return setmetatable({}, { __mode = "k" }) end

-- The ops of one decode step (b = 1, s = 1) of validated config c at tensor-parallel size t:
-- built once per config (weak keys) and (t, attention), and only read here.
local step_ops_of = weak()
local function step_ops(c, t, attention)
  local per = step_ops_of[c] or {}
  step_ops_of[c] = per
  local key = t .. "/" .. tostring(attention)
  per[key] = per[key] or transformer.ops(c, { b = 1, s = 1, t = t, attention = attention })
  return per[key]
end

-- a format's key: its name and group (tilewave.data.quant.format derives every other field from them)
local function fmt_key(fmt) return fmt.name .. "/" .. tostring(fmt.group) end

-- the config's entry of cache `memo`, made on first use
local function per(memo, c)
  local e = memo[c]
  if not e then
    e = {}
    memo[c] = e
  end
  return e
end

--- Weight bytes read per decode step (per rank) and the parameters multiplied per token.
-- `batch` (decode) reads only the experts a MoE step touches; nil (memory) counts every expert as
-- resident. With expert parallelism `ep` each rank holds 1/ep of the experts. Norms and biases,
-- the non-embedding parameters outside the layer GEMMs, count in 16 bits.
-- @return bytes, matmul params, the op list, MoE layers (expert ops' layer count), the first
--   expert op (nil for a dense model), the expert params multiplied per token
local weights_of = weak()
local function compute_weights(c, t, fmt, batch, ep)
  local ops = step_ops(c, t)
  local bytes, params = quant.weight_bytes(ops, fmt, c.num_hidden_layers, batch)
  local experts, moe_layers = {}, 0
  for _, op in ipairs(ops) do
    if op.experts then
      experts[#experts + 1] = op
      if op.role == "mlp_down" then moe_layers = moe_layers + op.count end
    end
  end
  local expert_bytes, expert_params = 0, 0
  if (ep or 1) > 1 then
    expert_bytes, expert_params = quant.weight_bytes(experts, fmt, c.num_hidden_layers, batch)
    bytes = bytes - expert_bytes + expert_bytes / ep
  end
  local layer_gemm = 0
  for _, op in ipairs(step_ops(c, 1)) do
    if op.kind == "gemm" and op.scope == "layer" then
      layer_gemm = layer_gemm + op.n * op.k * op.count * (op.experts or 1)
    end
  end
  local other = math.max(0, models.params(c).non_embedding - layer_gemm)
  return { bytes + 2 * other, params, ops, moe_layers, experts[1], expert_params }
end

function M.weights(c, t, fmt, batch, ep)
  local e = per(weights_of, c)
  -- a dense step reads the same bytes at any batch
  local moe = e.moe
  if moe == nil then
    moe = false
    for _, op in ipairs(step_ops(c, t)) do if op.experts then moe = true end end
    e.moe = moe
  end
  local key = t .. "/" .. fmt_key(fmt) .. "/" .. (moe and tostring(batch) or "*") .. "/" .. tostring(ep)
  local r = e[key]
  if not r then
    r = compute_weights(c, t, fmt, batch, ep)
    e[key] = r
  end
  return r[1], r[2], r[3], r[4], r[5], r[6]
end

--- Bytes and parameters of every stored weight matrix of a decode op list `ops` (the step's, at
-- t): every expert once, scales included (tilewave.data.quant.weight_bytes without a batch).
-- @return stored bytes, stored parameters
local stored_of = weak()
function M.stored(c, t, fmt, ops)
  local e = per(stored_of, c)
  local key = t .. "/" .. fmt_key(fmt)
  local r = e[key]
  if not r then
    local bytes, _, stored = quant.weight_bytes(ops, fmt, c.num_hidden_layers)
    r = { bytes, stored }
    e[key] = r
  end
  return r[1], r[2]
end

--- Kernel launches of one decode step under engine `eng`: the engine's own count (llama.cpp's
-- graph nodes) or the kernels its fusion makes of the step's ops (tilewave.cost.kernels; attention
-- is one kernel over the cache; an unfused MoE loop over the experts `batch` tokens hit on one of
-- `ep` ranks).
local launches_of = weak()
function M.launches(c, t, eng, batch, ep)
  if eng.kernels_per_layer then return eng.kernels_per_layer * c.num_hidden_layers + (eng.kernels_fixed or 0) end
  local f = eng.fusion
  local by_fusion = launches_of[c]
  if not by_fusion then
    by_fusion = weak()
    launches_of[c] = by_fusion
  end
  local fk = type(f) == "table" and f or tostring(f) -- a fusion table by identity, held weakly
  local e = by_fusion[fk] or {}
  by_fusion[fk] = e
  local key = t .. "/" .. tostring(batch) .. "/" .. tostring(ep)
  local n = e[key]
  if not n then
    n = 0
    for _, op in ipairs(step_ops(c, t, "flash")) do
      n = n + kernels.count(op, f, batch, ep) * op.count
    end
    e[key] = n
  end
  return n
end

return M
