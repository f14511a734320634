-- Regression suite: every llama preset on three devices, against the committed baseline.
-- A change that moves a prediction by more than 0.1 % fails here until the baseline is
-- reviewed and refreshed: build/tilewave check --update-baseline tests/regression/llama.lua
local models = {}
for _, id in ipairs(require("tilewave").models.list("llama")) do models[#models + 1] = id end
return {
  name = "llama-presets",
  models = models,
  hw = { "a100_sxm4_80gb", "h100_sxm5", "l4" },
  workload = { b = 4, s = 2048, dtype = "bf16" },
  expect = {
    mfu = { min = 0.05, max = 0.9 },
    baseline = "baselines/llama.json",
    tolerance = 0.001,
  },
}
