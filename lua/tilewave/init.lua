--- tilewave: performance modeling of transformer workloads on GPUs.
--
--   local tw = require "tilewave"
--   tw.gemm{ m = 2304, n = 1600, k = 4096, dtype = "fp16", hw = "a100_sxm4_80gb" }
--   tw.roofline{ flops = 2^40, bytes = 2^30, hw = "h100_sxm5", dtype = "bf16" }
--   tw.hw.load("h100_sxm5"), tw.hw.list()
--
-- Units everywhere: s, byte, FLOP, FLOP/s, byte/s. See each submodule.
local core = require "tilewave.core"
local gemm = require "tilewave.gemm"
local roofline = require "tilewave.roofline"

return {
  _VERSION = core._VERSION,
  core = core,
  hw = require "tilewave.hw",
  dtype = require "tilewave.dtype",
  report = require "tilewave.report",
  gemm = gemm.gemm,
  gemm_many = gemm.gemm_many,
  roofline = roofline.roofline,
}
