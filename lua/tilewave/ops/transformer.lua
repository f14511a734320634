--- tilewave.ops.transformer: a model's forward pass as ops (per tensor-parallel rank).
--
--   tw.transformer.ops(model, { b = 4, s = 2048, t = 1, dtype = "bf16", attention = "flash" })
--
-- `model` is a preset id or a config (tilewave.data.models). The op fields,
-- roles and shapes, with their sources, are in tilewave.ops.layers; each
-- family's `ops(config, workload)` builds the list.
local check = require "tilewave.util.check"
local dtype = require "tilewave.data.dtype"
local models = require "tilewave.data.models"
local quant = require "tilewave.data.quant"

local M = {}

local format = string.format

--- The workload fields every forward-pass question shares.
M.WORKLOAD = { b = true, s = true, t = true, dtype = true, attention = true, uneven_heads = true, ep = true,
               imbalance = true, weight_dtype = true, group = true }

local ATTENTION = { standard = true, flash = true }

--- A validated workload with defaults: b 1, s 2048, t 1, dtype "bf16",
-- attention "standard" (or `default_attention`), and `e` the dtype's element sizes.
-- @tparam table opts `b`, `s` (positive integers, b*s <= 2^31-1), `t`
--   (positive integer, at most the model's num_attention_heads, checked by
--   M.for_model), `dtype` (a tilewave.data.dtype name), `attention`
-- @tparam string path the caller's name for messages
-- @tparam table allowed the option names accepted (unknown ones raise)
-- @raise `<path>.<field>: <expectation>, got <value>`
function M.workload(opts, path, allowed, default_attention)
  opts = opts or {}
  check.table(opts, path)
  check.options(opts, allowed or M.WORKLOAD, path)
  local w = {
    b = check.positive_int(opts.b or 1, path .. ".b"),
    s = check.positive_int(opts.s or 2048, path .. ".s"),
    t = check.positive_int(opts.t or 1, path .. ".t"),
    dtype = opts.dtype or "bf16",
    attention = check.one_of(opts.attention or default_attention or "standard", ATTENTION, path .. ".attention"),
  }
  if opts.uneven_heads ~= nil and type(opts.uneven_heads) ~= "boolean" then
    check.fail(path .. ".uneven_heads", "expected true or false", opts.uneven_heads)
  end
  w.uneven_heads = opts.uneven_heads or nil
  -- expert parallelism: each rank runs E/ep experts over the tokens of ep ranks
  w.ep = check.positive_int(opts.ep or 1, path .. ".ep")
  -- MoE routing: the busiest expert's tokens over the uniform share (>= 1; 1 = uniform)
  w.imbalance = opts.imbalance or 1
  if type(w.imbalance) ~= "number" or not (w.imbalance >= 1) or w.imbalance > 1e6 then
    check.fail(path .. ".imbalance", "expected a number >= 1 (busiest expert over the uniform share)", opts.imbalance)
  end
  w.e = dtype.get(w.dtype)
  if not w.e then check.fail(path .. ".dtype", "expected one of " .. check.keys(dtype.sizes), w.dtype) end
  -- the weights' stored format (tilewave.data.quant), when it is not the compute dtype's
  if opts.weight_dtype ~= nil or opts.group ~= nil then
    w.weight_format = quant.format(opts.weight_dtype or w.dtype, opts.group, path .. ".weight_dtype")
  end
  -- in floating point: an integer product of two huge values wraps around
  local tokens = (w.b + 0.0) * w.s
  if tokens > 2 ^ 31 - 1 then check.fail(path .. ".b*s", "expected at most 2^31-1 tokens", tokens) end
  return w
end

--- Check a tensor-parallel size against a model: engines (Megatron-LM, vLLM,
-- TensorRT-LLM) split whole heads, so t divides num_attention_heads, and the KV
-- heads are either split (t divides them) or replicated (they divide t).
-- @raise `<path>: expected a divisor of num_attention_heads A, got T`
function M.check_t(c, t, path)
  check.positive_int(t, path)
  local a, kv = c.num_attention_heads, c.num_key_value_heads or c.num_attention_heads
  if a % t ~= 0 then
    check.fail(path, format("expected a divisor of num_attention_heads %d (engines split whole heads)", a), t)
  end
  if kv % t ~= 0 and t % kv ~= 0 then
    check.fail(path, format("expected a divisor or a multiple of num_key_value_heads %d", kv), t)
  end
  return t
end

--- The ops of config `c` (resolved) under validated workload `w`.
-- `w.uneven_heads` prices a t that does not divide the heads as ceil(a/t) heads per
-- rank (the co-design paper's (b*a)/t rule, tilewave.explore.rules); engines refuse such t.
-- @raise `<path>.t: expected a divisor of num_attention_heads A, got T` (M.check_t)
function M.for_model(c, w, path)
  if w.uneven_heads then
    if w.t > c.num_attention_heads then
      check.fail(path .. ".t", format("expected at most num_attention_heads %d", c.num_attention_heads), w.t)
    end
  else
    M.check_t(c, w.t, path .. ".t")
  end
  if w.ep > 1 then
    local E = models.experts(c)
    if not E then error(format("%s.ep: %s has no experts to spread (expected ep = 1)", path, c.id or c.name), 0) end
    if E % w.ep ~= 0 then check.fail(path .. ".ep", format("expected a divisor of the %d experts", E), w.ep) end
  end
  local ops = models.families[c.family].ops(c, w)
  local fmt = w.weight_format
  if fmt then
    -- a weight stored in fewer (or more) bits than the compute dtype's: its GEMM reads it at
    -- those bits and dequantizes in registers (W4A16, W8A16); the op's compulsory bytes with it
    for _, op in ipairs(ops) do
      if op.kind == "gemm" then
        local wb = quant.op_bits(op, fmt, c.num_hidden_layers) / 8
        if wb ~= w.e.in_bytes then
          op.w_bytes = wb
          op.bytes = op.bytes + (wb - w.e.in_bytes) * op.k * op.n * op.batch
        end
      end
    end
  end
  return ops
end

--- The ordered ops of one forward pass (see tilewave.ops.layers for the op
-- fields, roles and shapes), per tensor-parallel rank.
-- @tparam table opts `b` (micro-batch, default 1), `s` (sequence length,
--   default 2048), `t` (tensor-parallel size, default 1, at most a),
--   `dtype` (default "bf16"; sets the bytes), `attention` ("standard" default
--   or "flash": the composite attention op's implementation)
-- @raise `transformer.ops.<field>: ...`; model errors as tilewave.data.models
function M.ops(model, opts)
  local c = models.resolve(model, "transformer.ops.model")
  local w = M.workload(opts, "transformer.ops")
  return M.for_model(c, w, "transformer.ops")
end

return M
