-- NVIDIA L20: one device, pure data (schema in lua/tilewave/data/hw.lua). An AD102 part for export
-- (China), about a third of an L40S. Sources are secondary (no NVIDIA datasheet is public).
return {
  name = "NVIDIA L20 (48 GB)",
  vendor = "nvidia",
  arch = "ada",
  compute_capability = 8.9,
  sm_count = 92,
  boost_clock_hz = 2520 * MHz,
  memory_bytes = 48 * GB,
  mem_bw = 864 * GB,  -- byte/s
  l2_bytes = 96 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 275,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 59.8 * TFLOPS,
    tf32 = 59.8 * TFLOPS,
    fp16 = 119.5 * TFLOPS,
    bf16 = 119.5 * TFLOPS,
    fp8 = 239 * TFLOPS,
    int8 = 239 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 64 * GB,
  },
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (AD102, sm_89)",
    sm_count = "secondary: the L20 specification as circulated in 2023 (11,776 CUDA cores = 92 SMs of 128); not an NVIDIA datasheet",
    boost_clock_hz = "secondary, as sm_count: 2520 MHz boost (FP32 92 x 256 x 2.52 GHz = 59.3 TFLOPS, the 59.8 printed)",
    memory_bytes = "1cnz.cn (2024): L20 48 GB GDDR6, PCIe 4.0 x16",
    mem_bw = "secondary L20 specification: 864 GB/s (384-bit GDDR6, as L40S; taoguba.com.cn: 'only compute was cut, not bandwidth')",
    l2_bytes = "not published: AD102's 96 MB (NVIDIA ADA GPU Architecture whitepaper) assumed",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capability 8.9",
    tdp_w = "secondary L20 specification: 275 W",
    peak_flops = "secondary L20 specification (dense): FP16/BF16 119.5, FP8 239, INT8 239, TF32 59.8; taoguba.com.cn: 'L20 is 32% of L40S' (119.5 / 362 = 0.33). Worked: 92 SMs x 512 x 2.52 GHz = 118.7 TFLOPS (half-rate FP32 accumulate, as L40)",
    interconnect = "1cnz.cn: PCIe 4.0 x16 (64 GB/s bidirectional); no NVLink",
  },
}
