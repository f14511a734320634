--- tilewave.data.quant: weight formats for inference - bytes per weight and the
-- ALU work to dequantize them.
--
-- Each format: `bits` per weight of a quantized matrix, including its block
-- scales (and zero points), as stored; `dequant_ops` ALU operations per weight
-- to turn it back into the compute dtype (unpack, convert, scale, offset);
-- `lm_head` the format llama.cpp gives the output matrix when it differs.
-- Sources:
--   int8 weight-only, per-output-channel bf16 scale: gpt-fast quantize.py
--     (WeightOnlyInt8QuantHandler): 8 bits + 16 bits per output row.
--   int4 with group g: gpt-fast quantize.py (WeightOnlyInt4QuantHandler,
--     group_quantize_tensor): 4 bits + bf16 scale and bf16 zero per group of g
--     weights = 4 + 32/g bits.
--   GGUF (llama.cpp ggml-common.h block layouts): q8_0 34 B per 32 weights
--     (fp16 scale + 32 int8) = 8.5 bits; q4_0 18 B per 32 = 4.5 bits; Q4_K
--     144 B per 256 = 4.5 bits; Q6_K 210 B per 256 = 6.5625 bits. q4_k_m
--     (llama.cpp llama_tensor_get_type): Q4_K, with Q6_K for attn_v and
--     ffn_down in the layers use_more_bits() picks and for the output matrix;
--     q4_0 and q4_k_m files keep the output matrix in Q6_K.
--   FP4 (E2M1 elements, 4 bits) with block scales: weight-only (dequantized to the compute
--     dtype) except where `tensor_core` names a dtype the device has a peak for:
--     mxfp4: OCP Microscaling Formats (MX) Specification v1.0 (2023), MXFP4 = 32 E2M1
--     elements sharing one 8-bit E8M0 scale: 4 + 8/32 = 4.25 bits; gpt-oss ships its MoE
--     weights so (OpenAI gpt-oss model card, 2025).
--     nvfp4: NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference"
--     (developer blog, 2025): 16 E2M1 elements sharing one FP8 E4M3 scale, plus one FP32
--     scale per tensor (negligible): 4 + 8/16 = 4.5 bits. On a device with FP4 tensor cores
--     (Blackwell: tcgen05 block-scaled MMA applies the scales in hardware) engines run it W4A4,
--     weights and activations in NVFP4 through those tensor cores, no ALU dequantization
--     (TensorRT-LLM's and vLLM's ModelOpt NVFP4 path on B200; the same blog): `tensor_core`.
-- dequant_ops are operation counts of the mechanism (convert = 1, scale = 1,
-- zero point = 1, 4-bit unpack shift + mask = 2), not fitted values.
local check = require "tilewave.util.check"
local tables = require "tilewave.util.tables"

local M = {}

local Q6_K = 210 * 8 / 256

M.formats = {
  fp32 = { bits = 32, dequant_ops = 0 },
  bf16 = { bits = 16, dequant_ops = 0 },
  fp16 = { bits = 16, dequant_ops = 0 },
  fp8 = { bits = 8, dequant_ops = 1 },
  int8 = { bits = 8, dequant_ops = 2, channel_scale_bits = 16 },
  int4 = { bits = 4, dequant_ops = 4, group_bits = 32 },
  -- unpack (shift + mask) 2, E2M1 -> compute dtype 1, block scale 1
  mxfp4 = { bits = 4 + 8 / 32, dequant_ops = 4 },
  nvfp4 = { bits = 4 + 8 / 16, dequant_ops = 4, tensor_core = "fp4" },
  q8_0 = { bits = 34 * 8 / 32, dequant_ops = 2 },
  q4_0 = { bits = 18 * 8 / 32, dequant_ops = 4, lm_head_bits = Q6_K },
  q4_k_m = { bits = 144 * 8 / 256, dequant_ops = 5, lm_head_bits = Q6_K, more_bits = Q6_K },
}

--- llama.cpp's use_more_bits(i, n): layers whose attn_v and ffn_down get Q6_K in Q4_K_M.
function M.use_more_bits(i, n)
  return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2
end

