-- NVIDIA L40S: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA L40S",
  vendor = "nvidia",
  arch = "ada",
  compute_capability = 8.9,
  sm_count = 142,
  boost_clock_hz = 2520 * MHz,
  memory_bytes = 48 * GB,
  usable_memory_bytes = 46068 * MiB, -- as NVML reports it: what an engine can allocate from
  mem_bw = 864 * GB,  -- byte/s
  l2_bytes = 48 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 350,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 91.6 * TFLOPS,
    tf32 = 183 * TFLOPS,
    fp16 = 362.05 * TFLOPS,
    bf16 = 362.05 * TFLOPS,
    fp8 = 733 * TFLOPS,
    int8 = 733 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 64 * GB,
  },
  -- USD per GPU-hour: 0.00037 USD/s x 3600 (the source's "L40, L40S, 6000 Ada PRO 48 GB")
  price = { per_hour = 1.332, provider = "RunPod (serverless active worker)", date = "2026-11-25",
            source = "RunPod Serverless pricing, active (always-on) workers, per-second rate x 3600 (https://docs.runpod.io/serverless/pricing; stored copy read 2026-11-25)" },
  sources = {
    usable_memory_bytes = "Modal, 'Why does an NVIDIA H100 80GB card offer 85.52 GB?' (https://thundergolfer.com/blog/nvidia-gpu-memory-capacity): total memory as NVML reports it (nvidia-smi), MiB",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    boost_clock_hz = "third-party spec database (named in shared/reference/hardware_specs.csv)",
    memory_bytes = "NVIDIA L40S product page (https://www.nvidia.com/en-us/data-center/l40s/)",
    mem_bw = "NVIDIA L40S product page (https://www.nvidia.com/en-us/data-center/l40s/)",
    l2_bytes = "third-party spec database (named in shared/reference/hardware_specs.csv) -- 48 MB reseller vs 96 MB comparison table; neither NVIDIA",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA L40S product page (https://www.nvidia.com/en-us/data-center/l40s/)",
    peak_flops = "NVIDIA L40S product page (https://www.nvidia.com/en-us/data-center/l40s/); S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- dense; not half-rate like GeForce",
    interconnect = "NVIDIA L40S product page (https://www.nvidia.com/en-us/data-center/l40s/) -- PCIe Gen4 x16, no NVLink",
  },
}
