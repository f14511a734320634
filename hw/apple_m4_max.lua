-- Apple M4 Max (40-core GPU): one device, pure data (schema in lua/tilewave/hw.lua), via
-- shared/reference/hardware_specs.md (Apple silicon: GPU cores and memory bandwidth only).
-- Apple publishes no clock, cache or per-chip FLOP/s figures there beyond the M1's 2.6
-- TFLOPS FP32; the peaks below are derived from it (see sources.peak_flops).
return {
  name = "Apple M4 Max (40-core GPU)",
  vendor = "apple",
  arch = "apple",
  sm_count = 40,  -- GPU cores
  mem_bw = 546 * GB,  -- byte/s, unified memory
  peak_flops = {  -- FLOP/s, derived: 40 cores x (2.6 TFLOPS / 8 cores)
    fp32 = 13.0000 * TFLOPS,
    fp16 = 13.0000 * TFLOPS,
  },
  sources = {
    sm_count = "notebookcheck (http://www.notebookcheck.net/Apple-M4-Max-official-with-incremental-upgrades-over-the-M3-Max.911098.0.html): 32 or 40 cores",
    mem_bw = "MacRumors (https://www.macrumors.com/2024/10/30/apple-announces-m4-max-chip/): 'up to 546GB/s' (16-core CPU / 40-core GPU)",
    peak_flops = "derived [D]: MacRumors (https://www.macrumors.com/2020/11/10/apple-announces-m1-chip-for-the-mac/) gives 2.6 TFLOPS FP32 for the 8-core M1 GPU = 0.325 TFLOPS per core; scaled by GPU cores at the M1's clock (later chips clock higher, so this is a lower bound); FP16 taken at the FP32 rate (Apple GPU ALUs), an assumption",
  },
  notes = "memory size, clock and cache not in the reference: pass memory_bytes to tw.inference.memory",
}
