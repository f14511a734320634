-- NVIDIA H200 SXM 141GB: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "NVIDIA H200 SXM 141GB",
  vendor = "nvidia",
  arch = "hopper",
  compute_capability = 9.0,
  sm_count = 132,
  boost_clock_hz = 1830 * MHz,
  memory_bytes = 141 * GB,
  mem_bw = 4800 * GB,  -- byte/s
  l2_bytes = 50 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 700,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 67 * TFLOPS,
    fp32 = 67 * TFLOPS,
    tf32 = 494.5 * TFLOPS,
    fp16 = 989 * TFLOPS,
    bf16 = 989 * TFLOPS,
    fp8 = 1979 * TFLOPS,
    int8 = 1979 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 900 * GB,
    pcie_bw = 128 * GB,
  },
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    sm_count = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering); Google DeepMind scaling-book gpus.md @1a55377 (https://github.com/jax-ml/scaling-book)",
    boost_clock_hz = "S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- 1930 and 1980 MHz also reported",
    memory_bytes = "NVIDIA H200 product page (https://www.nvidia.com/en-us/data-center/h200/), sparse figures halved per its footnote",
    mem_bw = "NVIDIA H200 product page (https://www.nvidia.com/en-us/data-center/h200/), sparse figures halved per its footnote",
    l2_bytes = "Google DeepMind scaling-book gpus.md @1a55377 (https://github.com/jax-ml/scaling-book)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities)",
    tdp_w = "NVIDIA H200 product page (https://www.nvidia.com/en-us/data-center/h200/), sparse figures halved per its footnote",
    peak_flops = "NVIDIA H200 product page (https://www.nvidia.com/en-us/data-center/h200/), sparse figures halved per its footnote; S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- dense (product page sparse figures halved)",
    interconnect = "NVIDIA H200 product page (https://www.nvidia.com/en-us/data-center/h200/), sparse figures halved per its footnote -- NVLink 900 GB/s bidirectional; PCIe Gen5",
  },
}
