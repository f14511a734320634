-- NVIDIA RTX PRO 6000 Blackwell (Server and Workstation Editions): one device, pure data (schema in
-- lua/tilewave/data/hw.lua). A professional GB202: full-rate FP32 accumulate, unlike GeForce.
return {
  name = "NVIDIA RTX PRO 6000 Blackwell (96 GB)",
  vendor = "nvidia",
  arch = "blackwell_rtx",
  compute_capability = 12.0,
  sm_count = 188,
  boost_clock_hz = 2617 * MHz,
  memory_bytes = 96 * GB,
  mem_bw = 1792 * GB,  -- byte/s
  l2_bytes = 128 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 600,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 125.9 * TFLOPS,
    tf32 = 251.9 * TFLOPS,
    fp16 = 503.8 * TFLOPS,
    bf16 = 503.8 * TFLOPS,
    fp8 = 1007.6 * TFLOPS,
    int8 = 1007.6 * TFLOPS,
    fp4 = 2015.2 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 128 * GB,
  },
  sources = {
    compute_capability = "CUTLASS Blackwell support table: sm_120 (GB20x)",
    sm_count = "NVIDIA RTX PRO 6000 Blackwell datasheet / RTX Blackwell GPU Architecture whitepaper: 24,064 CUDA cores = 188 SMs of 128",
    boost_clock_hz = "NVIDIA RTX Blackwell whitepaper, RTX PRO 6000 column: 2617 MHz boost",
    memory_bytes = "NVIDIA RTX PRO 6000 Blackwell datasheet: 96 GB GDDR7 with ECC",
    mem_bw = "NVIDIA RTX PRO 6000 Blackwell datasheet: 1792 GB/s (512-bit GDDR7)",
    l2_bytes = "GB202's full 128 MB L2 (hwcooling.net GB202 analysis; techpowerup.com), as enabled on the professional part",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capability 12.0",
    tdp_w = "NVIDIA RTX PRO 6000 Blackwell datasheet: 600 W (Workstation and Server Editions; the Max-Q workstation card is 300 W and not this file)",
    peak_flops = "NVIDIA RTX PRO 6000 Blackwell datasheet: 4 PFLOPS FP4 with sparsity = 2015 dense; worked from the RTX Blackwell whitepaper's per-SM rates: 188 SMs x 1024 dense FP16 FLOP (FP32 accumulate, full rate on professional cards) x 2.617 GHz = 503.8 TFLOPS; fp8 x2, fp4 x4, tf32 /2, fp32 188 x 256 x 2.617 GHz = 125.9",
    interconnect = "PCIe Gen5 x16, 128 GB/s bidirectional; no NVLink (NVIDIA RTX PRO 6000 Blackwell datasheet)",
  },
}
