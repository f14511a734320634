--- tilewave.explore.gemm_fix: which dimension of a GEMM breaks its alignment, and the padded shape
-- that runs faster (issue 50: `tilewave gemm` names the fix, not only the cause).
--
-- Tensor-core kernels load rows of A and B in 16-byte vectors (Hopper's TMA needs 16-byte strides:
-- NVIDIA, CUDA C++ Programming Guide, "Tensor Memory Access"; cuBLAS picks slower kernel classes
-- below it: hw/arch/*.lua align_eff). The leading dimensions are N (B and C) and K (A): an N or K
-- whose byte size is off a power of two loses the wider loads. Padding that dimension with zeros
-- (cuBLAS's own advice: "Tensor Core Requirements", cuBLAS documentation) wastes a few columns of
-- work and can win back the kernel class; the model prices both, and a pad is offered only when it
-- is predicted faster by at least RULE_GAIN, as the co-design rules are (tilewave.explore.rules).
local gemm = require "tilewave.cost.gemm"
local dtype = require "tilewave.data.dtype"
local tables = require "tilewave.util.tables"

local M = {}
local format = string.format

--- Least predicted gain for a pad to be offered: 0.5%, the rules' threshold.
M.RULE_GAIN = 0.005

--- Bytes of alignment of a dimension of `n` elements of `bytes` each: the largest power of two
-- dividing n x bytes, capped at 128 (the widest class the GEMM model has).
function M.align_bytes(n, bytes)
  local b = bytes
  while b < 128 and n % 2 == 0 do n, b = n // 2, b * 2 end
  return math.min(b, 128)
end

local function pad(n, bytes, q)
  local per = math.max(1, math.floor(q / bytes + 0.5))
  return -(-n // per) * per
end

--- The fix of GEMM `o` (the options of tilewave.gemm) priced as `r`: `nil` when N and K are
-- 16-byte aligned or no pad is faster by RULE_GAIN, else `{ n, k, time_s, speedup, padded =
-- { "N", ... }, align = { n = bytes, k = bytes } }`, the fastest of N and/or K padded to the next
-- multiple of 16, 32, 64 or 128 bytes.
-- @raise what tilewave.gemm raises for `o`
function M.pad(o, r)
  local bytes = dtype.get(r.dtype).in_bytes
  local an, ak = M.align_bytes(o.n, bytes), M.align_bytes(o.k, bytes)
  if an >= 16 and ak >= 16 then return nil end
  local best
  for _, q in ipairs { 16, 32, 64, 128 } do
    local n, k = an < q and pad(o.n, bytes, q) or o.n, ak < q and pad(o.k, bytes, q) or o.k
    local v = tables.copy(o)
    v.n, v.k = n, k
    local t = gemm.gemm(v).time_s
    if t < (best and best.time_s or r.time_s * (1 - M.RULE_GAIN)) then
      local padded = {}
      if n ~= o.n then padded[#padded + 1] = "N" end
      if k ~= o.k then padded[#padded + 1] = "K" end
      best = { n = n, k = k, time_s = t, speedup = r.time_s / t, padded = padded }
    end
  end
  if best then best.align = { n = an, k = ak } end
  return best
end

--- "N 2-byte aligned, K 128-byte aligned": which dimension is off, in bytes.
function M.describe(o, r)
  local bytes = dtype.get(r.dtype).in_bytes
  return format("N %s-byte aligned, K %s-byte aligned", tostring(M.align_bytes(o.n, bytes)),
    tostring(M.align_bytes(o.k, bytes)))
end

return M
