-- Pinned calibration error on the project's dtypes probe measured on the H100 (hw/measured/h100_dtypes_2026-11-26:
-- scripts/probe's dtypes set, random shapes in tf32, int8, fp8, fp32 and bf16 nt, and the given random half's shapes
-- measured again on a third H100), under its device's shipped file: ctest calibration_bounds_h100_dtypes
-- (--hw h100_sxm5). As tests/calibration_bounds.lua, each bound is the MAPE of the commit that set it plus 10% of
-- it and 0.5 points.
return {
  ["h100_dtypes_2026-11-26: gemm dtypes tf32|compiled"] = 0.158,
  ["h100_dtypes_2026-11-26: gemm dtypes int8|compiled"] = 0.153,
  ["h100_dtypes_2026-11-26: gemm dtypes fp8|compiled"] = 0.145,
  ["h100_dtypes_2026-11-26: gemm dtypes fp32|compiled"] = 0.162,
  ["h100_dtypes_2026-11-26: gemm dtypes bf16|compiled"] = 0.129,
  ["h100_dtypes_2026-11-26: gemm random_half bf16|compiled"] = 0.121,
  ["h100_dtypes_2026-11-26: gemm random_half fp16|compiled"] = 0.125,
  ["h100_dtypes_2026-11-26: gemm random_half tf32|compiled"] = 0.139,
  ["h100_dtypes_2026-11-26: gemm random_half fp32|compiled"] = 0.115,
  ["h100_dtypes_2026-11-26: gemm random_half fp8|compiled"] = 0.141,
  ["h100_dtypes_2026-11-26: gemm random_half int8|compiled"] = 0.124,
  -- sets with no bound, each with the reason
  exempt = {
    ["published *"] = "bounded by tests/calibration_bounds.lua (ctest calibration_bounds), which runs them without a folder",
  },
}
