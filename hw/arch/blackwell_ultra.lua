-- GEMM kernel parameters of the NVIDIA Blackwell Ultra (GB110), sm_103 architecture: datacenter
-- Blackwell's (hw/arch/blackwell.lua) unchanged. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Blackwell Ultra, sm_103",
  base = "blackwell",
  notes = "Same tcgen05 tensor-core programming model, TMA and tensor memory as sm_100 (CUTLASS: B300 is "
    .. "compute capability 10.3, built with the sm_100a family; NVIDIA, 'Inside NVIDIA Blackwell Ultra', "
    .. "developer blog 2025-08: the same fifth-generation Tensor Cores, NVFP4 rate raised), so the kernel "
    .. "parameters are Blackwell's. No Blackwell Ultra GEMM was measured but one MAMF point (B300, "
    .. "gemm_calibration.csv).",
}
