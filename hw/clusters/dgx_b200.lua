-- NVIDIA DGX B200 nodes: pure data (schema in lua/tilewave/data/cluster.lua).
-- Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "NVIDIA DGX B200 (8 x B200), NDR InfiniBand",
  gpu = "b200",
  gpus_per_node = 8,
  intra = {  -- NVLink 5 through NVSwitch: 1.8 TB/s bidirectional per GPU = 900 GB/s each way
    bw = 900 * GB,
    latency_s = 5 * us,
  },
  inter = {  -- 8 x ConnectX-7, 400 Gb/s each = 50 GB/s per GPU each way
    bw = 50 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "NVIDIA DGX B200 datasheet (https://resources.nvidia.com/en-us-dgx-systems/dgx-b200-datasheet): 8 x B200, 1,440 GB total GPU memory",
    gpus_per_node = "NVIDIA DGX B200 datasheet",
    intra = "bandwidth: NVIDIA DGX B200 datasheet: fifth-generation NVLink, 14.4 TB/s aggregate = 1.8 TB/s per GPU bidirectional (hw/b200.lua); bus_frac: not measured, so 1 (DGX H100's all-reduce fraction is not carried over to NVLink 5); latency: assumption, as hw/clusters/dgx_h100.lua",
    inter = "bandwidth: NVIDIA DGX B200 datasheet: 8 x single-port ConnectX-7 VPI, up to 400 Gb/s InfiniBand/Ethernet, for compute; latency: assumption, as hw/clusters/dgx_h100.lua",
  },
}
