-- AMD Instinct MI350X: one device, pure data (schema in lua/tilewave/data/hw.lua). The MI355X's
-- silicon (hw/mi355x.lua, its base) air-cooled at 2.2 GHz and 1000 W: what differs is stated here.
return {
  base = "mi355x",
  name = "AMD Instinct MI350X",
  boost_clock_hz = 2200 * MHz,
  tdp_w = 1000,
  peak_flops = {  -- dense, FLOP/s: MI355X's x 2200 / 2400
    fp32 = 144.2 * TFLOPS,
    fp16 = 2300 * TFLOPS,
    bf16 = 2300 * TFLOPS,
    fp8 = 4600 * TFLOPS,
    int8 = 4600 * TFLOPS,
    fp4 = 9200 * TFLOPS,
  },
  node = "mi355x_8",
  sources = {
    boost_clock_hz = "AMD at Hot Chips 2025 (wccftech.com, 2025-08-26): MI350X air-cooled, max clock 2.2 GHz",
    tdp_w = "AMD at Hot Chips 2025 (wccftech.com): MI350X 1000 W TBP",
    peak_flops = "S. Bekman, ML Engineering, compute/accelerator/README.md, TFLOPS table of 2026-08, note 22: 'MI350X is the same silicon at 2200MHz and 1000W, with everything scaled by the clock ratio (144.2 vs 157.3 fp32)'; the 2025 table's 2300 / 4600 / 9200 for fp16 / fp8 / fp4 are these rates (256 CUs x 4096 x 2.2 GHz = 2306.9 TFLOPS bf16)",
    node = "hw/clusters/mi355x_8.lua: an 8-GPU MI350-series platform (MI350X and MI355X share the OAM platform)",
  },
}
