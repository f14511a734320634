--- tilewave.serve.size_devices: the devices the sizing search tries (M.list), the price of each
-- (M.price_of: the caller's, else the hw file's, with its provider and date), and the weight format
-- it deploys on each (M.choice, issue 53 item 5), so that a GPU with FP8 tensor cores is sized as
-- engines run models there:
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
-- @module tilewave.serve.size_devices
local hw = require "tilewave.data.hw"
local check = require "tilewave.util.check"

local M = {}
local format = string.format

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

--- The price of device `spec`, USD per GPU-hour, and its source ("given" from `prices`, a table
-- by hw id, else the hw file's provider and date); nil when neither has one.
-- @raise `<path>.prices.<id>: expected positive number, got ...`
function M.price_of(spec, prices, path)
  local p = prices and prices[spec.id]
  if p ~= nil then return check.positive(p, path .. ".prices." .. spec.id), "given" end
  if spec.price then return spec.price.per_hour, spec.price.provider .. ", " .. spec.price.date end
end

--- The devices of search options `o`: o.hw (an id or a list), else every hw file with a price
-- (o.prices or its own); also the ids left out for want of one.
-- @return specs, unpriced ids
-- @raise `size.hw[i]: ...` for an unknown device
function M.list(o)
  if o.hw ~= nil then
    local list = type(o.hw) == "table" and o.hw or { o.hw }
    local out = {}
    for i, h in ipairs(list) do out[i] = hw.resolve(h, format("size.hw[%d]", i)) end
    return out, {}
  end
  local out, unpriced = {}, {}
  for _, id in ipairs(hw.list()) do
    local spec = hw.resolve(id, "size.hw")
    if M.price_of(spec, o.prices, "size") then out[#out + 1] = spec else unpriced[#unpriced + 1] = spec.id end
  end
  return out, unpriced
end

--- Expert-parallel sizes the search tries for model `c` (tilewave.cost.expert_parallel; t = 1,
-- attention data-parallel): `given` (a list), else every power of two from 2 to `max_gpus` that
-- divides its experts; none for a dense model.
-- @raise `size.ep: ...` (a given size the model cannot take)
function M.ep_sizes(c, given, max_gpus)
  local ep_parallel = require "tilewave.cost.expert_parallel"
  local models = require "tilewave.data.models"
  if given ~= nil then
    check.table(given, "size.ep")
    for i, e in ipairs(given) do ep_parallel.check(c, e, 1, format("size.ep[%d]", i)) end
    return given
  end
  local out, E = {}, models.experts(c)
  local e = 2
  while E and e <= max_gpus and E % e == 0 do out[#out + 1] = e; e = e * 2 end
  return out
end

--- Pipeline sizes the search tries at each t: `given` (a list, each checked against the model's
-- layers, tilewave.cost.pipeline_parallel.check), else { 1 }.
-- @raise `size.pp[i]: ...`
function M.pp_sizes(c, given)
  if given == nil then return { 1 } end
  check.table(given, "size.pp")
  if #given == 0 then check.fail("size.pp", "expected a list of pipeline sizes", "an empty list") end
  for i, p in ipairs(given) do require("tilewave.cost.pipeline_parallel").check(c, p, format("size.pp[%d]", i)) end
  return given
end

return M
