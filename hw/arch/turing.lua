-- GEMM kernel parameters of the NVIDIA Turing (TU104), sm_75 architecture, shared by its devices: Ampere's
-- (hw/arch/ampere.lua) but for what is set here. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Turing (TU104), sm_75",
  base = "ampere",
  gemm = {
    align_eff = { 0.245, 0.27, 0.60, 0.62, 1.00, 1.00, 1.00, 1.00 },
    sources = {
      align_eff = "NVIDIA matmul guide, Tensor Core Requirements; the alignment classes as set here: full rate from 16 bytes (Turing's tensor cores)",
    },
  },
  notes = "No Turing calibration points exist; kernel parameters are Ampere's, full alignment at 16 bytes.",
}
