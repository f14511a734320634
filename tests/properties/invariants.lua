-- Property test: every printed number is physically possible (issue 31). Over a seeded grid
-- of every preset x every hw file x sequence lengths x batches x attention x engines (and
-- dtypes, tensor-parallel sizes, random configs), it checks:
--   ops       executed FLOP / time <= dtype peak x ceiling of the kernel class, DRAM bytes /
--             time <= mem_bw x memory ceiling, model_flops <= flops, finite positive times
--   forward   mfu <= hfu <= matmul ceiling, tflops <= peak; totals-only == detailed
--   decode    bytes / tpot <= mem_bw, FLOP / tpot <= peak
--   memory    max_context <= max_position_embeddings (unless allow_long_context), integers >= 0
--   training  mfu <= hfu <= 1; selective recomputation with flash is free and a no-op;
--             full recomputation raises HFU above MFU
--   rules     every offered fix predicted >= 1 + FIX_MARGIN faster (presets and random configs)
--   nearby    every listed shape predicted faster than the config
--   comm      a collective takes at least its bytes per rank over the link
--   serve     (also with ep, pp and multi-turn conversations, their KV given back and conserved)
--             TPOT p50 >= the weights read once at the datasheet bandwidth; output tokens/s <=
--             GPUs x the device's largest peak / (2 x matmul params); every latency finite, ordered
--             (p50 <= p90 <= p99 <= max), KV use <= capacity, goodput <= throughput
-- Prints the number of checks per invariant and every violation; exits 1 on any.
-- Usage: build/tilewave run tests/properties/invariants.lua [--large] [--seed N]
local tw = require "tilewave"
local ceilings = require "tilewave.data.ceilings"
local rules = require "tilewave.explore.rules"
local price = require "tilewave.cost.price"

local large, seed = false, 31
local i = 1
while arg[i] do
  if arg[i] == "--large" then large = true
  elseif arg[i] == "--seed" then seed = assert(math.tointeger(tonumber(arg[i + 1])), "--seed N"); i = i + 1
  else io.stderr:write("invariants.lua: unknown argument '", arg[i], "' (known: --large, --seed N)\n"); os.exit(2) end
  i = i + 1
end
math.randomseed(seed)

local format = string.format
local counts, failures, order = {}, {}, {}
local TOL = 1 + 1e-9 -- rounding of the quotients

