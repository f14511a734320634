-- NVIDIA A10: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA A10",
  vendor = "nvidia",
  arch = "ampere",
  compute_capability = 8.6,
  sm_count = 72,
  boost_clock_hz = 1695 * MHz,
  memory_bytes = 24 * GB,
  usable_memory_bytes = 23028 * MiB, -- as NVML reports it: what an engine can allocate from
  mem_bw = 600 * GB,  -- byte/s
  l2_bytes = 6 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 150,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 31.2 * TFLOPS,
    tf32 = 62.5 * TFLOPS,
    fp16 = 125 * TFLOPS,
    bf16 = 125 * TFLOPS,
    int8 = 250 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 64 * GB,
  },
  sources = {
    usable_memory_bytes = "Modal, 'Why does an NVIDIA H100 80GB card offer 85.52 GB?' (https://thundergolfer.com/blog/nvidia-gpu-memory-capacity): total memory as NVML reports it (nvidia-smi), MiB",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    boost_clock_hz = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    memory_bytes = "NVIDIA A10 product page (https://www.nvidia.com/en-us/data-center/products/a10-gpu/)",
    mem_bw = "NVIDIA A10 product page (https://www.nvidia.com/en-us/data-center/products/a10-gpu/)",
    l2_bytes = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA A10 product page (https://www.nvidia.com/en-us/data-center/products/a10-gpu/)",
    peak_flops = "NVIDIA A10 product page (https://www.nvidia.com/en-us/data-center/products/a10-gpu/) -- dense figures",
    interconnect = "NVIDIA A10 product page (https://www.nvidia.com/en-us/data-center/products/a10-gpu/) -- PCIe Gen4, 64 GB/s",
  },
}
