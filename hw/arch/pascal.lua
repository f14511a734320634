-- GEMM kernel parameters of the NVIDIA Pascal (GP100), sm_60, no tensor cores architecture, shared by its devices: Ampere's
-- (hw/arch/ampere.lua) but for what is set here. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Pascal (GP100), sm_60, no tensor cores",
  base = "ampere",
  gemm = {
    align_ref_rate = 0,
    align_eff = { 0.50, 0.70, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00 },
    sources = {
      align_ref_rate = "0, alignment levels not scaled by the tensor rate (hw/arch/ampere.lua align_ref_rate): no tensor cores: its own levels, not scaled",
      align_eff = "NVIDIA matmul guide, Tensor Core Requirements; the alignment classes as set here: no tensor cores: FP16x2 vector units, alignment matters only below 4 bytes (not calibrated)",
    },
  },
  notes = "No tensor cores: FP16 runs on the FP16x2 vector units; alignment matters only below 4 bytes. Not calibrated.",
}
