-- NVIDIA DGX H200 nodes: pure data (schema in lua/tilewave/data/cluster.lua).
-- Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "NVIDIA DGX H200 (8 x H200 SXM 141GB), NDR InfiniBand",
  gpu = "h200_sxm",
  gpus_per_node = 8,
  intra = {  -- NVLink 4 through NVSwitch: 900 GB/s bidirectional per GPU = 450 GB/s each way
    bw = 450 * GB,
    latency_s = 5 * us,
    bus_frac = 0.84,
  },
  inter = {  -- 8 x ConnectX-7, 400 Gb/s each = 50 GB/s per GPU each way
    bw = 50 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "NVIDIA DGX H200 datasheet (https://resources.nvidia.com/en-us-dgx-systems/dgx-h200-datasheet): 8 x H200, 1,128 GB total GPU memory",
    gpus_per_node = "NVIDIA DGX H200 datasheet",
    intra = "bandwidth: NVIDIA DGX H200 datasheet: 18 NVLink 4 connections per GPU, 900 GB/s bidirectional (hw/h200_sxm.lua); bus_frac: DGX H100's (hw/clusters/dgx_h100.lua: the same NVLink 4 and third-generation NVSwitch, 380 of 450 GB/s p2p); latency: assumption, as hw/clusters/dgx_h100.lua",
    inter = "bandwidth: NVIDIA DGX H200 datasheet: 8 x single-port ConnectX-7 VPI, 400 Gb/s InfiniBand/Ethernet; latency: assumption, as hw/clusters/dgx_h100.lua",
  },
}
