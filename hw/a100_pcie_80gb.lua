-- NVIDIA A100 PCIe 80GB: the A100 SXM4 80GB (hw/a100_sxm4_80gb.lua) as a 300 W PCIe card.
-- Pure data (schema in lua/tilewave/data/hw.lua); only what differs is stated, every figure with
-- its source (all via shared/reference/hardware_specs.md / .csv). The interconnect figures are the
-- base's (the PCIe card's NVLink is a 2-GPU bridge: its source says so).
return {
  base = "a100_sxm4_80gb",
  name = "NVIDIA A100 PCIe 80GB",
  mem_bw = 1935 * GB,  -- byte/s
  tdp_w = 300,
  measured = {
    gemm = "one maximum-achievable-matmul point: gemm_calibration.csv, row A100 PCIe",
  },
  sources = {
    measured = "../shared/reference/calibration/gemm_calibration.csv",
    mem_bw = "NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf) -- HBM2 40GB 1555 GB/s, HBM2e 80GB SXM 2039, PCIe 1935",
    tdp_w = "NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf)",
  },
}
