--- tilewave.explore.fit: fit a device's GEMM and attention parameters to a
-- measurement folder (the format of ../shared/reference/calibration/h100,
-- which scripts/probe writes) and build a hardware spec from them.
--
-- What is fitted, starting from the base device's architecture (hw/arch):
--   gemm.csv (required)   per-dtype sustained fraction of the dense peak
--                         (dtype_compute_frac), mem_frac, kstep_latency_s,
--                         tile_latency_s and, when the folder has GEMMs off
--                         alignment, the alignment classes align_eff[1..6]:
--                         coordinate descent on the mean over (set, dtype)
--                         groups of each group's MAPE, every group weighted
--                         equally (the method of scripts/fit_hopper_gemm.lua)
--   bw.csv                kernel_bw_frac.vector = the measured copy bandwidth
--                         over the datasheet's; the other kernel classes keep
--                         their ratio to it (hw/arch of the base)
--   attention.csv         attention_frac / attention_bwd_frac (cuDNN rows) and
--                         the _fa2 pair (FlashAttention-2 rows): grid search,
--                         step 0.01, on MAPE
-- Prediction intervals of GEMMs (and attention where measured) are the 5th and
-- 95th percentiles of measured / predicted under the fitted parameters, as in
-- hw/arch/hopper.lua; layer, decode and training intervals stay the base's.
-- Fitted numbers are rounded (fractions to 0.001, latencies to 1 ns) before the
-- errors after the fit are taken, so the errors are those of the written file.
-- Deterministic: rows, groups and parameters are visited in a fixed order.
local check = require "tilewave.util.check"
local ceilings = require "tilewave.data.ceilings"
local hw = require "tilewave.data.hw"
local price = require "tilewave.cost.price"
local accuracy = require "tilewave.explore.accuracy"
local descent = require "tilewave.explore.descent"
local folder = require "tilewave.explore.fit_folder"
local tables = require "tilewave.util.tables"

local M = {}

--- Without held-out sets in the folder, every SELF_HOLDOUT-th GEMM row is kept out of the fit
-- and checks it (5: a fifth of every set).
M.SELF_HOLDOUT = 5
--- Priors: each parameter's base value with a width, in log space (fractions 0.25, latencies
-- ln 3), weighted PRIOR_WEIGHT per squared width in the loss (0.002: a parameter moved one width
-- must buy 0.2 points of mean group MAPE).
M.PRIOR_WIDTH, M.PRIOR_WIDTH_LATENCY, M.PRIOR_WEIGHT = 0.25, math.log(3), 0.002
--- A parameter's uncertainty: the range over which the fit loss stays within 1% (relative) of its
-- best.
M.UNCERTAINTY = 0.01

local format, ipairs, pairs, abs, sort = string.format, ipairs, pairs, math.abs, table.sort

local function copy(t)
  if type(t) ~= "table" then return t end
  local o = {}
  for k, v in pairs(t) do o[k] = copy(v) end
  return o
end

