-- NVIDIA B300 (HGX B300, Blackwell Ultra): one device, pure data (schema in lua/tilewave/data/hw.lua).
-- Every figure names its source. Where sources disagree the file says so and which was taken.
return {
  name = "NVIDIA B300 (HGX B300, Blackwell Ultra)",
  vendor = "nvidia",
  arch = "blackwell_ultra",
  compute_capability = 10.3,
  sm_count = 148,
  boost_clock_hz = 1856 * MHz,
  memory_bytes = 288 * GB,
  mem_bw = 8000 * GB,  -- byte/s
  l2_bytes = 126 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 1100,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8): the 8-GPU baseboard's sparse totals / 8 / 2
    fp32 = 75 * TFLOPS,
    tf32 = 1125 * TFLOPS,
    fp16 = 2250 * TFLOPS,
    bf16 = 2250 * TFLOPS,
    fp8 = 4500 * TFLOPS,
    fp4 = 13500 * TFLOPS,
    int8 = 125 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 1800 * GB,
    pcie_bw = 256 * GB,
  },
  node = "dgx_b300",
  measured = {
    gemm = "one maximum-achievable-matmul point per dtype (bf16 1769, fp8 3353 TFLOPS; torch 2.9.1+cu130): "
      .. "../shared/reference/calibration/gemm_calibration.csv, rows 'B300 SXM' (S. Bekman, ML Engineering)",
  },
  sources = {
    compute_capability = "CUTLASS Blackwell support table (NVIDIA/cutlass media/docs; mintlify.com/NVIDIA/cutlass/architectures/blackwell): B300 compute capability 10.3 (SM103)",
    sm_count = "../shared/reference/hardware_specs.md, trap 3 (S. Bekman, ML Engineering performance chapter): B300 ships in 148- and 152-SM SKUs; 148 taken, the HGX part whose peaks NVIDIA prints (the full die has 160 SMs: NVIDIA, 'Inside NVIDIA Blackwell Ultra', developer blog 2025-08)",
    boost_clock_hz = "not published by NVIDIA: the clock the dense peaks imply, 2250 TFLOPS / (148 SMs x 8192 dense bf16 FLOP per SM per clock) = 1.856 GHz; scaling-book (jax-ml/scaling-book gpus.md @1a55377) back-derives about 1.86 GHz for B200 the same way",
    memory_bytes = "NVIDIA, 'Inside NVIDIA Blackwell Ultra: The Chip Powering the AI Factory Era', developer blog 2025-08 (https://developer.nvidia.com/blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era): 288 GB HBM3e per GPU; HGX B300 'up to 2.3 TB' for 8",
    mem_bw = "NVIDIA, 'Inside NVIDIA Blackwell Ultra' (developer blog 2025-08): 8 TB/s per GPU; Verda's per-GPU table prints 7.7 TB/s (https://verda.com/blog/gb300-nvl72-architecture), not taken",
    l2_bytes = "not published for B300: B200's 126 MB (NVIDIA Blackwell Tuning Guide, stated for GB200), the same dual-die L2 organisation ('Inside NVIDIA Blackwell Ultra': shared L2, fully coherent)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities 10.x (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "Verda, 'GB300 NVL72 architecture' (https://verda.com/blog/gb300-nvl72-architecture), per-GPU table: B300 max TDP 1.1 kW; sources disagree: ML Engineering's power table 1300 W, glennklockwood.com/garden/processors/B300 1400 W (that is GB300's); 1100 taken",
    peak_flops = "NVIDIA HGX B300 specifications (https://www.nvidia.com/en-us/data-center/hgx/), 8-GPU totals with sparsity: FP4 144 PF (108 PF dense), FP8/FP6 72 PF, INT8 2 POPS, FP16/BF16 36 PF, TF32 18 PF, FP32 600 TF, as copied by fibermall.com/blog/?p=17161 and acecloud.ai/blog/nvidia-hgx-b300 (read 2026-11-29): dense = total / 8 / 2 (FP4: 108 / 8; FP32 600 / 8, not sparse). fp4 is block-scaled E2M1 (NVFP4 / MXFP4). Sources disagree on dense FP4: ML Engineering's 2026-08 table 12600 (fp4) and 15000 (nvfp4), Verda 14 PF, NVIDIA's blog 15 PF for the 160-SM chip; NVIDIA's HGX 13.5 PF taken. INT8 is cut on Blackwell Ultra (125 TOPS dense; ML Engineering's 4500 is B200's)",
    interconnect = "NVIDIA HGX B300 specifications: NVLink 5, 1.8 TB/s GPU-to-GPU (bidirectional); glennklockwood.com/garden/processors/B300: PCIe Gen6 x16, 256 GB/s bidirectional",
    node = "hw/clusters/dgx_b300.lua: the 8-GPU HGX/DGX node this part ships in",
    measured = "../shared/reference/calibration/gemm_calibration.csv",
  },
}
