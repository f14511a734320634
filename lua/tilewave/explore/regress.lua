--- tilewave.explore.regress: scripted regression of config families (`tilewave check`).
--
-- One concern past 400 lines: one check file's path from its rows to its verdict (bounds, rules,
-- baseline and its hash, the baseline's writing); the file reading and the grid are their own
-- modules (util.sandbox, explore.sweep).
--
-- A check file is Lua returning
--   { name = "our-1b-candidates",
--     models = { "pythia-1b", my_variant },        -- ids or config tables; or
--     sweep = { base = , vary = , where = },        -- a grid (tilewave.sweep), instead of models
--     hw = { "a100_sxm4_80gb", "h100_sxm5" },
--     workload = { b = 4, s = 2048, t = 1, dtype = "bf16", attention = "standard" },
--     expect = { rules = "clean", mfu = { min = 0.45 }, tflops = { min = , max = },
--                time_s = { max = }, tokens_per_s = { min = },
--                baseline = "baselines/our-1b.json", tolerance = 0.02 } }
-- Every (model, hw) pair is estimated (tilewave.transformer.estimate) and
-- checked: each bound, the co-design rules when `rules = "clean"`, and the
-- baseline - time_s and tflops within `tolerance` (relative; exactly at the
-- bound passes). A baseline entry records a hash of the model config and the
-- hardware definition (spec + architecture parameters) it was computed from,
-- and the file records the tilewave version: a changed definition or version
-- is reported as such ("stale baseline"), not as a regression. Descriptive fields (sources, names,
-- notes, prices) are not part of the hash: citing a source anew leaves a baseline current.
local check = require "tilewave.util.check"
local output = require "tilewave.util.output"
local sandbox = require "tilewave.util.sandbox"
local hw = require "tilewave.data.hw"
local cluster = require "tilewave.data.cluster"
local models = require "tilewave.data.models"
local transformer = require "tilewave.cost.forward"
local rules = require "tilewave.explore.rules"
local sweep = require "tilewave.explore.sweep"
local core = require "tilewave.core"
local json = require "tilewave.util.json"
local si = require "tilewave.util.si"
local tables = require "tilewave.util.tables"

local M = {}

local format, ipairs, pairs, sort, concat = string.format, ipairs, pairs, table.sort, table.concat

local FIELDS = { name = true, models = true, sweep = true, hw = true, workload = true, expect = true }
local EXPECT = { rules = true, mfu = true, tflops = true, time_s = true, tokens_per_s = true, baseline = true,
                 tolerance = true }
