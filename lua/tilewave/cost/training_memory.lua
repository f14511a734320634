--- tilewave.cost.training_memory: memory per GPU of a training split (weights,
-- gradients, optimizer states, activations, workspace), for tilewave.cost.training.
-- Sources: ZeRO (Rajbhandari et al. 2020 §3) for the bytes per parameter and their
-- sharding; Korthikanti et al. 2022 Table 2 for the activations; the 1F1B schedule's
-- micro-batches in flight (Narayanan et al. 2021 §2.2). Units: byte.
local models = require "tilewave.data.models"

local M = {}

local ceil, min = math.ceil, math.min

--- Bytes per parameter of mixed-precision Adam before sharding: bf16 weight 2,
-- bf16 gradient 2, fp32 master weight, momentum and variance 12 (ZeRO §3).
M.BYTES_WEIGHT, M.BYTES_GRAD, M.BYTES_OPTIMIZER = 2, 2, 12
--- Activation bytes of one layer for one micro-batch (Korthikanti et al.
-- 2022, Table 2; 16-bit activations with dropout masks): s*b*h times
--   34 + 5as/h                 no parallelism
--   10 + 24/t + 5as/(ht)       tensor parallel
--   34/t + 5as/(ht)            tensor + sequence parallel
-- the 5as/h term dropped by selective recomputation (and by FlashAttention,
-- which never stores the scores); full recomputation keeps the layer input,
-- 2sbh (/t with sequence parallelism).
function M.activation_bytes(s, b, h, a, t, sp, checkpointing, flash)
  local sbh = s * b * h
  if checkpointing == "full" then return 2 * sbh / (sp and t or 1) end
  local scores = (checkpointing == "selective" or flash) and 0 or 5 * a * s / (h * t)
  if sp then return sbh * (34 / t + scores) end
  if t == 1 then return sbh * (34 + scores) end
  return sbh * (10 + 24 / t + scores)
end

-- Memory per GPU of configuration x (stage with the most layers; the first
-- stage holds the embedding, the last the LM head; with p = 1 one GPU has both).
-- Expert parameters of the whole model: (total - active) is (E - k) experts' worth.
-- models.params of each config, computed once (a search asks for every split it tries)
local params_of = setmetatable({}, { __mode = "k" })
local function params(c)
  local p = params_of[c]
  if not p then p = models.params(c); params_of[c] = p end
  return p
end

local function expert_params(x)
  if not x.E or x.E <= x.k then return 0 end
  local P = params(x.c)
  return (P.total - P.active) * x.E / (x.E - x.k)
end

-- bytes per parameter x the parameters this rank keeps once ZeRO `stage` shards them
local function sharded(x, bytes, stage, dense_params, expert_rank)
  return bytes * (dense_params / (x.zero >= stage and x.d or 1) + expert_rank / (x.zero >= stage and x.d // x.ep or 1))
end

-- What the memory of split x shares across its checkpointing and ZeRO values (a search tries
-- every pair on one split), kept on x: parameters of the largest stage on this rank (dense,
-- expert), its layers, the micro-batches in flight and the fp32 logits of the last stage.
local function base(x)
  local b = x.mbase_
  if b then return b end
  local c = x.c
  local L, h, v = c.num_hidden_layers, c.hidden_size, c.vocab_size
  local P = params(c)
  local experts = expert_params(x) / L -- per layer, on average
  local per_layer = (P.non_embedding - h) / L - experts
  local layers = ceil(L / x.p)
  local emb = v * h * (c.tie_word_embeddings and 1 or 2)
  -- dense parameters shard over d for ZeRO; expert ones (1/ep on this rank) over the d/ep replicas
  local dense_params = (layers * per_layer + (x.p == 1 and emb or v * h)) / x.t
  local expert_rank = layers * experts / x.t / x.ep
  local in_flight = min(x.p, x.m)
  if x.v > 1 then in_flight = in_flight * (1 + (x.p - 1) / (x.p * x.v)) end
  b = { dense = dense_params, expert = expert_rank, stage = dense_params + expert_rank, layers = layers,
        in_flight = in_flight, logits = 4 * x.s * x.mb * v / x.t }
  x.mbase_ = b
  return b
end

-- weights, gradients, optimizer states and activations of split x at its x.zero and x.ckpt
local function parts(x)
  local b, c = base(x), x.c
  local weights = sharded(x, M.BYTES_WEIGHT, 3, b.dense, b.expert)
  local grads = sharded(x, M.BYTES_GRAD, 2, b.dense, b.expert)
  local optimizer = sharded(x, M.BYTES_OPTIMIZER, 1, b.dense, b.expert)
  local per = M.activation_bytes(x.s, x.mb, c.hidden_size, c.num_attention_heads, x.t, x.sp, x.ckpt,
                                 x.attention == "flash")
  -- logits of the last stage in fp32 for the loss
  local activations = per * b.layers * b.in_flight + b.logits
  return weights, grads, optimizer, activations
end

-- (kept on x as x.mem_: a search checks the memory of a split before it prices its step; whoever
-- changes x.ckpt or x.zero clears x.mem_)
local function memory(x)
  if x.mem_ then return x.mem_ end
  local weights, grads, optimizer, activations = parts(x)
  local mem = { weights = weights, grads = grads, optimizer = optimizer, activations = activations,
                workspace = x.workspace, total = weights + grads + optimizer + activations + x.workspace }
  x.mem_ = mem
  return mem
end

--- The total of memory(x), byte, without its table (a search's fit test).
function M.total(x)
  if x.mem_ then return x.mem_.total end
  local weights, grads, optimizer, activations = parts(x)
  return weights + grads + optimizer + activations + x.workspace
end

--- The parameters of the largest stage on this rank of split x: all, dense, expert.
function M.stage_params(x)
  local b = base(x)
  return b.stage, b.dense, b.expert
end

M.expert_params = expert_params
--- Memory per GPU of a validated split x (tilewave.cost.training.config), kept on x:
-- `{ weights, grads, optimizer, activations, workspace, total }` (byte).
M.memory = memory

return M
