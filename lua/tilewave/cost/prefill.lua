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
local quant = require "tilewave.data.quant"

local M = {}

local PREFILL = { model = true, hw = true, batch = true, prompt = true, dtype = true, attention = true, t = true,
                  engine = true, allow_long_context = true, weight_dtype = true, group = true, kv_dtype = true }

--- The dtype a forward pass's GEMMs compute in (tilewave.cost.step_parts.gemm_dtype).
M.compute_dtype = require("tilewave.cost.step_parts").gemm_dtype

--- Time to first token: the forward pass over the prompt (the GEMM model of
-- tilewave.transformer), whose last logits give the first token.
-- @tparam table o `model`, `hw`, `batch` (default 1), `prompt` (tokens,
--   required), `weight_dtype` (the weights' format as tilewave.inference.decode takes it; default
--   the checkpoint's, its config.json quantization_config, else bf16), `group` (int4), `kv_dtype`
--   (the cache the pass writes, default bf16: reported, and the memory fit's), `dtype` (the compute
--   dtype; default M.compute_dtype of the weight format: fp8 for fp8 weights where the device has
--   an fp8 peak, else the 16-bit type a weight-only format dequantizes to), `attention` ("flash"
--   default or "standard"), `t` (default 1), `engine` (default "compiled"; tilewave.cost.engines).
--   The GEMMs read the weights at the format's bits (tilewave.ops.transformer: w_bytes), as a
--   decode step does, and a MoE layer runs the experts its tokens touch (tilewave.ops.layers).
-- @return `{ ttft_s (s: compute_s + comm_s + host_s; under an engine whose scheduler overlaps a
--   share f of the host's work, max(compute_s + comm_s + (1 - f) host_s, host_s)), compute_s (the forward pass, s), comm_s
--   (tensor-parallel all-reduces, s), host_s (the engine's host time per step, s), interval (of
--   ttft_s), tflops (of the pass), mfu (model FLOP over ttft_s), flops, ops (per-op breakdown as
--   tilewave.transformer.estimate), estimate, engine, weight_dtype, weight_dtype_source (set when
--   the format is the checkpoint's), group, kv_dtype, dtype (the compute dtype) }`
function M.prefill(o)
  check.table(o, "prefill")
  check.options(o, PREFILL, "prefill")
  if o.prompt == nil then check.fail("prefill.prompt", "expected positive integer", nil) end
  check.positive_int(o.prompt, "prefill.prompt")
  local c = models.resolve(o.model, "prefill.model")
  inference.check_context(c, o.prompt, o.allow_long_context, "prefill.prompt")
  local spec = hw.resolve(o.hw, "prefill.hw")
  -- the checkpoint's own format (config.json's quantization_config, a preset's) unless one is given
  local own = o.weight_dtype == nil and c.weight_dtype
  local fmt = quant.format(own or o.weight_dtype or "bf16", own and c.weight_group or o.group, "prefill.weight_dtype")
  local kv_dtype = o.kv_dtype or "bf16"
  dtype.kv_bytes(kv_dtype, "prefill.kv_dtype")
  local est = forward.estimate(o.model, o.hw, { b = o.batch or 1, s = o.prompt, t = o.t or 1,
    dtype = o.dtype or M.compute_dtype(spec, fmt.name), attention = o.attention or "flash", engine = o.engine,
    weight_dtype = fmt.name, group = fmt.group })
  local eng = engines.resolve(o.engine, "prefill.engine")
  local comm = 0
  if est.t > 1 then
    local bytes = est.b * est.s * c.hidden_size * dtype.residual_bytes(est.dtype)
    comm = 2 * c.num_hidden_layers * price.collective("allreduce", bytes, est.t, inference.link_bw(spec, "t", est.t) / 2,
      eng.comm_latency_s or 0)
  end
  local host = (eng.token_host_s or 0) + (eng.seq_host_s or 0) * est.b
  local ttft = est.time_s + comm + host
  -- an overlapped scheduler (host_overlap f) hides a share f of the host's work behind the GPU's:
  -- max(G + (1 - f) H, H), the serving core's step (src/tw_serve.h) and decode's
  local f = eng.host_overlap or 0
  if f > 0 and host > 0 then
    local t = est.time_s + comm + (1 - f) * host
    ttft = t > host and t or host
  end
  local scale = ttft / est.time_s
  local iv = { low = est.interval.low * scale, high = est.interval.high * scale, borrowed = est.interval.borrowed,
              unmeasured = est.interval.unmeasured }
  return { ttft_s = ttft, compute_s = est.time_s, comm_s = comm, host_s = host, interval = iv, engine = est.engine,
           tflops = est.tflops, mfu = est.model_flops / ttft / est.peak_flops, flops = est.flops, ops = est.ops,
           estimate = est, model = est.model, hw = est.hw, batch = est.b, prompt = est.s, t = est.t,
           weight_dtype = fmt.name, weight_dtype_source = own and c.weight_dtype_source or nil, group = fmt.group,
           kv_dtype = kv_dtype, dtype = est.dtype }
end

return M