--- The format table of a weight dtype name, with `group` applied (int4).
-- @raise `<path>: expected one of ...` / `<prefix>.group: ...` (group: 32, 64, 128 or 256)
function M.format(name, group, path)
  path = path or "weight_dtype"
  local f = M.formats[name]
  if not f then check.fail(path, "expected one of " .. check.keys(M.formats), name) end
  local out = { name = name }
  tables.copy(f, out)
  local gpath = path:gsub("weight_dtype$", "group")
  if gpath == path then gpath = path .. ".group" end
  if f.group_bits then
    out.group = check.positive_int(group or 128, gpath)
    -- gpt-fast's int4 kernels take groups of 32, 64, 128 or 256 (quantize.py,
    -- WeightOnlyInt4QuantHandler asserts groupsize in [32, 64, 128, 256]); smaller groups would
    -- cost more bits in scales than in weights
    if out.group ~= 32 and out.group ~= 64 and out.group ~= 128 and out.group ~= 256 then
      check.fail(gpath, "expected an int4 group size of 32, 64, 128 or 256", out.group)
    end
    out.bits = f.bits + f.group_bits / out.group
  elseif group ~= nil then
    error(string.format("%s: only int4 takes a quantization group size, not %s", gpath, name), 0)
  end
  return out
end

--- Expected experts a decode step reads per MoE layer: E * (1 - (1 - k/E)^B) distinct
-- experts for B tokens each routed to k of E uniformly (model_configs.md §6b).
function M.experts_touched(E, k, batch)
  return E * (1 - (1 - k / E) ^ batch)
end

--- Bits per stored weight of one GEMM op's matrix (`op` of tilewave.ops.layers, kind "gemm") in
-- format `fmt` for a model of `layers` layers, scales included and averaged over the op's count:
-- per element, the bytes M.weight_bytes counts for that op over its n x k x count weights (the
-- format's bits or its lm_head_bits for the logits, a per-output-row scale over k, and q4_k_m's
-- Q6_K layers, M.use_more_bits). The GEMM model reads a weight-only matrix at these bits
-- (tilewave.ops.transformer: w_bytes), so a step's GEMMs and a decode step read the same bytes.
function M.op_bits(op, fmt, layers)
  local bits = fmt.bits
  if op.role == "logits" and fmt.lm_head_bits then bits = fmt.lm_head_bits end
  if fmt.channel_scale_bits then bits = bits + fmt.channel_scale_bits / op.k end
  if fmt.more_bits and (op.role == "mlp_down" or (op.role == "qkv" and op.v_cols)) and op.count > 0 then
    local more = 0
    for i = 0, layers - 1 do if M.use_more_bits(i, layers) then more = more + 1 end end
    local share = op.role == "mlp_down" and 1 or op.v_cols / op.n
    bits = bits + (fmt.more_bits - fmt.bits) * share * more / op.count
  end
  return bits
end

--- Bytes of the weight matrices of a decode op list (`ops` from
-- tilewave.transformer.ops at b = 1, s = 1): GEMM ops only, each k x n x count.
-- A MoE expert op (op.experts = E) counts E copies of its matrix as params
-- resident, `experts_read` of them read (default E; a decode step passes
-- experts_touched), and op.experts_per_token of them multiplied per token.
-- @return bytes (read), matmul_params (multiplied per token), resident_params
function M.weight_bytes(ops, fmt, layers, batch)
  local bytes, params = 0, 0
  local more = 0
  if fmt.more_bits then
    for i = 0, layers - 1 do if M.use_more_bits(i, layers) then more = more + 1 end end
  end
  local resident = 0
  for _, op in ipairs(ops) do
    if op.kind == "gemm" then
      local one = op.n * op.k * op.count
      local n_w, per_token = one, one
      if op.experts then
        -- every expert is resident; a step reads the distinct experts its tokens touch
        n_w = one * (batch and M.experts_touched(op.experts, op.experts_per_token, batch) or op.experts)
        per_token = one * op.experts_per_token
        resident = resident + one * op.experts
      else
        resident = resident + one
      end
      params = params + per_token
      local bits = fmt.bits
      if op.role == "logits" and fmt.lm_head_bits then bits = fmt.lm_head_bits end
      local b = n_w * bits / 8
      if fmt.channel_scale_bits then b = b + op.n * op.count * fmt.channel_scale_bits / 8 end
      if fmt.more_bits and op.role == "mlp_down" then
        b = b + (fmt.more_bits - fmt.bits) / 8 * op.n * op.k * more
      elseif fmt.more_bits and op.role == "qkv" and op.v_cols then
        b = b + (fmt.more_bits - fmt.bits) / 8 * op.v_cols * op.k * more
      end
      bytes = bytes + b
    end
  end
  return bytes, params, resident
end

return M
