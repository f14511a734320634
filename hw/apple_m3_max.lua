-- Apple M3 Max (40-core GPU): one device, pure data (schema in lua/tilewave/hw.lua), via
-- shared/reference/hardware_specs.md (Apple silicon: GPU cores and memory bandwidth only).
-- Apple publishes no clock, cache or per-chip FLOP/s figures there beyond the M1's 2.6
-- TFLOPS FP32; the peaks below are derived from it (see sources.peak_flops).
return {
  name = "Apple M3 Max (40-core GPU)",
  vendor = "apple",
  arch = "apple",
  sm_count = 40,  -- GPU cores
  mem_bw = 400 * GB,  -- byte/s, unified memory
  peak_flops = {  -- FLOP/s, derived: 40 cores x (2.6 TFLOPS / 8 cores)
    fp32 = 13.0000 * TFLOPS,
    fp16 = 13.0000 * TFLOPS,
  },
  sources = {
    sm_count = "notebookcheck (https://www.notebookcheck.net/M3-Max-40-Core-GPU-vs-M1-Pro-14-Core-GPU-vs-M3-Max-30-Core-GPU_11636_10965_12034.247598.0.html): 30 or 40 cores",
    mem_bw = "macmegasite (https://macmegasite.com/2024/10/30/m4-max-chip-has-16-core-cpu-40-core-gpu-and-35-increase-in-memory-bandwidth); notebookcheck: 512-bit LPDDR5-6400, max 400 GB/s (40-core GPU configuration)",
    peak_flops = "derived [D]: MacRumors (https://www.macrumors.com/2020/11/10/apple-announces-m1-chip-for-the-mac/) gives 2.6 TFLOPS FP32 for the 8-core M1 GPU = 0.325 TFLOPS per core; scaled by GPU cores at the M1's clock (later chips clock higher, so this is a lower bound); FP16 taken at the FP32 rate (Apple GPU ALUs), an assumption",
  },
  notes = "memory size, clock and cache not in the reference: pass memory_bytes to tw.inference.memory",
}
