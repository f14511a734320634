-- GEMM kernel parameters of the AMD CDNA2 (MI200), gfx90a architecture, shared by its devices: Ampere's
-- (hw/arch/ampere.lua) but for what is set here. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "AMD CDNA2 (MI200), gfx90a",
  base = "ampere",
  gemm = {
    align_ref_rate = 0,
    sources = {
      align_ref_rate = "0, alignment levels not scaled by the tensor rate (hw/arch/ampere.lua align_ref_rate): AMD CUs: the load-issue mechanism of NVIDIA SMs is not assumed",
    },
  },
  notes = "No AMD calibration points exist; rocBLAS/hipBLASLt macro-tiles are modeled with the NVIDIA tile list. Expect the largest errors here.",
}
