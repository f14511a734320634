--- tilewave.cost.training_config: a training step's options validated and completed
-- (tilewave.cost.training prices them). Every option is checked by name; unknown ones raise.
local check = require "tilewave.util.check"
local models = require "tilewave.data.models"
local cluster = require "tilewave.data.cluster"
local engines = require "tilewave.cost.engines"

local M = {}

local format, ipairs = string.format, ipairs

--- Memory each GPU keeps besides weights, gradients, optimizer states and
-- activations (CUDA context, NCCL and cuBLAS workspaces, allocator
-- fragmentation), byte. An allowance, not a measurement.
M.WORKSPACE_BYTES = 4 * 1024 ^ 3

local CHECKPOINTING = { none = true, selective = true, full = true }

--- Most GPUs a step may span (2^24; the largest clusters built hold ~10^5).
M.MAX_GPUS = 2 ^ 24 // 1
--- Most sequences per optimizer step (2^32; about 10^13 tokens at s = 2048).
M.MAX_GLOBAL_BATCH = 2 ^ 32 // 1

local STEP = { model = true, cluster = true, nodes = true, global_batch = true, micro_batch = true, s = true,
               t = true, p = true, d = true, zero = true, checkpointing = true, dtype = true, dropout = true,
               sequence_parallel = true, interleave = true, attention = true, overlap = true,
               workspace_bytes = true, engine = true, ep = true, grad_accumulation = true }

--- Bytes each parameter's gradient accumulation moves per micro-batch, by how it is done:
-- "autograd" (PyTorch's .grad accumulation: read the running and the new gradient, write the
-- sum, 2 bytes each in bf16/fp16: 6), "main_grad" (Megatron-LM's fp32 main_grad: a hook adds
-- each micro-batch's fp16 gradient into it, read 4 + 2, write 4: 10), "fused" (accumulated in the
-- weight-gradient GEMM's epilogue, Megatron's gradient_accumulation_fusion: 0 beyond the GEMM).
M.GRAD_ACCUMULATION = { autograd = 6, main_grad = 10, fused = 0 }

-- The options every split of a search shares, validated and completed (all but t, p,
-- micro_batch, checkpointing, zero and d, which split() adds); raises naming the field.
function M.shared(o, path)
  check.table(o, path)
  check.options(o, STEP, path)
  local c = models.resolve(o.model, path .. ".model")
  local cl = cluster.resolve(o.cluster or "dgx_h100", path .. ".cluster")
  local x = { c = c, cl = cl, spec = cl.spec }
  x.nodes = check.positive_int(o.nodes or 1, path .. ".nodes")
  -- the largest clusters built hold ~10^5 GPUs; 2^24 keeps every count exact and finite
  if (x.nodes + 0.0) * cl.gpus_per_node > M.MAX_GPUS then
    check.fail(path .. ".nodes", format("expected at most %d GPUs (nodes * %d per node)", M.MAX_GPUS,
      cl.gpus_per_node), x.nodes)
  end
  x.gpus = x.nodes * cl.gpus_per_node
  x.s = check.positive_int(o.s or c.max_position_embeddings or 2048, path .. ".s")
  -- as it trains: PyTorch engines dispatch another fused attention kernel when gradients are needed
  x.engine = engines.for_training(engines.resolve(o.engine, path .. ".engine"))
  x.dtype = o.dtype or "bf16"
  x.attention = check.one_of(o.attention or "flash", { flash = true, standard = true }, path .. ".attention")
  if o.sequence_parallel ~= nil and type(o.sequence_parallel) ~= "boolean" then
    check.fail(path .. ".sequence_parallel", "expected true or false", o.sequence_parallel)
  end
  x.sp = o.sequence_parallel and true or false
  x.v = check.positive_int(o.interleave or 1, path .. ".interleave")
  x.overlap = o.overlap or {}
  check.table(x.overlap, path .. ".overlap")
  check.options(x.overlap, { tp = true, pp = true, dp = true }, path .. ".overlap")
  for _, k in ipairs { "tp", "pp", "dp" } do
    x.overlap[k] = x.overlap[k] or 0
    if type(x.overlap[k]) ~= "number" or x.overlap[k] < 0 or x.overlap[k] > 1 then
      check.fail(path .. ".overlap." .. k, "expected number in [0, 1]", x.overlap[k])
    end
  end
  x.workspace = check.nonneg(o.workspace_bytes or M.WORKSPACE_BYTES, path .. ".workspace_bytes")
  x.accum = check.one_of(o.grad_accumulation or "autograd", M.GRAD_ACCUMULATION, path .. ".grad_accumulation")
  x.accum_bytes = M.GRAD_ACCUMULATION[x.accum]
  x.dropout = o.dropout or 0
  if type(x.dropout) ~= "number" or x.dropout < 0 or x.dropout >= 1 then
    check.fail(path .. ".dropout", "expected number in [0, 1)", x.dropout)
  end
  x.ep = check.positive_int(o.ep or 1, path .. ".ep")
  x.E, x.k = models.experts(c)
  if x.ep > 1 and not x.E then error(format("%s.ep: %s has no experts to spread (expected ep = 1)", path, c.id or c.name), 0) end
  if o.global_batch == nil then check.fail(path .. ".global_batch", "expected positive integer", nil) end
  x.gb = check.positive_int(o.global_batch, path .. ".global_batch")
  if x.gb > M.MAX_GLOBAL_BATCH then
    check.fail(path .. ".global_batch", format("expected at most %d sequences", M.MAX_GLOBAL_BATCH), x.gb)
  end
  if (x.gb + 0.0) * x.s > 2 ^ 53 then
    check.fail(path .. ".global_batch*s", "expected at most 2^53 tokens per step", (x.gb + 0.0) * x.s)
  end
  if not x.spec.peak_flops[x.dtype] then
    error(format("%s.dtype: '%s' not supported by %s", path, x.dtype, x.spec.id), 0)
  end
  -- what every split of these options shares, computed on first use: layer costs by
  -- micro-batch and t, collective times, the optimizer's bandwidth
  x.memo = { costs = {}, coll = {} }
  return x
