-- NVIDIA GB200: one Blackwell GPU of a Grace Blackwell superchip (GB200 NVL72 / NVL4), pure data
-- (schema in lua/tilewave/data/hw.lua). Figures are per GPU; the superchip holds two.
return {
  name = "NVIDIA GB200 (one GPU of a Grace Blackwell superchip)",
  vendor = "nvidia",
  arch = "blackwell",
  compute_capability = 10.0,
  sm_count = 148,
  boost_clock_hz = 2062 * MHz,
  memory_bytes = 186 * GB,
  mem_bw = 8000 * GB,  -- byte/s
  l2_bytes = 126 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 1200,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8), per GPU
    fp32 = 80 * TFLOPS,
    tf32 = 1250 * TFLOPS,
    fp16 = 2500 * TFLOPS,
    bf16 = 2500 * TFLOPS,
    fp8 = 5000 * TFLOPS,
    fp4 = 10000 * TFLOPS,
    int8 = 5000 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 1800 * GB,
  },
  node = "gb200_nvl72",
  measured = {
    gemm = "one maximum-achievable-matmul point per dtype (bf16 1822, fp8 3616 TFLOPS): "
      .. "../shared/reference/calibration/gemm_calibration.csv, rows 'GB200 SXM' (S. Bekman, ML Engineering)",
  },
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (GB200's GPU is sm_100, as B200)",
    sm_count = "not published per GPU: B200's 148 (same GB100 dies; S. Bekman, ML Engineering, compute/accelerator/README.md 2026-08, note 23: 'GB200 is 2x B200 chips ... runs the B200 chips a bit faster')",
    boost_clock_hz = "not published: the clock the dense peak implies, 2500 TFLOPS / (148 SMs x 8192 dense bf16 FLOP per SM per clock) = 2.062 GHz (B200's 2250 TFLOPS gives 1.856 GHz: ML Engineering's 'a bit faster')",
    memory_bytes = "NVIDIA GB200 NVL72 specifications (https://www.nvidia.com/en-us/data-center/gb200-nvl72/): 'up to 13.4 TB HBM3e' for 72 GPUs = 186 GB per GPU",
    mem_bw = "NVIDIA GB200 NVL72 specifications: 576 TB/s for 72 GPUs = 8 TB/s per GPU",
    l2_bytes = "NVIDIA Blackwell Tuning Guide (https://docs.nvidia.com/cuda/blackwell-tuning-guide/): 126 MB, stated for GB200",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities 10.x",
    tdp_w = "S. Bekman, ML Engineering, compute/accelerator/README.md, power table: GB200 SXM 1200 W TDP",
    peak_flops = "S. Bekman, ML Engineering, compute/accelerator/README.md, TFLOPS table of 2026-08 (https://github.com/stas00/ml-engineering), row 'NVIDIA GB200 SXM', per GPU without sparsity, citing NVIDIA GB200 NVL72 specifications (FP16/BF16 360 PF, FP8 720 PF sparse for 72 GPUs = 2.5 / 5 PF dense per GPU); fp4 is block-scaled E2M1 (NVFP4 / MXFP4)",
    interconnect = "NVIDIA GB200 NVL72 specifications: fifth-generation NVLink, 1.8 TB/s per GPU (bidirectional), 130 TB/s over 72",
    node = "hw/clusters/gb200_nvl72.lua: one NVLink domain of 72 GPUs",
    measured = "../shared/reference/calibration/gemm_calibration.csv",
  },
}
