-- GEMM kernel parameters of the AMD CDNA 4 (MI350 series), gfx950 architecture: CDNA 3's
-- (hw/arch/cdna3.lua). Pure data; fields documented in lua/tilewave/data/hw.lua and src/tw_gemm.h.
return {
  name = "AMD CDNA 4 (MI350 series), gfx950",
  base = "cdna3",
  notes = "CDNA 4 doubles the matrix rate per CU over CDNA 3 (FP8 4,096 -> 8,192 FLOP per CU per clock, "
    .. "AMD at ISSCC 2026) and raises LDS to 160 KB per CU; no MI350-series GEMM was measured, so the "
    .. "kernel parameters are CDNA 3's, themselves Ampere's with no AMD calibration point. Expect the "
    .. "largest errors here.",
}
