-- NVIDIA V100 SXM2 32GB: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA V100 SXM2 32GB",
  vendor = "nvidia",
  arch = "volta",
  compute_capability = 7.0,
  sm_count = 80,
  boost_clock_hz = 1530 * MHz,
  memory_bytes = 32 * GB,
  mem_bw = 900 * GB,  -- byte/s
  l2_bytes = 6 * MB,
  smem_per_sm_bytes = 96 * KiB,
  tdp_w = 300,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 7.8 * TFLOPS,
    fp32 = 15.7 * TFLOPS,
    fp16 = 125 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 300 * GB,
  },
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    boost_clock_hz = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/) -- SBG lists 1380 MHz for another SKU",
    memory_bytes = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    mem_bw = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    l2_bytes = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    peak_flops = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/) -- FP16 tensor 125 TFLOPS dense; no BF16 on Volta",
    interconnect = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
  },
}
