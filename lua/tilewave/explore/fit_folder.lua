--- tilewave.explore.fit_folder: what a measurement folder for `tilewave calibrate --base` holds
-- (the format of ../shared/reference/calibration/h100, which scripts/probe writes), and the
-- device whose figures a fit to it prices with. Used by tilewave.explore.fit.
-- @module tilewave.explore.fit_folder
local csv = require "tilewave.util.csv"
local hw = require "tilewave.data.hw"

local M = {}

local format, ipairs, pairs = string.format, ipairs, pairs

--- What a measurement folder holds: device name and date (device.txt, else the
-- gpu column), the copy bandwidth (bw.csv), the GEMM rows.
-- @raise `calibrate: <dir>/gemm.csv: ...` when gemm.csv is missing or empty
function M.read(dir)
  local rows = csv.read(dir .. "/gemm.csv")
  if not rows or #rows == 0 then
    error(format("calibrate: %s/gemm.csv: %s (scripts/probe writes it)", dir, rows and "no rows" or "cannot read it"), 0)
  end
  local info = { dir = dir, gemm = rows, device = rows[1].gpu or "unknown device" }
  local f = io.open(dir .. "/device.txt", "r")
  if f then
    local text = f:read("a")
    f:close()
    info.device = text:match("name ([^\n]-) sms ") or info.device
    info.date = text:match("Timestamp%s*:%s*([^\n]+)")
  end
  for _, r in ipairs(csv.read(dir .. "/bw.csv") or {}) do
    if r.kind and r.kind:match("^copy") then info.copy_bps = tonumber(r.gbps) * 1e9 end
  end
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
