-- NVIDIA GeForce RTX 5090: one device, pure data (schema in lua/tilewave/data/hw.lua).
-- GeForce tensor cores run FP16/BF16/FP8 with FP32 accumulate at half rate (as RTX 4090's).
return {
  name = "NVIDIA GeForce RTX 5090",
  vendor = "nvidia",
  arch = "blackwell_rtx",
  compute_capability = 12.0,
  sm_count = 170,
  boost_clock_hz = 2407 * MHz,
  memory_bytes = 32 * GB,
  mem_bw = 1792 * GB,  -- byte/s
  l2_bytes = 96 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 575,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8), FP32 accumulate where there is a choice
    fp32 = 104.8 * TFLOPS,
    tf32 = 104.8 * TFLOPS,
    fp16 = 209.5 * TFLOPS,
    bf16 = 209.5 * TFLOPS,
    fp8 = 419 * TFLOPS,
    int8 = 838 * TFLOPS,
    fp4 = 1676 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 128 * GB,
  },
  sources = {
    compute_capability = "CUTLASS Blackwell support table: GeForce RTX 50x0 series compute capability 12.0 (SM120)",
    sm_count = "NVIDIA RTX Blackwell GPU Architecture whitepaper (https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf): 170 SMs, 21,760 CUDA cores (libertify.com summary); the full GB202 has 192 (hwcooling.net)",
    boost_clock_hz = "NVIDIA RTX Blackwell whitepaper / GeForce RTX 5090 specifications: 2.41 GHz boost (2407 MHz)",
    memory_bytes = "NVIDIA RTX Blackwell whitepaper: 32 GB GDDR7, 512-bit (techpowerup.com RTX 5090 review)",
    mem_bw = "NVIDIA RTX Blackwell whitepaper: 1,792 GB/s (libertify.com summary)",
    l2_bytes = "techpowerup.com GeForce RTX 5090 Founders Edition review: 96 MB L2 (GB202 full: 128 MB)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capability 12.0: 100 KB shared memory per SM (99 per block), as 8.6/8.9",
    tdp_w = "GeForce RTX 5090 specifications: 575 W total graphics power",
    peak_flops = "NVIDIA RTX Blackwell GPU Architecture whitepaper, RTX 5090 column, dense: FP16/BF16 tensor with FP32 accumulate 209.5 (419 with FP16 accumulate), FP8 with FP32 accumulate 419, INT8 838, FP4 1676 (the marketed 3352 'AI TOPS' is FP4 with sparsity); FP32 104.8 = 170 SMs x 128 x 2 x 2.407 GHz. Worked: 170 x 512 x 2.407 GHz = 209.5 TFLOPS (half of the pro cards' 1024 per SM per clock); fp4 is block-scaled E2M1",
    interconnect = "PCIe Gen5 x16 (RTX Blackwell whitepaper; techpowerup.com: 'the first gaming GPU' with PCIe 5.0 x16), 128 GB/s bidirectional; no NVLink",
  },
}
