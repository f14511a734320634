-- NVIDIA L4: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA L4",
  vendor = "nvidia",
  arch = "ada",
  compute_capability = 8.9,
  sm_count = 58,
  boost_clock_hz = 2040 * MHz,
  memory_bytes = 24 * GB,
  usable_memory_bytes = 23034 * MiB, -- as NVML reports it: what an engine can allocate from
  mem_bw = 300 * GB,  -- byte/s
  l2_bytes = 48 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 72,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 30.3 * TFLOPS,
    tf32 = 60 * TFLOPS,
    fp16 = 121 * TFLOPS,
    bf16 = 121 * TFLOPS,
    fp8 = 242.5 * TFLOPS,
    int8 = 242.5 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 64 * GB,
  },
  -- USD per GPU-hour: 0.00013 USD/s x 3600 (the source's "L4, A5000, 3090 24 GB")
  price = { per_hour = 0.468, provider = "RunPod (serverless active worker)", date = "2026-11-25",
            source = "RunPod Serverless pricing, active (always-on) workers, per-second rate x 3600 (https://docs.runpod.io/serverless/pricing; stored copy read 2026-11-25)" },
  sources = {
    usable_memory_bytes = "Modal, 'Why does an NVIDIA H100 80GB card offer 85.52 GB?' (https://thundergolfer.com/blog/nvidia-gpu-memory-capacity): total memory as NVML reports it (nvidia-smi), MiB",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "third-party spec database (named in shared/reference/hardware_specs.csv) -- 58 in several codebases, 60 in a 3P database; no NVIDIA source",
    boost_clock_hz = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    memory_bytes = "NVIDIA L4 product page (https://www.nvidia.com/en-us/data-center/l4/): \"one-half lower without sparsity\"",
    mem_bw = "NVIDIA L4 product page (https://www.nvidia.com/en-us/data-center/l4/): \"one-half lower without sparsity\"",
    l2_bytes = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA L4 product page (https://www.nvidia.com/en-us/data-center/l4/): \"one-half lower without sparsity\"",
    peak_flops = "NVIDIA L4 product page (https://www.nvidia.com/en-us/data-center/l4/): \"one-half lower without sparsity\" -- sparse figures 120/242/485 halved",
    interconnect = "NVIDIA L4 product page (https://www.nvidia.com/en-us/data-center/l4/): \"one-half lower without sparsity\" -- PCIe Gen4 x16",
  },
}
