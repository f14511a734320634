--- tilewave.explore.sweep: whole-model forward estimates over a Cartesian grid of configs.
--
--   for cfg, hw_id, est in tw.sweep{ base = "pythia-1b", hw = { "h100_sxm5" },
--       vary = { hidden_size = { 1792, 2048, 2304 }, num_attention_heads = { 8, 16, 32 } },
--       where = function(c) return c.hidden_size % c.num_attention_heads == 0 end,
--       workload = { b = 4, s = 2048, t = 1, dtype = "bf16" } } do ... end
--
-- Order: hw outermost, then the vary fields in sorted name order, the last
-- field fastest; `index` (0-based, per hw) is the position in that order, so
-- sharded runs can be merged back into it. Rows are produced one at a time from a mixed-radix
-- counter over the vary lists, with `where` applied as they come: nothing proportional to the
-- grid is held. The model is the one of tilewave.transformer.estimate, made fast by
-- factorization (tilewave.explore.sweep_factor: ops grouped by the varied fields their shapes
-- depend on, each group priced once per combination of its fields, up front or through a
-- bounded cache), verified against transformer.estimate on sampled configs; if they disagree
-- (a family whose op list changes structure across the grid), the sweep falls back to calling
-- transformer.estimate per config.
--
-- Derived fields follow the varied ones unless varied themselves: head_dim =
-- h/a when the base's was h/a; num_key_value_heads = a when the base is MHA.
-- Configs that break a structural constraint (a not dividing h, kv not
-- dividing a, t > a) are skipped like `where` rejects (counted in `stats`).
-- Scripts call its sweep and range as tw.sweep and tw.range.
-- @submodule tw
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local transformer = require "tilewave.ops.transformer"
local forward = require "tilewave.cost.forward"
local engines = require "tilewave.cost.engines"
local factor = require "tilewave.explore.sweep_factor"
local sandbox = require "tilewave.util.sandbox"
local tables = require "tilewave.util.tables"

local M = {}

local format, ipairs, pairs, sort, floor = string.format, ipairs, pairs, table.sort, math.floor

local OPTIONS = { base = true, vary = true, where = true, hw = true, workload = true, shard = true, slow = true }

local function copy(t)
  local o = tables.copy(t)
  return o
end

-- Fill the derived fields of raw config r (in place) from the base's conventions.
local function derive(r, conv)
  if conv.hd_derived then r.head_dim = r.hidden_size / r.num_attention_heads end
  if conv.mha then r.num_key_value_heads = r.num_attention_heads end
end

-- Structural validity of a raw config (cheap; define() checked the base).
local function valid(r, conv, t)
  local a = r.num_attention_heads
  if conv.hd_derived and r.hidden_size % a ~= 0 then return false end
  if a % r.num_key_value_heads ~= 0 then return false end
  if t > a then return false end
  -- models.define's attention width: num_attention_heads x head_dim at most 8 x hidden_size (the
  -- factorized rows are priced without define; a combination it refuses is no row)
  local hd = r.head_dim or r.hidden_size // a
  if hd * a > 8 * r.hidden_size then return false end
  return true
end

-- ranges: arithmetic sequences read as lists (__index, __len) without holding their values; the
-- numbers live in a private table, the metatable is hidden (__metatable) and the range itself
-- takes no fields (__newindex), so a spec file cannot change one after it is made
local range_of = setmetatable({}, { __mode = "k" })
local RANGE = { __name = "tilewave.range", __metatable = "tilewave.range" }
RANGE.__index = function(r, i)
  local d = range_of[r]
  if d and math.type(i) == "integer" and i >= 1 and i <= d.n then return d.first + (i - 1) * d.step end
  return nil
end
RANGE.__len = function(r) return range_of[r].n end
RANGE.__newindex = function() error("range: a range cannot be changed", 2) end
sandbox.trust(RANGE)

--- CPU seconds a sweep may go without a row before it stops (the user-file time budget,
-- tilewave.util.sandbox.MAX_SECONDS).
-- @local
M.ROW_SECONDS = 5

