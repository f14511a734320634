-- NVIDIA GB200 NVL72: one rack, 72 Blackwell GPUs in one NVLink domain; pure data (schema in
-- lua/tilewave/data/cluster.lua). A node is a compute tray of 2 superchips (4 GPUs); racks join
-- over InfiniBand. Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "NVIDIA GB200 NVL72 (72 x GB200 GPUs, one NVLink domain), ConnectX-7 400 Gb/s between racks",
  gpu = "gb200",
  gpus_per_node = 4,
  nvlink_domain = 72,
  intra = {  -- NVLink 5 through the rack's NVLink Switch trays: 1.8 TB/s bidirectional per GPU
    bw = 900 * GB,
    latency_s = 5 * us,
  },
  inter = {  -- one ConnectX-7 400 Gb/s per GPU = 50 GB/s each way
    bw = 50 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "NVIDIA GB200 NVL72 specifications (https://www.nvidia.com/en-us/data-center/gb200-nvl72/): 36 Grace CPUs, 72 Blackwell GPUs",
    gpus_per_node = "NVIDIA GB200 NVL72 specifications: 18 compute trays of 2 GB200 superchips (2 GPUs each) = 4 GPUs a tray; ML Engineering, compute/accelerator/README.md note 23: 'with GB200 you will get a 4-GPU node'",
    nvlink_domain = "NVIDIA GB200 NVL72 specifications: 'a 72-GPU NVLink domain that acts as a single, massive GPU', 130 TB/s of NVLink through 9 NVLink Switch trays",
    intra = "bandwidth: NVIDIA GB200 NVL72 specifications: fifth-generation NVLink, 1.8 TB/s per GPU (130 TB/s / 72); bus_frac: not measured, so 1; latency: assumption, as hw/clusters/dgx_h100.lua (one NVLink Switch hop)",
    inter = "bandwidth: NVIDIA GB200 NVL72 reference architecture: a ConnectX-7 400 Gb/s InfiniBand NIC per GPU for the compute fabric (NVIDIA GB200 NVL Multi-Node Tuning Guide, 'Networking'); latency: assumption, as hw/clusters/dgx_h100.lua",
  },
}
