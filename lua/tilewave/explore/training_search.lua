--- tilewave.explore.training_search: every valid 3D-parallel layout of a
-- training run, ranked by the predicted step time of tilewave.cost.training.
--
--   tw.training.search{ model = "geniac-12b", cluster = "dgx_h100", nodes = 4, global_batch = 512,
--     s = 4096 }
--   tw.training.best{ ... the same options }   -- the first row and the counts only
local check = require "tilewave.util.check"
local models = require "tilewave.data.models"
local cluster = require "tilewave.data.cluster"
local training = require "tilewave.cost.training"
local engines = require "tilewave.cost.engines"
local tables = require "tilewave.util.tables"

local M = {}

local format, ipairs, pairs, min, unpack = string.format, ipairs, pairs, math.min, table.unpack

-- What search() and best() share: the options validated once, and the lists to try.
-- the options shared by every split, passed to tilewave.cost.training; the lists to try; the cache
local SHARED = { "model", "cluster", "nodes", "global_batch", "s", "dtype", "attention", "sequence_parallel",
                 "overlap", "workspace_bytes", "interleave", "dropout", "engine", "ep", "grad_accumulation" }
local OPTIONS = { t = true, p = true, micro_batch = true, checkpointing = true, zero = true, cost_cache = true }
for _, f in ipairs(SHARED) do OPTIONS[f] = true end