--- An arithmetic sequence for a `vary` list: first, first + step, ... up to last (integers; step
-- default 1), read as a list (`#r`, `r[i]`, ipairs) but holding three numbers, so an axis of 10^6
-- values costs no memory. Its values are validated by their ends.
-- @raise `range.<field>: <expectation>, got <value>`
function M.range(first, last, step)
  step = step or 1
  for _, a in ipairs { { "first", first }, { "last", last }, { "step", step } } do
    if math.type(a[2]) ~= "integer" then check.fail("range." .. a[1], "expected an integer", a[2]) end
  end
  -- within +-2^53 (every value exact as a double, and last - first cannot wrap around 2^63)
  for _, a in ipairs { { "first", first }, { "last", last }, { "step", step } } do
    if a[2] < -(1 << 53) or a[2] > 1 << 53 then check.fail("range." .. a[1], "expected an integer within +-2^53", a[2]) end
  end
  if step < 1 then check.fail("range.step", "expected a positive integer", step) end
  if last < first then check.fail("range.last", format("expected at least first (%d)", first), last) end
  local n = (last - first) // step + 1
  if n > 2 ^ 31 - 1 then check.fail("range", "expected at most 2^31-1 values", n) end
  local r = setmetatable({}, RANGE)
  range_of[r] = { first = first, step = step, n = n }
  return r
end

