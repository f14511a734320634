--- tilewave.explore.sweep_factor: the factorized pricing of a sweep's grid
-- (tilewave.explore.sweep). Each op's shape depends on only some of the varied fields (found
-- by changing one field at a time from the base); ops are grouped by that dependency set, and
-- a config's time and FLOP are the sum over the groups of each group's sums at the config's
-- combination of the group's fields. A group of at most M.FACTORIZE_MAX combinations is
-- priced up front (GEMMs in batches through tilewave.cost.price.gemm_many); a larger one as its
-- combinations are met, through a cache of at most M.CACHE_MAX of them, so memory stays flat
-- however many distinct values the grid passes. A group (up front or lazy) that holds only ops
-- outside the layers that one constructor of tilewave.ops.layers builds (the LM head, the
-- embedding: checked against the family's op at the base and every probe) has only those ops
-- built per combination, not the whole op list. The sweep verifies the result against
-- tilewave.transformer.estimate on sampled configs before using it.
-- @module tilewave.explore.sweep_factor
local price = require "tilewave.cost.price"
local layers = require "tilewave.ops.layers"
local tables = require "tilewave.util.tables"

local M = {}

local format, ipairs, pairs = string.format, ipairs, pairs

--- Most combinations of one group of fields priced up front (2^16); a larger group is priced
-- as its combinations are met, through a bounded cache (M.CACHE_MAX).
M.FACTORIZE_MAX = 65536

--- Most combinations of a large group kept at once (the cache is emptied when full), so that
-- memory stays flat however many distinct values a grid passes.
M.CACHE_MAX = 4096

--- Most values of one field tried when finding which ops depend on it (all of a shorter list;
-- of a longer one, this many spread evenly over it, its first and last included).
M.PROBE_MAX = 4096

local function copy(t)
  local o = tables.copy(t)
  return o
end

local function op_sig(op)
  return format("%s|%s|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g", op.role, op.kind, op.m, op.n, op.k, op.batch, op.count, op.bytes)
end

-- The ops outside the layers that the families build with one constructor of tilewave.ops.layers
-- each (by role): a lazy group of these alone is rebuilt per row without the family's builder,
-- once every probe showed the constructor giving the family's op (M.factorize).
local STANDALONE = { logits = layers.logits, embedding = layers.embedding }

local function same_op(a, b)
  return op_sig(a) == op_sig(b) and a.scope == b.scope and a.name == b.name and a.flops == b.flops
    and a.model_flops == b.model_flops and a.elems == b.elems and a.elem_bytes == b.elem_bytes
end

-- a GEMM-like op with a shape the core cannot price (a fraction or zero from the config)
local function unpriceable(op)
  return op.kind ~= "elementwise"
    and not (op.m >= 1 and op.n >= 1 and op.k >= 1 and op.m % 1 == 0 and op.n % 1 == 0 and op.k % 1 == 0)
end

--- The factorization of grid `G` on device `spec`, or nil when the ops change structure
-- across the grid (the sweep then prices config by config).
-- @tparam table G `{ base (config), fam (family), fields (sorted names), vary, size, stride
--   (per field, last fastest), ew (workload), wl (with its engine), derive (function(r) filling
--   the derived fields), raw_at (function(idx[, into]) -> the config of row idx, filled into a
--     table
--   it filled before when given) }`
-- @tparam table spec a resolved device spec (tilewave.data.hw)
-- @return a pricer `{ groups, ... }` for M.row
function M.factorize(G, spec)
  -- 115 lines, one function: one pass over the base ops by role, building the groups whose per-role
  -- state the later roles read
  local base, fam, fields, vary, size, ew, wl = G.base, G.fam, G.fields, G.vary, G.size, G.ew, G.wl
  local nf = #fields
  local base_ops = fam.ops(base, ew)
  local P = { n_ops = #base_ops, roles = {}, G = G }
  for i, op in ipairs(base_ops) do P.roles[i] = op.role end
  local deps = {}
  for i = 1, #base_ops do deps[i] = {} end
  -- ops a STANDALONE constructor rebuilds exactly, at the base and at every probe
  local standalone = {}
  for i, op in ipairs(base_ops) do
    local make = STANDALONE[op.role]
    standalone[i] = make ~= nil and same_op(make(base, ew), op)
  end
  for fi, f in ipairs(fields) do
    local list = vary[f]
    local probes = math.min(#list, M.PROBE_MAX)
    for p = 1, probes do
      local v = list[probes == #list and p or 1 + (p - 1) * (#list - 1) // (probes - 1)]
      local r = copy(base)
      r[f] = v
      G.derive(r)
      local ok, ops = pcall(fam.ops, r, ew)
      if not ok or #ops ~= #base_ops then return nil end
      for i, op in ipairs(ops) do
        if op.role ~= base_ops[i].role then return nil end
        if op_sig(op) ~= op_sig(base_ops[i]) then deps[i][fi] = true end
        if standalone[i] and not same_op(STANDALONE[op.role](r, ew), op) then standalone[i] = false end
      end
    end
  end
  -- group ops by dependency set
  local groups, by_key = {}, {}
  for i = 1, #base_ops do
    local key, list = {}, {}
    for fi = 1, nf do
      if deps[i][fi] then key[#key + 1] = tostring(fi); list[#list + 1] = fi end
    end
    local k = table.concat(key, ",")
    if not by_key[k] then
      by_key[k] = { fields = list, ops = {} }
      groups[#groups + 1] = by_key[k]
    end
    local g = by_key[k].ops
    g[#g + 1] = i
  end
  -- per group: strides over its own fields, and the sums for every combination; a group of
  -- more than M.FACTORIZE_MAX combinations is priced as its combinations are met (lazy)
  local ctx = price.context(spec, wl.dtype, wl.engine, "sweep.workload")
  for _, g in ipairs(groups) do
    local gsize, gstride, n = {}, {}, 1
    for j = #g.fields, 1, -1 do
      gsize[j] = size[g.fields[j]]
      gstride[j] = n
      n = n * gsize[j]
    end
    g.n, g.gstride, g.time, g.flops, g.model_flops = n, gstride, {}, {}, {}
    -- a group of standalone ops alone is built without the family's builder
    g.standalone = true
    for _, i in ipairs(g.ops) do g.standalone = g.standalone and standalone[i] end
    if n > M.FACTORIZE_MAX then
      g.lazy, g.ctx, g.cached = true, ctx, 0
    else
      -- shapes of every combination, GEMMs batched per BMM batch count through price.gemm_many
      local pending = {}
      for combo = 0, n - 1 do
        local r = copy(base)
        for j, fi in ipairs(g.fields) do
          r[fields[fi]] = vary[fields[fi]][(combo // gstride[j]) % gsize[j] + 1]
        end
        G.derive(r)
        local ok, ops
        if g.standalone then
          ok, ops = true, {}
          for _, i in ipairs(g.ops) do ops[i] = STANDALONE[base_ops[i].role](r, ew) end
        else
          ok, ops = pcall(fam.ops, r, ew)
        end
        local t, f, mf = 0, 0, 0
        if not ok then t = nil end
        if ok then
          for _, i in ipairs(g.ops) do
            local op = ops[i]
            if unpriceable(op) then
              t = nil
              break
            elseif op.kind ~= "gemm" and op.kind ~= "bmm" then
              t = t + op.count * price.op(ctx, op).time_s
              f, mf = f + op.flops * op.count, mf + op.model_flops * op.count
            else
              local key = op.batch
              pending[key] = pending[key] or { shapes = {}, combos = {}, counts = {} }
              local pb = pending[key]
              local s, j = pb.shapes, #pb.combos + 1
              s[3 * j - 2], s[3 * j - 1], s[3 * j] = op.m, op.n, op.k
              pb.combos[j], pb.counts[j] = combo, op.count
              f, mf = f + op.flops * op.count, mf + op.model_flops * op.count
            end
          end
        end
        g.time[combo], g.flops[combo], g.model_flops[combo] = t, f, mf
      end
      for batch, pb in pairs(pending) do
        local times = price.gemm_many(ctx, pb.shapes, batch)
        local combos, counts = pb.combos, pb.counts
        for i = 1, #combos do
          local c = combos[i]
          if g.time[c] then g.time[c] = g.time[c] + times[i] * counts[i] end
        end
      end
    end
  end
  P.groups = groups
  return P
end

-- the ops of row idx's config, built at most once per row (false when they cannot be built,
-- or have another structure than the base's)
local function row_ops(P, idx)
  if P.ops_idx ~= idx then
    -- one config table for every row (the ops keep no reference to it)
    P.scratch = P.G.raw_at(idx, P.scratch)
    local ok, ops = pcall(P.G.fam.ops, P.scratch, P.G.ew)
    P.ops_idx, P.ops = idx, ok and #ops == P.n_ops and ops
  end
  return P.ops
end

-- A lazy group's sums at combination `combo` of row `idx` (false when the config cannot be
-- priced), from its bounded cache or by pricing the group's ops among the row's config's ops
-- (a group's ops depend on its fields alone).
local function lazy_sums(P, g, combo, idx)
  local t = g.time[combo]
  if t ~= nil then return t, g.flops[combo], g.model_flops[combo] end
  local ops
  if g.standalone then
    -- the group's ops alone, from the row's config (the same constructors the family calls)
    P.scratch = P.G.raw_at(idx, P.scratch)
    ops = P.standalone_ops or {}
    P.standalone_ops = ops
    for _, i in ipairs(g.ops) do ops[i] = STANDALONE[P.roles[i]](P.scratch, P.G.ew) end
  else
    ops = row_ops(P, idx)
  end
  local f, mf = 0, 0
  t = ops and 0 or false
  if ops then
    for _, i in ipairs(g.ops) do
      local op = ops[i]
      if op.role ~= P.roles[i] or unpriceable(op) then
        t = false
        break
      end
      t = t + op.count * price.op_time(g.ctx, op)
      f, mf = f + op.flops * op.count, mf + op.model_flops * op.count
    end
  end
  if g.cached >= M.CACHE_MAX then g.time, g.flops, g.model_flops, g.cached = {}, {}, {}, 0 end
  g.time[combo], g.flops[combo], g.model_flops[combo], g.cached = t, f, mf, g.cached + 1
  return t, f, mf
end

--- Row `idx` (0-based, per device) priced by pricer `P`: time_s (s), flops, model_flops (FLOP),
-- or nil when a combination could not be priced.
-- @tparam table P a pricer (M.factorize)
-- @tparam integer idx the row, 0-based
function M.row(P, idx)
  local stride, size = P.G.stride, P.G.size
  local t, f, mf = 0, 0, 0
  for _, g in ipairs(P.groups) do
    local combo = 0
    local gfields, gs = g.fields, g.gstride
    for j = 1, #gfields do
      local fi = gfields[j]
      combo = combo + ((idx // stride[fi]) % size[fi]) * gs[j]
    end
    local gt, gf, gmf
    if g.lazy then
      gt, gf, gmf = lazy_sums(P, g, combo, idx)
    else
      gt, gf, gmf = g.time[combo], g.flops[combo], g.model_flops[combo]
    end
    if not gt then return nil end -- a combination the factorization could not price
    t = t + gt
    f, mf = f + gf, mf + gmf
  end
  return t, f, mf
end

return M
