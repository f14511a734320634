--- tilewave.data.dtype: element types and their sizes in bytes.
--
-- `in_bytes` is the size of an element of A and B; `out_bytes` of C as
-- libraries write it: fp8 GEMMs write bf16, int8 GEMMs accumulate into int32
-- (cuBLASLt conventions). Names follow PyTorch / NVIDIA datasheets. A whole pass in a dtype
-- counts its activations at the same size (fp8 and fp4 passes included).
local check = require "tilewave.util.check"

local M = {}

M.sizes = {
  fp64 = { in_bytes = 8, out_bytes = 8 },
  fp32 = { in_bytes = 4, out_bytes = 4 },
  tf32 = { in_bytes = 4, out_bytes = 4 },
  fp16 = { in_bytes = 2, out_bytes = 2 },
  bf16 = { in_bytes = 2, out_bytes = 2 },
  fp8 = { in_bytes = 1, out_bytes = 2 },
  -- E2M1 elements, half a byte (Blackwell's block-scaled FP4 MMA, MXFP4 / NVFP4 operands; their
  -- 8-bit block scales, 1/32 or 1/16 byte per element, are left out of the traffic); bf16 output
  fp4 = { in_bytes = 0.5, out_bytes = 2 },
  int8 = { in_bytes = 1, out_bytes = 4 },
}

--- Bytes of one element of the residual stream (the hidden states between layers, which a
-- tensor-parallel all-reduce sums) in a pass of dtype `name`: the model's 16-bit dtype for 8- and
-- 4-bit passes, whose GEMMs quantize their inputs and write bf16 (vLLM's Fp8LinearMethod,
-- TensorRT-LLM's FP8 recipe: the hidden states stay bf16/fp16), else the dtype's own size.
-- @raise an error for an unknown dtype (callers check the name first)
function M.residual_bytes(name)
  local d = M.sizes[name] or error("dtype.residual_bytes: unknown dtype " .. tostring(name))
  return math.max(d.in_bytes, 2)
end

-- the KV cache's element types, bytes each (FP8 E4M3/E5M2 and INT8 caches as vLLM's and
-- TensorRT-LLM's kv-cache-dtype options store them)
local KV = { bf16 = 2, fp16 = 2, fp32 = 4, fp8 = 1, int8 = 1 }

--- Bytes of one KV-cache element of dtype `name` (default "bf16").
-- @raise `<path>: expected one of bf16, fp16, fp32, fp8, int8, got ...`
function M.kv_bytes(name, path)
  local b = KV[name or "bf16"]
  if not b then check.fail(path, "expected one of " .. check.keys(KV), name) end
  return b
end

--- The dtype names, sorted.
function M.names()
  local out = {}
  for k in pairs(M.sizes) do out[#out + 1] = k end
  table.sort(out)
  return out
end

--- Sizes of a dtype, or nil if it is not known.
function M.get(name) return M.sizes[name] end

return M
