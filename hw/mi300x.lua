-- AMD Instinct MI300X: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "AMD Instinct MI300X",
  vendor = "amd",
  arch = "cdna3",
  sm_count = 304,
  boost_clock_hz = 2100 * MHz,
  memory_bytes = 192 * GB,
  mem_bw = 5300 * GB,  -- byte/s
  l2_bytes = 32 * MB,
  smem_per_sm_bytes = 64 * KiB,
  tdp_w = 750,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 163.4 * TFLOPS,
    fp32 = 163.4 * TFLOPS,
    tf32 = 653.7 * TFLOPS,
    fp16 = 1307.4 * TFLOPS,
    bf16 = 1307.4 * TFLOPS,
    fp8 = 2614.9 * TFLOPS,
    int8 = 2614.9 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    fabric_bw = 896 * GB,
    pcie_bw = 128 * GB,
  },
  node = "mi300x_8",
  sources = {
    node = "hw/clusters/mi300x_8.lua: the 8-GPU node this part ships in",
    sm_count = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm)",
    boost_clock_hz = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm)",
    memory_bytes = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm)",
    mem_bw = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm) -- AMD: theoretical peak, not achievable",
    l2_bytes = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm) -- 4 MiB per XCD; 256 MiB Infinity Cache not modeled",
    smem_per_sm_bytes = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm) -- LDS 64 KiB per CU",
    tdp_w = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm)",
    peak_flops = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm); S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- dense matrix rates",
    interconnect = "AMD ROCm docs mi300.md @e396b48 (https://github.com/ROCm/ROCm) -- 7 Infinity Fabric links x 128 GB/s = 896 GB/s; PCIe Gen5 x16",
  },
}
