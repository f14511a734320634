--- tilewave.cli.gemm: the `gemm` command - one GEMM C[MxN] = A[MxK].B[KxN] through the GEMM model
-- (tilewave.gemm), with the padded shape predicted faster when N or K is off
-- (tilewave.explore.gemm_fix).
local args_ = require "tilewave.cli.args"

local M = {}
local format = string.format

--- The command's argparse definition in parser `p`.
function M.define(p)
  local g = p:command("gemm", "Predict one GEMM C[MxN] = A[MxK].B[KxN].")
  g:argument("m", "Rows of A and C."):convert(args_.int_arg("gemm.m"))
  g:argument("n", "Columns of B and C."):convert(args_.int_arg("gemm.n"))
  g:argument("k", "Reduction dimension."):convert(args_.int_arg("gemm.k"))
  g:option("--hw", "Device id (see `tilewave hw`) or spec path (the default of every command)."):default("h100_sxm5")
  g:option("--dtype", "Element type: fp32, tf32, fp16, bf16, fp8, int8, fp64 (default bf16 as every command, fp16 on "
    .. "a device without bf16: V100, T4, P100).")
  g:option("--batch", "Batch count (batched GEMM)."):default("1"):convert(args_.int_arg("gemm.batch"))
  g:option("--timing", "kernel: device time among back-to-back kernels (CUDA events, profilers); "
    .. "isolated: one synchronized call by wall clock (the co-design paper's torch.mm)."):choices({ "kernel", "isolated" })
    :default("kernel")
  g:option("--engine", args_.ENGINE_HELP):default("compiled")
  g:option("--format", "Output format."):choices({ "text", "json" }):default("text")
end

--- Run the command on parsed `args`, writing to `out`; returns the exit status.
-- @raise `gemm.<field>: ...` for bad input
function M.run(args, out)
  local tw = require "tilewave"
  for _, k in ipairs { "m", "n", "k", "batch" } do
    if args[k] == nil then error(format("gemm.%s: expected positive integer", k), 0) end
  end
  local o = { m = args.m, n = args.n, k = args.k, batch = args.batch, dtype = args_.default_dtype(args, "gemm.hw"),
              hw = args.hw, timing = args.timing, engine = args.engine }
  local r = tw.gemm(o)
  -- which of N and K is off, and the padded shape predicted faster (tilewave.explore.gemm_fix)
  local fixer = require "tilewave.explore.gemm_fix"
  local fix = fixer.pad(o, r)
  if args.format == "json" then
    local j = require("tilewave.util.tables").copy(r)
    j.fix = fix or false
    out:write(tw.report.json(j), "\n")
  else
    out:write(tw.report.gemm_text(r, tw.hw.resolve(args.hw, "gemm.hw"), fixer.describe(o, r), fix), "\n")
  end
  return 0
end

return M