-- gemm.csv as groups { name = "set dtype", dtype, parts = { { batch, shapes (flat m,n,k), measured
-- } } }
local function gemm_groups(rows, spec, keep)
  local by, names = {}, {}
  for i, r in ipairs(rows) do
    local m, n, k, b, t = tonumber(r.m), tonumber(r.n), tonumber(r.k), tonumber(r.batch) or 1, tonumber(r.time_s)
    if not (m and n and k and t and r.dtype and r.set) then
      error(format("calibrate: gemm.csv row %d: expected m, n, k, time_s, dtype and set", i + 1), 0)
    end
    if spec.peak_flops[r.dtype] and keep(i, r) then
      local name = r.set .. " " .. r.dtype
      local g = by[name]
      if not g then
        g = { name = name, dtype = r.dtype, parts = {}, n = 0, align = r.set == "align" }
        by[name] = g
        names[#names + 1] = name
      end
      local p = g.parts[b]
      if not p then p = { batch = b, shapes = {}, measured = {} }; g.parts[b] = p end
      local s = p.shapes
      s[#s + 1], s[#s + 2], s[#s + 3] = m, n, k
      p.measured[#p.measured + 1] = t
      g.n = g.n + 1
    end
  end
  sort(names)
  local out = {}
  for _, name in ipairs(names) do
    local g, batches = by[name], {}
    for b in pairs(g.parts) do batches[#batches + 1] = b end
    sort(batches)
    local parts = {}
    for _, b in ipairs(batches) do parts[#parts + 1] = g.parts[b] end
    g.parts = parts
    out[#out + 1] = g
  end
  return out
end

local function spec_with(base, g)
  local s = tables.copy(base)
  s.gemm = copy(g)
  return s
end

-- Mean over groups of each group's MAPE; `ratios` (optional) collects measured/predicted.
local function gemm_loss(base, g, groups, ratios)
  local spec = spec_with(base, g)
  local sum = 0
  for _, grp in ipairs(groups) do
    local ctx = price.context(spec, grp.dtype, "compiled", "calibrate")
    local e = 0
    for _, p in ipairs(grp.parts) do
      local times = price.gemm_many(ctx, p.shapes, p.batch)
      for i, t in ipairs(times) do
        local meas = p.measured[i]
        e = e + abs(t - meas) / meas
        if ratios then ratios[#ratios + 1] = meas / t end
      end
    end
    sum = sum + e / grp.n
  end
  return sum / #groups
end

-- The parameters the GEMM fit moves: { name, get, set, lo, hi, tiny }.
local function gemm_params(g, groups)
  local ps, dts, seen, align = {}, {}, {}, false
  for _, grp in ipairs(groups) do
    if not seen[grp.dtype] then seen[grp.dtype] = true; dts[#dts + 1] = grp.dtype end
    align = align or grp.align
  end
  g.dtype_compute_frac = g.dtype_compute_frac or {}
  for _, dt in ipairs(dts) do
    g.dtype_compute_frac[dt] = g.dtype_compute_frac[dt] or g.compute_frac
    ps[#ps + 1] = { name = "dtype_compute_frac." .. dt, lo = 0.01, hi = ceilings.matmul,
                    get = function() return g.dtype_compute_frac[dt] end,
                    set = function(v) g.dtype_compute_frac[dt] = v end }
  end
  local function field(name, lo, hi, tiny)
    ps[#ps + 1] = { name = name, lo = lo, hi = hi, tiny = tiny,
                    get = function() return g[name] end, set = function(v) g[name] = v end }
  end
  -- the sustained fractions stay within the best any kernel has sustained (tilewave.data.ceilings)
  field("mem_frac", 0.05, ceilings.memory)
  g.write_frac = g.write_frac or g.mem_frac
  field("write_frac", 0.05, ceilings.memory)
  -- the exposed share of C writes starts mid-range: from 0 (hw/arch/hopper.lua's value) a
  -- multiplicative step never leaves 0, and small steps from near it change too little to count
  if (g.write_exposed or 0) == 0 then g.write_exposed = 0.5 end
  field("write_exposed", 0, 1)
  field("kstep_latency_s", 0, 1e-5, 1e-9)
  field("tile_latency_s", 0, 1e-5, 1e-9)
  -- a split-K GEMM's latency beyond its two launches starts at 0.5 us: from 0 a split-K candidate
  -- that nothing picks changes no time, and the descent would not move it
  g.splitk_latency_s = g.splitk_latency_s or 5e-7
  field("splitk_latency_s", 0, 1e-4, 1e-9)
  if g.stream_k then
    g.streamk_fixup_s = g.streamk_fixup_s or 1e-6
    field("streamk_fixup_s", 0, 1e-4, 1e-9)
  end
  if align then
    -- a flat start (1) leaves the misaligned classes latency-bound (tw_gemm.c: 16/alignment loads
    -- per main-loop stage), where the descent's first steps change no time: start them at 0.3
    -- instead
    g.align_eff = copy(g.align_eff)
    for i = 1, 4 do if g.align_eff[i] >= 1 then g.align_eff[i] = 0.3 end end
    ps[#ps + 1] = { name = "align_eff[1..2]", lo = 0.01, hi = 1, get = function() return g.align_eff[2] end,
                    set = function(v) g.align_eff[1], g.align_eff[2] = v, v end }
    for i = 3, 6 do
      ps[#ps + 1] = { name = format("align_eff[%d]", i), lo = 0.01, hi = 1,
                      get = function() return g.align_eff[i] end, set = function(v) g.align_eff[i] = v end }
    end
    -- the misaligned kernels' bandwidth: one factor for element-wise (1-2 byte) access, one for 4-8
    -- byte vectors (the align set's memory-bound rows at 2, 4 and 8 bytes tell them apart). Each
    -- starts at 0.5, not 1: from 1 the descent's first step changes no time while the misaligned
    -- compute still binds
    g.align_mem_eff = copy(g.align_mem_eff) or { 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1 }
    for _, r in ipairs { { 1, 2 }, { 3, 4 } } do
      ps[#ps + 1] = { name = format("align_mem_eff[%d..%d]", r[1], r[2]), lo = 0.01, hi = 1,
                      get = function() return g.align_mem_eff[r[2]] end,
                      set = function(v) for i = r[1], r[2] do g.align_mem_eff[i] = v end end }
    end
  end
  return ps
end

local clamp, descend, round_to = descent.clamp, descent.descend, descent.round_to

-- { low, high } of measured/predicted ratios: 5th and 95th percentiles (accuracy.quantile, the
-- method of hw/arch's intervals), rounded outward to 0.01 and bracketing 1
local function interval_of(ratios)
  return { round_to(math.min(1, accuracy.quantile(ratios, 0.05)) - 0.005, 0.01),
           round_to(math.max(1, accuracy.quantile(ratios, 0.95)) + 0.005, 0.01) }
end

-- MAPE (nil without rows), row count and measured/predicted ratios of attention.csv's set `set`
-- under parameters g; a folder without attention.csv has none (gemm.csv alone is a folder to fit)
local function attention_mape(base, g, dir, set)
  if not require("tilewave.util.sandbox").exists(dir .. "/attention.csv") then return nil, 0, {} end
  local rows = accuracy.measured(dir, spec_with(base, g), "fit", { "attention" })
  local sum, n, ratios = 0, 0, {}
  for _, r in ipairs(rows) do
    if r.set == "fit: " .. set then
      sum, n = sum + abs(r.predicted - r.measured) / r.measured, n + 1
      ratios[#ratios + 1] = r.measured / r.predicted
    end
  end
  return n > 0 and sum / n or nil, n, ratios
end

M.read, M.figures = folder.read, folder.figures

--- Fit the base device `base` (id, path or spec) to folder `dir`.
-- `opts`: `rounds` (coordinate-descent rounds, default 6), `progress`
-- (function(stage, i, n, loss)), `date` (overrides device.txt's), `device` (whose figures the fit
-- and the written file take, M.figures: by default the GPU the folder names when tilewave has a
-- spec for it, else `base`), `holdout`
-- (list of gemm.csv sets left out of the fit, default { "random", "layout" }: scripts/probe's
-- held-out shapes and the same shapes under other layouts, so that their error after the fit
-- measures generalization).
-- @return `{ spec (the fitted spec data, loadable), figures (the id whose figures it has), priced
--   (that spec with the base's parameters), params = { {name, value} },
--   gemm_before, gemm_after (mean group MAPE), attention = { {set, frac fields,
--   before, after, n} }, info }`
-- @raise `calibrate: ...` for a missing gemm.csv or a base that is not a device
function M.run(dir, base, opts)
  -- 167 lines, one function: one calibration in the order its report prints (read the folder, fit
  -- the GEMM groups, the attention fractions, check on the held-out rows): the stages share the
  -- rows and the spec being fitted
  opts = opts or {}
  check.options(opts, { date = true, holdout = true, rounds = true, progress = true, device = true }, "calibrate")
  local pbase = hw.resolve(base, "calibrate.base")
  dir = dir:gsub("/+$", "")
  local info = M.read(dir)
  base = M.figures(pbase, opts.device or accuracy.gpu_spec_id(info.device))
  info.date = opts.date or info.date or "date not recorded"
  local holdout = {}
  local held = opts.holdout or { "random", "layout" }
  for _, set in ipairs(held) do holdout[set] = true end
  -- the check rows the fit never sees: the held-out sets when the folder has them, else every
  -- SELF_HOLDOUT-th row of each set (by row order: every shape class keeps rows on both sides)
  local any_held = false
  for _, r in ipairs(info.gemm) do any_held = any_held or holdout[r.set] == true end
  local function checked(i, r) if any_held then return holdout[r.set] == true end return i % M.SELF_HOLDOUT == 0 end
  local groups = gemm_groups(info.gemm, base, function(i, r) return not holdout[r.set] and not checked(i, r) end)
  local check_groups = gemm_groups(info.gemm, base, checked)
  if #groups == 0 then error(format("calibrate: %s/gemm.csv: no row of a dtype %s has a peak for", dir, base.id), 0) end
  local g = copy(hw.gemm_params(pbase)) -- deep: the architecture's tables are shared and cached
  g.sources = nil
  local before = gemm_loss(base, g, groups)
  local ps = gemm_params(g, groups)
  -- priors: the base's values, each with its width (log scale); the penalty keeps a parameter
  -- the folder barely informs near the base
  for _, p in ipairs(ps) do p.prior = p.get() end
  local function penalty()
    local s = 0
    for _, p in ipairs(ps) do
      local v, v0 = p.get(), p.prior
      if v0 > 0 and v > 0 then s = s + (math.log(v / v0) / (p.tiny and M.PRIOR_WIDTH_LATENCY or M.PRIOR_WIDTH)) ^ 2 end
    end
    return M.PRIOR_WEIGHT * s
  end
  local function fit_loss() return gemm_loss(base, g, groups) + penalty() end
  local progress = opts.progress
  descend(ps, fit_loss, opts.rounds or 6, progress and function(i, n, l) progress("gemm", i, n, l) end)
  local params = {}
  for _, p in ipairs(ps) do
    local v = p.get()
    p.set(p.tiny and round_to(v, 1e-9) or round_to(v, 0.001))
    local row = { name = p.name, value = p.get(), prior = p.prior }
    -- identified: does the folder's loss move with it? if not, it stays at the base's value
    local v1 = p.get()
    local l1 = gemm_loss(base, g, groups)
    p.set(clamp(p, v1 == 0 and (p.tiny or 1e-3) or v1 * 1.1))
    local l2 = gemm_loss(base, g, groups)
    if l2 == l1 then -- at its bound: try the other way
      p.set(clamp(p, v1 == 0 and 0 or v1 / 1.1))
      l2 = gemm_loss(base, g, groups)
    end
    p.set(v1)
    row.identified = abs(l2 - l1) > 1e-7
    if not row.identified then p.set(p.prior); row.value = p.prior end
    params[#params + 1] = row
  end
  -- uncertainty: the range over which the fit loss stays within M.UNCERTAINTY (relative) of its
  -- best
  local base_loss = fit_loss()
  for i, p in ipairs(ps) do
    local row = params[i]
    if row.identified and row.value > 0 then
      local v = p.get()
      local lo, hi = v, v
      for _, dir in ipairs { -1, 1 } do
        local x = v
        for _ = 1, 25 do
          local nx = clamp(p, x * (1 + dir * 0.04))
          if nx == x then break end
          p.set(nx)
          local l = fit_loss()
          p.set(v)
          if l > base_loss * (1 + M.UNCERTAINTY) + 1e-6 then break end
          x = nx
        end
        if dir < 0 then lo = x else hi = x end
      end
      row.low, row.high = lo, hi
    end
  end
  local ratios = {}
  local after = gemm_loss(base, g, groups, ratios)
  local n_gemm = #ratios
  g.intervals = copy(g.intervals) or {}
  g.intervals.gemm = interval_of(ratios)
  local src = format("fitted by tilewave calibrate to %s (%s, measured %s)", dir, info.device, info.date)
  local sources = {
    dtype_compute_frac = format("%s: gemm.csv, %d rows in %d (set, dtype) groups, sets held out: %s; mean group "
      .. "MAPE %.1f%% -> %.1f%%", src, n_gemm, #groups, table.concat(held, ", "),
      100 * before, 100 * after),
    intervals = format("%s: gemm = 5th/95th percentiles of measured/predicted over the %d GEMMs after the fit "
      .. "(attention likewise over attention.csv's cuDNN rows, when there); forward, decode and training as the "
      .. "base architecture (%s)", src, n_gemm, base.arch),
  }
  for _, k in ipairs { "mem_frac", "write_frac", "write_exposed", "kstep_latency_s", "tile_latency_s", "streamk_fixup_s",
                       "splitk_latency_s", "align_eff",
                       "align_mem_eff" } do
    sources[k] = format("%s: same GEMM fit as dtype_compute_frac", src)
  end
  if info.copy_bps then
    local old = g.kernel_bw_frac or {}
    -- at most the memory ceiling (tilewave.data.ceilings): a copy faster than the base's datasheet
    -- (a folder of another device) cannot claim more than any kernel has sustained
    local vector = round_to(math.min(ceilings.memory, info.copy_bps / base.mem_bw), 0.001)
    local scale = old.vector and vector / old.vector or 1
    local kb = {}
    for k, v in pairs(old) do kb[k] = round_to(math.min(ceilings.memory, v * scale), 0.001) end
    kb.vector = vector
    g.kernel_bw_frac = kb
    params[#params + 1] = { name = "kernel_bw_frac.vector", value = vector }
    sources.kernel_bw_frac = format("%s: bw.csv copy %.0f GB/s of the datasheet's %.0f; strided, transpose and "
      .. "softmax keep their ratio to vector in hw/arch/%s.lua (each at most its kernel_sm_bytes_per_cycle rate, "
      .. "when the architecture gives one)", src, info.copy_bps / 1e9, base.mem_bw / 1e9, base.arch)
  end
  local att = {}
  for _, a in ipairs { { "attention cudnn fwd", "attention_frac" }, { "attention cudnn fwd+bwd", "attention_bwd_frac" },
                       { "attention fa2 fwd", "attention_frac_fa2" },
                       { "attention fa2 fwd+bwd", "attention_bwd_frac_fa2" } } do
    local set, field = a[1], a[2]
    local e0, n = attention_mape(base, g, dir, set)
    if e0 then
      local best, best_f = math.huge, nil
      for i = 10, math.floor(100 * ceilings.matmul + 1e-9) do -- the MMA at most the matmul ceiling
        g[field] = i / 100
        local e = attention_mape(base, g, dir, set)
        if e < best then best, best_f = e, i / 100 end
      end
      g[field] = best_f
      att[#att + 1] = { set = set, field = field, value = best_f, before = e0, after = best, n = n }
      params[#params + 1] = { name = field, value = best_f }
      sources[field] = format("%s: attention.csv '%s', %d rows, grid search: MAPE %.1f%% -> %.1f%%",
                              src, set, n, 100 * e0, 100 * best)
    end
  end
  local _, _, aratios = attention_mape(base, g, dir, "attention cudnn fwd")
  if #aratios > 0 then
    local _, _, more = attention_mape(base, g, dir, "attention cudnn fwd+bwd")
    for _, r in ipairs(more) do aratios[#aratios + 1] = r end
    g.intervals.attention = interval_of(aratios)
  end
  g.sources = sources
  local spec = {}
  for k, v in pairs(base) do
    if k ~= "id" then spec[k] = copy(v) end
  end
  spec.name = format("%s, fitted to %s", base.name, dir:match("([^/]+)/*$") or dir)
  spec.gemm = g
  -- the host machine's dispatch figure, where the folder has scripts/probe --host's host.csv
  local host = accuracy.host_op_s(dir)
  if host then
    spec.host_op_s = host
    spec.sources = spec.sources or {}
    spec.sources.host_op_s = format("%s/host.csv: module_linear on cuda, median per call (scripts/probe --host)", dir)
  end
  spec.notes = format("Generated by `tilewave calibrate %s --base %s` from %s measured %s; the device figures "
    .. "(peaks, bandwidth, SMs) are %s's, the parameters started from %s's (hw/arch/%s.lua). Regenerate rather "
    .. "than edit.", dir, pbase.id, info.device, info.date, base.id, pbase.id, pbase.arch)
  local check_before, check_after
  if #check_groups > 0 then
    check_before = gemm_loss(base, copy(hw.gemm_params(pbase)), check_groups)
    check_after = gemm_loss(base, g, check_groups)
  end
  return { spec = spec, figures = base.id, priced = base, params = params, gemm_before = before, gemm_after = after, attention = att, info = info,
           groups = #groups, rows = n_gemm, holdout = held, check_before = check_before, check_after = check_after,
           check_rows = any_held and "the held-out sets" or format("every %dth row", M.SELF_HOLDOUT),
           worse = check_after ~= nil and check_after > check_before }
end

return M
