--- tilewave.report: formatting of result tables (text, JSON). Never computes a cost.
--
-- All output is deterministic: fixed number formats and sorted JSON keys, so
-- the same inputs give byte-identical reports.
local cjson = require "cjson"

local M = {}

local format, concat, sort, rep = string.format, table.concat, table.sort, string.rep
local type, pairs, ipairs, tostring, math_type = type, pairs, ipairs, tostring, math.type

local PREFIXES = { { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" }, { 1, "" },
                   { 1e-3, "m" }, { 1e-6, "u" }, { 1e-9, "n" } }

--- A value with an SI prefix and unit, 4 significant digits: si(1.234e-5, "s") -> "12.34 us".
function M.si(v, unit)
  if v == 0 then return "0 " .. unit end
  local a = v < 0 and -v or v
  for _, p in ipairs(PREFIXES) do
    if a >= p[1] * 0.99995 then return format("%.4g %s%s", v / p[1], p[2], unit) end
  end
  return format("%.4g %s", v, unit)
end

local function is_array(t)
  local n = #t
  if n == 0 then return next(t) == nil end
  for k in pairs(t) do
    if math_type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

--- JSON text of a value, object keys sorted (lua-cjson encodes the leaves).
function M.json(v)
  if type(v) ~= "table" then return cjson.encode(v) end
  local parts = {}
  if is_array(v) and #v > 0 then
    for i = 1, #v do parts[i] = M.json(v[i]) end
    return "[" .. concat(parts, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  sort(keys)
  for i, k in ipairs(keys) do
    local x = v[k]
    if x == nil then x = v[tonumber(k)] end
    parts[i] = cjson.encode(k) .. ":" .. M.json(x)
  end
  return "{" .. concat(parts, ",") .. "}"
end

--- Aligned text table: headers (array of strings), rows (arrays of strings).
-- Columns are right-aligned except the first.
function M.table(headers, rows)
  local width = {}
  for i, h in ipairs(headers) do width[i] = #h end
  for _, r in ipairs(rows) do
    for i, c in ipairs(r) do if #c > (width[i] or 0) then width[i] = #c end end
  end
  local function line(r)
    local out = {}
    for i, c in ipairs(r) do
      local pad = rep(" ", width[i] - #c)
      out[i] = i == 1 and (c .. pad) or (pad .. c)
    end
    return (concat(out, "  "):gsub("%s+$", ""))
  end
  local lines = { line(headers) }
  local rule = {}
  for i = 1, #headers do rule[i] = rep("-", width[i]) end
  lines[2] = concat(rule, "  ")
  for _, r in ipairs(rows) do lines[#lines + 1] = line(r) end
  return concat(lines, "\n")
end

--- Text report of one tw.gemm result `r` on spec `spec`.
function M.gemm_text(r, spec)
  local slots = r.tiles / (r.waves * r.wave_eff)
  local lines = {
    format("GEMM M=%d N=%d K=%d batch=%d, %s on %s (%s)", r.m, r.n, r.k, r.batch, r.dtype, spec.name, spec.id),
    format("  time        %s per call", M.si(r.time_s, "s")),
    format("  throughput  %.1f TFLOP/s (%.1f%% of the %.1f TFLOP/s dense peak)", r.tflops,
      100 * r.flop_rate / r.peak_flops, r.peak_flops / 1e12),
    format("  work        %s, %s compulsory traffic, %s modeled DRAM traffic", M.si(r.flops, "FLOP"),
      M.si(r.bytes, "B"), M.si(r.dram_bytes, "B")),
    format("  intensity   %.1f FLOP/B against a ridge point of %.1f FLOP/B (peak ops:byte)", r.intensity,
      r.peak_flops / spec.mem_bw),
    format("  bound       %s (compute %s, memory %s, overhead %s)", r.bound, M.si(r.compute_s, "s"),
      M.si(r.memory_s, "s"), M.si(r.overhead_s, "s")),
    format("  kernel      tile %dx%d, split-K %d, %d tiles in %d wave%s of %d", r.tile.m, r.tile.n, r.split_k,
      r.tiles, r.waves, r.waves == 1 and "" or "s", math.floor(slots + 0.5)),
    format("  efficiency  tile %.3f, wave %.3f, alignment %.3f (N and K %d-byte aligned)", r.tile_eff,
      r.wave_eff, r.align_eff, r.align_bytes),
  }
  return concat(lines, "\n")
end

--- Text report of a hardware spec and its GEMM parameters `g`.
function M.hw_text(spec, g)
  local lines = { format("%s (%s), %s, arch %s", spec.name, spec.id, spec.vendor, spec.arch) }
  local function row(label, value, key)
    lines[#lines + 1] = format("  %-18s %-22s %s", label, value, spec.sources[key] or "")
  end
  row("SMs", tostring(spec.sm_count), "sm_count")
  row("boost clock", M.si(spec.boost_clock_hz, "Hz"), "boost_clock_hz")
  row("memory", M.si(spec.memory_bytes, "B"), "memory_bytes")
  row("bandwidth", M.si(spec.mem_bw, "B/s"), "mem_bw")
  row("L2", M.si(spec.l2_bytes, "B"), "l2_bytes")
  if spec.smem_per_sm_bytes then row("smem per SM", M.si(spec.smem_per_sm_bytes, "B"), "smem_per_sm_bytes") end
  local dts = {}
  for k in pairs(spec.peak_flops) do dts[#dts + 1] = k end
  sort(dts)
  for _, d in ipairs(dts) do
    lines[#lines + 1] = format("  %-18s %-22s ops:byte %.1f", "peak " .. d, M.si(spec.peak_flops[d], "FLOP/s"),
      spec.peak_flops[d] / spec.mem_bw)
  end
  lines[#lines + 1] = "  source of peaks: " .. spec.sources.peak_flops
  if spec.interconnect then
    for _, k in ipairs { "nvlink_bw", "pcie_bw", "fabric_bw" } do
      if spec.interconnect[k] then row(k, M.si(spec.interconnect[k], "B/s"), "interconnect") end
    end
  end
  local tiles = {}
  for i, t in ipairs(g.tiles) do tiles[i] = format("%dx%d@%.2f", t.m, t.n, t.eff) end
  lines[#lines + 1] = format("  GEMM model        compute_frac %.3f, mem_frac %.3f, overhead %s, tile latency %s",
    g.compute_frac, g.mem_frac, M.si(g.call_overhead_s, "s"), M.si(g.tile_latency_s, "s"))
  lines[#lines + 1] = "  GEMM tiles        " .. concat(tiles, " ")
  if spec.notes then lines[#lines + 1] = "  notes: " .. spec.notes end
  return concat(lines, "\n")
end

return M
