-- Pinned calibration error on the project's full H200 probe of 2026-11-26 (hw/measured/h200_probe_2026-11-26: the
-- default sets with misalign and store, and the dtypes set), under its device's shipped file: ctest
-- calibration_bounds_h200_probe_full (--hw h200_sxm). As tests/calibration_bounds.lua, each bound is the MAPE of the
-- commit that set it plus 10% of it and 0.5 points.
return {
  ["h200_probe_2026-11-26: gemm peak bf16|compiled"] = 0.074,
  ["h200_probe_2026-11-26: gemm peak fp16|compiled"] = 0.067,
  ["h200_probe_2026-11-26: gemm peak tf32|compiled"] = 0.077,
  ["h200_probe_2026-11-26: gemm peak fp32|compiled"] = 0.035,
  ["h200_probe_2026-11-26: gemm peak fp8|compiled"] = 0.056,
  ["h200_probe_2026-11-26: gemm peak int8|compiled"] = 0.058,
  ["h200_probe_2026-11-26: gemm paper fp16|compiled"] = 0.078,
  ["h200_probe_2026-11-26: gemm paper bf16|compiled"] = 0.035,
  ["h200_probe_2026-11-26: gemm linears bf16|compiled"] = 0.082,
  ["h200_probe_2026-11-26: gemm align bf16|compiled"] = 0.093,
  ["h200_probe_2026-11-26: gemm align fp16|compiled"] = 0.068,
  ["h200_probe_2026-11-26: gemm align tf32|compiled"] = 0.173,
  ["h200_probe_2026-11-26: gemm align fp8|compiled"] = 0.057,
  ["h200_probe_2026-11-26: gemm bmm bf16|compiled"] = 0.059,
  ["h200_probe_2026-11-26: gemm splitk bf16|compiled"] = 0.074,
  ["h200_probe_2026-11-26: gemm store bf16|compiled"] = 0.062,
  ["h200_probe_2026-11-26: gemm misalign bf16|compiled"] = 0.135,
  ["h200_probe_2026-11-26: gemm misalign fp16|compiled"] = 0.157,
  ["h200_probe_2026-11-26: gemm random fp16|compiled"] = 0.088,
  ["h200_probe_2026-11-26: gemm random bf16|compiled"] = 0.101,
  ["h200_probe_2026-11-26: gemm dtypes tf32|compiled"] = 0.145,
  ["h200_probe_2026-11-26: gemm dtypes int8|compiled"] = 0.177,
  ["h200_probe_2026-11-26: gemm dtypes fp8|compiled"] = 0.152,
  ["h200_probe_2026-11-26: gemm dtypes fp32|compiled"] = 0.159,
  ["h200_probe_2026-11-26: gemm dtypes bf16|compiled"] = 0.145,
  ["h200_probe_2026-11-26: attention cudnn fwd|eager+graph"] = 0.100,
  ["h200_probe_2026-11-26: attention cudnn fwd+bwd|eager+graph"] = 0.090,
  ["h200_probe_2026-11-26: attention fa2 fwd|eager+graph"] = 0.103,
  ["h200_probe_2026-11-26: attention fa2 fwd+bwd|eager+graph"] = 0.130,
  -- sets with no bound, each with the reason
  exempt = {
    ["published *"] = "bounded by tests/calibration_bounds.lua (ctest calibration_bounds), which runs them without a folder",
  },
}
