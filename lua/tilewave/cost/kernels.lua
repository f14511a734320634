--- tilewave.cost.kernels: which kernels an engine runs for a memory-bound op.
--
-- `fused` (compiled code, fused modules): one kernel per logical op, moving the
-- op's compulsory bytes (tilewave.ops.layers). `unfused`: one kernel per
-- framework op, as Hugging Face transformers' eager modules run them
-- (modeling_llama.py / modeling_gpt_neox.py / modeling_modernbert.py), with the
-- kernel lists of ../shared/reference/calibration/h100/kernels.csv (every kernel
-- of one eager forward of each layer, PyTorch profiler):
--   norm "rms"   LlamaRMSNorm in fp32: upcast, pow, mean, add eps, rsqrt, mul,
--                downcast, weight mul: 8 kernels (2 of them over one value per token)
--   norm "layer" F.layer_norm: 1 kernel (vectorized_layer_norm_kernel)
--   rotary       q*cos + rotate_half(q)*sin for q and k: 4 muls, 2 adds and a
--                cat each (14 kernels, as profiled); a partial rotary (GPT-NeoX)
--                also concatenates the pass-through part back: 2 more
--   glu          act(gate), then * up: 2 kernels
--   activation   GELU: 1 kernel
--   residual     one add per extra input (a parallel residual: 2 adds)
--   softmax      of materialized attention: scale, mask add, softmax: 3 kernels
--                (2 when the layer is bidirectional: no mask to add)
--                over the score matrix, and 4 copies making Q, K^T, V and the
--                output contiguous around the batched GEMMs (direct_copy kernels)
--   embedding    1 kernel (gather)
-- Every kernel is a list entry: its DRAM bytes (read + write). Kernels over one
-- value per token carry 0 bytes; they still cost a launch. A second list gives
-- each kernel's class, which sets the bandwidth it reaches (hw/arch/*.lua,
-- gemm.kernel_bw_frac), as the profiled kernel names show:
--   vector     contiguous, vectorized loads (vectorized_elementwise_kernel,
--              layer norm, reductions, contiguous cat): near the copy bandwidth
--   strided    TensorIterator's non-vectorized path (elementwise_kernel<128,4>):
--              broadcasting (cos/sin, the norm weight, the mask), casts, and
--              operands that are strided slices (gate/up chunks)
--   transpose  copies that make a transposed or strided view contiguous
--              (direct_copy of Q, K^T, V, the attention output; a partial
--              rotary's cat with the pass-through part)
--   softmax    softmax_warp_forward over the materialized scores
local M = {}

local function rms_unfused(op)
  local E, e = op.elems, op.elem_bytes
  -- upcast (read e, write 4), pow (4, 4), mean (read 4), add eps, rsqrt (per token),
  -- x * rsqrt (4, 4), downcast (4, e), weight * x (e, e)
  return { (e + 4) * E, 8 * E, 4 * E, 0, 0, 8 * E, (4 + e) * E, 2 * e * E },
         { "strided", "vector", "vector", "vector", "vector", "strided", "vector", "strided" }
end

local function rotary_unfused(op)
  local R, e = op.elems / 2, op.elem_bytes -- rotated elements of q, of k (taken equal)
  local out, cls = {}, {}
  local classes = { "strided", "strided", "vector", "strided", "strided", "vector", "vector" }
  for _ = 1, 2 do
    -- as profiled: mul, mul (by cos/sin, broadcast), add, mul, mul, add over the rotated
    -- part (read 1 or 2, write 1) and a cat
    for i, b in ipairs { 2 * R * e, 2 * R * e, 3 * R * e, 2 * R * e, 2 * R * e, 3 * R * e, 2 * R * e } do
      out[#out + 1], cls[#cls + 1] = b, classes[i]
    end
    if (op.rotary_frac or 1) < 1 then -- cat with the pass-through part
      out[#out + 1], cls[#cls + 1] = 2 * R / op.rotary_frac * e, "transpose"
    end
  end
  return out, cls
end

local UNFUSED = {
  norm = function(op) if op.norm == "rms" then return rms_unfused(op) end return { op.bytes } end,
  rotary = rotary_unfused,
  -- act(gate) * up over the two halves of the fused projection's output (strided slices)
  glu = function(op)
    return { 2 * op.elems * op.elem_bytes, 3 * op.elems * op.elem_bytes }, { "strided", "strided" }
  end,
  residual = function(op)
    local out, cls = {}, {}
    for i = 1, math.max(1, (op.inputs or 2) - 1) do out[i], cls[i] = 3 * op.elems * op.elem_bytes, "vector" end
    return out, cls
  end,
  -- logit soft-capping (Gemma 2): x / cap, tanh, x cap, three vectorized passes (read + write each)
  softcap = function(op)
    local S = op.elems * op.elem_bytes
    return { 2 * S, 2 * S, 2 * S }
  end,
  -- scale (vectorized), mask add (broadcast mask; only when masked: a bidirectional
  -- layer such as ModernBERT's, unpadded, adds none, as its profile shows), softmax
  softmax = function(op)
    local S = op.elems * op.elem_bytes
    if op.masked == false then return { 2 * S, 2 * S }, { "vector", "softmax" } end
    return { 2 * S, 2 * S, 2 * S }, { "vector", "strided", "softmax" }
  end,
}

local VECTOR = { "vector" }

--- The kernels engine fusion `fusion` ("fused" | "unfused") runs for
-- elementwise op `op`: an array of DRAM bytes per kernel, and an array of
-- their classes (see above). A fused op is one vectorized kernel.
function M.elementwise(op, fusion)
  if fusion == "unfused" then
    local f = UNFUSED[op.role]
    if f then
      local list, cls = f(op)
      if not cls then
        cls = {}
        for i = 1, #list do cls[i] = "vector" end
      end
      return list, cls
    end
  end
  return { op.bytes }, VECTOR
end

--- True when engine fusion `fusion` runs elementwise op `op` as one vector kernel of op.bytes
-- (what M.elementwise then returns), so a caller may skip building the lists.
function M.single(op, fusion) return fusion ~= "unfused" or UNFUSED[op.role] == nil end

--- Extra copies an unfused materialized attention makes around its batched
-- GEMMs (Q, K^T made contiguous: 1 and 2 tensors' worth; V; the output), byte
-- per kernel; none when fused.
function M.attention_copies(op, fusion)
  if fusion ~= "unfused" or op.impl ~= "standard" then return {}, {} end
  local q = op.qkv_bytes / 4 -- one of Q, K, V, O (exact for multi-head attention)
  return { 2 * q, 4 * q, 2 * q, 2 * q }, { "transpose", "transpose", "transpose", "transpose" }
end

-- Backward kernels of a memory-bound op, from the backward formulas autograd runs (PyTorch
-- derivatives.yaml): DRAM bytes per kernel as multiples of the op's tensor (S = elems x
-- elem_bytes), and classes. A constant's gradient is not computed (the causal mask), and a
-- gradient that passes through unchanged costs no kernel.
--   softmax   softmax_backward_data reads y and dy, writes dx (3 S, the softmax kernel class);
--             the scale's backward multiplies by the constant (2 S); the mask add passes through
--   norm      layer norm backward reads x and dy, writes dx (3 S), and reduces x and dy into the
--             weight and bias gradients (2 S); a fused RMSNorm likewise (the unfused fp32 chain of
--             eager Llama: the generic rule)
--   activation  gelu_backward reads x and dy, writes dx (3 S)
--   glu       dy*up -> d act, silu_backward(d act, gate), dy*act(gate) -> d up, three kernels
--             of 3 S each over I, and the two halves written into the fused projection's
--             gradient (2 S)
--   residual  the add's gradient passes through to both inputs; where two gradients meet they
--             are summed: one add (3 S)
--   rotary    the rotation's transpose: as many multiplies, adds and a cat as forward (1x)
--   others    twice the forward bytes, as before
local BACKWARD = {
  softmax = function(op)
    local S = op.elems * op.elem_bytes
    return { 3 * S, 2 * S }, { "softmax", "vector" }
  end,
  norm = function(op)
    local S = op.elems * op.elem_bytes
    return { 3 * S, 2 * S }, { "vector", "vector" }
  end,
  activation = function(op)
    return { 3 * op.elems * op.elem_bytes }, VECTOR
  end,
  glu = function(op)
    local S = op.elems * op.elem_bytes
    return { 3 * S, 3 * S, 3 * S, 4 * S }, { "strided", "vector", "strided", "vector" }
  end,
  residual = function(op)
    return { 3 * op.elems * op.elem_bytes }, VECTOR
  end,
}

--- The backward kernels of memory-bound op `op` under `fusion`: an array of DRAM bytes per
-- kernel and of their classes (M.elementwise's form). Unfused: the kernels above, or for the
-- rotary the forward's; fused (one kernel per op): the same bytes in one vectorized kernel;
-- roles without a formula: the forward's kernels at twice their bytes.
function M.backward(op, fusion)
  local f = BACKWARD[op.role]
  if op.role == "rotary" then return M.elementwise(op, fusion) end
  -- the unfused fp32 RMSNorm chain: each of its 8 ops has a backward (two for each multiply)
  -- over fp32 tensors: twice the forward's bytes, as the generic rule
  if op.role == "norm" and op.norm == "rms" and fusion == "unfused" then f = nil end
  if f then
    local list, cls = f(op)
    if fusion == "unfused" then return list, cls end
    local total = 0
    for _, b in ipairs(list) do total = total + b end
    return { total }, VECTOR
  end
  local list, cls = M.elementwise(op, fusion)
  local out = {}
  for i, b in ipairs(list) do out[i] = 2 * b end
  return out, cls
end

--- The memory-bound kernels around a fused attention backward (flash attention op `op`, activations
-- of `eo` bytes): FlashAttention-2's mha_bwd (Dao-AILab/flash-attention
-- csrc/flash_attn/flash_api.cpp, src/flash_bwd_launch_template.h) runs, besides the main kernel,
-- (1) dot(dO, O) per row, which also clears the fp32 dQ accumulator: reads dO and O, writes D (fp32
-- per row) and dQaccum (fp32); (2) the conversion of dQaccum (fp32) to dQ; with grouped KV heads
-- (3) the sum of the per-query-head dK and dV over each group. cuDNN's SDPA backward keeps dQ in an
-- fp32 workspace the same way; its kernels are taken as these. An array of DRAM bytes per kernel
-- and their classes (vectorized).
function M.flash_backward(op, eo)
  -- an op without the element counts (one built by hand) is taken as multi-head: K, V as Q
  local q = op.q_elems or op.batch * op.m * op.head_dim
  local kv = op.kv_elems or q
  local list = { 2 * q * eo + 4 * q + 4 * q / op.head_dim, 4 * q + q * eo }
  if kv < q then list[3] = 2 * q * eo + 2 * kv * eo end
  return list, VECTOR
end

-- Hugging Face's eager MoE block (transformers modeling_mixtral.py MixtralSparseMoeBlock.forward,
-- the form gpt-oss, Qwen-MoE and Llama 4 modules follow) routes in framework ops around the router
-- GEMM: softmax, topk, sum, divide, cast, zeros, one_hot (3 kernels), sum, greater, nonzero (2):
-- 12; then loops over the experts hit, each: mask index, where (nonzero, 2), gather of its tokens,
-- w1, w3, act, mul, w2, gather of its routing weights, mul, index_add_: 12 kernels, of which the
-- three GEMMs, act and mul (5) are the block's expert ops already counted once.
local MOE_ROUTE_KERNELS, MOE_EXPERT_KERNELS, MOE_COUNTED = 12, 12, 5

--- Experts of one rank that a step's `tokens` hit under uniform top-`k` routing over `E` experts,
-- of which this rank holds `local_e`: local_e * (1 - (1 - k/E)^tokens), rounded (at least 1).
function M.experts_hit(E, k, tokens, local_e)
  local x = local_e * (1 - (1 - k / E) ^ tokens)
  return math.max(1, math.floor(x + 0.5))
end

--- Zero-byte kernels an `unfused` engine launches for a MoE router op (op.role "moe_router",
-- carrying route_experts, route_k, route_tokens and route_local: E, k, tokens, this rank's
-- experts) beyond the GEMMs and GLU the block's ops hold: the routing ops and the per-expert loop
-- above. 0 for any other op or fusion.
-- `tokens` and `ep` (optional) replace the op's token count and spread its experts over ep ranks
-- (a decode step of `tokens` sequences priced from batch-1 ops).
function M.moe_loop(op, fusion, tokens, ep)
  if fusion ~= "unfused" or op.role ~= "moe_router" or not op.route_experts then return 0 end
  local hits = M.experts_hit(op.route_experts, op.route_k, tokens or op.route_tokens,
    ep and op.route_experts // ep or op.route_local)
  return MOE_ROUTE_KERNELS + hits * MOE_EXPERT_KERNELS - MOE_COUNTED
end

--- Kernels of one op under `fusion` (GEMMs and flash attention: 1; an unfused MoE router adds its
-- loop). `tokens`, `ep`: as M.moe_loop's.
function M.count(op, fusion, tokens, ep)
  if op.kind == "gemm" or op.kind == "bmm" then return 1 + M.moe_loop(op, fusion, tokens, ep) end
  if op.kind == "attention" then
    if op.impl == "flash" then return 1 end
    return 2 + #M.elementwise(op.parts[2], fusion) + #M.attention_copies(op, fusion)
  end
  return #M.elementwise(op, fusion)
end

--- Bandwidth of a memory-bound kernel by class, byte/s, for a spec and its architecture's
-- GEMM parameters `g` (tilewave.data.hw.gemm_params):
-- the architecture's gemm.kernel_bw_frac (or its GEMM mem_frac) of mem_bw, at most
-- the class's SM-side rate sm_count * boost_clock_hz * gemm.kernel_sm_bytes_per_cycle
-- where the architecture gives one (hw/arch/hopper.lua: the non-vectorized classes run
-- no faster on the H200 than on the H100, hw/measured/h200_layers_2026-11-22/README.md).
function M.bandwidths(spec, g)
  local f, cap = g.kernel_bw_frac or {}, g.kernel_sm_bytes_per_cycle or {}
  local out = {}
  for _, c in ipairs { "vector", "strided", "transpose", "softmax" } do
    out[c] = spec.mem_bw * (f[c] or g.mem_frac)
    if cap[c] then out[c] = math.min(out[c], spec.sm_count * spec.boost_clock_hz * cap[c]) end
  end
  return out
end

return M
