-- Fit of the Hopper GEMM parameters (hw/arch/hopper.lua) to ../shared/reference/calibration/h100/gemm.csv:
-- coordinate descent on MAPE (each set weighted equally) over the per-dtype sustained fractions, mem_frac,
-- tile and k-step latencies, the alignment classes and the compiled kernel_s. Prints the fitted values
-- and the per-set MAPE. Usage: build/tilewave run scripts/fit_hopper_gemm.lua [FIXED,NAMES] [ROUNDS]
local tw = require "tilewave"
local csv = require "tilewave.util.csv"
local dir = csv.shared_dir() .. "/calibration/h100"
local rows = assert(csv.read(dir .. "/gemm.csv"))
local base = assert(tw.hw.load("h100_sxm5"))
local arch = tw.hw.gemm_params(base)
-- group weights: each set equal total weight
local count = {}
for _, r in ipairs(rows) do count[r.set] = (count[r.set] or 0) + 1 end
local P = {
  {"cf_bf16", 0.78}, {"cf_fp16", 0.75}, {"cf_tf32", 0.8}, {"cf_fp32", 0.77}, {"cf_fp8", 0.7}, {"cf_int8", 0.48},
  {"mem_frac", 0.875}, {"tile_lat", 0.9e-6}, {"kstep", 0.15e-6}, {"a2", 0.17}, {"a4", 0.3}, {"a8", 0.33}, {"a16", 0.85}, {"a32", 0.92},
  {"kernel_s", 2.8e-6},
}
local fixed = {}
for a in (arg[1] or ""):gmatch("[^,]+") do fixed[a] = true end
local function spec_of(v)
  local s = {}
  for k, x in pairs(base) do s[k] = x end
  s.gemm = {
    compute_frac = v.cf_bf16, dtype_compute_frac = { bf16 = v.cf_bf16, fp16 = v.cf_fp16, tf32 = v.cf_tf32, fp32 = v.cf_fp32, fp8 = v.cf_fp8, int8 = v.cf_int8 },
    mem_frac = v.mem_frac, tile_latency_s = v.tile_lat, kstep_latency_s = v.kstep,
    align_eff = { v.a2, v.a2, v.a4, v.a8, v.a16, v.a32, 1, 1 },
  }
  return s
end
local function loss(v, report)
  local s = spec_of(v)
  local eng = { base = "compiled", kernel_s = v.kernel_s }
  local tot, wsum = 0, 0
  local g = {}
  for _, r in ipairs(rows) do
    local ok, res = pcall(tw.gemm, { m = tonumber(r.m), n = tonumber(r.n), k = tonumber(r.k), batch = tonumber(r.batch), dtype = r.dtype, hw = s, engine = eng })
    if not ok then return math.huge end
    local meas = tonumber(r.time_s)
    local e = math.abs(res.time_s - meas) / meas
    local w = 1 / count[r.set]
    tot, wsum = tot + w * e, wsum + w
    if report then local k = r.set .. " " .. r.dtype; g[k] = g[k] or {0,0}; g[k][1] = g[k][1] + e; g[k][2] = g[k][2] + 1 end
  end
  if report then
    local ks = {} for k in pairs(g) do ks[#ks+1] = k end table.sort(ks)
    for _, k in ipairs(ks) do print(string.format("  %-16s %5d %5.1f%%", k, g[k][2], 100*g[k][1]/g[k][2])) end
  end
  return tot / wsum
end
local v = {}
for _, p in ipairs(P) do v[p[1]] = p[2] end
local best = loss(v)
print("start", best)
for round = 1, tonumber(arg[2] or 6) do
  local step = 0.2 / round
  for _, p in ipairs(P) do
    local name = p[1]
    if not fixed[name] then
      local improved = true
      while improved do
        improved = false
        for _, f in ipairs { 1 + step, 1 / (1 + step) } do
          local old = v[name]
          v[name] = old * f
          if name:match("^cf") or name:match("^a%d") or name == "mem_frac" then v[name] = math.min(v[name], 1) end
          local l = loss(v)
          if l < best - 1e-6 then best = l; improved = true; break else v[name] = old end
        end
      end
    end
  end
  print("round", round, best)
end
for _, p in ipairs(P) do print(string.format("%-10s %.4g", p[1], v[p[1]])) end
loss(v, true)
