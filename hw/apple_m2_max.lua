-- Apple M2 Max (38-core GPU): one device, pure data (schema in lua/tilewave/hw.lua), via
-- shared/reference/hardware_specs.md (Apple silicon: GPU cores and memory bandwidth only).
-- Apple publishes no clock, cache or per-chip FLOP/s figures there beyond the M1's 2.6
-- TFLOPS FP32; the peaks below are derived from it (see sources.peak_flops).
return {
  name = "Apple M2 Max (38-core GPU)",
  vendor = "apple",
  arch = "apple",
  sm_count = 38,  -- GPU cores
  mem_bw = 400 * GB,  -- byte/s, unified memory
  peak_flops = {  -- FLOP/s, derived: 38 cores x (2.6 TFLOPS / 8 cores)
    fp32 = 12.3500 * TFLOPS,
    fp16 = 12.3500 * TFLOPS,
  },
  sources = {
    sm_count = "Ars Technica reprint (same URL): up to 38 cores",
    mem_bw = "Ars Technica reprint (https://blog.patti.tech/2023/06/05/as-rumored-the-mac-studio-gets-an-m2-refresh-including-fused-together-m2-ultra): 400 GB/s",
    peak_flops = "derived [D]: MacRumors (https://www.macrumors.com/2020/11/10/apple-announces-m1-chip-for-the-mac/) gives 2.6 TFLOPS FP32 for the 8-core M1 GPU = 0.325 TFLOPS per core; scaled by GPU cores at the M1's clock (later chips clock higher, so this is a lower bound); FP16 taken at the FP32 rate (Apple GPU ALUs), an assumption",
  },
  notes = "memory size, clock and cache not in the reference: pass memory_bytes to tw.inference.memory",
}
