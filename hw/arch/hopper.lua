-- GEMM kernel parameters of the NVIDIA Hopper (GH100), sm_90 architecture, shared by its devices.
-- Pure data; fields documented in lua/tilewave/hw.lua and src/tilewave.h (tw_device).
return {
  name = "NVIDIA Hopper (GH100), sm_90",
  gemm = {
    compute_frac = 0.78,
    dtype_compute_frac = { bf16 = 0.78, fp16 = 0.75, tf32 = 0.7333, fp32 = 0.7774, fp8 = 0.70, int8 = 0.48 },
    mem_frac = 0.8273,
    -- memory-bound kernels by class (tilewave.cost.kernels): fraction of mem_bw
    -- fused (flash) attention MMA, forward and backward: fraction of the dense peak (tilewave.cost.price)
    attention_frac = 0.70,
    attention_bwd_frac = 0.45,
    kernel_bw_frac = { vector = 0.92, strided = 0.49, transpose = 0.28, softmax = 0.40 },
    call_overhead_s = 39 * us,
    tile_latency_s = 0.002 * us,
    kstep_latency_s = 0.0868 * us,
    max_split_k = 16,
    -- throughput factor when M, N, K share a power-of-two alignment of 1, 2, 4, 8, 16, 32, 64, 128 bytes
    align_eff = { 0.204, 0.204, 0.3436, 0.33, 0.8095, 0.8782, 1.00, 1.00 },
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
      attention_frac = "fitted to ../shared/reference/calibration/h100/attention.csv, cuDNN SDPA (the backend PyTorch picked in layers.csv), causal, bf16, forward: MAPE 8.1% over 12 rows (s 512-16384, head dim 64 and 128); PyTorch's FlashAttention-2 backend runs about 1.5x slower (not modeled separately)",
      attention_bwd_frac = "fitted to the same file's fwd+bwd rows: within 14% for s >= 2048; s <= 1024 backward carries a fixed cost not modeled (MAPE 22.8% over all 12 rows)",
      kernel_bw_frac = "fitted to ../shared/reference/calibration/h100/kernels.csv: per class, the modeled bytes of every unfused kernel of the 20 profiled layers over their measured device time less 1 us each (scripts/calibrate_h100.lua --kernels); per-layer spread vector 0.81-1.03, strided 0.41-0.63, transpose 0.19-0.37, softmax 0.35-0.42",
      tiles = "NVIDIA Matrix Multiplication Background guide, Typical Tile Dimensions in cuBLAS (256x128/128x256 most efficient ... 64x64 least); relative eff fitted to ../shared/reference/calibration/gemm_calibration.csv: the free fit puts every tile but 64x64 at 1.0 (MAPE 4.2%); 0.92 for the 64-wide tiles keeps the guide's ordering and gives MAPE 4.9%",
      align_eff = "NVIDIA matmul guide, Tensor Core Requirements (16 B, 128 B on A100, for full efficiency); levels fitted to gemm_calibration.csv (A100 logit GEMM K=51200 and tile sweep M=27648)",
      compute_frac = "fitted to gemm_calibration.csv (paper A100 fp16 sweeps, MAMF rows)",
      mem_frac = "fitted to gemm_calibration.csv (tile-quantization sweep N=64/128, DRAM-bound)",
      call_overhead_s = "fitted to gemm_calibration.csv M=N<=512 rows: PyTorch torch.mm, wall clock with torch.cuda.synchronize() per call (timing T1)",
      kstep_latency_s = "fitted to gemm_calibration.csv M=N<=256, K=4096 rows (latency-bound main loop)",
      tile_latency_s = "fitted to gemm_calibration.csv small-shape rows (per-CTA prologue/epilogue)",
      max_split_k = "cuBLAS split-K heuristics use small powers of two; 16 is a modeling bound",
    },
  },
  notes = "compute_frac fitted to the MAMF rows of gemm_calibration.csv (H100 SXM bf16/fp8, H200 fp8).",
}
