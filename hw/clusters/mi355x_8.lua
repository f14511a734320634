-- AMD Instinct MI355X Platform (8 x MI355X): 8 GPUs fully connected by Infinity Fabric; pure data
-- (schema in lua/tilewave/data/cluster.lua). Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "AMD Instinct MI355X Platform (8 x MI355X), 400 Gb/s between nodes",
  gpu = "mi355x",
  gpus_per_node = 8,
  intra = {  -- 7 Infinity Fabric links x 76.8 GB/s each way: 537.6 GB/s each way to all peers
    bw = 537.6 * GB,
    latency_s = 5 * us,
  },
  inter = {  -- one 400 Gb/s NIC per GPU = 50 GB/s each way
    bw = 50 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "AMD Instinct MI355X specifications: 8-GPU OAM platform, 2.3 TB HBM3E (jaredwatkins.com MI350 series: '2.3 TB aggregate HBM3e per 8-GPU tray')",
    gpus_per_node = "AMD Instinct MI350 series: 8-GPU OCP platform trays",
    intra = "bandwidth: hw/mi355x.lua (7 Infinity Fabric links x 153.6 GB/s bidirectional) halved per direction; as the MI300X platform, one peer gets one link, so this is an all-to-all's upper bound; bus_frac: not measured, so 1; latency: assumption, as hw/clusters/dgx_h100.lua",
    inter = "bandwidth: jaredwatkins.com MI350 series: 400 Gbps front-end network per GPU (AMD Pensando Pollara 400); latency: assumption, as hw/clusters/dgx_h100.lua",
  },
}
