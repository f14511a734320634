-- AMD Instinct MI325X: one device, pure data (schema in lua/tilewave/data/hw.lua). The MI300X's
-- compute (hw/mi300x.lua, its base) with HBM3E: what differs is stated here.
return {
  base = "mi300x",
  name = "AMD Instinct MI325X",
  memory_bytes = 256 * GB,
  mem_bw = 6000 * GB,  -- byte/s
  tdp_w = 1000,
  node = "mi325x_8",
  sources = {
    memory_bytes = "AMD Instinct MI325X specifications (https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html), as S. Bekman's ML Engineering memory table copies it: 256 GB HBM3E",
    mem_bw = "AMD Instinct MI325X specifications, via ML Engineering's memory table: 6.0 TB/s peak",
    tdp_w = "S. Bekman, ML Engineering, compute/accelerator/README.md, power table: MI325X 1000 W TBP",
    peak_flops = "AMD Instinct MI325X specifications via ML Engineering's TFLOPS table of 2026-08, note 18: 'MI325X is the same compute as MI300X' (304 CUs at 2100 MHz), so MI300X's dense rates",
    node = "hw/clusters/mi325x_8.lua: the 8-GPU Infinity Fabric platform",
  },
}