-- the varied fields of `vary`, sorted, each list checked by its field's validator (a config that
-- the combination makes invalid, such as heads that do not divide h, is skipped as the grid runs)
local function vary_fields(base, vary)
  local fields = {}
  for f, list in pairs(vary) do
    check.table(list, "sweep.vary." .. tostring(f))
    if #list == 0 then check.fail("sweep.vary." .. f, "expected a non-empty list", list) end
    if range_of[list] then
      -- an arithmetic range of integers (M.range, with no field set on it): its ends bound every
      -- value
      if next(list) ~= nil then check.fail("sweep.vary." .. f, "expected a range as M.range made it", "a changed one") end
      models.check_field(base.family, f, list[1], format("sweep.vary.%s[1]", f))
      models.check_field(base.family, f, list[#list], format("sweep.vary.%s[%d]", f, #list))
    else
      for i, v in ipairs(list) do
        models.check_field(base.family, f, v, format("sweep.vary.%s[%d]", f, i))
      end
    end
    fields[#fields + 1] = f
  end
  sort(fields)
  return fields
end

-- `shard` ({ i, n }) checked: i, n (0, 1 without one)
local function shard_of(shard)
  if not shard then return 0, 1 end
  local shard_i, shard_n = shard[1], shard[2]
  check.positive_int(shard_n, "sweep.shard.n")
  -- more shards than rows leave some empty (a fixed job array); past 2^31 the indices would wrap
  if shard_n > 2 ^ 31 - 1 then check.fail("sweep.shard.n", "expected at most 2^31-1 shards", shard_n) end
  if type(shard_i) ~= "number" or shard_i < 0 or shard_i >= shard_n or shard_i % 1 ~= 0 then
    check.fail("sweep.shard.i", format("expected integer in [0, %d]", shard_n - 1), shard_i)
  end
  return shard_i, shard_n
end

-- sizes and strides of the grid (last field fastest) and its rows per device, for `n_hw` devices
local function grid_shape(fields, vary, n_hw)
  local size, stride = {}, {}
  local per_hw = 1
  for i = #fields, 1, -1 do
    size[i] = #vary[fields[i]]
    stride[i] = per_hw
    -- in floating point first: a product of list lengths can pass 2^63 and wrap around
    if (per_hw + 0.0) * size[i] > 2 ^ 53 then
      check.fail("sweep.vary", "expected at most 2^53 combinations", (per_hw + 0.0) * size[i])
    end
    per_hw = per_hw * size[i]
  end
  if (per_hw + 0.0) * n_hw > 2 ^ 53 then
    check.fail("sweep.hw", "expected at most 2^53 rows (combinations times devices)", (per_hw + 0.0) * n_hw)
  end
  return size, stride, per_hw
end

-- prepare every device of `hws` for grid `grid` ({ raw_at, wl, ... }): its spec, peak and, unless
-- o.slow, the factorized pricer (tilewave.explore.sweep_factor), kept only where it agrees with
-- `slow_est` on sample rows; stats.mode "per-config" when a device prices config by config
local function prepare_plans(o, hws, grid, per_hw, conv, slow_est, stats)
  local plans, wl, raw_at = {}, grid.wl, grid.raw_at
  for hi, id in ipairs(hws) do
    local spec = hw.resolve(id, format("sweep.hw[%d]", hi))
    local plan = { spec = spec, peak = spec.peak_flops[wl.dtype] }
    if not plan.peak then
      error(format("sweep.workload.dtype: '%s' not supported by %s", wl.dtype, spec.id), 0)
    end
    if not o.slow then plan.groups = factor.factorize(grid, spec) end
    if plan.groups then
      -- verify on samples: first, last, and a spread of valid configs
      for _, idx in ipairs { 0, per_hw - 1, per_hw // 2, per_hw // 3, per_hw // 7, per_hw // 11 } do
        local r = raw_at(idx)
        if valid(r, conv, wl.t) then
          local t1 = slow_est(r, spec)
          if t1 then
            local t2 = factor.row(plan.groups, idx)
            if not t2 or math.abs(t2 - t1) > 1e-9 * t1 then plan.groups = nil break end
          end
        end
      end
    end
    if not plan.groups then stats.mode = "per-config" end
    plans[hi] = plan
  end
  return plans
end

-- the workload of every row: the estimate's workload `ew` (tilewave.transformer.workload) and the
-- sweep's `wl` (with the engine resolved), checked against the base model
local function workload_of(w, base)
  w = w or {}
  check.table(w, "sweep.workload")
  check.options(w, { b = true, s = true, t = true, dtype = true, attention = true, engine = true }, "sweep.workload")
  local eng = engines.resolve(w.engine, "sweep.workload.engine")
  local ew = transformer.workload({ b = w.b, s = w.s, t = w.t, dtype = w.dtype, attention = w.attention },
    "sweep.workload", nil, eng.attention)
  transformer.for_model(base, ew, "sweep.workload")
  local wl = { b = ew.b, s = ew.s, t = ew.t, dtype = ew.dtype, attention = ew.attention, engine = eng }
  return ew, wl
end

-- the iterator of M.sweep over grid `G` (M.sweep's fields, sizes, strides, base, fam and wl) on
-- the devices' `plans`: each call the next row kept (valid, passing `where`, this shard's) and
-- priced, as cfg, hw id, est; nil at the end
local function iterate(G, plans, per_hw, conv, where, shard_i, shard_n, slow_est, stats)
  local base, fam, fields, vary, size, stride, wl = G.base, G.fam, G.fields, G.vary, G.size, G.stride, G.wl
  local nf = #fields
  local cfg = copy(base)
  local est = {}
  -- shards deal the rows that pass the filters out in turn (the k-th kept row, counted over every
  -- device, goes to shard k mod n), so a filtered grid's shards differ by at most one row; a row
  -- the filters drop is counted as skipped by shard (index mod n) alone, so the shards' counts add
  -- up
  local hi, idx, kept = 1, -1, 0
  -- a row at least every M.ROW_SECONDS of CPU: a `where` that rejects everything stops with a
  -- message naming the budget, never streams nothing for minutes
  local since, tried = os.clock(), 0
  local function next_row()
    while true do
      idx = idx + 1
      tried = tried + 1
      if tried % 4096 == 0 and os.clock() - since > M.ROW_SECONDS then
        error(format("sweep: no row in %g s of CPU (tilewave.explore.sweep.ROW_SECONDS): the last %d configs "
          .. "tried were all skipped by `where` or as invalid; narrow `vary` or loosen `where`", M.ROW_SECONDS, tried), 0)
      end
      if idx >= per_hw then
        hi = hi + 1
        idx = 0
        if hi > #plans then return nil end
      end
      local plan = plans[hi]
      for i = 1, nf do
        cfg[fields[i]] = vary[fields[i]][(idx // stride[i]) % size[i] + 1]
      end
      derive(cfg, conv)
      local keep = valid(cfg, conv, wl.t)
      if keep and where then keep = where(cfg) and true or false end
      local mine = idx % shard_n == shard_i
      if keep then
        kept = kept + 1
        mine = (kept - 1) % shard_n == shard_i
      end
      if not mine then keep = nil end
      if keep then
        local t, f, mf
        if plan.groups then t, f, mf = factor.row(plan.groups, idx) end
        if not t then t, f, mf = slow_est(cfg, plan.spec) end
        if t then
          stats.done = stats.done + 1
          est.index, est.time_s, est.flops = idx, t, f
          est.tflops = f / t / 1e12
          est.model_flops, est.mfu = mf, mf / t / plan.peak
          est.tokens_per_s = wl.b * wl.s / t
          est.params = fam.params(cfg).total
          since, tried = os.clock(), 0
          return cfg, plan.spec.id, est
        end
      end
      if keep ~= nil then stats.skipped = stats.skipped + 1 end
    end
  end
  return next_row
end

--- Iterate a sweep.
-- @tparam table o `base` (model id or config), `vary` (field -> list of
--   values, or M.range; HF field names), `where` (optional predicate on the config),
--   `hw` (device id or list of ids, default "h100_sxm5"), `workload`
--   ({ b, s, t, dtype, attention, engine }, as tilewave.transformer.estimate),
--   `shard` ({ i, n }: the rows passing validity and `where`, dealt out in turn over the devices,
--   the k-th (from 0) to shard k % n: shards differ by at most one row), `slow` (true: skip
--   the factorization)
-- @return iterator yielding `cfg, hw_id, est` with est = `{ index, time_s,
--   flops (executed), model_flops, tflops (flops / time), mfu (model_flops / time / peak),
--   tokens_per_s, params }`, as tilewave.transformer.estimate; cfg is reused between
--   iterations (copy it to keep it); and a `stats` table filled as it runs
--   ({ total, done, skipped, mode })
-- @raise `sweep.<field>: ...`
function M.sweep(o)
  check.table(o, "sweep")
  check.options(o, OPTIONS, "sweep")
  local base = models.resolve(o.base, "sweep.base")
  local vary = o.vary or {}
  check.table(vary, "sweep.vary")
  local fam = models.families[base.family]
  local fields = vary_fields(base, vary)
  if o.where ~= nil and type(o.where) ~= "function" then check.fail("sweep.where", "expected function", o.where) end
  local hws = o.hw or { "h100_sxm5" }
  if type(hws) ~= "table" or hws.sm_count then hws = { hws } end -- one id, path or spec
  if #hws == 0 then error("sweep.hw: expected a device id or a non-empty list of them, got an empty list", 0) end
  local ew, wl = workload_of(o.workload, base)
  local shard_i, shard_n = shard_of(o.shard)
  local conv = { hd_derived = base.head_dim == base.hidden_size // base.num_attention_heads
                                and vary.head_dim == nil,
                 mha = base.num_key_value_heads == base.num_attention_heads and vary.num_key_value_heads == nil }

  local nf = #fields
  local size, stride, per_hw = grid_shape(fields, vary, #hws)

  local stats = { total = per_hw * #hws, done = 0, skipped = 0, mode = "factorized" }

  -- the config of row idx, in `into` (a table raw_at filled before: only the varied and derived
  -- fields change) or a new one
  local function raw_at(idx, into)
    local r = into or copy(base)
    for i = 1, nf do
      local j = (idx // stride[i]) % size[i]
      r[fields[i]] = vary[fields[i]][j + 1]
    end
    derive(r, conv)
    return r
  end

  local grid = { base = base, fam = fam, fields = fields, vary = vary, size = size, stride = stride, ew = ew, wl = wl,
                raw_at = raw_at, derive = function(r) derive(r, conv) end }

  -- a sample row's estimate, nil when the row is an invalid combination (the define inside the
  -- pcall: issue 66, an invalid sampled row refused the whole grid); a bug (an error with a file
  -- and line) propagates
  local function slow_est(r, spec)
    local ok, est = pcall(function() return forward.estimate(models.define(r), spec, wl) end)
    if not ok then
      if type(est) ~= "string" or est:match("^[^\n]-%.lua:%d+:") then error(est, 0) end
      return nil
    end
    return est.time_s, est.flops, est.model_flops
  end

  local plans = prepare_plans(o, hws, grid, per_hw, conv, slow_est, stats)

  return iterate(grid, plans, per_hw, conv, o.where, shard_i, shard_n, slow_est, stats), stats
end

--- Column names of a sweep's rows: index, hw, the varied fields, then the estimate.
-- @local
function M.columns(o)
  local fields = {}
  for f in pairs(o.vary or {}) do fields[#fields + 1] = f end
  sort(fields)
  local cols = { "index", "hw" }
  for _, f in ipairs(fields) do cols[#cols + 1] = f end
  for _, k in ipairs { "params", "time_s", "tflops", "mfu", "tokens_per_s" } do cols[#cols + 1] = k end
  return cols, fields
end

return M
