-- NVIDIA GB300 NVL72: one rack, 72 Blackwell Ultra GPUs in one NVLink domain; pure data (schema in
-- lua/tilewave/data/cluster.lua). A node is a compute tray of 4 GPUs; racks join over ConnectX-8.
-- Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "NVIDIA GB300 NVL72 (72 x GB300 GPUs, one NVLink domain), ConnectX-8 800 Gb/s between racks",
  gpu = "gb300",
  gpus_per_node = 4,
  nvlink_domain = 72,
  intra = {  -- NVLink 5 through the rack's NVLink Switch trays: 1.8 TB/s bidirectional per GPU
    bw = 900 * GB,
    latency_s = 5 * us,
  },
  inter = {  -- one ConnectX-8 SuperNIC, 800 Gb/s, per GPU = 100 GB/s each way
    bw = 100 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "NVIDIA GB300 NVL72 specifications (https://www.nvidia.com/en-us/data-center/gb300-nvl72/): 72 Blackwell Ultra GPUs, 36 Grace CPUs",
    gpus_per_node = "glennklockwood.com/garden/processors/B300: a GB300 NVL72 compute board carries two Grace CPUs and four Blackwell Ultra GPUs",
    nvlink_domain = "NVIDIA GB300 NVL72 specifications: 72 GPUs in one NVLink domain, 130 TB/s through 18 NVLink Switches (glennklockwood.com)",
    intra = "bandwidth: NVIDIA, 'Inside NVIDIA Blackwell Ultra' (developer blog 2025-08): fifth-generation NVLink, 1.8 TB/s bidirectional per GPU; bus_frac: not measured, so 1; latency: assumption, as hw/clusters/dgx_h100.lua",
    inter = "bandwidth: glennklockwood.com/garden/processors/B300: GB300 NVL72 has 72 ConnectX-8 NICs (800 Gb/s each, one per GPU); latency: assumption, as hw/clusters/dgx_h100.lua",
  },
}
