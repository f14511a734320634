-- NVIDIA B200: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA B200",
  vendor = "nvidia",
  arch = "blackwell",
  compute_capability = 10.0,
  sm_count = 148,
  boost_clock_hz = 1965 * MHz,
  memory_bytes = 180 * GB,
  mem_bw = 8000 * GB,  -- byte/s
  l2_bytes = 126 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 1000,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 80 * TFLOPS,
    tf32 = 1125 * TFLOPS,
    fp16 = 2250 * TFLOPS,
    bf16 = 2250 * TFLOPS,
    fp8 = 4500 * TFLOPS,
    fp4 = 9000 * TFLOPS,
    int8 = 4500 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 1800 * GB,
  },
  -- USD per GPU-hour: 0.0019 USD/s x 3600 (the source's "B200 180 GB")
  price = { per_hour = 6.84, provider = "RunPod (serverless active worker)", date = "2026-11-25",
            source = "RunPod Serverless pricing, active (always-on) workers, per-second rate x 3600 (https://docs.runpod.io/serverless/pricing; stored copy read 2026-11-25)" },
  measured = {
    gemm = "one maximum-achievable-matmul point per dtype (bf16, fp8): ../shared/reference/calibration/gemm_calibration.csv, rows B200 SXM",
  },
  node = "dgx_b200",
  sources = {
    node = "hw/clusters/dgx_b200.lua: the 8-GPU node this part ships in",
    measured = "../shared/reference/calibration/gemm_calibration.csv",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering); NVIDIA Blackwell Tuning Guide (https://docs.nvidia.com/cuda/blackwell-tuning-guide/)",
    boost_clock_hz = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- reported max SM clock; scaling-book back-derives about 1.86 GHz",
    memory_bytes = "NVIDIA Blackwell Tuning Guide (https://docs.nvidia.com/cuda/blackwell-tuning-guide/); S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- 192 GB also quoted",
    mem_bw = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering); Google DeepMind scaling-book gpus.md @1a55377 (https://github.com/jax-ml/scaling-book)",
    l2_bytes = "NVIDIA Blackwell Tuning Guide (https://docs.nvidia.com/cuda/blackwell-tuning-guide/) -- stated for GB200",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- max TGP; 700 W default",
    peak_flops = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering); Google DeepMind scaling-book gpus.md @1a55377 (https://github.com/jax-ml/scaling-book) -- dense; fp4 (block-scaled E2M1, MXFP4 / NVFP4) 9000 dense from ../shared/reference/hardware_specs.md (B200 row, \"FP4 9000\"; ML Engineering's separate \"nvfp4 10000\" is unexplained there and not used)",
    interconnect = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- NVLink 5, 1800 GB/s bidirectional",
  },
}
