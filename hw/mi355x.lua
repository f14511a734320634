-- AMD Instinct MI355X: one device, pure data (schema in lua/tilewave/data/hw.lua).
-- Every figure names its source. Where sources disagree the file says so and which was taken.
return {
  name = "AMD Instinct MI355X",
  vendor = "amd",
  arch = "cdna4",
  sm_count = 256,
  boost_clock_hz = 2400 * MHz,
  memory_bytes = 288 * GB,
  mem_bw = 8000 * GB,  -- byte/s
  l2_bytes = 32 * MB,
  smem_per_sm_bytes = 160 * KiB,
  tdp_w = 1400,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 157.3 * TFLOPS,
    fp16 = 2500 * TFLOPS,
    bf16 = 2500 * TFLOPS,
    fp8 = 5000 * TFLOPS,
    int8 = 5000 * TFLOPS,
    fp4 = 10100 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    fabric_bw = 1075 * GB,
    pcie_bw = 128 * GB,
  },
  node = "mi355x_8",
  sources = {
    sm_count = "AMD at ISSCC 2026 (reported by world-today-news.com, 2026-02): 8 XCDs x 32 active CUs = 256 (MI300X: 38 per XCD); HipKittens' MI350 (gfx950) table (salykova/HipKittens kernels/gemm/bf16fp32/README.md): 256 CUs",
    boost_clock_hz = "AMD at Hot Chips 2025 (wccftech.com, 2025-08-26): MI355X max clock 2.4 GHz at 1400 W TBP, MI350X 2.2 GHz at 1000 W",
    memory_bytes = "AMD Instinct MI355X specifications (https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html) via S. Bekman's ML Engineering memory table: 288 GB HBM3E",
    mem_bw = "AMD Instinct MI355X specifications via ML Engineering's memory table: 8.0 TB/s",
    l2_bytes = "4 MB per XCD x 8 (HipKittens' MI350 table: L2 4 MB; ROCm docs give MI300X 4 MiB per XCD); the 256 MB Infinity Cache is not modelled",
    smem_per_sm_bytes = "LDS 160 KB per CU (HipKittens' MI350 table; AgentKernelArena's MI355X architecture sheet: 'increased to 160 KB per CU')",
    tdp_w = "AMD at Hot Chips 2025 (wccftech.com): MI355X 1400 W TBP, liquid-cooled",
    peak_flops = "AMD Instinct MI355X specifications as S. Bekman's ML Engineering TFLOPS table of 2026-08 copies them (note 22: AMD's dense figures; the 'with structured sparsity' ones are exactly 2x): fp32 157.3, fp16/bf16 2500, fp8 5000, int8 5000, fp6 and fp4 (MXFP4, block-scaled E2M1) 10100. Worked: 256 CUs x 4096 dense bf16 FLOP per CU per clock x 2.4 GHz = 2516.6 TFLOPS (AMD rounds to 2.5 PF; ISSCC 2026: 8192 FP8 FLOP per CU per clock). ML Engineering's earlier table (2025) printed 2300/4600/9200, MI350X's rates at 2.2 GHz; not taken",
    interconnect = "AMD Instinct MI355X specifications: 7 Infinity Fabric links x 153.6 GB/s = 1075 GB/s (bidirectional); PCIe Gen5 x16",
    node = "hw/clusters/mi355x_8.lua: the 8-GPU Infinity Fabric platform",
  },
}
