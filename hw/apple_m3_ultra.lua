-- Apple M3 Ultra (80-core GPU, the larger bin): one device, pure data (schema in
-- lua/tilewave/hw.lua), via shared/reference/hardware_specs.md (Apple silicon: GPU cores and
-- memory bandwidth only). Apple publishes no clock, cache or per-chip FLOP/s figures there
-- beyond the M1's 2.6 TFLOPS FP32; the peaks below are derived from it (see sources.peak_flops).
return {
  name = "Apple M3 Ultra (80-core GPU)",
  vendor = "apple",
  arch = "apple",
  sm_count = 80,  -- GPU cores
  mem_bw = 819.2 * GB,  -- byte/s, unified memory
  peak_flops = {  -- FLOP/s, derived: 80 cores x (2.6 TFLOPS / 8 cores)
    fp32 = 26.0000 * TFLOPS,
    fp16 = 26.0000 * TFLOPS,
  },
  sources = {
    sm_count = "hardware_specs.md, Apple silicon table: 60 or 80 GPU cores (TechPowerUp Mac Studio news 2025-03-05, Ars Technica table (819.2 GB/s), BGR 2025-03-05 quoting Apple ('over 800GB/s')); the larger bin is modeled",
    mem_bw = "hardware_specs.md, Apple silicon table: 819.2 GB/s (both bins) (TechPowerUp Mac Studio news 2025-03-05, Ars Technica table (819.2 GB/s), BGR 2025-03-05 quoting Apple ('over 800GB/s'))",
    peak_flops = "derived [D]: MacRumors (https://www.macrumors.com/2020/11/10/apple-announces-m1-chip-for-the-mac/) gives 2.6 TFLOPS FP32 for the 8-core M1 GPU = 0.325 TFLOPS per core; scaled by GPU cores at the M1's clock (later chips clock higher, so this is a lower bound); FP16 taken at the FP32 rate (Apple GPU ALUs), an assumption",
  },
  notes = "memory size, clock and cache not in the reference: pass memory_bytes to tw.inference.memory",
}
