-- Model error on the H100 SXM5 measurements of ../shared/reference/calibration/h100/
-- (README there: CUDA-graph replays timed with CUDA events = device time; `eager` rows
-- launched from Python). Per set: MAPE (mean |predicted - measured| / measured) and bias
-- (mean signed error; negative = predicted too fast).
--   gemm.csv        tw.gemm (kernel timing), by set and dtype
--   layers.csv      one layer's forward, tw.transformer.estimate(...).layer_s, by timing x attention
--   decode.csv      tw.inference.decode (llama-2-7b), by timing
--   hf_generate.csv tw.inference.decode under the hf engine, TPOT
-- Engines compared: `compiled` (the default), and the engine that matches how each
-- row was run (graph rows: { base = "eager", launch = "graph" }; eager rows: "eager";
-- generate(): "hf").
-- Usage: build/tilewave run scripts/calibrate_h100.lua [DIR] [--rows]
local argparse = require "argparse"
local tw = require "tilewave"
local csv = require "tilewave.util.csv"

local p = argparse("calibrate_h100.lua", "Model error on the H100 calibration set, per set and engine.")
p:argument("dir", "The measurement folder (default: ../shared/reference/calibration/h100)."):args("?")
p:flag("--rows", "Print every layer and decode row.")
local args = p:parse(arg)

local dir = args.dir or (csv.shared_dir() .. "/calibration/h100")
local HW = "h100_sxm5"
local format = string.format

local function read(name)
  local rows, err = csv.read(dir .. "/" .. name)
  if not rows then error("calibrate_h100: " .. tostring(err), 0) end
  return rows
end

-- accumulators of signed relative errors, in first-seen order
local order, sets = {}, {}
local function add(set, pred, meas)
  if not sets[set] then sets[set] = {}; order[#order + 1] = set end
  local e = (pred - meas) / meas
  local s = sets[set]
  s[#s + 1] = e
  return e
end

local DTYPES = { bf16 = "bf16", fp16 = "fp16", tf32 = "tf32", fp32 = "fp32", fp8 = "fp8", int8 = "int8" }
for _, r in ipairs(read("gemm.csv")) do
  local dt = DTYPES[r.dtype]
  local ok, g = pcall(tw.gemm, { m = tonumber(r.m), n = tonumber(r.n), k = tonumber(r.k),
                                 batch = tonumber(r.batch), dtype = dt, hw = HW })
  if ok then
    add(format("gemm %-8s %-5s", r.set, r.dtype), g.time_s, tonumber(r.time_s))
    add("gemm all", g.time_s, tonumber(r.time_s))
  end
end

-- the measured layer ids -> model configs (a ModernBERT global layer: every layer global)
local function layer_model(id)
  if id == "modernbert-base-global" then
    local c = tw.models.load("modernbert-base")
    local d = {}
    for k, v in pairs(c) do d[k] = v end
    d.global_attn_every_n_layers, d.id, d.name = 1, nil, "modernbert-base (all layers global)"
    return tw.models.define(d)
  end
  return assert(tw.models.load(id))
end

local ENGINE_OF = { graph = { base = "eager", launch = "graph" }, eager = "eager" }
local function name_of(e) return type(e) == "table" and "eager+graph" or e end

local detail = {}
for _, r in ipairs(read("layers.csv")) do
  local c = layer_model(r.id)
  local meas = tonumber(r.time_s)
  for _, eng in ipairs { "compiled", ENGINE_OF[r.timing] } do
    local est = tw.transformer.estimate(c, HW, { b = tonumber(r.b), s = tonumber(r.s), dtype = "bf16",
                                                 attention = r.attention, engine = eng })
    local e = add(format("layers %-6s %-8s %s", r.timing, r.attention, name_of(eng)), est.layer_s, meas)
    detail[#detail + 1] = format("%-24s b%-2s s%-5s %-8s %-6s %-12s measured %8.3f ms predicted %8.3f ms %+6.1f%%",
      r.id, r.b, r.s, r.attention, r.timing, name_of(eng), meas * 1e3, est.layer_s * 1e3, 100 * e)
  end
end

for _, r in ipairs(read("decode.csv")) do
  local meas = tonumber(r.step_s)
  for _, eng in ipairs { "compiled", ENGINE_OF[r.timing] } do
    local d = tw.inference.decode { model = r.id, hw = HW, batch = tonumber(r.batch), context = tonumber(r.context),
                                    engine = eng }
    local e = add(format("decode %-6s %s", r.timing, name_of(eng)), d.tpot_s, meas)
    detail[#detail + 1] = format("%-10s batch %-3s context %-5s %-6s %-12s measured %8.3f ms predicted %8.3f ms %+6.1f%%",
      r.id, r.batch, r.context, r.timing, name_of(eng), meas * 1e3, d.tpot_s * 1e3, 100 * e)
  end
end

for _, r in ipairs(read("hf_generate.csv")) do
  local meas = tonumber(r.tpot_s)
  -- mean context over the timed tokens: prompt + 8 ... prompt + 72
  local ctx = tonumber(r.prompt) + 40
  for _, eng in ipairs { "compiled", "hf" } do
    local d = tw.inference.decode { model = r.id, hw = HW, batch = tonumber(r.batch), context = ctx, engine = eng }
    local e = add(format("generate() TPOT %s", eng), d.tpot_s, meas)
    detail[#detail + 1] = format("%-10s batch %-3s generate() %-12s measured %8.3f ms predicted %8.3f ms %+6.1f%%",
      r.id, r.batch, eng, meas * 1e3, d.tpot_s * 1e3, 100 * e)
  end
end

if args.rows then
  for _, l in ipairs(detail) do print(l) end
  print()
end
local out = {}
for _, set in ipairs(order) do
  local s = sets[set]
  local sum, bias, worst = 0, 0, 0
  for _, e in ipairs(s) do
    sum, bias = sum + math.abs(e), bias + e
    if math.abs(e) > math.abs(worst) then worst = e end
  end
  out[#out + 1] = { set, tostring(#s), format("%.1f%%", 100 * sum / #s), format("%+.1f%%", 100 * bias / #s),
                    format("%+.1f%%", 100 * worst) }
end
print(tw.report.table({ "set (" .. dir:match("[^/]*$") .. ", " .. HW .. ")", "rows", "MAPE", "bias", "worst" }, out))