local BOUNDS = { "mfu", "tflops", "time_s", "tokens_per_s" }
-- the workload fields a check file may set (tilewave.transformer.estimate's)
local WORKLOAD = { b = true, s = true, t = true, dtype = true, attention = true, engine = true }

--- 64-bit FNV-1a of a string, as 16 hex digits (Fowler-Noll-Vo; Lua 5.4
-- integers wrap, which is the algorithm's modular multiply).
function M.hash(s)
  local h = -3750763034362895579 -- 0xcbf29ce484222325
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = h * 1099511628211
  end
  return format("%016x", h)
end

-- fields that describe a definition without entering a prediction (a citation, a display name, a
-- price): a change to them leaves a baseline current
-- (`measured` says what data stands behind a device: it widens intervals, never a time)
local DESCRIPTIVE = { sources = true, source = true, notes = true, name = true, prices = true, price = true,
                      weight_dtype_source = true, description = true, measured = true }

--- The hash of what a prediction is computed from: the model config and the
-- device spec with its architecture's GEMM parameters, less their descriptive fields (DESCRIPTIVE:
-- sources, names, notes, prices). A device's `node` enters as what it prices with, its NVLink
-- domain and scale-out bandwidth (tilewave.cost.expert_parallel.node), and only where they differ
-- from the DGX H100 node every device without one is priced on.
function M.definition_hash(c, spec)
  local s, m = tables.copy(spec), tables.copy(c)
  s.gemm_params = hw.gemm_params(spec)
  for k in pairs(DESCRIPTIVE) do s[k], m[k] = nil, nil end
  if s.node ~= nil then
    local cl, default = cluster.of_device(spec), cluster.resolve("dgx_h100")
    s.node = nil
    if cluster.domain(cl) ~= cluster.domain(default) or cl.inter.bw ~= default.inter.bw then
      s.node = { domain = cluster.domain(cl), inter_bw = cl.inter.bw }
    end
  end
  return M.hash(json.encode(m) .. "\n" .. json.encode(s))
end

local function dir_of(path) return path:match("^(.*)/[^/]*$") or "." end

--- Load and validate a check file. Errors name the file and the field.
-- @return the check table with `file`, `pairs` = { { label, config, hw } }
function M.load(path)
  -- 105 lines, one function: a check file validated field by field, in the order its errors are
  -- raised
  local c = sandbox.load_spec(path)
  local function fail(field, msg) error(format("%s: %s: %s", path, field, msg), 0) end
  local bad = check.unknown_key(c, FIELDS)
  if bad ~= nil then
    fail(tostring(bad), "unknown field" .. check.did_you_mean(bad, FIELDS) .. " (known: " .. check.keys(FIELDS) .. ")")
  end
  if type(c.name) ~= "string" then fail("name", "expected string, got " .. check.describe(c.name)) end
  local expect = c.expect or {}
  if type(expect) ~= "table" then fail("expect", "expected table") end
  bad = check.unknown_key(expect, EXPECT)
  if bad ~= nil then
    fail("expect." .. tostring(bad), "unknown expectation" .. check.did_you_mean(bad, EXPECT) .. " (known: "
      .. check.keys(EXPECT) .. ")")
  end
  if expect.rules ~= nil and expect.rules ~= "clean" and expect.rules ~= "ignore" then
    fail("expect.rules", "expected 'clean' or 'ignore', got " .. check.describe(expect.rules))
  end
  for _, k in ipairs(BOUNDS) do
    local b = expect[k]
    if b ~= nil then
      if type(b) ~= "table" then fail("expect." .. k, "expected { min = , max = }") end
      for bk, bv in pairs(b) do
        if bk ~= "min" and bk ~= "max" then fail("expect." .. k .. "." .. tostring(bk), "expected min or max") end
        if type(bv) ~= "number" or bv ~= bv then
          fail("expect." .. k .. "." .. bk, "expected number, got " .. check.describe(bv))
        end
      end
      if b.min and b.max and b.min > b.max then
        fail("expect." .. k, format("expected min <= max, got min %s > max %s", tostring(b.min), tostring(b.max)))
      end
    end
  end
  if expect.tolerance ~= nil and (type(expect.tolerance) ~= "number" or not (expect.tolerance >= 0)) then
    fail("expect.tolerance", "expected non-negative number, got " .. check.describe(expect.tolerance))
  end
  if expect.baseline ~= nil and (type(expect.baseline) ~= "string" or not expect.baseline:match("%.json$")) then
    fail("expect.baseline", "expected a path ending in .json, got " .. check.describe(expect.baseline))
  end
  c.expect, c.file = expect, path
  c.baseline_path = expect.baseline and (expect.baseline:sub(1, 1) == "/" and expect.baseline
                                         or dir_of(path) .. "/" .. expect.baseline)
  local hws = c.hw or { "h100_sxm5" }
  if type(hws) ~= "table" then hws = { hws } end
  if #hws == 0 then fail("hw", "expected a device id or a non-empty list of them, got an empty list") end
  local specs = {}
  for i, id in ipairs(hws) do
    local okh, spec = pcall(hw.resolve, id, "hw")
    if not okh then fail(format("hw[%d]", i), spec) end
    specs[i] = spec
  end
  c.workload = c.workload or {}
  if type(c.workload) ~= "table" then fail("workload", "expected table") end
  local function known(tbl, set, where)
    local k = check.unknown_key(tbl, set)
    if k ~= nil then
      fail(where .. "." .. tostring(k), "unknown field" .. check.did_you_mean(k, set) .. " (known: " .. check.keys(set) .. ")")
    end
  end
  known(c.workload, WORKLOAD, "workload")
  if type(c.sweep) == "table" then known(c.sweep, { base = true, vary = true, where = true }, "sweep") end
  -- the configs: a list, or a sweep (enumerated lazily, as the check runs: M.pairs)
  local configs = {}
  if c.sweep ~= nil and c.models ~= nil then fail("models", "give models or sweep, not both") end
  if c.sweep ~= nil then
    if type(c.sweep) ~= "table" then fail("sweep", "expected table") end
    local q = { base = c.sweep.base, vary = c.sweep.vary, where = c.sweep.where, hw = specs[1].id,
                workload = { b = c.workload.b, s = c.workload.s, t = c.workload.t, dtype = c.workload.dtype,
                             attention = c.workload.attention, engine = c.workload.engine } }
    local oks, err = pcall(sweep.sweep, q) -- validated now; enumerated by M.pairs
    if not oks then fail("sweep", err) end
    local fields = {}
    for f in pairs(c.sweep.vary or {}) do fields[#fields + 1] = f end
    sort(fields)
    c.configs = function()
      local it = sweep.sweep(q)
      return function()
        local cfg, _, est = it()
        if not cfg then return nil end
        local copy, parts = {}, {}
        tables.copy(cfg, copy)
        for _, f in ipairs(fields) do parts[#parts + 1] = format("%s=%s", f, tostring(cfg[f])) end
        copy.id = format("%s{%s}", cfg.id or cfg.name, concat(parts, ","))
        -- the sweep's own estimate on the first device (the figures check reads), so that a check
        -- streams at the sweep's rate; the other devices are estimated pair by pair
        return copy, { time_s = est.time_s, tflops = est.tflops, mfu = est.mfu, tokens_per_s = est.tokens_per_s }
      end
    end
  else
    if type(c.models) ~= "table" or #c.models == 0 then fail("models", "expected a non-empty list of ids or configs") end
    for i, m in ipairs(c.models) do
      local okm, cfg = pcall(models.resolve, m, "model")
      if not okm then fail(format("models[%d]", i), (tostring(cfg):gsub("^model[^:]*: ", ""))) end
      configs[#configs + 1] = cfg
    end
  end
  if not c.configs then
    c.configs = function()
      local i = 0
      return function() i = i + 1; return configs[i] end
    end
  end
  c.specs = specs
  return c
end

--- The (model, hw) pairs of a loaded check, lazily: an iterator of `{ label, config, spec }` (a
-- sweep's configs are enumerated as they are asked for: constant memory, the first pair at once).
function M.pairs(c)
  local next_cfg, cfg, first, j = c.configs(), nil, nil, #c.specs
  return function()
    j = j + 1
    if j > #c.specs then
      cfg, first = next_cfg()
      j = 1
      if not cfg then return nil end
    end
    local spec = c.specs[j]
    -- `values`: the figures of a sweep's own estimate, for its first device
    return { label = format("%s@%s", cfg.id or cfg.name, spec.id), config = cfg, spec = spec,
             values = j == 1 and first or nil }
  end
end

local function read_baseline(path)
  if not require("lfs").attributes(path) then return nil end -- none yet: the first run says so
  local text, err = sandbox.read_file(path)
  if not text then return nil, err end
  local ok, j = pcall(json.decode, text)
  if not ok or type(j) ~= "table" then return nil, "not a JSON object" end
  -- the schema --update-baseline writes: entries of finite positive figures and a hash
  if type(j.entries) ~= "table" then return nil, "entries: expected an object of (model, hw) entries" end
  if j.tilewave_version ~= nil and type(j.tilewave_version) ~= "string" then
    return nil, "tilewave_version: expected a string, got " .. check.describe(j.tilewave_version)
  end
  for label, e in pairs(j.entries) do
    if type(e) ~= "table" then return nil, format("entries.%s: expected an object", tostring(label)) end
    for _, k in ipairs { "time_s", "tflops", "mfu" } do
      local v = e[k]
      if v ~= nil and (type(v) ~= "number" or not (v > 0 and v < math.huge)) then
        return nil, format("entries.%s.%s: expected a finite positive number, got %s", tostring(label), k,
          check.describe(v))
      end
    end
    if e.definition_hash ~= nil and type(e.definition_hash) ~= "string" then
      return nil, format("entries.%s.definition_hash: expected a string", tostring(label))
    end
  end
  return j
end

local function workload_of(c)
  local w = c.workload
  return { b = w.b, s = w.s, t = w.t, dtype = w.dtype, attention = w.attention, engine = w.engine }
end

--- Evaluate a loaded check: one result per pair `{ label, ok, reasons = { ... }, notes = { ... },
-- values = { time_s, tflops, mfu, tokens_per_s } }`. A missing baseline file raises `<file>:
-- expect.baseline: cannot read '<path>' (...)`. With `emit`, each result is passed to emit(r) as
-- soon as it is known and none is kept (a check over a 10^6-config sweep streams); the count of
-- results is returned instead.
function M.evaluate(c, emit)
  -- 82 lines, one function: each pair's checks (bounds, rules, baseline) in the order a result
  -- lists them, streaming or kept
  local base
  if c.baseline_path then
    local err
    base, err = read_baseline(c.baseline_path)
    if not base then
      error(format("%s: expect.baseline: cannot read '%s' (%s; write it with tilewave check --update-baseline)",
        c.file, c.baseline_path, err or "no such file"), 0)
    end
  end
  local tol = c.expect.tolerance or 0
  local results, n_results = {}, 0
  for p in M.pairs(c) do
    local r = { label = p.label, reasons = {}, notes = {} }
    local ok, est = true, p.values
    if not est then
      local w = workload_of(c)
      w.detail = false -- the totals are all a check reads
      ok, est = pcall(transformer.estimate, p.config, p.spec, w)
    end
    if not ok then
      r.ok = false
      r.reasons[1] = tostring(est)
    else
      local v = { time_s = est.time_s, tflops = est.tflops, mfu = est.mfu, tokens_per_s = est.tokens_per_s }
      r.values = v
      for _, k in ipairs(BOUNDS) do
        local b = c.expect[k]
        if b and b.min and v[k] < b.min then r.reasons[#r.reasons + 1] = format("%s %.4g < min %.4g", k, v[k], b.min) end
        if b and b.max and v[k] > b.max then r.reasons[#r.reasons + 1] = format("%s %.4g > max %.4g", k, v[k], b.max) end
        if b then r.notes[#r.notes + 1] = format("%s %.4g", k, v[k]) end
      end
      if c.expect.rules == "clean" then
        local w = workload_of(c)
        local viol = rules.check(p.config, workload_of(c), p.spec)
        for _, x in ipairs(viol) do
          r.reasons[#r.reasons + 1] = format("rule %s: %s = %s, expected %s (fix: %s)", x.rule, x.field,
            tostring(x.value), x.expected, x.fix_text)
        end
      end
      if base then
        local entry = base.entries and base.entries[p.label]
        if not entry then
          r.reasons[#r.reasons + 1] = "no baseline entry (run tilewave check --update-baseline)"
        else
          local h = M.definition_hash(p.config, p.spec)
          local stale = {}
          if entry.definition_hash ~= h then
            stale[#stale + 1] = format("model or hardware definition changed since the baseline (hash %s -> %s)",
              tostring(entry.definition_hash), h)
          end
          if base.tilewave_version ~= core._VERSION then
            stale[#stale + 1] = format("baseline written by tilewave %s, this is %s", tostring(base.tilewave_version),
              core._VERSION)
          end
          for _, k in ipairs { "time_s", "tflops" } do
            local old = entry[k]
            local rel = old and math.abs(v[k] / old - 1) or math.huge
            if rel > tol * (1 + 1e-9) + 1e-12 then
              local what = format("%s %.6g vs baseline %.6g (%+.2f%%, tolerance %.2f%%)", k, v[k], old or 0 / 0,
                100 * (v[k] / (old or 1) - 1), 100 * tol)
              if #stale > 0 then
                r.reasons[#r.reasons + 1] = "stale baseline: " .. concat(stale, "; ") .. "; " .. what
              else
                r.reasons[#r.reasons + 1] = "regression: " .. what
              end
            end
          end
          if #stale > 0 and #r.reasons == 0 then
            r.notes[#r.notes + 1] = "stale baseline (values unchanged): " .. concat(stale, "; ")
          end
          r.notes[#r.notes + 1] = format("time %s within %.2f%% of baseline", si(v.time_s, "s"), 100 * tol)
        end
      end
      r.ok = #r.reasons == 0
    end
    if emit then emit(r) else results[#results + 1] = r end
    n_results = n_results + 1
  end
  if emit then return n_results end
  return results
end

-- Numbers rounded to 6 significant digits, so that baselines diff readably.
local function round6(x) return tonumber(format("%.6g", x)) end

--- Write the baseline of a loaded check (all pairs), deterministic and pretty; a file already there
-- is overwritten only when it is a baseline (read as a check reads it). @return path, entries
function M.update_baseline(c)
  if not c.baseline_path then return nil, 0 end
  local _, why = read_baseline(c.baseline_path)
  if why then error(format("%s: expect.baseline: '%s' is not a tilewave baseline (%s): not overwritten", c.file, c.baseline_path, why), 0) end
  local entries, n = {}, 0
  for p in M.pairs(c) do
    local est = transformer.estimate(p.config, p.spec, workload_of(c))
    entries[p.label] = { time_s = round6(est.time_s), tflops = round6(est.tflops), mfu = round6(est.mfu),
                         definition_hash = M.definition_hash(p.config, p.spec) }
    n = n + 1
  end
  local doc = { tilewave_version = core._VERSION, name = c.name, workload = c.workload, entries = entries }
  output.write_file(c.baseline_path, c.file .. ": expect.baseline", M.pretty_json(doc) .. "\n", true)
  return c.baseline_path, n
end

M.pretty_json = json.pretty

local function xml(s)
  return (tostring(s):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

--- JUnit XML of `runs` = { { check = c, results = {...} } }.
function M.junit(runs)
  local lines = { '<?xml version="1.0" encoding="UTF-8"?>' }
  local total, failed = 0, 0
  for _, run in ipairs(runs) do
    for _, r in ipairs(run.results) do
      total = total + 1
      if not r.ok then failed = failed + 1 end
    end
  end
  lines[#lines + 1] = format('<testsuites name="tilewave check" tests="%d" failures="%d">', total, failed)
  for _, run in ipairs(runs) do
    local f = 0
    for _, r in ipairs(run.results) do if not r.ok then f = f + 1 end end
    lines[#lines + 1] = format('  <testsuite name="%s" file="%s" tests="%d" failures="%d">', xml(run.check.name),
      xml(run.check.file), #run.results, f)
    for _, r in ipairs(run.results) do
      if r.ok then
        lines[#lines + 1] = format('    <testcase classname="%s" name="%s"/>', xml(run.check.name), xml(r.label))
      else
        lines[#lines + 1] = format('    <testcase classname="%s" name="%s">', xml(run.check.name), xml(r.label))
        lines[#lines + 1] = format('      <failure message="%s"/>', xml(concat(r.reasons, "; ")))
        lines[#lines + 1] = "    </testcase>"
      end
    end
    lines[#lines + 1] = "  </testsuite>"
  end
  lines[#lines + 1] = "</testsuites>"
  return concat(lines, "\n") .. "\n"
end

--- TAP version 13 text of `runs`.
function M.tap(runs)
  local lines, n = { "TAP version 13" }, 0
  for _, run in ipairs(runs) do n = n + #run.results end
  lines[#lines + 1] = "1.." .. n
  local i = 0
  for _, run in ipairs(runs) do
    for _, r in ipairs(run.results) do
      i = i + 1
      if r.ok then
        lines[#lines + 1] = format("ok %d - %s: %s", i, run.check.name, r.label)
      else
        lines[#lines + 1] = format("not ok %d - %s: %s", i, run.check.name, r.label)
        for _, why in ipairs(r.reasons) do lines[#lines + 1] = "  # " .. why end
      end
    end
  end
  return concat(lines, "\n") .. "\n"
end

--- One human line per result: `PASS label: notes` / `FAIL label: reasons`.
function M.line(run, r)
  if r.ok then
    return format("PASS %s %s%s", run.check.name, r.label, #r.notes > 0 and (": " .. concat(r.notes, ", ")) or "")
  end
  return format("FAIL %s %s: %s", run.check.name, r.label, concat(r.reasons, "; "))
end

return M
