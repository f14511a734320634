-- AMD Instinct MI250X, one GCD: one device, pure data (schema in lua/tilewave/hw.lua).
-- Every figure names its source; all figures via shared/reference/hardware_specs.md / .csv.
return {
  name = "AMD Instinct MI250X, one GCD",
  vendor = "amd",
  arch = "cdna2",
  sm_count = 110,
  boost_clock_hz = 1700 * MHz,
  memory_bytes = 64 * GB,
  mem_bw = 1640 * GB,  -- byte/s
  l2_bytes = 8 * MB,
  smem_per_sm_bytes = 64 * KiB,
  tdp_w = 250,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 23.95 * TFLOPS,
    fp16 = 191.5 * TFLOPS,
    bf16 = 191.5 * TFLOPS,
    int8 = 191.5 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    fabric_bw = 400 * GB,
  },
  sources = {
    sm_count = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm) -- 220 CUs over 2 GCDs; one GCD is one device to a framework",
    boost_clock_hz = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm)",
    memory_bytes = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm) -- 128 GB over 2 GCDs",
    mem_bw = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm) -- 3280 GB/s over 2 GCDs",
    l2_bytes = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm) -- 8 MiB per GCD; stored as 8 MB",
    smem_per_sm_bytes = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm) -- LDS 64 KiB per CU",
    tdp_w = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm) -- 500 W TDP for the 2-GCD package, halved",
    peak_flops = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm); S. Bekman, ML Engineering, compute/accelerator/README.md @744d01e (https://github.com/stas00/ml-engineering) -- package figures (383 TFLOPS FP16/BF16, 47.9 FP32 vector) halved per GCD, as MLE advises",
    interconnect = "AMD ROCm docs gpu-arch-specs.rst @e396b48 (https://github.com/ROCm/ROCm) -- GCD-to-GCD in package 400 GB/s bidirectional",
  },
}
