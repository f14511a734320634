-- Fit of the fused-attention fractions of hw/arch/hopper.lua (attention_frac, attention_bwd_frac and their
-- FlashAttention-2 counterparts) to ../shared/reference/calibration/h100/attention.csv: a grid search
-- (step 0.01) of MAPE per kernel and pass, the forward first, then the backward with the forward fixed.
-- Prints each fraction with its MAPE. Usage: build/tilewave run scripts/fit_attention.lua [DIR [HW]]
-- (default: the shared h100 folder on h100_sxm5; e.g. hw/measured/h200_probe_2026-11-22 h200_sxm).
local tw = require "tilewave"
local accuracy = require "tilewave.explore.accuracy"
local csv = require "tilewave.util.csv"
local dir = arg[1] or csv.shared_dir() .. "/calibration/h100"
local base = assert(tw.hw.load(arg[2] or "h100_sxm5"))

local function spec_with(fields)
  local s, g = {}, {}
  for k, v in pairs(base) do s[k] = v end
  for k, v in pairs(base.gemm or {}) do g[k] = v end
  for k, v in pairs(fields) do g[k] = v end
  s.gemm = g
  return s
end

local function mape(fields, set)
  local rows = accuracy.measured(dir, spec_with(fields), "fit", { "attention" })
  local sum, n = 0, 0
  for _, r in ipairs(rows) do
    if r.set == "fit: " .. set then sum, n = sum + math.abs(r.predicted - r.measured) / r.measured, n + 1 end
  end
  return sum / n, n
end

local function search(fields, name, set)
  local best, best_f = math.huge, nil
  for i = 20, 95 do
    fields[name] = i / 100
    local ok, e = pcall(mape, fields, set) -- a fraction above its ceiling (tilewave.data.ceilings) is refused
    if ok and e < best then best, best_f = e, i / 100 end
  end
  fields[name] = best_f
  local _, n = mape(fields, set)
  print(string.format("%-24s %.2f   %-28s MAPE %5.1f%% over %d rows", name, best_f, set, 100 * best, n))
end

local fields = {}
search(fields, "attention_frac", "attention cudnn fwd")
search(fields, "attention_bwd_frac", "attention cudnn fwd+bwd")
search(fields, "attention_frac_fa2", "attention fa2 fwd")
search(fields, "attention_bwd_frac_fa2", "attention fa2 fwd+bwd")
