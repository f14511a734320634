-- Benchmarks with the targets of issues 14 ("Speed") and 34 ("Speed and scale"): each figure
-- is repeated (min and median of --repeats runs) and printed next to its goal. It asserts
-- nothing: speed is read, not tested (a timed test would fail on a busy machine). Issue 34's
-- goals are ratios to one C GEMM estimate timed in the same run (tw_gemm_plan_estimate_many's
-- min per shape), since machines of one class differ 3x in absolute speed:
--   tw.transformer.estimate of a config never seen (a new models.define each call), totals <= 60x
--   tilewave sweep of 10^6 distinct configs (250,000 vocabulary sizes x 4 shapes), per row <= 100x;
--     its peak RSS <= 1.5x the RSS of the same grid at 10^4 rows
--   a grid of 10^9 combinations: its first 1,000 rows in <= 1 s and <= 50 MB
--   tilewave check over a 10^6-config sweep: its first line (it streams)
--   tw.gemm_many per shape <= 2x
--   the default sizing search (tw.serve.size) and issue 65's `serve llama-3-8b --search --rate 12` (CPU
--     seconds of the process) <= 5e6 x tw.gemm_many per shape
--
--   GEMM estimate in C on a prepared device (tests/bench/bench_gemm,
--     tw_gemm_plan_estimate_many; the one-shot tw_gemm_estimate is printed beside it)  <= 50 ns
--   tw.gemm_many from Lua, per shape                                 <= 150 ns
--   tw.transformer.estimate, llama-2-7b, every op priced, totals only
--     (detail = false; the detailed call is printed beside it)       <= 5 us
--   tilewave report (default), wall                                  <= 150 ms
--   tilewave sweep, 10^6 rows to CSV, wall; peak RSS flat in rows    <= 5 s
--   tilewave gemm, one process, wall                                 <= 10 ms
--
-- Shapes: M, N, K each 2^(r mod 15) + (r' mod 64) from a fixed 63-bit LCG (seed 42), the
-- same sequence in C and Lua. Wall times are taken around a child process (date +%s.%N),
-- less the time of an empty command; peak memory with /usr/bin/time -f %M where present.
-- Usage: build/tilewave run scripts/bench.lua [--count N] [--repeats R] [--rows 1e4,1e5,1e6]
--        [--hw ID] [--exe PATH] [--c-bench PATH] [--quick] [--serving]
local argparse = require "argparse"
local tw = require "tilewave"

local p = argparse("bench.lua", "Speed of the model against the targets of issue 14.")
p:option("--count", "Shapes per GEMM measurement."):default("1000000"):convert(tonumber)
p:option("--repeats", "Runs of each measurement (min and median reported)."):default("3"):convert(tonumber)
p:option("--rows", "Sweep sizes (rows) for the memory and throughput figures."):default("10000,100000,1000000")
p:option("--hw", "Device id."):default("a100_sxm4_80gb")
p:option("--c-bench", "Path of the C benchmark executable."):default("build/tests/bench_gemm")
p:option("--exe", "tilewave executable for the process figures."):default("build/tilewave")
p:flag("--quick", "Fewer shapes and rows (a smoke run): 10^5 shapes, sweeps of 10^4 and 10^5 rows.")
p:flag("--serving", "Only the GEMM figures (the unit) and the serving ones (issues 35 and 48).")
local args = p:parse(arg)
if args.quick then args.count, args.rows = 100000, "10000,100000" end
local n, reps = math.tointeger(args.count), math.tointeger(args.repeats)
local format = string.format

-- the shapes: a fixed 63-bit LCG (tests/bench/bench_gemm.c draws the same sequence)
local seed = 42
local function rnd(k)
  seed = (seed * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
  return (seed >> 33) % k
end
local flat = {}
for i = 1, n do
  for j = 0, 2 do
    local pw = 1 << rnd(15)
    flat[3 * i - 2 + j] = pw + rnd(64)
  end
end

local function stats(xs)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  return s[1], s[(#s + 1) // 2]
end

-- run f `reps` times; min and median of its seconds
local function timed(f)
  local xs = {}
  for i = 1, reps do
    local t0 = os.clock()
    f()
    xs[i] = os.clock() - t0
  end
  return stats(xs)
end

local function now() return tonumber(io.popen("date +%s.%N"):read("l")) end

-- wall seconds of a shell command, min and median over the repeats, less the cost of
-- timing an empty command (the shell and a `date` call)
local base = 0
local function wall(cmd)
  local xs = {}
  for i = 1, reps do
    local t0 = now()
    os.execute(cmd)
    xs[i] = now() - t0 - base
  end
  return stats(xs)
end
base = (wall("true"))

local results = {}
local function row(what, min, med, unit, goal, scale)
  results[#results + 1] = { what = what, min = min, med = med, unit = unit, goal = goal, scale = scale }
  print(format("%-46s min %10.3f %s, median %10.3f %s (goal %s %s)", what, min * scale, unit, med * scale, unit,
    goal and format("<= %g", goal) or "-", unit))
end
-- one C GEMM estimate (s), the unit of issue 34's ratios, once the C benchmark has run
local c_unit
-- a figure in seconds printed with its ratio to c_unit and the goal on that ratio
local function ratio_row(what, min, med, goal)
  if not c_unit then
    row(what, min, med, "us", nil, 1e6)
    return
  end
  results[#results + 1] = { what = what .. " (x C GEMM)", min = min / c_unit, med = med / c_unit, unit = "x",
                            goal = goal, scale = 1 }
  print(format("%-46s min %10.3f us, median %10.3f us = %.0fx / %.0fx a C GEMM estimate (goal <= %gx)", what,
    min * 1e6, med * 1e6, min / c_unit, med / c_unit, goal))
end

-- GEMM estimates -------------------------------------------------------------------------
local spec = assert(tw.hw.load(args.hw))
local dev, sizes = tw.hw.gemm_device(spec, "fp16")
local shape = { m = 0, n = 0, k = 0, batch = 1, in_bytes = sizes.in_bytes, out_bytes = sizes.out_bytes }
local core = tw.core
local lo, md = timed(function()
  for i = 1, n do
    shape.m, shape.n, shape.k = flat[3 * i - 2], flat[3 * i - 1], flat[3 * i]
    core.gemm(dev, shape)
  end
end)
row("Lua core.gemm, per shape", lo / n, md / n, "ns", nil, 1e9)
-- the core.gemm loop leaves 3n result tables behind; collected here, so that the next figure
-- pays for its own garbage (its two result arrays per call) and not for the previous figure's
collectgarbage()
lo, md = timed(function() tw.gemm_many(flat, { hw = args.hw, dtype = "fp16" }) end)
row("Lua tw.gemm_many, per shape", lo / n, md / n, "ns", 150, 1e9)
local gemm_many_s = lo / n -- the unit of the serving figures (issue 35)

local f = io.open(args.c_bench, "r")
if f then
  f:close()
  local out = io.popen(args.c_bench .. " " .. n):read("a")
  io.write(out)
  local function c_row(label, name, goal)
    local cmin, cmed = out:match(name .. "[^:]*:%s+%d+ shapes, min ([%d.]+) ns, median ([%d.]+) ns")
    if cmin then row(label, tonumber(cmin) / 1e9, tonumber(cmed) / 1e9, "ns", goal, 1e9) end
  end
  -- the goal is for estimates on a device prepared once (the Lua device is a prepared plan)
  c_row("C tw_gemm_estimate one-shot, per shape", "tw_gemm_estimate %(one%-shot%)", nil)
  c_row("C tw_gemm_plan_estimate_many, per shape", "tw_gemm_plan_estimate_many", 50)
  local cmin = out:match("tw_gemm_plan_estimate_many[^:]*:%s+%d+ shapes, min ([%d.]+) ns")
  c_unit = cmin and tonumber(cmin) / 1e9
  if c_unit then
    results[#results + 1] = { what = "tw.gemm_many per shape (x C GEMM)", min = gemm_many_s / c_unit, med = gemm_many_s / c_unit,
                              unit = "x", goal = 2, scale = 1 }
    print(format("%-46s %.2fx a C GEMM estimate (goal <= 2x)", "tw.gemm_many per shape", gemm_many_s / c_unit))
  end
else
  print("C benchmark not found at " .. args.c_bench .. " (build it with ./scripts/build)")
end

if not args.serving then -- everything but the GEMM unit and the serving figures (--serving skips it)
-- whole-model estimate -------------------------------------------------------------------
-- the GEMM figures' shapes (3n numbers: 48 MB at n = 10^6) are dropped first: a live array that
-- size makes every collection cycle of the estimates below traverse it (2.2 -> 5.6 us per
-- totals-only estimate), a cost of this script's layout, not of the estimate
flat = nil
collectgarbage()
local calls = 200
lo, md = timed(function()
  for _ = 1, calls do tw.transformer.estimate("llama-2-7b", args.hw, { b = 4, s = 2048 }) end
end)
row("tw.transformer.estimate llama-2-7b (all ops)", lo / calls, md / calls, "us", nil, 1e6)
lo, md = timed(function()
  for _ = 1, calls do tw.transformer.estimate("llama-2-7b", args.hw, { b = 4, s = 2048, detail = false }) end
end)
row("tw.transformer.estimate llama-2-7b, totals", lo / calls, md / calls, "us", 5, 1e6)

-- a config never seen (issue 34): a new models.define per call, as a sweep row of a new
-- config costs; the define alone and the estimate of the defined config beside it
do
  local models = tw.models
  local raw = {}
  for k, v in pairs(models.resolve("llama-2-7b")) do raw[k] = v end
  raw.id, raw.name = nil, nil
  local next_v = 32000
  local function fresh()
    next_v = next_v + 1
    raw.vocab_size = next_v
    return models.define(raw)
  end
  lo, md = timed(function()
    for _ = 1, calls do tw.transformer.estimate(fresh(), args.hw, { b = 4, s = 2048, detail = false }) end
  end)
  ratio_row("estimate of a config never seen (define+totals)", lo / calls, md / calls, 60)
  lo, md = timed(function() for _ = 1, calls do fresh() end end)
  row("  of which models.define", lo / calls, md / calls, "us", nil, 1e6)
end

-- processes ------------------------------------------------------------------------------
lo, md = wall(format("%s report > /dev/null", args.exe))
row("tilewave report (default), wall", lo, md, "ms", 150, 1e3)
lo, md = wall(format("%s gemm 4096 4096 4096 --hw %s > /dev/null", args.exe, args.hw))
row("tilewave gemm, one process, wall", lo, md, "ms", 10, 1e3)

-- sweeps ---------------------------------------------------------------------------------
-- a grid of Llama-3.1-8B variants: h (32) x I (32) x a (3) x v (rows / 3072 values)
local function sweep_spec(rows)
  local nv = math.max(1, math.ceil(rows / (32 * 32 * 3)))
  return format([[
local hs, is, vs = {}, {}, {}
for h = 3072, 5120 - 1, 64 do hs[#hs + 1] = h end
for i = 12288, 16384 - 1, 128 do is[#is + 1] = i end
for j = 0, %d do vs[#vs + 1] = 128000 + 64 * j end
return { base = "llama-3.1-8b", hw = { %q }, workload = { b = 4, s = 2048 },
         vary = { hidden_size = hs, intermediate_size = is, num_attention_heads = { 16, 32, 64 }, vocab_size = vs } }
]], nv - 1, args.hw), 32 * 32 * 3 * nv
end

local has_time = io.open("/usr/bin/time", "r")
if has_time then has_time:close() end
for size in args.rows:gmatch("[^,]+") do
  local rows = math.tointeger(tonumber(size))
  local text, total = sweep_spec(rows)
  local path = os.tmpname()
  local fh = assert(io.open(path, "w"))
  fh:write(text)
  fh:close()
  local q = assert(load(text))()
  local tlo, tmed = timed(function() for _ in tw.sweep(q) do end end)
  row(format("tw.sweep %d configs, in process, per config", total), tlo / total, tmed / total, "us", nil, 1e6)
  lo, md = wall(format("%s sweep %s > /dev/null", args.exe, path))
  row(format("tilewave sweep %d rows to CSV, wall", total), lo, md, "s", total >= 1e6 and 5 or nil, 1)
  if has_time then
    local rss = io.popen(format("/usr/bin/time -f %%M %s sweep %s 2>&1 > /dev/null | tail -1", args.exe, path)):read("l")
    print(format("%-46s peak RSS %s kB", format("tilewave sweep %d rows", total), rss or "?"))
  end
  os.remove(path)
end

-- scale (issue 34) -------------------------------------------------------------------------
local function spec_file(text)
  local path = os.tmpname()
  local fh = assert(io.open(path, "w"))
  fh:write(text)
  fh:close()
  return path
end
-- distinct configs: llama-2-7b with 4 shapes (h x I) and rows / 4 vocabulary sizes
-- (ranged: the vocabulary axis as tw.range, which holds no list)
local function distinct_spec(rows, ranged)
  return spec_file(format([[
local vs = {}
if %s then vs = require("tilewave").range(32000, 32000 + %d) else for j = 0, %d do vs[#vs + 1] = 32000 + j end end
return { base = "llama-2-7b", hw = { %q }, workload = { b = 4, s = 2048 },
         vary = { hidden_size = { 4096, 5120 }, intermediate_size = { 11008, 13824 }, vocab_size = vs } }
]], tostring(ranged == true), rows // 4 - 1, rows // 4 - 1, args.hw))
end
local function peak_rss(cmd)
  if not has_time then return nil end
  return tonumber(io.popen(format("/usr/bin/time -f %%M %s 2>&1 > /dev/null | tail -1", cmd)):read("l"))
end
do
  local big = args.quick and 100000 or 1000000
  local small_path, big_path = distinct_spec(10000), distinct_spec(big)
  lo, md = wall(format("%s sweep %s > /dev/null", args.exe, big_path))
  ratio_row(format("tilewave sweep %d distinct configs, per row", big), lo / big, md / big, 100)
  local r_small, r_big = peak_rss(format("%s sweep %s", args.exe, small_path)), peak_rss(format("%s sweep %s", args.exe, big_path))
  if r_small and r_big then
    results[#results + 1] = { what = format("sweep RSS %d rows / 10^4 rows", big), min = r_big / r_small,
                              med = r_big / r_small, unit = "x", goal = 1.5, scale = 1 }
    print(format("%-46s %d kB at 10^4 rows, %d kB at %d: %.2fx (goal <= 1.5x)", "tilewave sweep peak RSS", r_small, r_big,
      big, r_big / r_small))
  end
  -- the same grids with the vocabulary as tw.range (no list of rows / 4 values held)
  local small_r, big_r = distinct_spec(10000, true), distinct_spec(big, true)
  r_small, r_big = peak_rss(format("%s sweep %s", args.exe, small_r)), peak_rss(format("%s sweep %s", args.exe, big_r))
  if r_small and r_big then
    results[#results + 1] = { what = format("sweep RSS %d rows / 10^4, tw.range axis", big), min = r_big / r_small,
                              med = r_big / r_small, unit = "x", goal = 1.5, scale = 1 }
    print(format("%-46s %d kB at 10^4 rows, %d kB at %d: %.2fx (goal <= 1.5x)", "  the vocabulary as tw.range", r_small,
      r_big, big, r_big / r_small))
  end
  os.remove(small_r)
  os.remove(big_r)
  -- a grid of 10^9 combinations (h x I x v, 1000 values each): its first 1,000 rows
  local huge = spec_file(format([[
local hs, is, vs = {}, {}, {}
for j = 0, 999 do hs[#hs + 1] = 2048 + 32 * j; is[#is + 1] = 8192 + 64 * j; vs[#vs + 1] = 32000 + 64 * j end
return { base = "llama-2-7b", hw = { %q }, workload = { b = 4, s = 2048 },
         vary = { hidden_size = hs, intermediate_size = is, vocab_size = vs } }
]], args.hw))
  local first = format("%s sweep %s 2>/dev/null | head -1001 > /dev/null", args.exe, huge)
  lo, md = wall(first)
  row("10^9-row grid, its first 1,000 rows, wall", lo, md, "s", 1, 1)
  local rss = has_time and tonumber(io.popen(format("/usr/bin/time -f %%M sh -c '%s' 2>&1 | tail -1", first)):read("l"))
  if rss then
    results[#results + 1] = { what = "10^9-row grid, first 1,000 rows, peak RSS", min = rss / 1024, med = rss / 1024,
                              unit = "MB", goal = 50, scale = 1 }
    print(format("%-46s %.1f MB (goal <= 50 MB)", "10^9-row grid, first 1,000 rows, peak RSS", rss / 1024))
  end
  -- check over a 10^6-config sweep: the time to its first line
  local ck = spec_file(format([[
local vs = {}
for j = 0, 249999 do vs[#vs + 1] = 32000 + j end
return { name = "bench", sweep = { base = "llama-2-7b", vary = { hidden_size = { 4096, 5120 },
         intermediate_size = { 11008, 13824 }, vocab_size = vs } }, hw = { %q }, workload = { b = 4, s = 2048 },
         expect = { mfu = { min = 0, max = 1 } } }
]], args.hw))
  lo, md = wall(format("%s check %s 2>/dev/null | head -1 > /dev/null", args.exe, ck))
  row("check of a 10^6-config sweep, first line, wall", lo, md, "s", nil, 1)
  -- its rate against the sweep's: 10^5 configs checked whole, and swept
  local ck5 = spec_file(format([[
return { name = "bench", sweep = { base = "llama-2-7b", vary = { hidden_size = { 4096, 5120 },
         intermediate_size = { 11008, 13824 }, vocab_size = require("tilewave").range(32000, 56999) } },
         hw = { %q }, workload = { b = 4, s = 2048 }, expect = { mfu = { min = 0, max = 1 } } }
]], args.hw))
  local sw5 = distinct_spec(100000, true)
  local clo = wall(format("%s check %s > /dev/null", args.exe, ck5))
  local slo = wall(format("%s sweep %s > /dev/null", args.exe, sw5))
  print(format("%-46s %.2f us per config checked, %.2f us per row swept (%.1fx)", "check of 10^5 configs, whole",
    clo / 1e5 * 1e6, slo / 1e5 * 1e6, clo / slo))
  os.remove(ck5)
  os.remove(sw5)
  for _, path in ipairs { small_path, big_path, huge, ck } do os.remove(path) end
end

end

-- serving simulation (issue 35) ------------------------------------------------------------
-- llama-3-8b on an H100 under vLLM, ShareGPT lengths, Poisson at 80% of the offline capacity;
-- each simulate() is three runs (the step costs as priced and at their interval's bounds).
-- Goals as multiples of tw.gemm_many's time per shape: 10^5 requests <= 1e7, 10^6 <= 1e8.
do
  local base = { model = "llama-3-8b", hw = "h100_sxm5", engine = "vllm" }
  local function sim(w)
    local o = { workload = w }
    for k, v in pairs(base) do o[k] = v end
    return tw.serve.simulate(o)
  end
  local cap = sim { arrival = "offline", requests = 10000, dataset = "sharegpt" }.throughput.requests_per_s
  for _, nreq in ipairs(args.quick and { 1e5 } or { 1e5, 1e6 }) do
    collectgarbage()
    local before = collectgarbage("count")
    local r
    local slo, smd = timed(function() r = sim { rate = 0.8 * cap, requests = math.tointeger(nreq), dataset = "sharegpt" } end)
    local goal = nreq == 1e5 and 1e7 or 1e8
    row(format("tw.serve.simulate %.0e requests (x gemm_many)", nreq), slo / gemm_many_s, smd / gemm_many_s, "x", goal, 1)
    print(format("%-46s %.2f s, %d steps, Lua heap after %.0f MB (before %.0f MB), rate %.1f/s", "", slo, r.steps,
      collectgarbage("count") / 1024, before / 1024, 0.8 * cap))
  end
end

-- the default sizing search (issue 48): llama-3.1-8b at 20 req/s of ShareGPT within TTFT 1 s and
-- TPOT 50 ms at p99, every device with a price, t in {1, 2, 4, 8}, the engine's batch limits, every
-- run in steady state. Goal as a multiple of tw.gemm_many's time per shape: <= 5e6.
do
  local function search()
    return tw.serve.size { model = "llama-3.1-8b", workload = { dataset = "sharegpt" }, rate = 20,
                           slo = { ttft_s = 1, tpot_s = 0.05 } }
  end
  local r
  local slo, smd = timed(function() r = search() end)
  row("tw.serve.size default search (x gemm_many)", slo / gemm_many_s, smd / gemm_many_s, "x", 5e6, 1)
  print(format("%-46s %.2f s, %d deployments ranked", "", slo, #r.deployments))
end

-- the same search as the command issue 65 timed: CPU seconds of the whole process (user time,
-- /usr/bin/time -f %U, min over the repeats) over tw.gemm_many's time per shape. Goal: <= 5e6.
do
  local tf = io.open("/usr/bin/time", "r")
  if tf then
    tf:close()
    local xs = {}
    local cmd = format("/usr/bin/time -f %%U %s serve llama-3-8b --search --rate 12 --slo ttft=1s,tpot=50ms 2>&1 "
      .. ">/dev/null | tail -1", require("tilewave.serve.launch").shell_quote(args.exe))
    for i = 1, reps do xs[i] = tonumber(io.popen(cmd):read("l")) end
    if xs[1] then
      local cmin, cmed = stats(xs)
      row("serve llama-3-8b --search --rate 12, CPU (x gemm_many)", cmin / gemm_many_s, cmed / gemm_many_s, "x", 5e6, 1)
      print(format("%-46s %.2f s user CPU (min)", "", cmin))
    end
  end
end

-- summary --------------------------------------------------------------------------------
print("\ntarget                                          now (min)      goal   met")
for _, r in ipairs(results) do
  if r.goal then
    print(format("%-46s %9.3f %-3s %6g %-3s %s", r.what, r.min * r.scale, r.unit, r.goal, r.unit,
      r.min * r.scale <= r.goal and "yes" or "no"))
  end
end
