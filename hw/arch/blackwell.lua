-- GEMM kernel parameters of the NVIDIA Blackwell (GB100), sm_100 architecture, shared by its devices: Ampere's
-- (hw/arch/ampere.lua) but for what is set here. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Blackwell (GB100), sm_100",
  base = "ampere",
  gemm = {
    compute_frac = 0.80,
    sources = {
      compute_frac = "fitted to the MAMF rows of gemm_calibration.csv (B200 bf16/fp8)",
    },
  },
  notes = "compute_frac fitted to the MAMF rows of gemm_calibration.csv (B200 bf16/fp8).",
}