local function ok(name, cond, what)
  if not counts[name] then counts[name] = 0; order[#order + 1] = name end
  counts[name] = counts[name] + 1
  if not cond then failures[#failures + 1] = name .. ": " .. what() end
end

local function finite(x) return type(x) == "number" and x == x and x > -math.huge and x < math.huge end

-- an expected refusal names a field ("<path>: ..."); anything else is a defect
-- A refusal is counted apart from the checks (it proves no invariant); one that does not name a
-- field is a failure.
local refusals = 0
local function refused(err)
  err = tostring(err)
  refusals = refusals + 1
  if not (err:match("^[%w_%.%[%]/%*%-]+: ") ~= nil and not err:find("internal error", 1, true)) then
    failures[#failures + 1] = "a refusal that names no field: " .. err
  end
end

local hws = tw.hw.list()
local presets = tw.models.list()
local S = large and { 128, 512, 2048, 4096, 32768 } or { 512, 4096, 32768 }
local B = large and { 1, 4, 16 } or { 1 }
local ENGINES = { "compiled", "eager" }
local ATTN = { "flash", "standard" }

-- forward passes: per op and in total
local function forward(m, h, o, label)
  local okr, e = pcall(tw.transformer.estimate, m, h, o)
  if not okr then refused(e) return end
  local spec = tw.hw.resolve(h)
  local peak = spec.peak_flops[e.dtype]
  for _, p in ipairs(e.ops) do
    ok("op time finite and positive", finite(p.time_s) and p.time_s > 0, function() return label .. " " .. p.name end)
    local cls = (p.kind == "attention" and p.impl == "flash") and ceilings.attention or ceilings.matmul
    ok("op FLOP/s <= peak x ceiling", p.flops / p.time_s <= peak * cls * TOL, function()
      return format("%s %s: %.4g of peak (ceiling %.2f)", label, p.name, p.flops / p.time_s / peak, cls) end)
    local bytes = p.kind == "elementwise" and (p.dram_bytes or 0) or p.bytes
    ok("op bytes/s <= mem_bw x ceiling", bytes / p.time_s <= spec.mem_bw * ceilings.memory * TOL, function()
      return format("%s %s: %.4g of mem_bw", label, p.name, bytes / p.time_s / spec.mem_bw) end)
    ok("model_flops <= flops", p.model_flops <= p.flops * TOL, function() return label .. " " .. p.name end)
  end
  ok("mfu <= hfu <= ceiling", e.mfu <= e.hfu * TOL and e.hfu <= ceilings.matmul * TOL and e.mfu > 0,
    function() return format("%s: mfu %.4g hfu %.4g", label, e.mfu, e.hfu) end)
  ok("tflops <= peak", e.tflops * 1e12 <= peak * TOL, function() return label end)
  local t = {}
  for k, v in pairs(o) do t[k] = v end
  t.detail = false
  local okt, tot = pcall(tw.transformer.estimate, m, h, t)
  ok("totals-only equals detailed", okt and tot.time_s == e.time_s and tot.mfu == e.mfu,
    function() return label .. " " .. tostring(okt and tot.time_s or tot) .. " vs " .. e.time_s end)
end

local t0 = os.clock()
for _, m in ipairs(presets) do
  for _, h in ipairs(hws) do
    -- the device's 16-bit dtype: bf16, else fp16 (V100, T4, P100, Apple)
    local dt = tw.hw.resolve(h).peak_flops.bf16 and "bf16" or "fp16"
    for _, s in ipairs(S) do
      for _, b in ipairs(B) do
        for _, a in ipairs(ATTN) do
          for _, eng in ipairs(ENGINES) do
            forward(m, h, { b = b, s = s, attention = a, engine = eng, dtype = dt },
              format("%s@%s b%d s%d %s %s", m, h, b, s, a, eng))
          end
        end
      end
    end
  end
end
-- other dtypes and tensor-parallel sizes on the datacenter devices
for _, m in ipairs { "llama-3-8b", "pythia-1b", "qwen2.5-7b", "gpt3-2.7b", "mixtral-8x7b", "modernbert-large" } do
  for _, h in ipairs { "a100_sxm4_80gb", "h100_sxm5", "h200_sxm", "b200", "mi300x", "l4", "rtx4090" } do
    for _, dt in ipairs { "fp16", "fp8", "fp32", "int8" } do
      for _, t in ipairs { 1, 2, 8 } do
        forward(m, h, { b = 2, s = 4096, dtype = dt, t = t, attention = "flash" }, format("%s@%s %s t%d", m, h, dt, t))
      end
    end
  end
end

-- decode and memory
for _, m in ipairs(presets) do
  local c = tw.models.load(m)
  for _, h in ipairs(hws) do
    for _, ctx in ipairs { 128, 4096, 65536 } do
      for _, batch in ipairs { 1, 64 } do
        for _, eng in ipairs { "ideal", "compiled", "eager", "llama.cpp" } do
          local q = { model = m, hw = h, context = ctx, batch = batch, engine = eng, allow_long_context = true }
          local okd, d = pcall(tw.inference.decode, q)
          if okd and d.fits == false then
            -- a configuration that does not fit has no time; its step, priced anyway (decode_step,
            -- for tables and calibration), still keeps within the device
            ok("decode that does not fit has no time", d.tpot_s == nil and d.tokens_per_s == nil and d.does_not_fit ~= nil,
              function() return format("%s@%s ctx %d b %d %s", m, h, ctx, batch, eng) end)
            d = tw.inference.decode_step(q)
          end
          if okd then
            local spec = tw.hw.resolve(h)
            ok("decode bytes/s <= mem_bw", d.bytes / d.tpot_s <= spec.mem_bw * TOL,
              function() return format("%s@%s ctx %d b %d %s: %.4g of mem_bw", m, h, ctx, batch, eng, d.achieved_bw / spec.mem_bw) end)
            ok("decode FLOP/s <= peak", d.flops / d.tpot_s <= spec.peak_flops[d.compute_dtype] * TOL,
              function() return format("%s@%s %s", m, h, eng) end)
          else
            refused(d)
          end
        end
        local okm, r = pcall(tw.inference.memory, { model = m, hw = h, context = math.min(ctx, c.max_position_embeddings or ctx),
                                                    batch = batch })
        if okm then
          local maxp = c.max_position_embeddings
          ok("max_context within the model", not maxp or r.max_context <= maxp,
            function() return format("%s@%s: %d > %d", m, h, r.max_context, maxp) end)
          ok("memory answers are integers >= 0", math.type(r.max_context) == "integer" and math.type(r.max_batch) == "integer"
            and r.max_context >= 0 and r.max_batch >= 0, function() return format("%s@%s", m, h) end)
        else
          refused(r)
        end
      end
    end
  end
end

-- training: conventions and recomputation
for _, m in ipairs { "pythia-160m", "pythia-1b", "llama-3.2-1b", "gpt3-1.3b", "llama-2-7b", "mixtral-8x7b" } do
  for _, cl in ipairs { "dgx_a100", "dgx_h100" } do
    for _, a in ipairs(ATTN) do
      for _, s in ipairs { 1024, 4096 } do
        local base = { model = m, cluster = cl, nodes = 1, global_batch = 64, s = s, attention = a, t = 1 }
        local runs = {}
        for _, ck in ipairs { "none", "selective", "full" } do
          local o = {}
          for k, v in pairs(base) do o[k] = v end
          o.checkpointing = ck
          local okt, r = pcall(tw.training.step, o)
          if okt and r.fits == false then -- no time for what does not fit
            ok("training that does not fit has no time", r.step_s == nil and r.mfu == nil and r.does_not_fit ~= nil,
              function() return format("%s %s %s %s", m, cl, a, ck) end)
          elseif okt then runs[ck] = r else refused(r) end
        end
        for ck, r in pairs(runs) do
          ok("training mfu <= hfu <= 1", r.mfu <= r.hfu * TOL and r.hfu <= 1,
            function() return format("%s %s %s %s: mfu %.4g hfu %.4g", m, cl, a, ck, r.mfu, r.hfu) end)
        end
        if runs.none and runs.selective and a == "flash" then
          ok("selective with flash is free", runs.selective.step_s == runs.none.step_s and runs.selective.recompute_noop
            and runs.selective.hfu == runs.none.hfu, function() return format("%s %s s%d", m, cl, s) end)
        end
        if runs.none and runs.selective and a == "standard" then
          ok("selective recomputation saves memory when it costs", runs.selective.step_s == runs.none.step_s
            or runs.selective.memory.activations < runs.none.memory.activations, function() return m end)
        end
        if runs.full then
          ok("full recomputation raises HFU above MFU", runs.full.hfu > runs.full.mfu, function() return m end)
        end
      end
    end
  end
end

-- rules and nearby: presets on a few devices, then random configs
local function rules_and_nearby(c, h, w, label, nearby)
  local okr, vs = pcall(tw.rules.check, c, w, h)
  if not okr then refused(vs) return end
  for _, v in ipairs(vs) do
    ok("rule fixes predicted faster", v.fix == nil or (v.speedup and v.speedup >= 1 + rules.FIX_MARGIN),
      function() return format("%s %s %s x%s", label, v.rule, v.fix_text, tostring(v.speedup)) end)
  end
  if nearby then
    local okn, rows = pcall(tw.search.nearby, c, h, { b = w.b, s = w.s, t = w.t, attention = w.attention, limit = 20 })
    if not okn then refused(rows) return end
    for _, r in ipairs(rows) do
      ok("nearby answers predicted faster", r.speedup > 1 and r.size_speedup > 1 and not r.is_base,
        function() return format("%s x%.4f", label, r.speedup) end)
    end
  end
end

for _, m in ipairs(presets) do
  for _, h in ipairs { "a100_sxm4_80gb", "h100_sxm5" } do
    for _, w in ipairs { { b = 4, s = 2048, t = 1 }, { b = 1, s = 4096, t = 2, attention = "flash" } } do
      rules_and_nearby(m, h, w, format("%s@%s b%d s%d t%d", m, h, w.b, w.s, w.t), tw.models.load(m).family ~= "deepseek")
    end
  end
end
local random_n = large and 400 or 60
for n = 1, random_n do
  local a = ({ 8, 12, 16, 20, 24, 32, 40, 48 })[math.random(8)]
  local hd = ({ 40, 64, 80, 96, 112, 128 })[math.random(6)]
  local kv = a // ({ 1, 2, 4, 8 })[math.random(4)]
  if kv < 1 or a % kv ~= 0 then kv = a end
  local h = a * hd + (math.random(4) == 1 and 32 or 0)
  local okc, c = pcall(tw.models.define, { family = ({ "llama", "gpt_neox" })[math.random(2)], name = "random" .. n,
    hidden_size = h, num_attention_heads = a, num_key_value_heads = kv, head_dim = h // a,
    num_hidden_layers = math.random(2, 8), intermediate_size = 64 * math.random(8, 200) + math.random(0, 3) * 8,
    vocab_size = math.random(30000, 130000), max_position_embeddings = 8192 })
  if okc then
    local hw_id = ({ "a100_sxm4_80gb", "h100_sxm5", "l4", "mi300x" })[math.random(4)]
    local w = { b = math.random(1, 8), s = 128 * math.random(1, 32), t = 1 }
    rules_and_nearby(c, hw_id, w, format("random %d (h %d, a %d, kv %d, I %d, v %d)@%s", n, h, a, kv,
      c.intermediate_size, c.vocab_size, hw_id), n % 3 == 0)
    forward(c, hw_id, { b = w.b, s = w.s, attention = "flash" }, "random " .. n)
  else
    refused(c)
  end
end

-- collectives: at least the bytes each rank sends over the link
for _, kind in ipairs { "allreduce", "allgather_ring", "reducescatter_ring", "p2p", "alltoall" } do
  for _, n in ipairs { 2, 4, 8, 64, 1024 } do
    for _, bytes in ipairs { 1e3, 1e6, 1e9, 1e11 } do
      local t = price.collective(kind, bytes, n, 450e9, 0)
      local wire = (kind == "allreduce" and 2 * (n - 1) / n) or (kind == "p2p" and 1) or (n - 1) / n
      ok("collective >= bytes over the link", t >= wire * bytes / 450e9 / TOL,
        function() return format("%s n %d %g B: %g s", kind, n, bytes, t) end)
    end
  end
end

-- serving: throughput under the compute ceiling, TPOT above the weight stream
do
  local engines_s = { "vllm", "sglang", "trtllm", "compiled" }
  local loads = { { rate = 2 }, { rate = 50 }, { concurrency = 64 }, { arrival = "offline" } }
  local models_s = large and { "llama-3.2-1b", "llama-3.1-8b", "qwen3-8b", "mixtral-8x7b", "llama-3.1-70b" }
    or { "llama-3.2-1b", "llama-3.1-8b", "mixtral-8x7b" }
  for _, m in ipairs(models_s) do
    for _, h in ipairs { "h100_sxm5", "a100_sxm4_80gb", "l40s", "h200_sxm" } do
      for k, e in ipairs(engines_s) do
        local w = loads[(k + #m) % #loads + 1]
        local wl = { arrival = w.arrival, rate = w.rate, concurrency = w.concurrency, requests = large and 2000 or 300,
                     dataset = "sharegpt" }
        local okr, r = pcall(tw.serve.simulate, { model = m, hw = h, engine = e, t = m == "llama-3.1-70b" and 4 or 1,
                                                   workload = wl, slo = { ttft_s = 1, tpot_s = 0.05 } })
        if not okr then refused(r) else
          local label = format("serve %s %s %s", m, h, e)
          local spec = tw.hw.resolve(h)
          local d = tw.inference.decode { model = m, hw = h, context = 1, t = r.t }
          local peak = 0
          for _, v in pairs(spec.peak_flops) do if v > peak then peak = v end end
          ok("serve tokens/s <= compute ceiling", r.throughput.output_tokens_per_s <= r.gpus * peak / (2 * d.matmul_params) * TOL,
            function() return format("%s: %g tok/s", label, r.throughput.output_tokens_per_s) end)
          ok("serve TPOT >= weights at datasheet bandwidth", r.tpot_s.p50 * TOL >= d.weight_bytes / spec.mem_bw,
            function() return format("%s: TPOT %g s", label, r.tpot_s.p50) end)
          for _, st in ipairs { "ttft_s", "tpot_s", "itl_s", "e2e_s", "queue_s" } do
            local x = r[st]
            ok("serve statistics finite and ordered", finite(x.mean) and x.p50 <= x.p90 * TOL and x.p90 <= x.p99 * TOL
              and x.p99 <= x.max * TOL and x.p50 >= 0,
              function() return format("%s: %s %g %g %g %g", label, st, x.p50, x.p90, x.p99, x.max) end)
          end
          ok("serve KV within capacity, goodput within throughput", r.kv_peak_fraction <= 1
            and r.goodput_rps <= r.throughput.requests_per_s * TOL,
            function() return format("%s: kv %g goodput %g", label, r.kv_peak_fraction, r.goodput_rps) end)
        end
      end
    end
  end
end

-- serving with expert and pipeline parallelism and multi-turn conversations (issue 53): the same
-- ceilings, per GPU of the group, and the KV cache within capacity and given back at the end
do
  local cases = {
    { model = "mixtral-8x7b", hw = "h100_sxm5", ep = 2 }, { model = "mixtral-8x7b", hw = "h200_sxm", ep = 4 },
    { model = "mixtral-8x7b", hw = "a100_sxm4_80gb", ep = 8, engine = "sglang" },
    { model = "deepseek-v3", hw = "h200_sxm", ep = 8, weight_dtype = "fp8", engine = "sglang" },
    { model = "llama-3.1-8b", hw = "h100_sxm5", pp = 2 }, { model = "llama-3.1-8b", hw = "l40s", pp = 4 },
    { model = "llama-3.1-70b", hw = "h100_sxm5", t = 2, pp = 2, engine = "trtllm" },
    { model = "llama-3.1-8b", hw = "h100_sxm5", turns = 3 }, { model = "llama-3.1-8b", hw = "l40s", turns = 4, off = true },
    { model = "mixtral-8x7b", hw = "h200_sxm", ep = 2, turns = 2 },
  }
  local loads = { { rate = 1 }, { rate = 20 }, { arrival = "offline" } }
  for i, c in ipairs(cases) do
    for j, w in ipairs(loads) do
      local wl = { arrival = w.arrival, rate = w.rate, requests = large and 1000 or 120, dataset = "sharegpt",
                   conversation = c.turns and { turns = c.turns, think_s = 2 } or nil }
      local o = { model = c.model, hw = c.hw, t = c.t, ep = c.ep, pp = c.pp, engine = c.engine, workload = wl,
                  weight_dtype = c.weight_dtype, prefix_caching = c.off and false or nil, detail = true }
      local okr, r = pcall(tw.serve.simulate, o)
      if not okr then refused(r) else
        local label = format("serve case %d load %d (%s on %s)", i, j, c.model, c.hw)
        local spec = tw.hw.resolve(c.hw)
        local d = tw.inference.decode { model = c.model, hw = c.hw, context = 1, t = c.t or 1,
                                        weight_dtype = c.weight_dtype, batch = c.ep or 1, ep = c.ep }
        local peak = 0
        for _, v in pairs(spec.peak_flops) do if v > peak then peak = v end end
        ok("serve ep/pp/turns tokens/s <= compute ceiling",
          r.throughput.output_tokens_per_s <= r.gpus * peak / (2 * d.matmul_params) * TOL,
          function() return format("%s: %g tok/s", label, r.throughput.output_tokens_per_s) end)
        ok("serve ep/pp/turns TPOT >= a rank's weights at datasheet bandwidth",
          r.tpot_s.p50 * TOL >= d.weight_bytes / spec.mem_bw,
          function() return format("%s: TPOT %g s", label, r.tpot_s.p50) end)
        ok("serve ep/pp/turns KV within capacity and all given back", r.kv_peak_fraction <= 1 and r.kv_blocks_end == 0,
          function() return format("%s: kv %g, %g blocks left", label, r.kv_peak_fraction, r.kv_blocks_end) end)
        local sum = 0
        for k = 1, #r.records.input_tokens do sum = sum + r.records.input_tokens[k] + r.records.output_tokens[k] - 1 end
        local cached = r.prefix and r.prefix.cached_tokens or 0
        ok("serve ep/pp/turns KV tokens conserved", r.prefill_tokens + r.decode_tokens == sum + r.recomputed_tokens - cached,
          function() return format("%s: %g written, %g expected", label, r.prefill_tokens + r.decode_tokens,
            sum + r.recomputed_tokens - cached) end)
      end
    end
  end
end

local total = 0
for _, name in ipairs(order) do
  print(format("%8d  %s", counts[name], name))
  total = total + counts[name]
end
print(format("%d checks and %d refusals apart (%s grid, seed %d) in %.1f s: %d failed", total, refusals,
  large and "large" or "CI", seed, os.clock() - t0, #failures))
for k = 1, math.min(#failures, 50) do print("FAIL " .. failures[k]) end
if #failures > 50 then print(format("... and %d more", #failures - 50)) end
return #failures == 0 and 0 or 1
