-- Pinned calibration error on the project's own probe measurements (hw/measured/, scripts/probe,
-- 2026-11-22), under its device's shipped file: ctest calibration_bounds_h100_probe
-- (--hw h100_sxm5). As tests/calibration_bounds.lua,
-- each bound is the MAPE of the commit that set it plus 10% of it and 0.5 points. The `random` sets
-- were held out of every fit: they measure generalization (issue 12's goal is 10%).
return {
  ["h100_probe_2026-11-22: gemm linears bf16|compiled"] = 0.076,
  ["h100_probe_2026-11-22: gemm align bf16|compiled"] = 0.101,
  ["h100_probe_2026-11-22: gemm bmm bf16|compiled"] = 0.073,
  ["h100_probe_2026-11-22: gemm splitk bf16|compiled"] = 0.116,
  ["h100_probe_2026-11-22: gemm random bf16|compiled"] = 0.115,
  ["h100_probe_2026-11-22: gemm random fp16|compiled"] = 0.100,
  ["h100_probe_2026-11-22: attention cudnn fwd+bwd|eager+graph"] = 0.118,
  ["h100_probe_2026-11-22: attention fa2 fwd+bwd|eager+graph"] = 0.144,
  -- bounded 2026-11-28 (issue 55: every set printed has a bound): MAPE then, + 10% of it + 0.5 points
  ["h100_probe_2026-11-22: gemm peak bf16|compiled"] = 0.074, -- 6.2%
  ["h100_probe_2026-11-22: gemm peak fp16|compiled"] = 0.094, -- 8.0%
  ["h100_probe_2026-11-22: gemm peak tf32|compiled"] = 0.057, -- 4.7%
  ["h100_probe_2026-11-22: gemm peak fp32|compiled"] = 0.048, -- 3.9%
  ["h100_probe_2026-11-22: gemm peak fp8|compiled"] = 0.080, -- 6.8%
  ["h100_probe_2026-11-22: gemm peak int8|compiled"] = 0.104, -- 8.9%
  ["h100_probe_2026-11-22: gemm paper fp16|compiled"] = 0.074, -- 6.2%
  ["h100_probe_2026-11-22: gemm paper bf16|compiled"] = 0.090, -- 7.7%
  ["h100_probe_2026-11-22: gemm align tf32|compiled"] = 0.167, -- 14.7%
  ["h100_probe_2026-11-22: gemm align fp8|compiled"] = 0.087, -- 7.4%
  ["h100_probe_2026-11-22: attention cudnn fwd|eager+graph"] = 0.135, -- 11.8%
  ["h100_probe_2026-11-22: attention fa2 fwd|eager+graph"] = 0.190, -- 16.7%
  -- sets with no bound, each with the reason
  exempt = {
    ["published *"] = "bounded by tests/calibration_bounds.lua (ctest calibration_bounds), which runs them without a folder",
  },
}
