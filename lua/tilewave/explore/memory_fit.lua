--- tilewave.explore.memory_fit: what would fit when an inference configuration does not (issue 50:
-- a configuration that does not fit prints no time, but its shortfall and the nearest thing that
-- fits). Asks tilewave.cost.inference.memory only; prices nothing.
local inference = require "tilewave.cost.inference"
local hw = require "tilewave.data.hw"
local quant = require "tilewave.data.quant"
local si = require "tilewave.util.si"

local M = {}
local format = string.format

-- the memory options of a decode or prefill request (tilewave.cost.inference.memory's own)
local KEYS = { "model", "hw", "batch", "context", "weight_dtype", "group", "kv_dtype", "t", "ep",
               "allow_long_context", "speculative", "memory_bytes", "workspace_bytes" }

local function with(o, k, v)
  local c = {}
  for _, key in ipairs(KEYS) do c[key] = o[key] end
  c[k] = v
  return c
end

-- memory() of `o`, or nil where the variant is not a valid configuration (a t that does not divide
-- the heads, a dtype the model cannot take): only validation errors are swallowed
local function try(o)
  -- with a draft, its weights and cache count too (tilewave.cost.speculative.memory)
  local ok, m = pcall(o.speculative and require("tilewave.cost.speculative").memory or inference.memory, o)
  if ok then return m end
  if type(m) == "string" and m:match("^memory[%.:]") then return nil end
  error(m, 0)
end

--- The nearest configurations that fit, when `m` (tilewave.inference.memory(o)) does not.
-- Tried in order, each alone: fewer sequences (m.max_batch), a shorter context (m.max_context),
-- smaller weights (fp8 where the device has an FP8 peak, else int8; then int4 with groups of 128),
-- more GPUs (t = 2, 4, 8 tensor-parallel ranks, weights and KV split).
-- @tparam table o the options memory() took (model, hw, batch, context, weight_dtype, t, ...)
-- @tparam table m its result, `fits = false`
-- @return `{ { change = "batch"|"context"|"weight_dtype"|"t", value, text, total_bytes }, ... }`:
--   `text` in words ("batch 4", "t = 2 (2 GPUs, 47.7 GB each)"); empty when m fits or nothing near
--     does
-- @raise what memory() raises for `o` itself
function M.nearest(o, m)
  local out = require("tilewave.util.json").array() -- [] in JSON when nothing is near
  if m.fits then return out end
  local batch, context = o.batch or 1, o.context
  if m.max_batch >= 1 and m.max_batch < batch then
    out[#out + 1] = { change = "batch", value = m.max_batch, text = format("batch %d", m.max_batch) }
  end
  if m.max_context >= 1 and m.max_context < context then
    out[#out + 1] = { change = "context", value = m.max_context, text = format("context %d", m.max_context) }
  end
  local spec = hw.resolve(o.hw, "memory.hw")
  local eight = spec.peak_flops and spec.peak_flops.fp8 and "fp8" or "int8"
  local bits = quant.formats[o.weight_dtype or "bf16"]
  -- the family's own published format first (gpt-oss: mxfp4), then 8 and 4 bits
  local okc, c = pcall(require("tilewave.data.models").resolve, o.model, "memory.model")
  local native = okc and c.native_weight_dtype
  local order = { eight, "int4" }
  if native and quant.formats[native] then table.insert(order, 1, native) end
  for _, dt in ipairs(order) do
    if bits == nil or quant.formats[dt].bits < bits.bits then
      local v = try(with(o, "weight_dtype", dt))
      if v and v.fits then
        out[#out + 1] = { change = "weight_dtype", value = dt, total_bytes = v.total_bytes,
                          text = format("%s weights (%s%s)", dt, dt == "int4" and "groups of 128, " or "",
                            si(v.total_bytes, "B")) }
        break
      end
    end
  end
  for _, t in ipairs { 2, 4, 8 } do
    if t > (o.t or 1) then
      local v = try(with(o, "t", t))
      if v and v.fits then
        out[#out + 1] = { change = "t", value = t, total_bytes = v.total_bytes,
                          text = format("t = %d (%d GPUs, %s each)", t, t, si(v.total_bytes, "B")) }
        break
      end
    end
  end
  return out
end

--- One line: "does not fit: needs X, has Y (short by Z)", Y's basis after it when `m.budget` says
-- it (a serving engine's share of the memory: tilewave.cli.decode.memory_budget).
function M.shortfall(m)
  return format("does not fit: needs %s, has %s%s (short by %s)", si(m.total_bytes, "B"), si(m.memory_bytes, "B"),
    m.budget and " (" .. m.budget .. ")" or "", si(m.total_bytes - m.memory_bytes, "B"))
end

return M
