--- tilewave.explore.decode_calibration: the decode calibration set and the model's error on it.
--
-- Reads `calibration/decode_calibration.csv` of the shared reference (gpt-fast
-- on an A100-80GB, llama.cpp on an RTX 4090 and an M2 Ultra; metric
-- decode_tok_s), maps each row to (model, device, weight format, engine,
-- mean context) and compares tw.inference.decode with the measurement.
-- Mean context: gpt-fast generates ~200 tokens after a ~5-token prompt (mean
-- 105 tokens in the cache); llama-bench tg128 generates 128 from empty (mean 64).
local calibration = require "tilewave.explore.calibration"
local inference = require "tilewave.cost.inference"

local M = {}

local function default_path()
  return (calibration.default_path():gsub("gemm_calibration%.csv$", "decode_calibration.csv"))
end

-- NVIDIA device names as the published sources write them, most specific first.
local DEVICES = {
  { "A100%-80GB", "a100_sxm4_80gb" }, { "A100 80GB", "a100_sxm4_80gb" }, { "A100%-40GB", "a100_sxm4_40gb" },
  { "H100 PCIe", "h100_pcie" }, { "H100", "h100_sxm5" }, { "H200", "h200_sxm" }, { "RTX 4090", "rtx4090" },
  { "RTX 3090 Ti", "rtx3090ti" }, { "L40S", "l40s" }, { "V100", "v100_sxm2" },
}

-- The hardware id of a device name: "Apple M3 Pro (18-core GPU)" -> apple_m3_pro
-- (one file per chip, whatever the bin); NVIDIA names through DEVICES.
local function device_id(name)
  local chip, tier = name:match("Apple (M%d+)%s*(%a*)")
  if chip then
    tier = ({ Pro = "_pro", Max = "_max", Ultra = "_ultra" })[tier] or ""
    return "apple_" .. chip:lower() .. tier
  end
  for _, d in ipairs(DEVICES) do
    if name:find(d[1]) then return d[2] end
  end
end
local MODELS = { ["Llama-2-7B"] = "llama-2-7b", ["LLaMA-2 7B"] = "llama-2-7b" }
local FORMATS = {
  ["bf16"] = { "bf16" }, ["int8 (weight-only)"] = { "int8" }, ["int4 (weight-only, group 32)"] = { "int4", 32 },
  ["F16"] = { "fp16" }, ["Q8_0"] = { "q8_0" }, ["Q4_0"] = { "q4_0" },
}

--- The decode_tok_s rows as tables with `hw`, `model_id`, `format`, `group`,
-- `engine`, `context`, `measured` (token/s); `nil, msg` if unreadable.
function M.load(path)
  local all, err = calibration.read_csv(path or default_path())
  if not all then return nil, err end
  local rows = {}
  for _, r in ipairs(all) do
    if r.metric == "decode_tok_s" then
      r.hw = device_id(r.hardware)
      r.model_id = MODELS[r.model]
      local fmt = FORMATS[r.weight_dtype]
      if fmt then r.format, r.group = fmt[1], fmt[2] end
      r.engine = r.source:find("gpt%-fast") and "compiled" or r.source:find("llama%.cpp") and "llama.cpp" or nil
      r.context = r.engine == "compiled" and 105 or 64
      r.measured = tonumber(r.value)
      rows[#rows + 1] = r
    end
  end
  return rows
end

--- Predict every mapped row; `engine_override(row)` may return an engine
-- table (used by the fit). Returns results `{ row, predicted, error }` and
-- `{ n, skipped, mape, max_abs }`.
function M.evaluate(rows, engine_override)
  local results, errs, skipped = {}, {}, 0
  for _, r in ipairs(rows) do
    if r.hw and r.model_id and r.format and r.engine then
      local d = inference.decode_step { model = r.model_id, hw = r.hw, context = r.context, weight_dtype = r.format,
                                   group = r.group, engine = engine_override and engine_override(r) or r.engine }
      local e = (d.tokens_per_s - r.measured) / r.measured
      results[#results + 1] = { row = r, predicted = d.tokens_per_s, error = e, decode = d }
      errs[#errs + 1] = e
    else
      skipped = skipped + 1
    end
  end
  return results, calibration.summary(errs, skipped)
end

return M
