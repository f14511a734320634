--- tilewave: performance modeling of transformer workloads on GPUs.
--
--   local tw = require "tilewave"
--   tw.gemm{ m = 2304, n = 1600, k = 4096, dtype = "fp16", hw = "a100_sxm4_80gb" }
--   tw.roofline{ flops = 2^40, bytes = 2^30, hw = "h100_sxm5", dtype = "bf16" }
--   tw.hw.load("h100_sxm5"), tw.hw.list()
--   tw.models.load("pythia-2.8b"), tw.params("llama-3.2-1b")
--   tw.transformer.estimate("llama-3.1-8b", "h100_sxm5", { b = 4, s = 2048, engine = "eager" })
--   tw.rules.check("pythia-2.8b", { b = 4, s = 2048 }, "a100_sxm4_80gb")
--   tw.search.nearby("gpt3-2.7b", "a100_sxm4_80gb", { b = 4, s = 2048 })
--
-- Layers (each requires only the ones before it): util -> data -> ops -> cost
-- -> explore -> report -> cli. Units everywhere: s, byte, FLOP, FLOP/s,
-- byte/s. See each submodule.
local core = require "tilewave.core"
local gemm = require "tilewave.cost.gemm"
local models = require "tilewave.data.models"
local transformer = require "tilewave.ops.transformer"
local forward = require "tilewave.cost.forward"
local training = require "tilewave.cost.training"
local training_search = require "tilewave.explore.training_search"

return {
  _VERSION = core._VERSION,
  core = core,
  hw = require "tilewave.data.hw",
  dtype = require "tilewave.data.dtype",
  report = require "tilewave.report.format",
  gemm = gemm.gemm,
  gemm_many = gemm.gemm_many,
  roofline = gemm.roofline,
  models = models,
  params = models.params,
  layers = require "tilewave.ops.layers",
  transformer = { ops = transformer.ops, estimate = forward.estimate, workload = transformer.workload },
  rules = require "tilewave.explore.rules",
  search = require "tilewave.explore.search",
  analysis = require "tilewave.report.analysis",
  quant = require "tilewave.data.quant",
  engines = require "tilewave.cost.engines",
  kernels = require "tilewave.cost.kernels",
  inference = require "tilewave.cost.inference",
  cluster = require "tilewave.data.cluster",
  training = setmetatable({ search = training_search.search }, { __index = training }),
  sweep = require("tilewave.explore.sweep").sweep,
}
