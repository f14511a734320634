-- Fit of the memory-bound kernel classes (hw/arch/hopper.lua gemm.kernel_bw_frac) to
-- ../shared/reference/calibration/h100/kernels.csv: per layer and class, the modeled bytes of the unfused
-- kernels (tilewave.cost.kernels) over the measured device time less 1 us per kernel, as a fraction of
-- 3.35 TB/s; the last lines are the fits over all 20 layers. Usage: build/tilewave run scripts/fit_kernel_classes.lua
local tw = require "tilewave"
local csv = require "tilewave.util.csv"
local kernels = require "tilewave.cost.kernels"
local dir = csv.shared_dir() .. "/calibration/h100"
local function class_of(name)
  if name:match("softmax_warp") then return "softmax" end
  if name:match("nvjet") or name:match("Memset") or name:match("flash") or name:match("cudnn") or name:match("fmha") or name:match("gemm") or name:match("sm90") then return nil end
  if name:match("direct_copy") and name:match("elementwise_kernel<128") then return "transpose" end
  if name:match("CatArrayBatchedCopy<") then return "transpose" end
  if name:match("vectorized") or name:match("reduce_kernel") or name:match("layer_norm") or name:match("alignedK") or name:match("bfloat16_copy") then return "vector" end
  return "strided"
end
local meas = {}
for _, r in ipairs(assert(csv.read(dir .. "/kernels.csv"))) do
  local key = r.id .. "/" .. r.attention
  meas[key] = meas[key] or { vector = {0,0}, strided = {0,0}, transpose = {0,0}, softmax = {0,0} }
  local c = class_of(r.kernel)
  if c then local m = meas[key][c]; if not m then error(c .. " " .. r.kernel) end; m[1] = m[1] + (tonumber(r.time_us) or error(key .. " " .. tostring(r.time_us) .. " " .. tostring(r.kernel))) * 1e-6; m[2] = m[2] + 1 end
end
local layer_model = require("tilewave.explore.accuracy").layer_model
local tot = { vector = {0,0,0}, strided = {0,0,0}, transpose = {0,0,0}, softmax = {0,0,0} }
local keys = {} for k in pairs(meas) do keys[#keys+1] = k end table.sort(keys)
for _, key in ipairs(keys) do
  local id, att = key:match("(.*)/(.*)")
  local ops = tw.transformer.ops(layer_model(id), { b = 4, s = 2048, dtype = "bf16", attention = att })
  local ops_L = layer_model(id).num_hidden_layers
  local by = { vector = {0,0}, strided = {0,0}, transpose = {0,0}, softmax = {0,0} }
  for _, op in ipairs(ops) do
    if op.scope == "layer" then
      local list, cls = {}, {}
      if op.kind == "attention" then
        if op.impl == "standard" then
          local a, b = kernels.elementwise(op.parts[2], "unfused"); local c, d = kernels.attention_copies(op, "unfused")
          for i = 1, #a do list[#list+1] = a[i]; cls[#cls+1] = b[i] end
          for i = 1, #c do list[#list+1] = c[i]; cls[#cls+1] = d[i] end
        end
      elseif op.kind ~= "gemm" and op.kind ~= "bmm" then
        list, cls = kernels.elementwise(op, "unfused")
      end
      for i, b in ipairs(list) do by[cls[i]][1] = by[cls[i]][1] + b * op.count / ops_L; by[cls[i]][2] = by[cls[i]][2] + 1 end
    end
  end
  local line = key
  for _, c in ipairs { "vector", "strided", "transpose", "softmax" } do
    local m = meas[key][c]
    local bw = m[1] > 0 and by[c][1] / (m[1] - m[2] * 1.0e-6) / 3.35e12 or 0
    line = line .. string.format("  %s %d/%d %.2f", c, by[c][2], m[2], bw)
    tot[c][1] = tot[c][1] + by[c][1]; tot[c][2] = tot[c][2] + m[1] - m[2] * 1e-6
  end
  print(line)
end
for _, c in ipairs { "vector", "strided", "transpose", "softmax" } do print(c, tot[c][1] / tot[c][2] / 3.35e12) end
