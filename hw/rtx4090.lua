-- NVIDIA GeForce RTX 4090: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA GeForce RTX 4090",
  vendor = "nvidia",
  arch = "ada",
  compute_capability = 8.9,
  sm_count = 128,
  boost_clock_hz = 2520 * MHz,
  memory_bytes = 24 * GB,
  mem_bw = 1008 * GB,  -- byte/s
  l2_bytes = 72 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 450,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 82.6 * TFLOPS,
    tf32 = 82.6 * TFLOPS,
    fp16 = 165.2 * TFLOPS,
    bf16 = 165.2 * TFLOPS,
    fp8 = 330.3 * TFLOPS,
    int8 = 660.6 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 64 * GB,
  },
  -- USD per GPU-hour: 0.00021 USD/s x 3600 (the source's "4090 PRO 24 GB")
  price = { per_hour = 0.756, provider = "RunPod (serverless active worker)", date = "2026-11-25",
            source = "RunPod Serverless pricing, active (always-on) workers, per-second rate x 3600 (https://docs.runpod.io/serverless/pricing; stored copy read 2026-11-25)" },
  measured = {
    decode = "2 llama.cpp decode rows: ../shared/reference/calibration/decode_calibration.csv",
  },
  sources = {
    measured = "../shared/reference/calibration/decode_calibration.csv",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "NVIDIA Ada GPU Architecture whitepaper v2.02+ (https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf)",
    boost_clock_hz = "NVIDIA Ada GPU Architecture whitepaper v2.02+ (https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf)",
    memory_bytes = "NVIDIA Ada GPU Architecture whitepaper v2.02+ (https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf)",
    mem_bw = "NVIDIA Ada GPU Architecture whitepaper v2.02+ (https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf)",
    l2_bytes = "NVIDIA Ada GPU Architecture whitepaper v2.02+ (https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA Ada GPU Architecture whitepaper v2.02+ (https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf)",
    peak_flops = "NVIDIA Ada GPU Architecture whitepaper v2.02+ (https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf); karpathy/llm.c llmc/mfu.h @f1e2ace (per-GPU tensor peaks from NVIDIA whitepapers) -- FP16/BF16/FP8 with FP32 accumulate (half rate on GeForce): 330.3/660.6 with FP16 accumulate",
    interconnect = "PCIe Gen4 x16 (Ada whitepaper)",
  },
}
