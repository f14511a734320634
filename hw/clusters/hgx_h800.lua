-- NVIDIA HGX H800 nodes, as DeepSeek-V3 was trained on: pure data (schema in
-- lua/tilewave/data/cluster.lua). Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "NVIDIA HGX H800 (8 x H800 SXM5 80GB), 400 Gb/s InfiniBand",
  gpu = "h800",
  gpus_per_node = 8,
  intra = {  -- NVLink 400 GB/s bidirectional per GPU = 200 GB/s each way
    bw = 200 * GB,
    latency_s = 5 * us,
    -- DeepSeek-V3 reports 160 GB/s reached over NVLink
    bus_frac = 0.80,
  },
  inter = {  -- one 400 Gb/s InfiniBand NIC per GPU = 50 GB/s each way
    bw = 50 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "DeepSeek-V3 technical report (arXiv 2412.19437) §3.1: a cluster of 2048 NVIDIA H800 GPUs, 8 per node",
    gpus_per_node = "DeepSeek-V3 technical report §3.1: 'Each node in the H800 cluster contains 8 GPUs connected by NVLink and NVSwitch within nodes'",
    intra = "bandwidth: hw/h800.lua (NVIDIA H800 datasheet: NVLink 400 GB/s bidirectional); bus_frac: DeepSeek-V3 technical report §3.2.2: NVLink 160 GB/s, 160 / 200 = 0.80; latency: assumption, as hw/clusters/dgx_h100.lua",
    inter = "bandwidth: DeepSeek-V3 technical report §3.2.2: 'IB (50 GB/s)' across nodes; latency: assumption, as hw/clusters/dgx_h100.lua",
  },
}
