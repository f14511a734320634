-- Apple M1 (8-core GPU): one device, pure data (schema in lua/tilewave/hw.lua), via
-- shared/reference/hardware_specs.md (Apple silicon: GPU cores and memory bandwidth only).
-- Apple publishes no clock, cache or per-chip FLOP/s figures there beyond the M1's 2.6
-- TFLOPS FP32; the peaks below are derived from it (see sources.peak_flops).
return {
  name = "Apple M1 (8-core GPU)",
  vendor = "apple",
  arch = "apple",
  sm_count = 8,  -- GPU cores
  mem_bw = 66.67 * GB,  -- byte/s, unified memory
  peak_flops = {  -- FLOP/s, derived: 8 cores x (2.6 TFLOPS / 8 cores)
    fp32 = 2.6000 * TFLOPS,
    fp16 = 2.6000 * TFLOPS,
  },
  sources = {
    sm_count = "mymasterdesigner.com (https://mymasterdesigner.com/2020/11/19/what-does-offers-new-m1-chip/): 8-core GPU (7-core in the entry MacBook Air)",
    mem_bw = "askgeek.io (https://askgeek.io/en/cpus/Apple/M1-8-core-GPU), third-party, LPDDR4X-4266; Apple's own figure not found (the common 68.25 GB/s unverified) -- via shared/reference/hardware_specs.md",
    peak_flops = "derived [D]: MacRumors (https://www.macrumors.com/2020/11/10/apple-announces-m1-chip-for-the-mac/) gives 2.6 TFLOPS FP32 for the 8-core M1 GPU = 0.325 TFLOPS per core; scaled by GPU cores at the M1's clock (later chips clock higher, so this is a lower bound); FP16 taken at the FP32 rate (Apple GPU ALUs), an assumption",
  },
  notes = "memory size, clock and cache not in the reference: pass memory_bytes to tw.inference.memory",
}
