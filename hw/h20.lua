-- NVIDIA H20 (HGX H20): one device, pure data (schema in lua/tilewave/data/hw.lua). A Hopper GH100
-- part whose tensor rate is capped for export (US ECCN 3A090's total processing performance):
-- its peaks are far below SMs x rate x clock. Sources are secondary (no NVIDIA datasheet is public).
return {
  name = "NVIDIA H20 (HGX H20, 96 GB)",
  vendor = "nvidia",
  arch = "hopper",
  compute_capability = 9.0,
  sm_count = 78,
  boost_clock_hz = 1830 * MHz,
  memory_bytes = 96 * GB,
  mem_bw = 4000 * GB,  -- byte/s
  l2_bytes = 60 * MB,
  smem_per_sm_bytes = 228 * KiB,
  tdp_w = 400,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp64 = 1 * TFLOPS,
    fp32 = 44 * TFLOPS,
    tf32 = 74 * TFLOPS,
    fp16 = 148 * TFLOPS,
    bf16 = 148 * TFLOPS,
    fp8 = 296 * TFLOPS,
    int8 = 296 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 900 * GB,
    pcie_bw = 128 * GB,
  },
  node = "dgx_h100",
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (GH100, sm_90)",
    sm_count = "Geekbench 6 device report of 78 SMs, as zangshuxian.com (2024) quotes it; not an NVIDIA figure",
    boost_clock_hz = "not published: H100 SXM's tensor clock (hw/h100_sxm5.lua) assumed; the capped peaks do not follow from it",
    memory_bytes = "HGX H20 specification as published in 2023 (1cnz.cn; willitrunai.com/gpus/h20-96gb): 96 GB HBM3 (ke60.top says HBM3e; a later 141 GB version exists and is not this file)",
    mem_bw = "HGX H20 specification (1cnz.cn, willitrunai.com): 4.0 TB/s",
    l2_bytes = "ke60.top H20 memory article: 60 MB L2 (the full GH100's)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capability 9.0",
    tdp_w = "willitrunai.com/gpus/h20-96gb: 400 W",
    peak_flops = "HGX H20 specification as quoted by zangshuxian.com and 1cnz.cn: FP8 296, FP16 148, INT8 296, TF32 74, FP32 44, FP64 1 TFLOPS (dense). The cap: 296 TFLOPS x 8 bits = 148 x 16 = 2368, below the 4800 'total processing performance' of US ECCN 3A090 (2023 rule); 78 SMs x 4096 bf16 FLOP per clock x 1.83 GHz would be 585 TFLOPS",
    interconnect = "HGX H20 specification (1cnz.cn; taoguba.com.cn): NVLink 900 GB/s, as H100; PCIe Gen5 x16",
    node = "hw/clusters/dgx_h100.lua: the HGX H20 is an 8-GPU HGX baseboard with NVLink 4 and InfiniBand as DGX H100 (taoguba.com.cn: 'the same IB network architecture')",
  },
}
