-- NVIDIA GeForce RTX 3090 Ti: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA GeForce RTX 3090 Ti",
  vendor = "nvidia",
  arch = "ampere",
  compute_capability = 8.6,
  sm_count = 84,
  boost_clock_hz = 1860 * MHz,
  memory_bytes = 24 * GB,
  mem_bw = 1008 * GB,  -- byte/s
  l2_bytes = 6 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 450,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 40 * TFLOPS,
    tf32 = 40 * TFLOPS,
    fp16 = 80 * TFLOPS,
    bf16 = 80 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 64 * GB,
  },
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "TweakTown RTX 3090 Ti spec table (https://www.tweaktown.com/news/84164/)",
    boost_clock_hz = "TweakTown RTX 3090 Ti spec table (https://www.tweaktown.com/news/84164/)",
    memory_bytes = "TweakTown RTX 3090 Ti spec table (https://www.tweaktown.com/news/84164/)",
    mem_bw = "TweakTown RTX 3090 Ti spec table (https://www.tweaktown.com/news/84164/)",
    l2_bytes = "GA102 full-die L2 of 6 MB (GA102 whitepaper, as for RTX 3090 in hardware_specs.md); RTX 3090 Ti L2 not separately sourced",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "TweakTown RTX 3090 Ti spec table (https://www.tweaktown.com/news/84164/)",
    peak_flops = "TweakTown RTX 3090 Ti spec table (https://www.tweaktown.com/news/84164/); karpathy/llm.c llmc/mfu.h @f1e2ace (per-GPU tensor peaks from NVIDIA whitepapers) -- FP16/BF16 with FP32 accumulate (half rate on GeForce); 160 with FP16 accumulate",
    interconnect = "PCIe Gen4 x16 (GA102 whitepaper)",
  },
}
