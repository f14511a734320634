-- GEMM kernel parameters of the NVIDIA Blackwell (GB100), sm_100 architecture, shared by its devices: Ampere's
-- (hw/arch/ampere.lua) but for what is set here. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Blackwell (GB100), sm_100",
  base = "ampere",
  gemm = {
    align_ref_rate = 0,
    compute_frac = 0.80,
    sources = {
      align_ref_rate = "0, alignment levels not scaled by the tensor rate (hw/arch/ampere.lua align_ref_rate): Blackwell's cuBLAS kernels load with TMA, like Hopper's: not the A100's load-issue mechanism",
      compute_frac = "fitted to the MAMF rows of gemm_calibration.csv (B200 bf16/fp8)",
    },
  },
  notes = "compute_frac fitted to the MAMF rows of gemm_calibration.csv (B200 bf16/fp8).",
}
