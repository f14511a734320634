-- Apple M2 Ultra (76-core GPU): one device, pure data (schema in lua/tilewave/hw.lua), via
-- shared/reference/hardware_specs.md (Apple silicon: GPU cores and memory bandwidth only).
-- Apple publishes no clock, cache or per-chip FLOP/s figures there beyond the M1's 2.6
-- TFLOPS FP32; the peaks below are derived from it (see sources.peak_flops).
return {
  name = "Apple M2 Ultra (76-core GPU)",
  vendor = "apple",
  arch = "apple",
  sm_count = 76,  -- GPU cores
  mem_bw = 800 * GB,  -- byte/s, unified memory
  peak_flops = {  -- FLOP/s, derived: 76 cores x (2.6 TFLOPS / 8 cores)
    fp32 = 24.7000 * TFLOPS,
    fp16 = 24.7000 * TFLOPS,
  },
  measured = {
    decode = "4 llama.cpp decode rows: ../shared/reference/calibration/decode_calibration.csv",
  },
  sources = {
    measured = "../shared/reference/calibration/decode_calibration.csv",
    sm_count = "myapplechat (https://myapplechat.com/apples-m2-ultra-chip-is-the-most-powerful-yet/): 60 or 76 cores",
    mem_bw = "propakistani (https://propakistani.pk/2023/06/06/apple-m2-ultra-chip-unveiled-for-mac-pro-and-mac-studio/): 800 GB/s",
    peak_flops = "derived [D]: MacRumors (https://www.macrumors.com/2020/11/10/apple-announces-m1-chip-for-the-mac/) gives 2.6 TFLOPS FP32 for the 8-core M1 GPU = 0.325 TFLOPS per core; scaled by GPU cores at the M1's clock (later chips clock higher, so this is a lower bound); FP16 taken at the FP32 rate (Apple GPU ALUs), an assumption",
  },
  notes = "memory size, clock and cache not in the reference: pass memory_bytes to tw.inference.memory",
}
