-- Apple M1 Pro (16-core GPU): one device, pure data (schema in lua/tilewave/hw.lua), via
-- shared/reference/hardware_specs.md (Apple silicon: GPU cores and memory bandwidth only).
-- Apple publishes no clock, cache or per-chip FLOP/s figures there beyond the M1's 2.6
-- TFLOPS FP32; the peaks below are derived from it (see sources.peak_flops).
return {
  name = "Apple M1 Pro (16-core GPU)",
  vendor = "apple",
  arch = "apple",
  sm_count = 16,  -- GPU cores
  mem_bw = 200 * GB,  -- byte/s, unified memory
  peak_flops = {  -- FLOP/s, derived: 16 cores x (2.6 TFLOPS / 8 cores)
    fp32 = 5.2000 * TFLOPS,
    fp16 = 5.2000 * TFLOPS,
  },
  sources = {
    sm_count = "9to5mac (https://9to5mac.com/2021/10/18/apple-unveils-next-generation-m1-pro-and-m1-max-chips-for-new-macs/): up to 16-core GPU",
    mem_bw = "Apple press release, Business Wire copy (https://semiwiki.com/forum/index.php?goto/post&id=48836): 'up to 200GB/s'",
    peak_flops = "derived [D]: MacRumors (https://www.macrumors.com/2020/11/10/apple-announces-m1-chip-for-the-mac/) gives 2.6 TFLOPS FP32 for the 8-core M1 GPU = 0.325 TFLOPS per core; scaled by GPU cores at the M1's clock (later chips clock higher, so this is a lower bound); FP16 taken at the FP32 rate (Apple GPU ALUs), an assumption",
  },
  notes = "memory size, clock and cache not in the reference: pass memory_bytes to tw.inference.memory",
}
