-- NVIDIA GB300: one Blackwell Ultra GPU of a Grace Blackwell Ultra superchip (GB300 NVL72), pure
-- data (schema in lua/tilewave/data/hw.lua). Figures are per GPU.
return {
  name = "NVIDIA GB300 (one GPU of a Grace Blackwell Ultra superchip)",
  vendor = "nvidia",
  arch = "blackwell_ultra",
  compute_capability = 10.3,
  sm_count = 160,
  boost_clock_hz = 1907 * MHz,
  memory_bytes = 288 * GB,
  mem_bw = 8000 * GB,  -- byte/s
  l2_bytes = 126 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 1400,
  peak_flops = {  -- dense, FLOP/s, per GPU
    fp32 = 80 * TFLOPS,
    tf32 = 1250 * TFLOPS,
    fp16 = 2500 * TFLOPS,
    bf16 = 2500 * TFLOPS,
    fp8 = 5000 * TFLOPS,
    fp4 = 15000 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 1800 * GB,
  },
  node = "gb300_nvl72",
  sources = {
    compute_capability = "CUTLASS Blackwell support table: Blackwell Ultra compute capability 10.3 (SM103)",
    sm_count = "NVIDIA, 'Inside NVIDIA Blackwell Ultra: The Chip Powering the AI Factory Era', developer blog 2025-08 (https://developer.nvidia.com/blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era): 160 SMs, 640 Tensor Cores, 15 PF dense NVFP4; GB300 NVL72's 1.1 EF dense FP4 / 72 = 15.3 PF per GPU is that full count's rate (B300's HGX rate, 13.5 PF, is its 148)",
    boost_clock_hz = "not published: the clock the dense peaks imply, 2500 TFLOPS / (160 SMs x 8192 dense bf16 FLOP per SM per clock) = 1.907 GHz, and 15 PF NVFP4 / (160 x 49152) the same",
    memory_bytes = "NVIDIA, 'Inside NVIDIA Blackwell Ultra' (developer blog 2025-08): 288 GB HBM3e per GPU; Verda's per-GPU table prints 279 GB (https://verda.com/blog/gb300-nvl72-architecture), what the driver reports, not taken",
    mem_bw = "NVIDIA, 'Inside NVIDIA Blackwell Ultra': 8 TB/s per GPU; GB300 NVL72 576 TB/s / 72 (glennklockwood.com/garden/processors/B300)",
    l2_bytes = "not published for Blackwell Ultra: the Blackwell Tuning Guide's 126 MB (stated for GB200), the same L2 organisation",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities 10.x",
    tdp_w = "S. Bekman, ML Engineering, compute/accelerator/README.md, power table: GB300 SXM 1400 W; Verda's per-GPU table: 1.4 kW",
    peak_flops = "S. Bekman, ML Engineering, compute/accelerator/README.md, TFLOPS table of 2026-08, row 'NVIDIA GB300 SXM' (per GPU, dense, citing NVIDIA GB300 NVL72 specifications); Verda's per-GPU table agrees (FP4 15, FP8 5, BF16 2.5, TF32 1.25 PF). No INT8 peak: Blackwell Ultra cuts INT8 (Verda: 0.165 POPS), not stated by NVIDIA per GPU",
    interconnect = "NVIDIA, 'Inside NVIDIA Blackwell Ultra': fifth-generation NVLink, 1.8 TB/s bidirectional per GPU",
    node = "hw/clusters/gb300_nvl72.lua: one NVLink domain of 72 GPUs",
  },
}
