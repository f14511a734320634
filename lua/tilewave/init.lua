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
--
-- The fields are loaded on first use (a metatable), so that a script or a CLI
-- command pays only for the modules it touches; `tw.<field>` is the same value
-- however it is reached.
local core = require "tilewave.core"

-- field -> function returning its value (each run once, on first access)
local function mod(name) return function() return require(name) end end
local function from(name, key) return function() return require(name)[key] end end
local fields = {
  hw = mod "tilewave.data.hw",
  dtype = mod "tilewave.data.dtype",
  report = mod "tilewave.report.format",
  gemm = from("tilewave.cost.gemm", "gemm"),
  gemm_many = from("tilewave.cost.gemm", "gemm_many"),
  roofline = from("tilewave.cost.gemm", "roofline"),
  models = mod "tilewave.data.models",
  params = from("tilewave.data.models", "params"),
  layers = mod "tilewave.ops.layers",
  transformer = function()
    local transformer = require "tilewave.ops.transformer"
    return { ops = transformer.ops, estimate = require("tilewave.cost.forward").estimate,
             workload = transformer.workload }
  end,
  rules = mod "tilewave.explore.rules",
  search = mod "tilewave.explore.search",
  analysis = mod "tilewave.report.analysis",
  quant = mod "tilewave.data.quant",
  engines = mod "tilewave.cost.engines",
  kernels = mod "tilewave.cost.kernels",
  inference = mod "tilewave.cost.inference",
  cluster = mod "tilewave.data.cluster",
  training = function()
    local ts = require "tilewave.explore.training_search"
    return setmetatable({ search = ts.search, best = ts.best },
                        { __index = require "tilewave.cost.training" })
  end,
  sweep = from("tilewave.explore.sweep", "sweep"),
  range = from("tilewave.explore.sweep", "range"),
  -- tw.serve: the simulator, with the capacity and the verdict on a load (tilewave.serve.capacity)
  serve = function()
    local capacity = require "tilewave.serve.capacity"
    return setmetatable({ capacity = capacity.of, stability = capacity.state },
                        { __index = require "tilewave.serve.simulate" })
  end,
}

return setmetatable({ _VERSION = core._VERSION, core = core }, {
  __index = function(t, k)
    local f = fields[k]
    if not f then return nil end
    local v = f()
    rawset(t, k, v)
    return v
  end,
})
