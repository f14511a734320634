-- Benchmark of the GEMM estimate: estimates per second for pseudo-random shapes
-- (dims log-uniform in [1, 16384]) through single calls and through the batch
-- entry point, in Lua; and, when the C benchmark is built, in C.
-- Targets (issue "Foundation"): >= 5 M/s in C, >= 1 M/s through the Lua batch call.
-- Usage: build/tilewave run scripts/bench.lua [--count N] [--hw ID] [--c-bench PATH]
local argparse = require "argparse"
local tw = require "tilewave"

local p = argparse("bench.lua", "Estimates per second of the GEMM model.")
p:option("--count", "Shapes per measurement."):default("1000000"):convert(tonumber)
p:option("--hw", "Device id."):default("a100_sxm4_80gb")
p:option("--c-bench", "Path of the C benchmark executable."):default("build/tests/bench_gemm")
local args = p:parse(arg)
local n = math.tointeger(args.count)

-- deterministic shapes: a fixed LCG, not math.random, so runs are comparable
local seed = 42
local function rnd(k)
  seed = (seed * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
  return (seed >> 33) % k
end
local flat = {}
for i = 1, n do
  flat[3 * i - 2] = (1 << rnd(15)) + rnd(64)
  flat[3 * i - 1] = (1 << rnd(15)) + rnd(64)
  flat[3 * i] = (1 << rnd(15)) + rnd(64)
end

local clock = os.clock
local function report(label, count, seconds)
  print(string.format("%-34s %8d shapes in %6.3f s = %6.2f M estimates/s", label, count, seconds, count / seconds / 1e6))
end

local spec = assert(tw.hw.load(args.hw))
local dev, sizes = tw.hw.gemm_device(spec, "fp16")
local shape = { m = 0, n = 0, k = 0, batch = 1, in_bytes = sizes.in_bytes, out_bytes = sizes.out_bytes }
local core = tw.core

local t0 = clock()
for i = 1, n do
  shape.m, shape.n, shape.k = flat[3 * i - 2], flat[3 * i - 1], flat[3 * i]
  core.gemm(dev, shape)
end
report("Lua single calls (core.gemm)", n, clock() - t0)

local m = math.min(n, 200000)
t0 = clock()
for i = 1, m do
  tw.gemm { m = flat[3 * i - 2], n = flat[3 * i - 1], k = flat[3 * i], dtype = "fp16", hw = args.hw }
end
report("Lua single calls (tw.gemm)", m, clock() - t0)

t0 = clock()
local times = tw.gemm_many(flat, { hw = args.hw, dtype = "fp16" })
report("Lua batch call (tw.gemm_many)", #times, clock() - t0)

local f = io.open(args.c_bench, "r")
if f then
  f:close()
  local pipe = io.popen(args.c_bench .. " " .. n)
  io.write(pipe:read("a"))
  pipe:close()
else
  print("C benchmark not found at " .. args.c_bench .. " (build it with ./scripts/build)")
end
