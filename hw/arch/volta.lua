-- GEMM kernel parameters of the NVIDIA Volta (GV100), sm_70 architecture, shared by its devices: Ampere's
-- (hw/arch/ampere.lua) but for what is set here. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Volta (GV100), sm_70",
  base = "ampere",
  gemm = {
    compute_frac = 0.78,
    align_eff = { 0.245, 0.27, 0.60, 0.62, 1.00, 1.00, 1.00, 1.00 },
    sources = {
      compute_frac = "Ampere's fit (0.865, gemm_calibration.csv A100 sweeps and MAMF rows) scaled by the V100's sustained/nominal clock, 1380/1530 MHz (hardware_specs.md: SBG's boost figure vs AMPB's; a 300 W part runs tensor-core GEMMs below its nominal boost) = 0.78, i.e. 97.5 of 125 TFLOP/s; bracketed below by Markidis et al. 2018 (IPDPSW, 'NVIDIA Tensor Core Programmability, Performance & Precision': cuBLAS reaches 83 TFLOP/s = 0.66 on a V100 with CUDA 9) and above by Ampere's 0.865. No V100 measurement is in the calibration set; the held-out V100 error before this change was 20.7% (issue 11)",
      align_eff = "NVIDIA matmul guide, Tensor Core Requirements: multiples of 8 fp16 elements (16 bytes) run at full rate on Volta",
    },
  },
  notes = "No Volta calibration points exist; kernel parameters are Ampere's, with full alignment at 16 bytes (NVIDIA matmul guide: multiples of 8 fp16 elements), and the sustained fraction lowered by the clock the part holds under tensor-core load.",
}
