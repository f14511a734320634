-- NVIDIA H800 SXM5 80GB: one device, pure data (schema in lua/tilewave/data/hw.lua). The H100 SXM5
-- (hw/h100_sxm5.lua, its base) with NVLink cut to 400 GB/s and FP64 cut for export: what differs
-- is stated here.
return {
  base = "h100_sxm5",
  name = "NVIDIA H800 SXM5 80GB",
  peak_flops = {  -- dense, FLOP/s
    fp64 = 1 * TFLOPS,
  },
  interconnect = {  -- byte/s, bidirectional totals
    nvlink_bw = 400 * GB,
  },
  node = "hgx_h800",
  sources = {
    peak_flops = "NVIDIA H800 Tensor Core GPU datasheet (2023): tensor rates as H100 SXM5 (989.4 TFLOPS bf16 dense at 132 SMs x 4096 x 1.83 GHz), FP64 1 TFLOPS; the rest from hw/h100_sxm5.lua",
    interconnect = "NVIDIA H800 datasheet: NVLink 400 GB/s (bidirectional), against H100's 900 (taoguba.com.cn: H20's 900 GB/s 'higher than the H800 series' 400 GB/s'); DeepSeek-V3 technical report (arXiv 2412.19437) §3.2: H800 nodes, NVLink 160 GB/s achieved",
    node = "hw/clusters/hgx_h800.lua: the 8-GPU H800 node DeepSeek-V3 was trained on",
  },
}
