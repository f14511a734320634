--- tilewave.engines: how serving software runs a decode step.
--
-- The same model on the same GPU decodes at very different speeds under
-- different software; an engine is a small table of the parameters that
-- differ. Fields (all optional except `description`):
--   kernels_per_layer   kernel launches per transformer layer per step
--   kernels_fixed       launches per step outside the layers (embedding, final norm, LM head, sampling)
--   launch_s            time per launch not hidden behind the GPU's work, s;
--                       a number, or a table by hw vendor { nvidia = , amd = , apple = }
--   mem_frac            achievable fraction of DRAM bandwidth for the weight
--                       stream (default: the architecture's GEMM mem_frac)
--   compute_frac        achievable fraction of the dense peak (default: the architecture's)
--   dequant             false to make dequantization free (ideal)
--   comm_latency_s      per-step latency of a tensor-parallel collective, s
--   source              where the figures come from
-- Users override a preset field by field (`engine = { base = "compiled",
-- launch_s = 1e-6 }`) or register their own in `M.presets`.
local check = require "tilewave.util.check"

local M = {}

M.presets = {
  ideal = {
    description = "pure roofline: weights and KV cache at the datasheet bandwidth, no launch cost, free dequantization",
    kernels_per_layer = 0, kernels_fixed = 0, launch_s = 0, mem_frac = 1, compute_frac = 1, dequant = false,
    comm_latency_s = 0,
    source = "roofline bound (Williams et al. 2009)",
  },
  compiled = {
    description = "fused kernels replayed as CUDA graphs (torch.compile / gpt-fast class)",
    -- after fusion: norm, QKV, attention, projection(+residual), norm, gate/up, down(+residual)
    kernels_per_layer = 7, kernels_fixed = 4,
    launch_s = 4.75e-6,
    mem_frac = 0.77,
    comm_latency_s = 5e-6,
    source = "kernel count from a fused Llama block; launch_s and mem_frac fitted to the gpt-fast A100 rows of " ..
      "../shared/reference/calibration/decode_calibration.csv (scripts/calibrate.lua --decode --fit; " ..
      "that A100 is power-limited to 330 W, README: 'peak bandwidth about 1700 GB/s')",
  },
  eager = {
    description = "one kernel per PyTorch op, launched from Python (Hugging Face transformers eager class)",
    -- RMSNorm 5 (pow, mean, rsqrt, mul, mul) x2, q/k/v 3, rotary 8, SDPA 1, o 1, residual 2, gate/up/down 3, SiLU*mul 2, KV cache update 2
    kernels_per_layer = 32, kernels_fixed = 8,
    launch_s = 10e-6,
    comm_latency_s = 10e-6,
    source = "kernel count of the HF Llama eager forward; launch_s an assumption (CPU-side PyTorch dispatch " ..
      "of about 10 us per op), not calibrated: no eager rows in the calibration set",
  },
  ["llama.cpp"] = {
    description = "llama.cpp (ggml graph, one kernel per graph node; CUDA or Metal backend)",
    -- ggml nodes per Llama layer: norm, mul, q/k/v mul_mat 3, rope 2, KV copy 2, attention (mul_mat,
    -- soft_max, mul_mat) 3, out mul_mat 1, add, norm, mul, gate/up mul_mat 2, silu, mul, down, add
    kernels_per_layer = 20, kernels_fixed = 4,
    -- CUDA: the backend replays CUDA graphs (since 2024), leaving little per node; Metal encodes
    -- every node. amd: taken as nvidia's (no ROCm row to fit).
    launch_s = { nvidia = 0.25e-6, amd = 0.25e-6, apple = 5e-6 },
    mem_frac = 0.78,
    comm_latency_s = 10e-6,
    source = "node count of llama.cpp's Llama graph (llama.cpp build_llama); launch_s per backend and " ..
      "mem_frac fitted to the llama.cpp rows of decode_calibration.csv (RTX 4090, M2 Ultra)",
  },
}

local FIELDS = { base = true, description = true, kernels_per_layer = check.nonneg, kernels_fixed = check.nonneg,
                 launch_s = true, mem_frac = check.fraction, compute_frac = check.fraction, dequant = true,
                 comm_latency_s = check.nonneg, source = true }

--- Resolve an engine: a preset name, or a table with an optional `base`
-- preset overridden field by field. Returns a fresh table.
-- @raise `<path>: expected one of ...`; `<path>.<field>: ...`
function M.resolve(e, path)
  path = path or "engine"
  if e == nil then e = "compiled" end
  if type(e) == "string" then
    if not M.presets[e] then check.fail(path, "expected one of " .. check.keys(M.presets), e) end
    e = { base = e }
  end
  check.table(e, path)
  check.options(e, FIELDS, path)
  local base = e.base or "compiled"
  if not M.presets[base] then check.fail(path .. ".base", "expected one of " .. check.keys(M.presets), base) end
  local out = {}
  for k, v in pairs(M.presets[base]) do out[k] = v end
  for k, v in pairs(e) do
    if type(FIELDS[k]) == "function" then FIELDS[k](v, path .. "." .. k) end
    out[k] = v
  end
  out.name = e.description and "custom" or base
  return out
end

--- The launch time of engine `e` on a device of `vendor`.
function M.launch_s(e, vendor, path)
  local l = e.launch_s
  if type(l) == "table" then l = l[vendor] or l.nvidia end
  return check.nonneg(l or 0, (path or "engine") .. ".launch_s")
end

return M
