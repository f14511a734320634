-- NVIDIA H100 PCIe 80GB: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA H100 PCIe 80GB",
  vendor = "nvidia",
  arch = "hopper",
  compute_capability = 9.0,
  sm_count = 114,
  boost_clock_hz = 1620 * MHz,
  memory_bytes = 80 * GB,
  mem_bw = 2000 * GB,  -- byte/s
  l2_bytes = 50 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 350,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 51 * TFLOPS,
    fp32 = 51 * TFLOPS,
    tf32 = 378 * TFLOPS,
    fp16 = 756 * TFLOPS,
    bf16 = 756 * TFLOPS,
    fp8 = 1513 * TFLOPS,
    int8 = 1513 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 600 * GB,
    pcie_bw = 128 * GB,
  },
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "NVIDIA Hopper Architecture In-Depth (https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/): H100 SXM5 132 SMs, PCIe 114 of 144 on full GH100; NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3",
    boost_clock_hz = "karpathy/llm.c llmc/mfu.h @f1e2ace (per-GPU tensor peaks from NVIDIA whitepapers) -- 756 TFLOPS implies about 1620 MHz; 1755 MHz max boost",
    memory_bytes = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3",
    mem_bw = "HPCTech copy of NVIDIA H100 SXM/PCIe spec table (https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html)",
    l2_bytes = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3",
    peak_flops = "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3; HPCTech copy of NVIDIA H100 SXM/PCIe spec table (https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html) -- dense",
    interconnect = "HPCTech copy of NVIDIA H100 SXM/PCIe spec table (https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html) -- NVLink bridge 600 GB/s; PCIe Gen5 128 GB/s total",
  },
}
