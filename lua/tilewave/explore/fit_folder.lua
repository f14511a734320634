--- tilewave.explore.fit_folder: what a measurement folder for `tilewave calibrate --base` holds
-- (the format of ../shared/reference/calibration/h100, which scripts/probe writes), and the
-- device whose figures a fit to it prices with. Used by tilewave.explore.fit.
-- @module tilewave.explore.fit_folder
local sandbox = require "tilewave.util.sandbox"
local hw = require "tilewave.data.hw"
local mcsv = require "tilewave.explore.measured_csv"
local measured_models = require "tilewave.explore.measured_models"

local M = {}

local format, ipairs, pairs = string.format, ipairs, pairs

--- What a measurement folder holds: device name and date (device.txt, else the
-- gpu column), the copy bandwidth (bw.csv), the GEMM rows.
-- Every file of the folder the calibration reads is checked first (tilewave.explore.measured_csv),
-- so that a bad row stops the run before the fit, not after it.
-- @raise `calibrate: <dir>/gemm.csv: ...` when gemm.csv is missing or empty; a bad row as
--   tilewave.explore.measured_csv
function M.read(dir)
  local rows = {}
  mcsv.each(dir .. "/gemm.csv", "gemm", function(r) rows[#rows + 1] = r end)
  if #rows == 0 then
    local there = sandbox.exists(dir .. "/gemm.csv")
    error(format("calibrate: %s/gemm.csv: %s (scripts/probe writes it)", dir, there and "no rows" or "no such file"), 0)
  end
  -- the other files' columns, and the models their rows name
  local function id(r) measured_models.preset(r.id == "modernbert-base-global" and "modernbert-base" or r.id) end
  for _, name in ipairs { "layers", "decode", "hf_generate", "hf_generate_single", "attention", "host" } do
    local cols = name == "hf_generate_single" and "hf_generate" or name
    mcsv.each(dir .. "/" .. name .. ".csv", cols, mcsv.COLUMNS[cols].id and id or function() end)
  end
  local info = { dir = dir, gemm = rows, device = rows[1].gpu or "unknown device" }
  -- device.txt, where there is one: a regular file within the size limit, recorded as an input (an
  -- output may not replace it: tilewave.util.output)
  if sandbox.exists(dir .. "/device.txt") then
    local text, err = sandbox.read_file(dir .. "/device.txt")
    if not text then error("calibrate: " .. err, 0) end
    info.device = text:match("name ([^\n]-) sms ") or info.device
    info.date = text:match("Timestamp%s*:%s*([^\n]+)")
  end
  mcsv.each(dir .. "/bw.csv", "bw", function(r)
    if r.kind:match("^copy") then info.copy_bps = r.gbps * 1e9 end
  end)
  return info
end

--- The spec the fit prices with: device `device`'s figures (peaks, bandwidth, SMs, L2, clocks: an
-- id, path or spec; the folder's own GPU by default) under base spec `pbase`'s architecture and
-- no `gemm` overrides; `pbase` itself when `device` is nil.
function M.figures(pbase, device)
  if device == nil then return pbase end
  local t, s = hw.resolve(device, "calibrate.device"), {}
  for k, v in pairs(t) do if k ~= "gemm" then s[k] = v end end
  s.arch = pbase.arch
  return s
end

return M
