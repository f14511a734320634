-- NVIDIA H100 SXM5 80GB: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA H100 SXM5 80GB",
  vendor = "nvidia",
  arch = "hopper",
  compute_capability = 9.0,
  sm_count = 132,
  boost_clock_hz = 1830 * MHz,
  memory_bytes = 80 * GB,
  usable_memory_bytes = 81559 * MiB, -- as NVML reports it: what an engine can allocate from
  mem_bw = 3350 * GB,  -- byte/s
  l2_bytes = 50 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 700,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 66.9 * TFLOPS,
    fp32 = 66.9 * TFLOPS,
    tf32 = 494.7 * TFLOPS,
    fp16 = 989.4 * TFLOPS,
    bf16 = 989.4 * TFLOPS,
    fp8 = 1978.9 * TFLOPS,
    int8 = 1978.9 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 900 * GB,
    pcie_bw = 128 * GB,
  },
  -- USD per GPU-hour: 0.00093 USD/s x 3600 (the source's "H100 PRO 80 GB; SXM or PCIe not stated")
  price = { per_hour = 3.348, provider = "RunPod (serverless active worker)", date = "2026-11-25",
            source = "RunPod Serverless pricing, active (always-on) workers, per-second rate x 3600 (https://docs.runpod.io/serverless/pricing; stored copy read 2026-11-25)" },
  measured = {
    gemm = "4688 GEMMs of ../shared/reference/calibration/h100 (gemm.csv, second_machine) and the random half; hw/measured/h100_*",
    attention = "24 cuDNN SDPA rows, ../shared/reference/calibration/h100/attention.csv",
    forward = "96 layer rows, ../shared/reference/calibration/h100/layers.csv; hw/measured/h100_layers_2026-11-22",
    decode = "16 decode rows, ../shared/reference/calibration/h100/decode.csv and hf_generate.csv",
  },
  node = "dgx_h100",
  sources = {
    node = "hw/clusters/dgx_h100.lua: the 8-GPU node this part ships in",
    measured = "../shared/reference/calibration/h100 and hw/measured/h100_* (their READMEs say how each was timed)",
    usable_memory_bytes = "Modal, 'Why does an NVIDIA H100 80GB card offer 85.52 GB?' (https://thundergolfer.com/blog/nvidia-gpu-memory-capacity): total memory as NVML reports it (nvidia-smi), MiB",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "NVIDIA Hopper Architecture In-Depth (https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/): H100 SXM5 132 SMs, PCIe 114 of 144 on full GH100; NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3 -- not the 144 of the full die",
    boost_clock_hz = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- tensor peaks computed at 1830 MHz; 1980 MHz max boost",
    memory_bytes = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3",
    mem_bw = "HPCTech copy of NVIDIA H100 SXM/PCIe spec table (https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html)",
    l2_bytes = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3 -- die has 60 MB, 50 enabled",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3",
    peak_flops = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3; S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- dense; product page figures are 2:4 sparse",
    interconnect = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3 -- NVLink 900 GB/s bidirectional; PCIe Gen5 128 GB/s total",
  },
}
