-- NVIDIA GH200 Grace Hopper Superchip, 480 GB (its Hopper GPU, with 96 GB of HBM3): one device,
-- pure data (schema in lua/tilewave/hw.lua). The GPU is an H100 (GH100) paired on one module with a
-- 72-core Grace CPU and 480 GB of LPDDR5X over NVLink-C2C; the CPU memory is not modeled (no
-- offload). Figures via shared/reference/hardware_specs.md (the "GH200 (GPU portion)" row) and the
-- sources named below; what that file lists as not sourced for the GH200 (SM count, clocks) is
-- taken as the H100 SXM5's, and says so.
return {
  name = "NVIDIA GH200 480GB (GPU: H100, 96 GB HBM3)",
  vendor = "nvidia",
  arch = "hopper",
  compute_capability = 9.0,
  sm_count = 132,
  boost_clock_hz = 1830 * MHz,
  memory_bytes = 96 * GB,
  mem_bw = 4000 * GB,  -- byte/s
  l2_bytes = 50 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 1000,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 67 * TFLOPS,
    fp32 = 67 * TFLOPS,
    tf32 = 494.5 * TFLOPS,
    fp16 = 989 * TFLOPS,
    bf16 = 989 * TFLOPS,
    fp8 = 1979 * TFLOPS,
    int8 = 1979 * TFLOPS,
  },
  sources = {
    sm_count = "not sourced for the GH200 in shared/reference/hardware_specs.md ('Not sourced: GH200 SM count, clocks'): "
      .. "taken as the H100 SXM5's 132, the GPU being an H100 (Spheron, 'NVIDIA GH200 Grace Hopper Superchip: "
      .. "Architecture and Performance Guide', 2026-01-25: 'an H100 Hopper GPU ... 96 GB of HBM3 ... 480 GB of LPDDR5X')",
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (Hopper: 9.0)",
    boost_clock_hz = "not sourced for the GH200 (hardware_specs.md): the H100 SXM5's 1830 MHz, at which the peaks below are stated",
    memory_bytes = "shared/reference/hardware_specs.md, GH200 (GPU portion): '96 GB HBM3 or 141 GB HBM3e'; the 480 GB part "
      .. "carries 96 GB of HBM3 (Spheron guide above)",
    mem_bw = "shared/reference/hardware_specs.md, GH200 (GPU portion): '4000 or 4800' GB/s, 4000 with HBM3",
    l2_bytes = "the H100's 50 MB (NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Tables 1 and 3): the same GPU",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capabilities (Hopper: 228 KB per SM)",
    tdp_w = "the module's up to 1000 W, CPU and memory included (artificial-intelligence-wiki.com, NVIDIA Grace Hopper guide); "
      .. "hardware_specs.md notes a 900 W configuration was measured",
    peak_flops = "shared/reference/hardware_specs.md, GH200 (GPU portion): 67 fp32, 494.5 tf32, 989 / 989 fp16/bf16, 1979 "
      .. "fp8, 1979 int8 (MLE) -- dense",
    interconnect = "none given: GPU-to-GPU NVLink depends on the system (NVL32 and others); a t > 1 run is refused",
  },
}
