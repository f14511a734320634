-- NVIDIA DGX H100 nodes: pure data (schema in lua/tilewave/cluster.lua).
-- Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "NVIDIA DGX H100 (8 x H100 SXM5 80GB), NDR InfiniBand",
  gpu = "h100_sxm5",
  gpus_per_node = 8,
  intra = {  -- NVLink 4 through NVSwitch: 900 GB/s bidirectional per GPU = 450 GB/s each way
    bw = 450 * GB,
    latency_s = 5 * us,
    -- about 380 of the 450 GB/s reached GPU to GPU (p2pBandwidthLatencyTest): collectives get no more
    bus_frac = 0.84,
  },
  inter = {  -- 8 x ConnectX-7 NDR InfiniBand, 400 Gb/s each = 50 GB/s per GPU each way
    bw = 50 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "NVIDIA DGX H100 datasheet / DGX H100 User Guide: 8 x H100 SXM5 80GB",
    gpus_per_node = "NVIDIA DGX H100 datasheet",
    intra = "bandwidth: hw/h100_sxm5.lua (NVIDIA H100 whitepaper: NVLink 900 GB/s bidirectional); bus_frac: ../shared/reference/hardware_specs.md ('H100 SXM NVLink p2p (p2pBandwidthLatencyTest): about 380 of 450 unidirectional', NVIDIA/nccl#1264), 380/450 = 0.84: a point-to-point figure, an upper bound of what an all-reduce's ring reaches (no H100 nccl-tests all-reduce figure in the reference; A100's all-reduce reaches 0.78, dgx_a100.lua); latency: assumption, not calibrated",
    inter = "bandwidth: NVIDIA DGX H100 datasheet: 8 x single-port ConnectX-7 400 Gb/s InfiniBand/Ethernet for compute; the figures of issue 5; latency: assumption, not calibrated",
  },
}
