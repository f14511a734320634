-- Pinned calibration error: the largest MAPE (fraction) each set may reach under its
-- engine (tilewave calibrate --bounds tests/calibration_bounds.lua; ctest calibration_bounds).
-- Each bound is the MAPE of the commit that set it, plus 10% of it and 0.5 points, so
-- a change that worsens accuracy fails. Lower a bound when the model improves.
-- the reason a row priced under another engine than it was measured with has no bound
local CROSS_ENGINE = "the compiled engine priced against eager PyTorch timings: the gap between engines, a diagnostic, not the model's error (the row's own engine is bounded)"

return {
  ["published GEMM A100|isolated"] = 0.069,
  ["published GEMM A100 (inferred)|isolated"] = 0.043,
  ["published GEMM A100 SXM|kernel"] = 0.032,
  ["published GEMM A100 PCIe|kernel"] = 0.055,
  ["published GEMM H100 SXM|kernel"] = 0.071,
  ["published GEMM B200 SXM|kernel"] = 0.054,
  -- 2026-11-29 (issue 72): the B300 and GB200 MAMF rows, newly mapped to their device files; GB200's
  -- 1822 of 2500 TFLOPS is 72.9% of its peak against B200's 77.6%: its 2.5 PF is at a clock not held
  ["published GEMM B300 SXM|kernel"] = 0.089,
  ["published GEMM GB200 SXM|kernel"] = 0.135,
  ["published GEMM H200 SXM|kernel"] = 0.049,
  ["published decode a100_sxm4_80gb|compiled"] = 0.033,
  ["published decode apple_m2_ultra|llama.cpp"] = 0.048,
  ["published decode rtx4090|llama.cpp"] = 0.013,
  ["h100: gemm peak bf16|compiled"] = 0.035,
  ["h100: gemm peak fp16|compiled"] = 0.038,
  ["h100: gemm peak tf32|compiled"] = 0.088,
  ["h100: gemm peak fp32|compiled"] = 0.008,
  ["h100: gemm peak fp8|compiled"] = 0.030,
  ["h100: gemm peak int8|compiled"] = 0.065,
  ["h100: gemm paper bf16|compiled"] = 0.126,
  ["h100: gemm paper fp16|compiled"] = 0.098,
  ["h100: gemm linears bf16|compiled"] = 0.093,
  ["h100: gemm align bf16|compiled"] = 0.117,
  ["h100: gemm align tf32|compiled"] = 0.213,
  ["h100: gemm align fp8|compiled"] = 0.115,
  ["h100: gemm bmm bf16|compiled"] = 0.036,
  ["h100: layers graph standard|eager+graph"] = 0.073,
  ["h100: layers eager standard|eager"] = 0.072,
  ["h100: layers graph flash|eager+graph"] = 0.095,
  ["h100: layers eager flash|eager"] = 0.111,
  ["h100: decode graph|eager+graph"] = 0.045,
  ["h100: decode eager|eager"] = 0.110,
  -- 2026-11-28 (issue 54 item 3): hf is now the eager modules' kernels per family plus 1.2 ms a token, fitted
  -- on 26 steady rows of two calls each (hw/measured/h100_host_2026-11-28, 6.6%); these 2 single-call rows run
  -- about 90 ms a token above that steady state (a first call's slow mode, tilewave.cost.engines hf
  -- cold_token_s): 73.9% below, inside the interval. Was 9.8% with an 82 ms constant fitted to these 2 rows.
  ["h100: generate() TPOT|hf"] = 0.818,
  ["h100: attention fa2 fwd|eager+graph"] = 0.111,
  ["h100: attention fa2 fwd+bwd|eager+graph"] = 0.098,
  ["h100: attention cudnn fwd|eager+graph"] = 0.094,
  ["h100: attention cudnn fwd+bwd|eager+graph"] = 0.115,
  ["second_machine: gemm peak bf16|compiled"] = 0.053,
  ["second_machine: gemm peak fp16|compiled"] = 0.082,
  ["second_machine: gemm peak tf32|compiled"] = 0.088,
  ["second_machine: gemm peak fp32|compiled"] = 0.012,
  ["second_machine: gemm peak fp8|compiled"] = 0.042,
  ["second_machine: gemm peak int8|compiled"] = 0.054,
  ["second_machine: gemm linears bf16|compiled"] = 0.069,
  ["second_machine: layers graph standard|eager+graph"] = 0.069,
  ["second_machine: layers eager standard|eager"] = 0.058,
  ["second_machine: layers graph flash|eager+graph"] = 0.070,
  ["second_machine: layers eager flash|eager"] = 0.100,
  -- the given half of the random shapes (../shared/reference/calibration/random_half), each file on its
  -- own device, per dtype and layout (issue 33: fp32 and tf32 mechanisms)
  ["random_half h100_first_machine: gemm random bf16 nn|compiled"] = 0.109,
  ["random_half h100_first_machine: gemm random fp16 nn|compiled"] = 0.115,
  ["random_half h100_first_machine: gemm random bf16 nt|compiled"] = 0.133,
  ["random_half h100_first_machine: gemm random tf32 nn|compiled"] = 0.130,
  ["random_half h100_first_machine: gemm random fp32 nn|compiled"] = 0.110,
  ["random_half h100_first_machine: gemm random fp8 nt|compiled"] = 0.099,
  ["random_half h100_first_machine: gemm random int8 nt|compiled"] = 0.109,
  ["random_half h100_second_machine: gemm random bf16 nn|compiled"] = 0.110,
  ["random_half h100_second_machine: gemm random fp16 nn|compiled"] = 0.115,
  ["random_half h100_second_machine: gemm random bf16 nt|compiled"] = 0.131,
  ["random_half h100_second_machine: gemm random tf32 nn|compiled"] = 0.129,
  ["random_half h100_second_machine: gemm random fp32 nn|compiled"] = 0.107,
  ["random_half h100_second_machine: gemm random fp8 nt|compiled"] = 0.102,
  ["random_half h100_second_machine: gemm random int8 nt|compiled"] = 0.110,
  ["random_half h200: gemm random bf16 nn|compiled"] = 0.105,
  ["random_half h200: gemm random fp16 nn|compiled"] = 0.123,
  ["random_half h200: gemm random bf16 nt|compiled"] = 0.125,
  ["random_half h200: gemm random tf32 nn|compiled"] = 0.139,
  ["random_half h200: gemm random fp32 nn|compiled"] = 0.109,
  ["random_half h200: gemm random fp8 nt|compiled"] = 0.106,
  ["random_half h200: gemm random int8 nt|compiled"] = 0.115,
  -- ... and each file's every row together: issue 33's goal, 10 % (9.80/9.84/9.92 % on 2026-11-26)
  ["random_half h100_first_machine: gemm random, all dtypes|compiled"] = 0.100,
  ["random_half h100_second_machine: gemm random, all dtypes|compiled"] = 0.100,
  ["random_half h200: gemm random, all dtypes|compiled"] = 0.100,

  -- one layer's forward + backward on an H200, eager (issue 33: backward per kernel class)
  ["h200_training: layer fwd+bwd flash|eager"] = 0.068,
  ["h200_training: layer fwd flash|eager"] = 0.077,
  ["h200_training: layer fwd+bwd standard|eager"] = 0.030,
  ["h200_training: layer fwd standard|eager"] = 0.068,
  -- interval coverage of the random half (issue 33: 80-97%; the intervals are fitted on the first
  -- H100's rows, so the second H100 and the H200 are out of sample; the H200's smaller errors
  -- leave its bf16 nt set at 98%)
  coverage = {
    ["random_half h100_first_machine: gemm random bf16 nn|compiled"] = { 0.80, 0.97 },
    ["random_half h100_first_machine: gemm random fp16 nn|compiled"] = { 0.80, 0.97 },
    ["random_half h100_first_machine: gemm random bf16 nt|compiled"] = { 0.80, 0.97 },
    ["random_half h100_first_machine: gemm random tf32 nn|compiled"] = { 0.80, 0.97 },
    ["random_half h100_first_machine: gemm random fp32 nn|compiled"] = { 0.80, 0.97 },
    ["random_half h100_first_machine: gemm random fp8 nt|compiled"] = { 0.80, 0.97 },
    ["random_half h100_first_machine: gemm random int8 nt|compiled"] = { 0.80, 0.97 },
    ["random_half h100_second_machine: gemm random bf16 nn|compiled"] = { 0.80, 0.97 },
    ["random_half h100_second_machine: gemm random fp16 nn|compiled"] = { 0.80, 0.97 },
    ["random_half h100_second_machine: gemm random bf16 nt|compiled"] = { 0.80, 0.97 },
    ["random_half h100_second_machine: gemm random tf32 nn|compiled"] = { 0.80, 0.97 },
    ["random_half h100_second_machine: gemm random fp32 nn|compiled"] = { 0.80, 0.97 },
    ["random_half h100_second_machine: gemm random fp8 nt|compiled"] = { 0.80, 0.97 },
    ["random_half h100_second_machine: gemm random int8 nt|compiled"] = { 0.80, 0.97 },
    ["random_half h200: gemm random bf16 nn|compiled"] = { 0.80, 0.99 },
    ["random_half h200: gemm random fp16 nn|compiled"] = { 0.80, 0.99 },
    ["random_half h200: gemm random bf16 nt|compiled"] = { 0.80, 0.99 },
    ["random_half h200: gemm random tf32 nn|compiled"] = { 0.80, 0.99 },
    ["random_half h200: gemm random fp32 nn|compiled"] = { 0.80, 0.99 },
    ["random_half h200: gemm random fp8 nt|compiled"] = { 0.80, 0.99 },
    ["random_half h200: gemm random int8 nt|compiled"] = { 0.80, 0.99 },
  },
  -- sets with no bound, each with the reason
  exempt = {
    ["h100: layers graph standard|compiled"] = CROSS_ENGINE,
    ["h100: layers eager standard|compiled"] = CROSS_ENGINE,
    ["h100: layers graph flash|compiled"] = CROSS_ENGINE,
    ["h100: layers eager flash|compiled"] = CROSS_ENGINE,
    ["h100: decode graph|compiled"] = CROSS_ENGINE,
    ["h100: decode eager|compiled"] = CROSS_ENGINE,
    ["second_machine: layers graph standard|compiled"] = CROSS_ENGINE,
    ["second_machine: layers eager standard|compiled"] = CROSS_ENGINE,
    ["second_machine: layers graph flash|compiled"] = CROSS_ENGINE,
    ["second_machine: layers eager flash|compiled"] = CROSS_ENGINE,
  },
}
