-- NVIDIA A100 SXM4 80GB: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA A100 SXM4 80GB",
  vendor = "nvidia",
  arch = "ampere",
  compute_capability = 8.0,
  sm_count = 108,
  boost_clock_hz = 1410 * MHz,
  memory_bytes = 80 * GB,
  usable_memory_bytes = 81920 * MiB, -- as NVML reports it: what an engine can allocate from
  mem_bw = 2039 * GB,  -- byte/s
  l2_bytes = 40 * MB,
  smem_per_sm_bytes = 164 * KiB,
  tdp_w = 400,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 19.5 * TFLOPS,
    fp32 = 19.5 * TFLOPS,
    tf32 = 156 * TFLOPS,
    fp16 = 312 * TFLOPS,
    bf16 = 312 * TFLOPS,
    int8 = 624 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 600 * GB,
    pcie_bw = 64 * GB,
  },
  -- USD per GPU-hour: 0.0006 USD/s x 3600 (the source's "A100 80 GB; SXM or PCIe not stated")
  price = { per_hour = 2.16, provider = "RunPod (serverless active worker)", date = "2026-11-25",
            source = "RunPod Serverless pricing, active (always-on) workers, per-second rate x 3600 (https://docs.runpod.io/serverless/pricing; stored copy read 2026-11-25)" },
  measured = {
    gemm = "one maximum-achievable-matmul point: gemm_calibration.csv, row A100 SXM",
    decode = "6 gpt-fast decode rows (power-limited to 330 W): ../shared/reference/calibration/decode_calibration.csv",
  },
  sources = {
    measured = "../shared/reference/calibration/gemm_calibration.csv and decode_calibration.csv",
    usable_memory_bytes = "Modal, 'Why does an NVIDIA H100 80GB card offer 85.52 GB?' (https://thundergolfer.com/blog/nvidia-gpu-memory-capacity): total memory as NVML reports it (nvidia-smi), MiB",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/); NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf)",
    boost_clock_hz = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    memory_bytes = "NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf)",
    mem_bw = "NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf) -- HBM2 40GB 1555 GB/s, HBM2e 80GB SXM 2039, PCIe 1935",
    l2_bytes = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf)",
    peak_flops = "NVIDIA Ampere Architecture In-Depth, Tables 3-4 (https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/); NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf) -- dense; fp64 is the FP64 tensor-core rate; no FP8",
    interconnect = "NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf) -- NVLink 600 GB/s bidirectional total (PCIe card: 2-GPU bridge); PCIe Gen4 64 GB/s total",
  },
}
