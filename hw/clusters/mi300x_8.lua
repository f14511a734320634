-- AMD Instinct MI300X Platform (8 x MI300X): 8 GPUs fully connected by Infinity Fabric; pure data (schema in
-- lua/tilewave/data/cluster.lua). Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "AMD Instinct MI300X Platform (8 x MI300X), 400 Gb/s between nodes",
  gpu = "mi300x",
  gpus_per_node = 8,
  intra = {  -- 7 Infinity Fabric links x 64 GB/s each way: 448 GB/s each way to all peers together
    bw = 448 * GB,
    latency_s = 5 * us,
  },
  inter = {  -- one 400 Gb/s NIC per GPU = 50 GB/s each way
    bw = 50 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "AMD Instinct MI300X Platform: 8 OAM GPUs on a universal baseboard, 1.5 TB of HBM (AMD product page; S. Bekman, ML Engineering, network chapter)",
    gpus_per_node = "AMD Instinct MI300X Platform: 8 GPUs",
    intra = "bandwidth: ../shared/reference/hardware_specs.md trap 9 (ML Engineering, network chapter): each GPU's 7 Infinity Fabric links reach 448 GB/s per direction only in an all-to-all; one peer gets one link, about 64 GB/s per direction. A ring collective's neighbours are single links, so this is an upper bound; bus_frac: not measured, so 1; latency: assumption, as hw/clusters/dgx_h100.lua",
    inter = "bandwidth: assumption, not part of AMD's platform specification: one 400 Gb/s NIC per GPU, as the DGX H100 node's ConnectX-7 and AMD's Pensando Pollara 400 NIC; latency: assumption, as hw/clusters/dgx_h100.lua",
  },
}
