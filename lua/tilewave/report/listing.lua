--- tilewave.report.listing: the listings of `tilewave hw`, `tilewave models` and `tilewave engines`
-- as text tables, CSV and JSON. Formats only: the figures come from the hw specs and
-- tilewave.models. Units: FLOP/s printed as TFLOP/s, byte/s as GB/s (SI), counts as integers. The
-- engines of `tilewave engines` (tilewave.cost.engines), one block each.
-- @module tilewave.report.listing
local json = require "tilewave.util.json"
local format_ = require "tilewave.report.format"

local M = {}
local format = string.format

--- The devices `specs` (resolved hw specs, in order): `fmt` "json" gives the specs as a JSON
-- array; otherwise a table of id, name, SMs, 16-bit TFLOP/s (bf16, else fp16), GB/s and ops:byte.
-- @return the text, newline-terminated
function M.hw(specs, fmt)
  if fmt == "json" then return json.encode(specs) .. "\n" end
  local rows = {}
  for _, spec in ipairs(specs) do
    local half = spec.peak_flops.bf16 or spec.peak_flops.fp16
    rows[#rows + 1] = { spec.id, spec.name, tostring(spec.sm_count),
      half and format("%.1f", half / 1e12) or "-", format("%.0f", spec.mem_bw / 1e9),
      half and format("%.1f", half / spec.mem_bw) or "-" }
  end
  return format_.table({ "id", "name", "SMs", "16-bit TFLOP/s", "GB/s", "ops:byte" }, rows) .. "\n"
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
