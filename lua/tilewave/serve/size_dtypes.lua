--- tilewave.serve.size_dtypes: the weight format the sizing search deploys on a device (issue 53
-- item 5), so that a GPU with FP8 tensor cores is sized as engines run models there.
--
--   --weight-dtype given           that format on every device (bf16, fp8, int4 AWQ/GPTQ, ...)
--   the checkpoint declares one    its own (config.json quantization_config: gpt-oss's mxfp4, an
--                                  FP8 checkpoint): what is deployed is what was trained or released
--   else, a device with FP8        fp8 weights (W8A8: vLLM --quantization fp8, SGLang --quantization
--   tensor cores (Ada, Hopper,     fp8, TensorRT-LLM FP8 checkpoints); bf16 is left out with its
--   Blackwell, CDNA3)              reason: fp8 halves the weight bytes and doubles the peak, so bf16
--                                  needs at least as many replicas at the same GPUs and price, and
--                                  never ranks cheaper (--weight-dtype bf16 sizes it)
--   else                           bf16
-- @module tilewave.serve.size_dtypes
local hw = require "tilewave.data.hw"

local M = {}

--- The weight format of the search on device `spec` for model config `c` and search options `o`.
-- @return weight_dtype (nil: the checkpoint's own, or bf16), and the reason another was left out
--   (or nil)
function M.choice(o, spec, c)
  if o.weight_dtype ~= nil then return o.weight_dtype end
  if c.weight_dtype ~= nil then return nil end
  local fp8 = hw.DTYPE_ARCHS.fp8[spec.arch or ""] and spec.peak_flops and spec.peak_flops.fp8
  if fp8 then
    return "fp8", "bf16 weights left out: fp8 (its FP8 tensor cores) needs no more replicas at the same price "
      .. "(--weight-dtype bf16 sizes bf16)"
  end
  return nil
end

return M
