-- NVIDIA L40: one device, pure data (schema in lua/tilewave/data/hw.lua). AD102 like L40S, but its
-- tensor cores run FP16/BF16 with FP32 accumulate at half the L40S's rate.
return {
  name = "NVIDIA L40",
  vendor = "nvidia",
  arch = "ada",
  compute_capability = 8.9,
  sm_count = 142,
  boost_clock_hz = 2490 * MHz,
  memory_bytes = 48 * GB,
  mem_bw = 864 * GB,  -- byte/s
  l2_bytes = 96 * MB,
  smem_per_sm_bytes = 100 * KiB,
  tdp_w = 300,
  peak_flops = {  -- dense, FLOP/s (OP/s for int8)
    fp32 = 90.5 * TFLOPS,
    tf32 = 90.5 * TFLOPS,
    fp16 = 181.05 * TFLOPS,
    bf16 = 181.05 * TFLOPS,
    fp8 = 362.1 * TFLOPS,
    int8 = 362.1 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    pcie_bw = 64 * GB,
  },
  -- USD per GPU-hour: 0.00037 USD/s x 3600 (the source's "L40, L40S, 6000 Ada PRO" row)
  price = { per_hour = 1.332, provider = "RunPod (serverless active worker)", date = "2026-11-25",
            source = "RunPod Serverless pricing, active (always-on) workers, per-second rate x 3600 (https://docs.runpod.io/serverless/pricing; stored copy read 2026-11-25)" },
  sources = {
    compute_capability = "CUDA C++ Programming Guide, compute capabilities (AD102, sm_89)",
    sm_count = "NVIDIA L40 datasheet (https://www.nvidia.com/en-us/data-center/l40/): 18,176 CUDA cores = 142 SMs of 128, 568 fourth-generation Tensor Cores",
    boost_clock_hz = "NVIDIA ADA GPU Architecture whitepaper v2.02, L40 column: 2490 MHz boost",
    memory_bytes = "NVIDIA L40 datasheet: 48 GB GDDR6 with ECC",
    mem_bw = "NVIDIA L40 datasheet: 864 GB/s",
    l2_bytes = "NVIDIA ADA GPU Architecture whitepaper: AD102 96 MB L2 (the L40S row of ../shared/reference/hardware_specs.md notes 48 vs 96 MB in secondary sources; 96 taken)",
    smem_per_sm_bytes = "CUDA C++ Programming Guide, compute capability 8.9",
    tdp_w = "NVIDIA L40 datasheet: 300 W max power",
    peak_flops = "NVIDIA L40 datasheet, dense (half the printed 'with sparsity' figures): TF32 90.5, BF16/FP16 181.05, FP8 362.1, INT8 362.1; FP32 90.5. Worked: 142 SMs x 512 x 2.49 GHz = 181.0 TFLOPS (half L40S's 1024 per SM per clock)",
    interconnect = "NVIDIA L40 datasheet: PCIe Gen4 x16, 64 GB/s bidirectional; no NVLink",
  },
}
