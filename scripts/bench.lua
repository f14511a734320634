-- Benchmark of the GEMM estimate: estimates per second for pseudo-random shapes
-- (dims log-uniform in [1, 16384]) through single calls and through the batch
-- entry point, in Lua; and, when the C benchmark is built, in C.
-- Targets (issue "Foundation"): >= 5 M/s in C, >= 1 M/s through the Lua batch call.
-- Then the sweep path (issue "Config-family sweeps"): whole-model forward estimates (every op of
-- every layer class) per second over a --grid-config grid, in this process, and the same grid
-- sharded over 2 processes (`tilewave sweep --shard I/2`, wall clock); peak memory (VmHWM) of
-- this process before and after the sweep, to show it flat in grid size.
-- Target: >= 200,000 whole-model estimates/s per core.
-- Usage: build/tilewave run scripts/bench.lua [--count N] [--grid N] [--hw ID] [--c-bench PATH] [--skip-gemm]
local argparse = require "argparse"
local tw = require "tilewave"

local p = argparse("bench.lua", "Estimates per second of the GEMM model.")
p:option("--count", "Shapes per measurement."):default("1000000"):convert(tonumber)
p:option("--hw", "Device id."):default("a100_sxm4_80gb")
p:option("--c-bench", "Path of the C benchmark executable."):default("build/tests/bench_gemm")
p:option("--grid", "Configs in the sweep benchmark (about)."):default("100000"):convert(tonumber)
p:option("--exe", "tilewave executable for the sharded run."):default("build/tilewave")
p:flag("--skip-gemm", "Only the sweep benchmark.")
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

local function vm_hwm()
  local f = io.open("/proc/self/status")
  if not f then return nil end
  local kb
  for line in f:lines() do kb = kb or tonumber(line:match("^VmHWM:%s+(%d+) kB")) end
  f:close()
  return kb
end

local function sweep_bench()
  -- a grid of about args.grid Llama-3.1-8B variants: h x I x v x a
  local target = math.tointeger(args.grid)
  local hs, is, vs = {}, {}, {}
  for h = 3072, 5120 - 1, 64 do hs[#hs + 1] = h end
  for i = 12288, 16384 - 1, 128 do is[#is + 1] = i end
  local heads = { 16, 32, 64 }
  local nv = math.max(1, target // (#hs * #is * #heads))
  for j = 0, nv - 1 do vs[#vs + 1] = 128000 + 64 * j end
  local spec_text = string.format([[
local hs, is, vs = {}, {}, {}
for h = 3072, 5120 - 1, 64 do hs[#hs + 1] = h end
for i = 12288, 16384 - 1, 128 do is[#is + 1] = i end
for j = 0, %d do vs[#vs + 1] = 128000 + 64 * j end
return { base = "llama-3.1-8b", hw = { %q }, workload = { b = 4, s = 2048 },
         vary = { hidden_size = hs, intermediate_size = is, num_attention_heads = { 16, 32, 64 }, vocab_size = vs } }
]], nv - 1, args.hw)
  local path = os.tmpname()
  local fh = assert(io.open(path, "w"))
  fh:write(spec_text)
  fh:close()
  local q = assert(load(spec_text))()
  local before = vm_hwm()
  local t0 = clock()
  local it, stats = tw.sweep(q)
  local count, sum = 0, 0
  for _, _, est in it do
    count = count + 1
    sum = sum + est.time_s
  end
  local dt = clock() - t0
  local after = vm_hwm()
  print(string.format("%-34s %8d configs in %6.3f s = %8.0f whole-model estimates/s (mode %s)",
    "sweep, 1 process (tw.sweep)", stats.total, dt, stats.total / dt, stats.mode))
  if before and after then
    print(string.format("%-34s VmHWM %d kB before, %d kB after the sweep", "sweep memory", before, after))
  end
  -- the CLI path, output to /dev/null: one process, then 2 shards in parallel (wall clock)
  local function wall(cmd)
    local t = io.popen("date +%s.%N"):read("l")
    os.execute(cmd)
    return tonumber(io.popen("date +%s.%N"):read("l")) - tonumber(t)
  end
  local one = wall(string.format("%s sweep %s > /dev/null", args.exe, path))
  local two = wall(string.format("(%s sweep %s --shard 0/2 > /dev/null & %s sweep %s --shard 1/2 > /dev/null; wait)",
    args.exe, path, args.exe, path))
  print(string.format("%-34s %8d configs: 1 process %.3f s (%.0f/s), 2 shards %.3f s (%.0f/s, x%.2f)",
    "tilewave sweep (CSV rows, wall)", stats.total, one, stats.total / one, two, stats.total / two, one / two))
  os.remove(path)
end

if args.skip_gemm then
  sweep_bench()
  return
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
sweep_bench()
