-- NVIDIA DGX B300 / HGX B300 nodes: pure data (schema in lua/tilewave/data/cluster.lua).
-- Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "NVIDIA DGX B300 (8 x B300), ConnectX-8 800 Gb/s",
  gpu = "b300",
  gpus_per_node = 8,
  intra = {  -- NVLink 5 through NVSwitch: 1.8 TB/s bidirectional per GPU = 900 GB/s each way
    bw = 900 * GB,
    latency_s = 5 * us,
  },
  inter = {  -- 8 x ConnectX-8 SuperNIC, 800 Gb/s each = 100 GB/s per GPU each way
    bw = 100 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "NVIDIA HGX B300 specifications (https://www.nvidia.com/en-us/data-center/hgx/): 8 x Blackwell Ultra GPUs, up to 2.3 TB",
    gpus_per_node = "NVIDIA HGX B300 specifications; aiwiki.ai 'NVIDIA DGX B300': 8 B300 SXM GPUs in a 10U chassis",
    intra = "bandwidth: NVIDIA HGX B300 specifications: NVSwitch GPU-to-GPU 1.8 TB/s, 14.4 TB/s total; bus_frac: not measured, so 1; latency: assumption, as hw/clusters/dgx_h100.lua",
    inter = "bandwidth: NVIDIA HGX B300 specifications: networking 1.6 TB/s for 8 GPUs (HGX B200: 0.8); acecloud.ai 'NVIDIA HGX B300': 'up to 800 Gb/s per GPU via ConnectX-8 SuperNICs'; latency: assumption, as hw/clusters/dgx_h100.lua",
  },
}
