-- GEMM kernel parameters of Apple silicon GPUs (Metal; simdgroup matrix units, no tensor cores).
-- Pure data; fields documented in lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
-- NOT calibrated: the calibration set has no Apple GEMM row. The fractions are the Ampere
-- fits; tiles follow MPS / llama.cpp Metal matmul kernels (64x32 threadgroup tiles of 8x8
-- simdgroup matrices); no alignment penalty is modeled (no tensor-core layout rule).
return {
  name = "Apple silicon GPU (Metal)",
  gemm = {
    compute_frac = 0.865,
    mem_frac = 0.875,
    call_overhead_s = 39 * us,
    tile_latency_s = 0.9 * us,
    kstep_latency_s = 0.15 * us,
    max_split_k = 1,
    align_eff = { 1, 1, 1, 1, 1, 1, 1, 1 },
    tiles = {
      { m = 64, n = 64, eff = 1.00 },
      { m = 64, n = 32, eff = 0.95 },
      { m = 32, n = 32, eff = 0.85 },
    },
    sources = {
      tiles = "llama.cpp ggml-metal kernel_mul_mm (64x32 tiles of simdgroup 8x8 matrices); efficiencies assumed",
      align_eff = "no tensor-core alignment rule on Apple GPUs (assumption)",
      compute_frac = "Ampere fit reused, uncalibrated",
      mem_frac = "Ampere fit reused, uncalibrated",
      call_overhead_s = "Ampere fit reused, uncalibrated",
      kstep_latency_s = "Ampere fit reused, uncalibrated",
      tile_latency_s = "Ampere fit reused, uncalibrated",
      max_split_k = "no split-K modeled",
    },
  },
  notes = "Uncalibrated for GEMMs; decode on Apple is calibrated through the llama.cpp engine (decode_calibration.csv, M2 Ultra).",
}
