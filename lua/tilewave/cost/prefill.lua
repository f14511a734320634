--- tilewave.cost.prefill: time to first token, the forward pass over a prompt.
--
--   tw.inference.prefill{ model = "llama-3.1-8b", hw = "h100_sxm5", prompt = 2048, engine = "vllm" }
--
-- The pass is tilewave.cost.forward's (the GEMM model of tilewave.transformer). With t > 1
-- every layer adds two all-reduces of the prompt's b x s x h activations (Megatron-LM: one after
-- attention, one after the MLP; the faster of ring and tree over the device's link, as decode
-- prices them), and every step adds the engine's host time per step (token_host_s: scheduling,
-- sampling). Units: s, FLOP.
-- @module tilewave.cost.prefill
local check = require "tilewave.util.check"
local dtype = require "tilewave.data.dtype"
local models = require "tilewave.data.models"
local forward = require "tilewave.cost.forward"
local inference = require "tilewave.cost.inference"
local price = require "tilewave.cost.price"
local engines = require "tilewave.cost.engines"
local hw = require "tilewave.data.hw"

local M = {}

local PREFILL = { model = true, hw = true, batch = true, prompt = true, dtype = true, attention = true, t = true,
                  engine = true, allow_long_context = true }

--- Time to first token: the forward pass over the prompt (the GEMM model of
-- tilewave.transformer), whose last logits give the first token.
-- @tparam table o `model`, `hw`, `batch` (default 1), `prompt` (tokens,
--   required), `dtype` (default "bf16"), `attention` ("flash" default or
--   "standard"), `t` (default 1), `engine` (default "compiled"; tilewave.cost.engines)
-- @return `{ ttft_s (s: compute_s + comm_s + host_s), compute_s (the forward pass, s), comm_s
--   (tensor-parallel all-reduces, s), host_s (the engine's host time per step, s), interval (of
--   ttft_s), tflops (of the pass), mfu (model FLOP over ttft_s), flops, ops (per-op breakdown as
--   tilewave.transformer.estimate), estimate, engine }`
function M.prefill(o)
  check.table(o, "prefill")
  check.options(o, PREFILL, "prefill")
  if o.prompt == nil then check.fail("prefill.prompt", "expected positive integer", nil) end
  check.positive_int(o.prompt, "prefill.prompt")
  local c = models.resolve(o.model, "prefill.model")
  inference.check_context(c, o.prompt, o.allow_long_context, "prefill.prompt")
  local est = forward.estimate(o.model, o.hw, { b = o.batch or 1, s = o.prompt, t = o.t or 1,
    dtype = o.dtype or "bf16", attention = o.attention or "flash", engine = o.engine })
  local eng = engines.resolve(o.engine, "prefill.engine")
  local comm = 0
  if est.t > 1 then
    local spec = hw.resolve(o.hw, "prefill.hw")
    local bytes = est.b * est.s * c.hidden_size * dtype.residual_bytes(est.dtype)
    comm = 2 * c.num_hidden_layers * price.collective("allreduce", bytes, est.t, inference.link_bw(spec, "t", est.t) / 2,
      eng.comm_latency_s or 0)
  end
  local host = (eng.token_host_s or 0) + (eng.seq_host_s or 0) * est.b
  local ttft = est.time_s + comm + host
  local scale = ttft / est.time_s
  local iv = { low = est.interval.low * scale, high = est.interval.high * scale, borrowed = est.interval.borrowed }
  return { ttft_s = ttft, compute_s = est.time_s, comm_s = comm, host_s = host, interval = iv, engine = est.engine,
           tflops = est.tflops, mfu = est.model_flops / ttft / est.peak_flops, flops = est.flops, ops = est.ops,
           estimate = est, model = est.model, hw = est.hw, batch = est.b, prompt = est.s, t = est.t }
end

return M