local function setup(o, path)
  check.table(o, path)
  check.options(o, OPTIONS, path)
  local base = {}
  for _, f in ipairs(SHARED) do base[f] = o[f] end
  -- the engine resolved once for every split (an invalid one is left for each split to reject)
  local ok_e, eng = pcall(engines.resolve, base.engine, "training.engine")
  if ok_e then base.engine = eng end
  local c = models.resolve(o.model, path .. ".model")
  local cl = cluster.resolve(o.cluster or "dgx_h100", path .. ".cluster")
  local gpus = (o.nodes or 1) * cl.gpus_per_node
  local ts = o.t or {}
  -- tensor parallelism stays inside one NVLink domain (a node's 8 GPUs; a GB200 NVL72's 72)
  local domain = math.min(cluster.domain(cl), gpus)
  if not o.t then
    local t = 1
    while t <= domain do ts[#ts + 1] = t; t = t * 2 end
  end
  local ps = o.p or {}
  if not o.p then
    for p = 1, min(c.num_hidden_layers, 64) do
      if gpus % p == 0 then ps[#ps + 1] = p end
    end
  end
  -- per-micro-batch layer costs, shared across searches of the same model when the caller
  -- passes `cost_cache` (keyed by the workload, not the model: one table per model)
  local cache = o.cost_cache or {}
  check.table(cache, path .. ".cost_cache")
  -- the options every split shares, validated once (if they are not valid, each split is
  -- rejected with their error, as training.config would)
  local ok_s, shared = pcall(training.shared, base, "training")
  return {
    cl = cl, gpus = gpus, domain = domain, cache = cache, shared = ok_s and shared or nil,
    shared_err = not ok_s and (tostring(shared):gsub("^training%.", "")) or nil,
    lists = { ts, ps, o.micro_batch or { 1, 2, 4, 8 }, o.checkpointing or { "none", "selective", "full" },
              o.zero or { 0, 1, 2, 3 } },
  }
end

-- search()'s order: faster first, then smaller t, p, micro-batch, ZeRO stage, then checkpointing by
-- name
local function before(a, b)
  if a.tokens_per_s ~= b.tokens_per_s then return a.tokens_per_s > b.tokens_per_s end
  local ca, cb = a.config, b.config
  for _, f in ipairs { "t", "p", "micro_batch", "zero" } do
    if ca[f] ~= cb[f] then return ca[f] < cb[f] end
  end
  return ca.checkpointing < cb.checkpointing
end

-- A fresh split of the shared options, or nil and the reason it is not valid.
local function split_of(shared, t, p, mb, ck, z)
  local x = tables.copy(shared)
  local ok
  ok, x = pcall(training.split, x, { t = t, p = p, micro_batch = mb, checkpointing = ck, zero = z }, "training")
  if not ok then return nil, (tostring(x):gsub("^training%.", "")) end
  return x
end

--- Every valid (t, p, d, micro-batch, checkpointing, ZeRO) on a cluster,
-- ranked by tokens/s, and the reason each rejected combination fails.
-- @tparam table o step()'s `model`, `cluster`, `nodes`, `global_batch`, `s`,
--   `dtype`, `attention`, `sequence_parallel`, `overlap`, `workspace_bytes`,
--   and the lists to try: `t` (default 1, 2, 4, 8 up to the NVLink domain, tilewave.data.cluster.domain), `p`
--   (default 1 .. min(L, 64) dividing the GPUs), `micro_batch` ({1, 2, 4, 8}),
--   `checkpointing` ({"none", "selective", "full"}), `zero` ({0, 1, 2, 3}); `cost_cache` (a table
--   to reuse across searches of the same model, e.g. over node counts)
-- @return `{ ranked = { step() results, fastest first }, rejected = { { config =, reason = } } }`
function M.search(o)
  local st = setup(o, "training.search")
  local cl, gpus, cache, shared, shared_err = st.cl, st.gpus, st.cache, st.shared, st.shared_err
  local domain = st.domain
  local ranked, rejected = {}, {}
  -- one candidate: a step, or the reason it is rejected
  local function try(t, p, mb, ck, z)
    local desc = { t = t, p = p, d = gpus // (t * p), micro_batch = mb, checkpointing = ck, zero = z }
    if t > domain then
      return nil, desc, format("t = %d spans NVLink domains (%d GPUs per domain)", t, cluster.domain(cl))
    end
    if shared_err then return nil, desc, shared_err end
    local x, why = split_of(shared, t, p, mb, ck, z)
    if not x then return nil, desc, why end
    -- memory first: a split that does not fit is rejected without pricing its step
    local mem = training.memory(x)
    local has = require("tilewave.data.hw").memory(x.spec)
    if mem.total > has then
      return nil, desc, format("does not fit: needs %.1f GB per GPU, has %.1f GB", mem.total / 1e9, has / 1e9)
    end
    local okr, res = pcall(training._step, x, cache)
    if not okr then return nil, desc, (tostring(res):gsub("^training%.", "")) end
    return res
  end
  -- every combination, in the order of the lists (t outermost, ZeRO innermost)
  local lists = st.lists
  local ts, ps, mbs, cks, zs = unpack(lists)
  local pick = { 1, 1, 1, 1, 1 }
  local empty = false
  for _, l in ipairs(lists) do empty = empty or #l == 0 end
  while not empty do
    local res, desc, reason = try(ts[pick[1]], ps[pick[2]], mbs[pick[3]], cks[pick[4]], zs[pick[5]])
    if res then ranked[#ranked + 1] = res
    else rejected[#rejected + 1] = { config = desc, reason = reason } end
    local i = #lists
    while i >= 1 do
      pick[i] = pick[i] + 1
      if pick[i] <= #lists[i] then break end
      pick[i] = 1
      i = i - 1
    end
    if i == 0 then break end
  end
  table.sort(ranked, before)
  return { ranked = ranked, rejected = rejected }
end

--- search()'s first row and its counts, without its lists: the same answer for a
-- fraction of the work (the report's training view). Whether a split is valid is
-- worked out once per (t, p, micro-batch) and once per checkpointing and ZeRO value
-- (split() checks those apart from the rest); each valid split that fits is priced by its
-- tokens/s alone, and the fastest one's step() table is built at the end.
-- @tparam table o as search()
-- @return `{ best = search()'s ranked[1] or nil, valid = #ranked, rejected = #rejected }`
function M.best(o)
  local st = setup(o, "training.best")
  local cl, cache, shared, domain = st.cl, st.cache, st.shared, st.domain
  local ts, ps, mbs, cks, zs = unpack(st.lists)
  local per_t = #ps * #mbs * #cks * #zs
  local valid, rejected, best = 0, 0, nil
  -- the checkpointing and ZeRO values split() accepts (tilewave.cost.training)
  local ck_ok, z_ok = {}, {}
  for i, ck in ipairs(cks) do
    local v = ck or "none"
    ck_ok[i] = v == "none" or v == "selective" or v == "full"
  end
  for i, z in ipairs(zs) do
    local v = z or 0
    z_ok[i] = v == 0 or v == 1 or v == 2 or v == 3
  end
  for _, t in ipairs(ts) do
    if t > domain or not shared then
      rejected = rejected + per_t
    else
      for _, p in ipairs(ps) do
        for _, mb in ipairs(mbs) do
          local x = split_of(shared, t, p, mb, "none", 0)
          for i, ck_given in ipairs(cks) do
            for j, z_given in ipairs(zs) do
              local ck, z = ck_given or "none", z_given or 0
              local ok = x and ck_ok[i] and z_ok[j]
              if ok then
                x.ckpt, x.zero, x.mem_ = ck, z, nil
                ok = not (training.memory_total(x) > require("tilewave.data.hw").memory(x.spec))
              end
              local tps
              if ok then ok, tps = pcall(training.tokens_per_s, x, cache) end
              if ok then
                valid = valid + 1
                local cand = { tokens_per_s = tps,
                               config = { t = t, p = p, micro_batch = mb, zero = z, checkpointing = ck } }
                if not best or before(cand, best) then best = cand end
              else
                rejected = rejected + 1
              end
            end
          end
        end
      end
    end
  end
  if best then
    local b = best.config
    best = training._step(split_of(shared, b.t, b.p, b.micro_batch, b.checkpointing, b.zero), cache)
  end
  return { best = best, valid = valid, rejected = rejected }
end

return M
