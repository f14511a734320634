--- tilewave.report.listing: the listings of `tilewave hw`, `tilewave models` and `tilewave engines`
-- as text tables, CSV and JSON. Formats only: the figures come from the hw specs and
-- tilewave.models. Units: FLOP/s printed as TFLOP/s, byte/s as GB/s (SI), counts as integers. The
-- engines of `tilewave engines` (tilewave.cost.engines), one block each.
-- @module tilewave.report.listing
local json = require "tilewave.util.json"
local format_ = require "tilewave.report.format"

local M = {}
local format, concat, sort = string.format, table.concat, table.sort

-- The estimate classes a device's `measured` table names, in a fixed order ("-" for none).
local CLASSES = { "gemm", "attention", "forward", "decode", "training" }
local function measured(spec)
  local got = {}
  for _, k in ipairs(CLASSES) do
    if spec.measured and spec.measured[k] then got[#got + 1] = k end
  end
  return #got > 0 and table.concat(got, ",") or "-"
end

--- The devices `specs` (resolved hw specs, in order): `fmt` "json" gives the specs as a JSON
-- array; otherwise a table of id, name, SMs, 16-bit TFLOP/s (bf16, else fp16), GB/s, ops:byte and
-- measured (the estimate classes measured on the device, hw/<id>.lua `measured`; "-": none, so
-- its prediction intervals are its architecture's widened, tilewave.cost.interval), then a line
-- counting the devices and those measured.
-- @return the text, newline-terminated
function M.hw(specs, fmt)
  if fmt == "json" then return json.encode(specs) .. "\n" end
  local rows, n = {}, 0
  for _, spec in ipairs(specs) do
    local half = spec.peak_flops.bf16 or spec.peak_flops.fp16
    local m = measured(spec)
    if m ~= "-" then n = n + 1 end
    rows[#rows + 1] = { spec.id, spec.name, tostring(spec.sm_count),
      half and format("%.1f", half / 1e12) or "-", format("%.0f", spec.mem_bw / 1e9),
      half and format("%.1f", half / spec.mem_bw) or "-", m }
  end
  return format_.table({ "id", "name", "SMs", "16-bit TFLOP/s", "GB/s", "ops:byte", "measured" }, rows)
    .. format("\n%d devices, %d with measurements behind them; the others' prediction intervals are their "
      .. "architecture's, widened (docs/hardware.md)\n", #specs, n)
end

--- Text report of one hardware spec (`tilewave hw <id>`): every figure with its source, its node,
-- what was measured on it, and its GEMM parameters `g`.
function M.hw_text(spec, g)
  local lines = { format("%s (%s), %s, arch %s", spec.name, spec.id, spec.vendor, spec.arch) }
  local function row(label, value, key)
    lines[#lines + 1] = format("  %-18s %-22s %s", label, value, spec.sources[key] or "")
  end
  row("SMs", tostring(spec.sm_count), "sm_count")
  if spec.boost_clock_hz then row("boost clock", format_.si(spec.boost_clock_hz, "Hz"), "boost_clock_hz") end
  if spec.memory_bytes then row("memory", format_.si(spec.memory_bytes, "B") .. " (datasheet)", "memory_bytes") end
  if spec.usable_memory_bytes then -- NVML counts MiB: the datasheet's "GB" is often GiB, or rounded
    row("usable memory", format("%s = %.0f MiB (NVML; priced)", format_.si(spec.usable_memory_bytes, "B"),
      spec.usable_memory_bytes / 2 ^ 20), "usable_memory_bytes")
  end
  row("bandwidth", format_.si(spec.mem_bw, "B/s"), "mem_bw")
  if spec.l2_bytes then row("L2", format_.si(spec.l2_bytes, "B"), "l2_bytes") end
  if spec.smem_per_sm_bytes then row("smem per SM", format_.si(spec.smem_per_sm_bytes, "B"), "smem_per_sm_bytes") end
  local dts = {}
  for k in pairs(spec.peak_flops) do dts[#dts + 1] = k end
  sort(dts)
  for _, d in ipairs(dts) do
    lines[#lines + 1] = format("  %-18s %-22s ops:byte %.1f", "peak " .. d, format_.si(spec.peak_flops[d], "FLOP/s"),
      spec.peak_flops[d] / spec.mem_bw)
  end
  lines[#lines + 1] = "  source of peaks: " .. spec.sources.peak_flops
  if spec.interconnect then
    for _, k in ipairs { "nvlink_bw", "pcie_bw", "fabric_bw" } do
      if spec.interconnect[k] then row(k, format_.si(spec.interconnect[k], "B/s"), "interconnect") end
    end
  end
  if spec.node then row("node", spec.node .. " (hw/clusters)", "node") end
  if spec.measured and next(spec.measured) then
    local ks = {}
    for k in pairs(spec.measured) do ks[#ks + 1] = k end
    sort(ks)
    for _, k in ipairs(ks) do lines[#lines + 1] = format("  %-18s %s", "measured " .. k, spec.measured[k]) end
  else
    lines[#lines + 1] = "  measured           nothing: prediction intervals are the architecture's, widened "
      .. "(tilewave.cost.interval, docs/hardware.md)"
  end
  local tiles = {}
  for i, t in ipairs(g.tiles) do tiles[i] = format("%dx%d@%.2f", t.m, t.n, t.eff) end
  lines[#lines + 1] = format("  GEMM model        compute_frac %.3f, mem_frac %.3f, overhead %s, tile latency %s",
    g.compute_frac, g.mem_frac, format_.si(g.call_overhead_s, "s"), format_.si(g.tile_latency_s, "s"))
  lines[#lines + 1] = "  GEMM tiles        " .. concat(tiles, " ")
  if spec.notes then lines[#lines + 1] = "  notes: " .. spec.notes end
  return concat(lines, "\n")
end

local MODEL_HEADER = { "id", "family", "name", "params", "active", "h", "a", "kv", "L", "I", "v" }

--- The models `objs` ({ id, family, name, params, active, and config.json's hidden_size,
-- num_attention_heads, num_key_value_heads, num_hidden_layers, intermediate_size, vocab_size }):
-- `fmt` "json" gives `{ models = objs }`, "csv" one row each (counts as integers), "text" a table
-- (parameter counts grouped in thousands).
-- @return the text, newline-terminated
function M.models(objs, fmt)
  if fmt == "json" then return json.encode { models = objs } .. "\n" end
  local group = fmt == "text" and format_.group or function(x) return format("%d", x) end
  local rows = {}
  for _, o in ipairs(objs) do
    rows[#rows + 1] = { o.id, o.family, o.name, group(o.params), group(o.active), tostring(o.hidden_size),
      tostring(o.num_attention_heads), tostring(o.num_key_value_heads), tostring(o.num_hidden_layers),
      tostring(o.intermediate_size), tostring(o.vocab_size) }
  end
  if fmt == "csv" then return require("tilewave.util.csv").table(MODEL_HEADER, rows) end
  return format_.table(MODEL_HEADER, rows) .. "\n"
end

--- One engine's lines of `tilewave engines`: `name` and description, what it assumes (its preset
-- `p` flattened onto its bases: `e`; host times in s with SI prefixes), its source.
-- @return the text, newline-terminated
function M.engine(name, p, e)
  local si = require "tilewave.util.si"
  local parts = {}
  if p.base then parts[#parts + 1] = "base " .. p.base end
  if e.version then parts[#parts + 1] = "release " .. e.version end
  if e.scheduler then parts[#parts + 1] = "scheduler " .. e.scheduler end
  local function num(x) return type(x) == "number" and x > 0 end
  if num(e.token_host_s) then parts[#parts + 1] = "host " .. si(e.token_host_s, "s") .. " per step" end
  if num(e.seq_host_s) then parts[#parts + 1] = si(e.seq_host_s, "s") .. " per sequence" end
  if num(e.host_overlap) then parts[#parts + 1] = format("%.0f%% of it overlapped", 100 * e.host_overlap) end
  if e.graph_sizes then parts[#parts + 1] = "CUDA graphs " .. e.graph_sizes .. " sizes" end
  if num(e.host_s) then parts[#parts + 1] = si(e.host_s, "s") .. " per op launched" end
  if num(e.kernel_s) then parts[#parts + 1] = si(e.kernel_s, "s") .. " per kernel"
  elseif type(e.kernel_s) == "table" then parts[#parts + 1] = "per kernel by vendor" end
  if e.launch then parts[#parts + 1] = "launch " .. e.launch end
  if e.decode_attention then parts[#parts + 1] = "decode attention " .. e.decode_attention end
  if e.vendors then
    local vs = {}
    for k in pairs(e.vendors) do vs[#vs + 1] = k end
    table.sort(vs)
    parts[#parts + 1] = table.concat(vs, ", ") .. " GPUs only"
  end
  return format("%-10s %s\n           %s\n           source: %s\n", name, p.description or e.description or "",
    table.concat(parts, "; "), p.source or e.source or "(its base's)")
end

return M
