-- NVIDIA DGX A100 (80GB) nodes: pure data (schema in lua/tilewave/cluster.lua).
-- Link bandwidths are per GPU, one direction, byte/s.
return {
  name = "NVIDIA DGX A100 640GB (8 x A100 SXM4 80GB), HDR InfiniBand",
  gpu = "a100_sxm4_80gb",
  gpus_per_node = 8,
  intra = {  -- NVLink 3 through NVSwitch: 600 GB/s bidirectional per GPU = 300 GB/s each way
    bw = 300 * GB,
    latency_s = 5 * us,
    -- NCCL reaches about 235 of the 300 GB/s in an all-reduce (nccl-tests bus bandwidth)
    bus_frac = 0.78,
  },
  inter = {  -- 8 single-port ConnectX-6 HDR InfiniBand, 200 Gb/s each = 25 GB/s per GPU each way
    bw = 25 * GB,
    latency_s = 10 * us,
  },
  sources = {
    gpu = "NVIDIA DGX A100 System Architecture whitepaper (WP-10083-001): 8 x A100 80GB SXM4 (640GB system)",
    gpus_per_node = "NVIDIA DGX A100 System Architecture whitepaper (WP-10083-001)",
    intra = "bandwidth: NVIDIA A100 datasheet / hw/a100_sxm4_80gb.lua (NVLink 600 GB/s bidirectional); bus_frac: ../shared/reference/hardware_specs.md ('A100 nccl-tests all_reduce bus bandwidth: about 235 GB/s, about 80% of 300 unidirectional', S. Bekman, ML Engineering), 235/300 = 0.78; on Narayanan et al. 2021 Table 1 (scripts/megatron_table.lua, not fitted to) MAPE 4.5 -> 3.8%, bias +3.8 -> +1.9%; latency: assumption (per-step NCCL latency over NVSwitch of a few us), not calibrated",
    inter = "bandwidth: NVIDIA DGX A100 System Architecture whitepaper (WP-10083-001): 8 x ConnectX-6 200 Gb/s HDR InfiniBand for compute; the figures of issue 5; latency: assumption, not calibrated",
  },
}