end

-- One split: x (a copy of shared()'s table, filled in) gets o's t, p, micro_batch,
-- checkpointing, zero and d, validated against the model and cluster.
function M.split(x, o, path)
  local c = x.c
  x.t = check.positive_int(o.t or 1, path .. ".t")
  x.p = check.positive_int(o.p or 1, path .. ".p")
  x.mb = check.positive_int(o.micro_batch or 1, path .. ".micro_batch")
  x.zero = o.zero or 0
  if x.zero ~= 0 and x.zero ~= 1 and x.zero ~= 2 and x.zero ~= 3 then check.fail(path .. ".zero", "expected 0, 1, 2 or 3", x.zero) end
  x.ckpt = check.one_of(o.checkpointing or "none", CHECKPOINTING, path .. ".checkpointing")
  local a, L = c.num_attention_heads, c.num_hidden_layers
  if a % x.t ~= 0 then check.fail(path .. ".t", format("expected a divisor of num_attention_heads %d", a), x.t) end
  if c.num_key_value_heads % x.t ~= 0 and x.t % c.num_key_value_heads ~= 0 then
    check.fail(path .. ".t", format("expected a divisor or multiple of num_key_value_heads %d", c.num_key_value_heads), x.t)
  end
  if x.p > L then check.fail(path .. ".p", format("expected at most num_hidden_layers %d", L), x.p) end
  if x.gpus % (x.t * x.p) ~= 0 then
    check.fail(path .. ".p", format("expected t*p to divide the %d GPUs", x.gpus), x.p)
  end
  x.d = o.d and check.positive_int(o.d, path .. ".d") or x.gpus // (x.t * x.p)
  if x.mb > x.gb then check.fail(path .. ".micro_batch", format("expected at most global_batch %d", x.gb), x.mb) end
  -- expert parallelism: the experts of a MoE layer spread over ep ranks of the data-parallel
  -- group (Megatron-LM / DeepSpeed-MoE), which then hold 1/ep of the expert weights
  if x.ep > 1 then
    if x.E % x.ep ~= 0 then check.fail(path .. ".ep", format("expected a divisor of the %d experts", x.E), x.ep) end
    if x.d % x.ep ~= 0 then check.fail(path .. ".ep", format("expected a divisor of d = %d", x.d), x.ep) end
  end
  if x.t * x.p * x.d ~= x.gpus then
    check.fail(path .. ".d", format("expected nodes*gpus_per_node/(t*p) = %d", x.gpus // (x.t * x.p)), x.d)
  end
  if x.gb % (x.d * x.mb) ~= 0 then
    check.fail(path .. ".global_batch", format("expected a multiple of d*micro_batch = %d", x.d * x.mb), x.gb)
  end
  x.m = x.gb // (x.d * x.mb)
  if x.v > 1 and (L % (x.p * x.v) ~= 0 or x.m % x.p ~= 0) then
    check.fail(path .. ".interleave", format("expected p*interleave to divide the %d layers and p to divide the %d micro-batches", L, x.m), x.v)
  end
  return x
end

-- Validate and complete a step's options; raises naming the field (the shared options first).
function M.config(o, path) return M.split(M.shared(o, path), o, path) end

return M
