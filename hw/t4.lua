-- NVIDIA T4: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA T4",
  vendor = "nvidia",
  arch = "turing",
  compute_capability = 7.5,
  sm_count = 40,
  boost_clock_hz = 1590 * MHz,
  memory_bytes = 16 * GB,
  usable_memory_bytes = 15360 * MiB, -- as NVML reports it: what an engine can allocate from
  mem_bw = 300 * GB,  -- byte/s
  l2_bytes = 4 * MB,
  smem_per_sm_bytes = 64 * KiB,
  tdp_w = 70,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 8.1 * TFLOPS,
    fp16 = 65 * TFLOPS,
    int8 = 130 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 32 * GB,
  },
  sources = {
    usable_memory_bytes = "Modal, 'Why does an NVIDIA H100 80GB card offer 85.52 GB?' (https://thundergolfer.com/blog/nvidia-gpu-memory-capacity): total memory as NVML reports it (nvidia-smi), MiB",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "third-party spec database (named in shared/reference/hardware_specs.csv) -- no NVIDIA source for the SM count",
    boost_clock_hz = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    memory_bytes = "NVIDIA T4 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf)",
    mem_bw = "NVIDIA T4 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf) -- 320 GB/s in 3P",
    l2_bytes = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA T4 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf)",
    peak_flops = "NVIDIA T4 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf) -- FP16 65 TFLOPS with FP32 accumulate",
    interconnect = "PCIe Gen3 x16 (T4DS)",
  },
}
