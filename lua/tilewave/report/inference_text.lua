--- tilewave.report.inference_text: the tables of `tilewave decode` and `tilewave prefill`, one row
-- per (batch, context) or (batch, prompt), as text, CSV or JSON (`runs`); a single decode answer as
-- its own text (tilewave.report.text.decode). Formats only: every figure comes from
-- tilewave.inference and tilewave.explore.memory_fit. Units: s (SI prefixes in text), tokens/s,
-- byte.
-- @module tilewave.report.inference_text
local json = require "tilewave.util.json"
local si = require "tilewave.util.si"
local text = require "tilewave.report.text"
local format_ = require "tilewave.report.format"

local M = {}
local format, interval = string.format, format_.interval

-- the decode step's bounds, in words
local BOUND_TEXT = {
  memory = "weights and KV cache streamed from HBM",
  compute = "the FLOP at the dtype's sustained rate",
  overhead = "kernel launches (the engine's per-kernel cost) outlast the work",
  host = "the host's work per step (dispatch, scheduling, sampling) outlasts the GPU",
  communication = "the tensor-parallel all-reduces outlast the work",
  ceiling = "held to the device's datasheet limits",
  kernels = "the step's GEMM kernels in sequence, by their tiles, waves and latencies (a serving engine's "
    .. "step, as serve prices it)",
}

-- the rows as `fmt` ("json": `runs`, "csv", or a text table)
local function rows_text(fmt, header, rows, runs)
  if fmt == "json" then return json.encode { runs = runs } .. "\n" end
  if fmt == "csv" then return require("tilewave.util.csv").table(header, rows) end
  return format_.table(header, rows) .. "\n"
end

