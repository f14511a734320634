-- GEMM kernel parameters of the NVIDIA Ada Lovelace (AD10x), sm_89 architecture, shared by its devices: Ampere's
-- (hw/arch/ampere.lua) but for what is set here. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Ada Lovelace (AD10x), sm_89",
  base = "ampere",
  notes = "No Ada calibration points exist; kernel parameters are Ampere's, with the alignment penalty scaled by the SM's tensor rate (hw/arch/ampere.lua align_ref_rate).",
}
