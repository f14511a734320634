-- NVIDIA P100 PCIe 16GB: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA P100 PCIe 16GB",
  vendor = "nvidia",
  arch = "pascal",
  compute_capability = 6.0,
  sm_count = 56,
  boost_clock_hz = 1300 * MHz,
  memory_bytes = 16 * GB,
  mem_bw = 720 * GB,  -- byte/s
  l2_bytes = 4 * MB,
  smem_per_sm_bytes = 64 * KiB,
  tdp_w = 250,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 4.7 * TFLOPS,
    fp32 = 9.3 * TFLOPS,
    fp16 = 18.7 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 32 * GB,
  },
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    boost_clock_hz = "tech4gamers / cputronic P100 PCIe listings (3P, in hardware_specs.csv) -- 1329 MHz also reported",
    memory_bytes = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    mem_bw = "tech4gamers / cputronic P100 PCIe listings (3P, in hardware_specs.csv)",
    l2_bytes = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "tech4gamers / cputronic P100 PCIe listings (3P, in hardware_specs.csv)",
    peak_flops = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/); tech4gamers / cputronic P100 PCIe listings (3P, in hardware_specs.csv) -- no tensor cores: FP16 is the FP16x2 vector rate",
    interconnect = "PCIe Gen3 x16, 32 GB/s bidirectional (hardware_specs.md P100 row)",
  },
}
