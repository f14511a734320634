-- Pinned calibration error on the project's own probe measurements (hw/measured/, scripts/probe,
-- 2026-11-22), under its device's shipped file: ctest calibration_bounds_h200_probe
-- (--hw h200_sxm). As tests/calibration_bounds.lua,
-- each bound is the MAPE of the commit that set it plus 10% of it and 0.5 points. The `random` sets
-- were held out of every fit: they measure generalization (issue 12's goal is 10%).
return {
  ["h200_probe_2026-11-22: gemm paper fp16|compiled"] = 0.082,
  ["h200_probe_2026-11-22: gemm paper bf16|compiled"] = 0.034,
  ["h200_probe_2026-11-22: gemm linears bf16|compiled"] = 0.083,
  ["h200_probe_2026-11-22: gemm align bf16|compiled"] = 0.081,
  ["h200_probe_2026-11-22: gemm bmm bf16|compiled"] = 0.061,
  ["h200_probe_2026-11-22: gemm splitk bf16|compiled"] = 0.082,
  ["h200_probe_2026-11-22: gemm random bf16|compiled"] = 0.105,
  ["h200_probe_2026-11-22: gemm random fp16|compiled"] = 0.100,
  ["h200_probe_2026-11-22: attention cudnn fwd|eager+graph"] = 0.098,
  ["h200_probe_2026-11-22: attention cudnn fwd+bwd|eager+graph"] = 0.087,
  ["h200_probe_2026-11-22: attention fa2 fwd+bwd|eager+graph"] = 0.128,
  -- bounded 2026-11-28 (issue 55: every set printed has a bound): MAPE then, + 10% of it + 0.5 points
  ["h200_probe_2026-11-22: gemm peak bf16|compiled"] = 0.071, -- 6.0%
  ["h200_probe_2026-11-22: gemm peak fp16|compiled"] = 0.084, -- 7.1%
  ["h200_probe_2026-11-22: gemm peak tf32|compiled"] = 0.099, -- 8.5%
  ["h200_probe_2026-11-22: gemm peak fp32|compiled"] = 0.026, -- 1.9%
  ["h200_probe_2026-11-22: gemm peak fp8|compiled"] = 0.060, -- 5.0%
  ["h200_probe_2026-11-22: gemm peak int8|compiled"] = 0.038, -- 3.0%
  ["h200_probe_2026-11-22: gemm align tf32|compiled"] = 0.181, -- 16.0%
  ["h200_probe_2026-11-22: gemm align fp8|compiled"] = 0.054, -- 4.4%
  ["h200_probe_2026-11-22: attention fa2 fwd|eager+graph"] = 0.107, -- 9.2%
  -- sets with no bound, each with the reason
  exempt = {
    ["published *"] = "bounded by tests/calibration_bounds.lua (ctest calibration_bounds), which runs them without a folder",
  },
}
