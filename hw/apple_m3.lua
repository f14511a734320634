-- Apple M3 (10-core GPU, the larger bin): one device, pure data (schema in
-- lua/tilewave/hw.lua), via shared/reference/hardware_specs.md (Apple silicon: GPU cores and
-- memory bandwidth only). Apple publishes no clock, cache or per-chip FLOP/s figures there
-- beyond the M1's 2.6 TFLOPS FP32; the peaks below are derived from it (see sources.peak_flops).
return {
  name = "Apple M3 (10-core GPU)",
  vendor = "apple",
  arch = "apple",
  sm_count = 10,  -- GPU cores
  mem_bw = 100 * GB,  -- byte/s, unified memory
  peak_flops = {  -- FLOP/s, derived: 10 cores x (2.6 TFLOPS / 8 cores)
    fp32 = 3.2500 * TFLOPS,
    fp16 = 3.2500 * TFLOPS,
  },
  sources = {
    sm_count = "hardware_specs.md, Apple silicon table: 8 or 10 GPU cores (Apple MacBook Air/Pro M3 spec pages as quoted by AnandTech's M3 family table (pcextreme copy)); the larger bin is modeled",
    mem_bw = "hardware_specs.md, Apple silicon table: 100 GB/s, same as M2 (Apple MacBook Air/Pro M3 spec pages as quoted by AnandTech's M3 family table (pcextreme copy))",
    peak_flops = "derived [D]: MacRumors (https://www.macrumors.com/2020/11/10/apple-announces-m1-chip-for-the-mac/) gives 2.6 TFLOPS FP32 for the 8-core M1 GPU = 0.325 TFLOPS per core; scaled by GPU cores at the M1's clock (later chips clock higher, so this is a lower bound); FP16 taken at the FP32 rate (Apple GPU ALUs), an assumption",
  },
  notes = "memory size, clock and cache not in the reference: pass memory_bytes to tw.inference.memory",
}
