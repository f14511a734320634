--- tilewave.explore.training_search: every valid 3D-parallel layout of a
-- training run, ranked by the predicted step time of tilewave.cost.training.
--
--   tw.training.search{ model = "geniac-12b", cluster = "dgx_h100", nodes = 4, global_batch = 512, s = 4096 }
local check = require "tilewave.util.check"
local models = require "tilewave.data.models"
local cluster = require "tilewave.data.cluster"
local training = require "tilewave.cost.training"
local engines = require "tilewave.cost.engines"

local M = {}

local format, ipairs, pairs, min = string.format, ipairs, pairs, math.min

--- Every valid (t, p, d, micro-batch, checkpointing, ZeRO) on a cluster,
-- ranked by tokens/s, and the reason each rejected combination fails.
-- @tparam table o step()'s `model`, `cluster`, `nodes`, `global_batch`, `s`,
--   `dtype`, `attention`, `sequence_parallel`, `overlap`, `workspace_bytes`,
--   and the lists to try: `t` (default 1, 2, 4, 8 up to gpus_per_node), `p`
--   (default 1 .. min(L, 64) dividing the GPUs), `micro_batch` ({1, 2, 4, 8}),
--   `checkpointing` ({"none", "selective", "full"}), `zero` ({0, 1, 2, 3}); `cost_cache` (a table
--   to reuse across searches of the same model, e.g. over node counts)
-- @return `{ ranked = { step() results, fastest first }, rejected = { { config =, reason = } } }`
function M.search(o)
  check.table(o, "training.search")
  local base = {}
  for _, f in ipairs { "model", "cluster", "nodes", "global_batch", "s", "dtype", "attention", "sequence_parallel",
                       "overlap", "workspace_bytes", "interleave", "dropout", "engine", "ep" } do base[f] = o[f] end
  -- the engine resolved once for every split (an invalid one is left for each split to reject)
  local ok_e, eng = pcall(engines.resolve, base.engine, "training.engine")
  if ok_e then base.engine = eng end
  local c = models.resolve(o.model, "training.search.model")
  local cl = cluster.resolve(o.cluster or "dgx_h100", "training.search.cluster")
  local gpus = (o.nodes or 1) * cl.gpus_per_node
  local ts = o.t or {}
  if not o.t then
    local t = 1
    while t <= cl.gpus_per_node do ts[#ts + 1] = t; t = t * 2 end
  end
  local ps = o.p or {}
  if not o.p then
    for p = 1, min(c.num_hidden_layers, 64) do
      if gpus % p == 0 then ps[#ps + 1] = p end
    end
  end
  local mbs = o.micro_batch or { 1, 2, 4, 8 }
  local cks = o.checkpointing or { "none", "selective", "full" }
  local zs = o.zero or { 0, 1, 2, 3 }
  -- per-micro-batch layer costs, shared across searches of the same model when the caller
  -- passes `cost_cache` (keyed by the workload, not the model: one table per model)
  local cache = o.cost_cache or {}
  check.table(cache, "training.search.cost_cache")
  local ranked, rejected = {}, {}
  -- the options every split shares, validated once (if they are not valid, each split is
  -- rejected with their error, as training.config would)
  local ok_s, shared = pcall(training.shared, base, "training")
  local shared_err = not ok_s and (tostring(shared):gsub("^training%.", "")) or nil
  -- one candidate: a step, or the reason it is rejected
  local function try(t, p, mb, ck, z)
    local desc = { t = t, p = p, d = gpus // (t * p), micro_batch = mb, checkpointing = ck, zero = z }
    if t > cl.gpus_per_node then
      return nil, desc, format("t = %d spans nodes (%d GPUs per node)", t, cl.gpus_per_node)
    end
    if shared_err then return nil, desc, shared_err end
    local x = {}
    for k, v in pairs(shared) do x[k] = v end
    local ok
    ok, x = pcall(training.split, x, { t = t, p = p, micro_batch = mb, checkpointing = ck, zero = z }, "training")
    if not ok then return nil, desc, (tostring(x):gsub("^training%.", "")) end
    -- memory first: a split that does not fit is rejected without pricing its step
    local mem = training.memory(x)
    if mem.total > x.spec.memory_bytes then
      return nil, desc, format("does not fit: %.1f GB per GPU > %.1f GB", mem.total / 1e9, x.spec.memory_bytes / 1e9)
    end
    local okr, res = pcall(training._step, x, cache)
    if not okr then return nil, desc, (tostring(res):gsub("^training%.", "")) end
    return res
  end
  -- every combination, in the order of the lists (t outermost, ZeRO innermost)
  local lists = { ts, ps, mbs, cks, zs }
  local pick = { 1, 1, 1, 1, 1 }
  local empty = false
  for _, l in ipairs(lists) do empty = empty or #l == 0 end
  while not empty do
    local res, desc, reason, partial = try(ts[pick[1]], ps[pick[2]], mbs[pick[3]], cks[pick[4]], zs[pick[5]])
    if res then ranked[#ranked + 1] = res
    else rejected[#rejected + 1] = { config = desc, reason = reason, result = partial } end
    local i = #lists
    while i >= 1 do
      pick[i] = pick[i] + 1
      if pick[i] <= #lists[i] then break end
      pick[i] = 1
      i = i - 1
    end
    if i == 0 then break end
  end
  table.sort(ranked, function(a, b)
    if a.tokens_per_s ~= b.tokens_per_s then return a.tokens_per_s > b.tokens_per_s end
    local ca, cb = a.config, b.config
    for _, f in ipairs { "t", "p", "micro_batch", "zero" } do
      if ca[f] ~= cb[f] then return ca[f] < cb[f] end
    end
    return ca.checkpointing < cb.checkpointing
  end)
  return { ranked = ranked, rejected = rejected }
end

return M
