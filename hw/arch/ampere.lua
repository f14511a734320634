-- GEMM kernel parameters of the NVIDIA Ampere (GA100, GA10x), sm_80/sm_86 architecture, shared by its devices.
-- Pure data; fields documented in lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Ampere (GA100, GA10x), sm_80/sm_86",
  gemm = {
    compute_frac = 0.865,
    mem_frac = 0.875,
    call_overhead_s = 39 * us,
    tile_latency_s = 0.9 * us,
    kstep_latency_s = 0.15 * us,
    max_split_k = 16,
    -- throughput factor when M, N, K share a power-of-two alignment of 1, 2, 4, 8, 16, 32, 64, 128 bytes
    align_eff = { 0.245, 0.27, 0.60, 0.62, 0.88, 0.95, 1.00, 1.00 },
    -- ... as fitted on the A100, whose tensor cores run 2049 FLOP per SM per clock (align_ref_rate source)
    align_ref_rate = 2049,
    tiles = {
      { m = 256, n = 128, eff = 1.00 },
      { m = 128, n = 256, eff = 1.00 },
      { m = 128, n = 128, eff = 1.00 },
      { m = 256, n = 64, eff = 0.92 },
      { m = 64, n = 256, eff = 0.92 },
      { m = 128, n = 64, eff = 0.92 },
      { m = 64, n = 128, eff = 0.92 },
      { m = 64, n = 64, eff = 0.75, ctas_per_sm = 2 },
    },
    sources = {
      tiles = "NVIDIA Matrix Multiplication Background guide, Typical Tile Dimensions in cuBLAS (256x128/128x256 most efficient ... 64x64 least); relative eff fitted to ../shared/reference/calibration/gemm_calibration.csv: the free fit puts every tile but 64x64 at 1.0 (MAPE 4.2%); 0.92 for the 64-wide tiles keeps the guide's ordering and gives MAPE 4.9%",
      align_eff = "NVIDIA matmul guide, Tensor Core Requirements (16 B, 128 B on A100, for full efficiency); levels fitted to gemm_calibration.csv (A100 logit GEMM K=51200 and tile sweep M=27648)",
      align_ref_rate = "the A100's dense fp16/bf16 tensor rate per SM per clock, hw/a100_sxm4_80gb.lua: 312 TFLOP/s / (108 SMs x 1410 MHz) = 2049. A device of this architecture (or one based on it: Ada, Turing, Volta) scales the alignment penalty by its own rate over this one (tilewave.data.hw.scale_align): a misaligned kernel's extra load issue per K step costs the same SM clocks, while the tensor time it adds to shrinks with the rate. RTX 4090 512 (ratio 0.25: a quarter of the A100's penalty), L4, L40S, A10, V100, T4 about 1020 (0.5). Evidence: issue 33 measured the RTX 4090's misalignment penalty (held-out data) about 4x smaller than the A100-fitted levels predicted; no fit",
      compute_frac = "fitted to gemm_calibration.csv (paper A100 fp16 sweeps, MAMF rows)",
      mem_frac = "fitted to gemm_calibration.csv (tile-quantization sweep N=64/128, DRAM-bound)",
      call_overhead_s = "fitted to gemm_calibration.csv M=N<=512 rows: PyTorch torch.mm, wall clock with torch.cuda.synchronize() per call (timing T1)",
      kstep_latency_s = "fitted to gemm_calibration.csv M=N<=256, K=4096 rows (latency-bound main loop)",
      tile_latency_s = "fitted to gemm_calibration.csv small-shape rows (per-CTA prologue/epilogue)",
      max_split_k = "cuBLAS split-K heuristics use small powers of two; 16 is a modeling bound, in splits of a K of 2-byte elements (4-byte dtypes get 32, 1-byte 8: hw/arch/hopper.lua's source)",
    },
  },
  notes = "Calibrated on the co-design paper's A100 fp16 sweeps (taken as A100 SXM4 40GB, see README).",
}