-- "would fit: A; or B" of a run that does not fit
local function would_fit(r)
  local alts = {}
  for _, n in ipairs(r.would_fit) do alts[#alts + 1] = n.text end
  return #alts > 0 and table.concat(alts, "; or ") or "nothing near"
end

-- JSON: a configuration that does not fit carries fits = false, its memory and would_fit, no decode
local function json_run(r)
  if r.fits ~= false then return r end
  local h = r.header
  return { fits = false, memory = r.memory, would_fit = r.would_fit, model = h.model, hw = h.hw, batch = h.batch,
           context = h.context, weight_dtype = h.weight_dtype, kv_dtype = h.kv_dtype, t = h.t, engine = h.engine }
end

-- the text lines under a decode table: the bounds in words, what would fit, idle SMs
local function decode_notes(runs, combos)
  local lines, seen, parts = {}, {}, {}
  for _, r in ipairs(runs) do
    local b = r.decode and r.decode.bound
    if BOUND_TEXT[b] and not seen[b] then seen[b], parts[#parts + 1] = true, b .. " = " .. BOUND_TEXT[b] end
  end
  if #parts > 0 then lines[#lines + 1] = "bound: " .. table.concat(parts, "; ") .. "\n" end
  -- rows that do not fit: no time, and the nearest configuration that does (explore.memory_fit)
  local shortfall = require("tilewave.explore.memory_fit").shortfall
  for i, r in ipairs(runs) do
    if r.fits == false then
      lines[#lines + 1] = format("batch %d, context %d %s; would fit: %s\n", combos[i][1], combos[i][2],
        shortfall(r.memory), would_fit(r))
    end
  end
  -- rows whose decode attention leaves SMs idle (tilewave.cost.price.decode_kv_eff)
  local idle = {}
  for i, r in ipairs(runs) do
    if r.decode and r.decode.kv_eff < 1 then
      idle[#idle + 1] = format("batch %d, context %d: %.0f%%", combos[i][1], combos[i][2], 100 * r.decode.kv_eff)
    end
  end
  if #idle > 0 then
    lines[#lines + 1] = "attention: the KV cache streams from too few SMs (" .. table.concat(idle, "; ")
      .. " of the rate)\n"
  end
  return table.concat(lines)
end

--- The decode answers `runs` for (batch, context) pairs `combos`: each run `{ decode, memory }`
-- (memory false when the device has no memory figure) or `{ fits = false, memory, would_fit,
-- header (the decode result) }`. One run and `fmt` text or json: that answer alone.
-- @return the text, newline-terminated
function M.decode(runs, combos, fmt)
  if #combos == 1 and fmt ~= "csv" then
    local r = runs[1]
    if fmt == "json" then return json.encode(json_run(r)) .. "\n" end
    if r.fits == false then return text.decode_unfit(r.header, r.memory, r.would_fit) .. "\n" end
    return text.decode(r.decode, r.memory or nil) .. "\n"
  end
  local rows = {}
  for i, r in ipairs(runs) do
    local bc, m = combos[i], r.memory
    if r.fits == false then
      rows[i] = { tostring(bc[1]), tostring(bc[2]), "does not fit", "-", "-", "-",
        format("short by %s", si(m.total_bytes - m.memory_bytes, "B")), si(m.total_bytes, "B") }
    else
      local d = r.decode
      rows[i] = { tostring(bc[1]), tostring(bc[2]), si(d.tpot_s, "s") .. interval(d.interval),
        format("%.1f", d.tokens_per_s), format("%.1f", d.aggregate_tokens_per_s), d.bound,
        m and "fits" or "-", m and si(m.total_bytes, "B") or "-" }
    end
  end
  local notes = fmt == "text" and decode_notes(runs, combos) or ""
  local js = {}
  for i, r in ipairs(runs) do js[i] = json_run(r) end
  local head = ""
  if fmt == "text" then
    local d = js[1].decode or js[1]
    head = format("decode %s on %s: %s weights, %s KV cache, t = %d, %s engine%s\n", d.model, d.hw, d.weight_dtype,
      d.kv_dtype, d.t, d.engine, text.speculative(d.speculative))
  end
  return head .. rows_text(fmt, { "batch", "context", "TPOT", "tokens/s/seq", "tokens/s", "bound", "memory", "bytes" },
    rows, js) .. notes
end

--- The prefill answers `runs` ({ model, hw, batch, prompt, ttft_s, interval, tflops, mfu, flops,
-- tokens_per_s, engine }, or { model, hw, batch, prompt, fits = false, memory, would_fit }) under
-- `how` ({ dtype, attention, t, engine (its name) }) as `fmt`.
-- @return the text, newline-terminated
function M.prefill(runs, how, fmt)
  local rows = {}
  for i, r in ipairs(runs) do
    if r.fits == false then
      rows[i] = { tostring(r.batch), tostring(r.prompt), "does not fit", "-", "-", "-" }
    else
      rows[i] = { tostring(r.batch), tostring(r.prompt), si(r.ttft_s, "s") .. interval(r.interval),
        si(r.batch * r.prompt / r.ttft_s, ""), format("%.1f", r.tflops), format("%.1f%%", 100 * r.mfu) }
    end
  end
  local parts = {}
  if fmt == "text" then
    local r = runs[1]
    local w = how.weight_dtype and format("%s weights%s, ", how.weight_dtype,
      how.source and format(" (%s)", how.source) or "") or ""
    parts[1] = format("prefill %s on %s: %s%s compute, %s attention, t = %d, %s engine (TTFT: the forward over the "
      .. "prompt)\n", r.model, r.hw, w, how.dtype or "bf16", how.attention, how.t, how.engine)
  end
  parts[#parts + 1] = rows_text(fmt, { "batch", "prompt", "TTFT", "tokens/s", "TFLOP/s", "MFU" }, rows, runs)
  if fmt == "text" then
    local shortfall = require("tilewave.explore.memory_fit").shortfall
    for _, r in ipairs(runs) do
      if r.fits == false then
        parts[#parts + 1] = format("batch %d, prompt %d %s; would fit: %s\n", r.batch, r.prompt,
          shortfall(r.memory), would_fit(r))
      end
    end
  end
  return table.concat(parts)
end

return M
