-- NVIDIA A100 SXM4 40GB: the A100 SXM4 80GB (hw/a100_sxm4_80gb.lua) with HBM2 instead of HBM2e.
-- Pure data (schema in lua/tilewave/data/hw.lua); only what differs is stated, every figure with
-- its source (all via shared/reference/hardware_specs.md / .csv).
return {
  base = "a100_sxm4_80gb",
  name = "NVIDIA A100 SXM4 40GB",
  memory_bytes = 40 * GB,
  usable_memory_bytes = 40960 * MiB, -- as NVML reports it: what an engine can allocate from
  mem_bw = 1555 * GB,  -- byte/s
  measured = {
    gemm = "the co-design paper's A100 GEMM points (arXiv 2401.14489): ../shared/reference/calibration/gemm_calibration.csv, rows A100",
  },
  sources = {
    measured = "../shared/reference/calibration/gemm_calibration.csv",
    usable_memory_bytes = "Modal, 'Why does an NVIDIA H100 80GB card offer 85.52 GB?' (https://thundergolfer.com/blog/nvidia-gpu-memory-capacity): total memory as NVML reports it (nvidia-smi), MiB",
    memory_bytes = "NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf)",
    mem_bw = "NVIDIA A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf) -- HBM2 40GB 1555 GB/s, HBM2e 80GB SXM 2039, PCIe 1935",
  },
}
