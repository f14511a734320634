-- Issue 70 (everyday use, round 3): what a new user tripped on, item by item. Each expectation is
-- worked out by hand in its comment.
local tw = require "tilewave"

local EXE = os.getenv("TILEWAVE_EXE") or "build/tilewave"
-- the executable's standard output for arguments (fixed words: quoted for the shell anyway)
local function run_cli(...)
  local quoted = {}
  for i, a in ipairs { ... } do quoted[i] = "'" .. a:gsub("'", "'\\''") .. "'" end
  local f = assert(io.popen(EXE .. " " .. table.concat(quoted, " ") .. " 2>&1"))
  local text = f:read("a")
  f:close()
  return text
end

describe("issue 70 item 1: speculative decoding is named", function()
  it("in decode's result and its header, with an acceptance rate not given marked as assumed", function()
    local o = { model = "llama-3.1-8b", hw = "h100_sxm5", batch = 8, context = 2048,
                speculative = { draft = "llama-3.2-1b", k = 4 } }
    local r = tw.inference.decode(o)
    -- (1 - 0.7^5) / (1 - 0.7) = (1 - 0.16807) / 0.3 = 2.7731 tokens per target step
    assert.is_true(math.abs(r.speculative.tokens_per_step - 2.7731) < 1e-4)
    assert.is_true(r.speculative.acceptance_assumed)
    o.speculative.acceptance = 0.7
    assert.is_nil(tw.inference.decode(o).speculative.acceptance_assumed)
    local text = run_cli("decode", "llama-3.1-8b", "--batch", "1,8", "--speculative", "draft=llama-3.2-1b,k=4")
    assert.truthy(text:find("speculative: draft llama-3.2-1b, k = 4, acceptance 0.70 assumed", 1, true))
    text = run_cli("decode", "llama-3.1-8b", "--batch", "1", "--speculative", "draft=llama-3.2-1b,k=4,acceptance=0.6")
    -- (1 - 0.6^5) / 0.4 = (1 - 0.07776) / 0.4 = 2.3056
    assert.truthy(text:find("acceptance 0.60 (2.31 tokens per target step)", 1, true))
  end)

  it("in serve's header", function()
    local text = run_cli("serve", "llama-3.1-8b", "--rate", "1", "--requests", "50",
      "--speculative", "draft=llama-3.2-1b,k=2,acceptance=0.5")
    -- (1 - 0.5^3) / 0.5 = 1.75
    assert.truthy(text:find("speculative: draft llama-3.2-1b, k = 2, acceptance 0.50 (1.75 tokens per target step)", 1,
      true), text:sub(1, 400))
  end)
end)

describe("issue 70 item 4: a configuration that does not fit has no time", function()
  it("in tw.inference.decode: qwen3-8b at batch 256, context 4096 on an H100 needs its KV cache alone past 80 GB", function()
    local r = tw.inference.decode { model = "qwen3-8b", hw = "h100_sxm5", batch = 256, context = 4096 }
    assert.are.equal(false, r.fits)
    assert.is_nil(r.tpot_s)
    assert.is_nil(r.tokens_per_s)
    -- KV bytes: 2 (K and V) x 36 layers x 8 KV heads x 128 head_dim x 2 bytes = 147,456 per token,
    -- x 256 x 4096 tokens = 154,618,822,656 bytes
    assert.are.equal(147456 * 256 * 4096, r.memory.kv_bytes)
    assert.truthy(r.does_not_fit:find("^needs 17%d%.%d%d GB per GPU, has 85%.52 GB$"), r.does_not_fit)
    -- batch 8: 8 x 4096 x 147,456 = 4.83 GB of KV beside 16.4 GB of weights: it fits and is priced
    local ok = tw.inference.decode { model = "qwen3-8b", hw = "h100_sxm5", batch = 8, context = 4096 }
    assert.are.equal(true, ok.fits)
    assert.is_true(ok.tpot_s > 0)
    assert.are.equal(147456 * 8 * 4096, ok.memory.kv_bytes)
  end)

  it("in tw.training.step and the train command: memory, no step time", function()
    local o = { model = "qwen2.5-7b", cluster = "dgx_h100", nodes = 4, global_batch = 1024, s = 4096 }
    local r = tw.training.step(o)
    assert.are.equal(false, r.fits)
    for _, k in ipairs { "step_s", "mfu", "hfu", "tokens_per_s", "breakdown" } do assert.is_nil(r[k], k) end
    -- mixed-precision Adam without ZeRO: 12 bytes of optimizer state per parameter (fp32 master, m, v);
    -- the optimizer alone is 12 x 7.6e9 = 91 GB, past the H100's 85.5 GB
    assert.is_true(r.memory.optimizer > r.memory_bytes)
    local text = run_cli("train", "qwen2.5-7b", "--nodes", "4", "--global-batch", "1024", "--s", "4096")
    assert.truthy(text:find("does NOT fit", 1, true))
    assert.truthy(text:find("not priced", 1, true))
    assert.falsy(text:find("MFU", 1, true))
    local json = require("cjson").decode((run_cli("train", "qwen2.5-7b", "--nodes", "4", "--global-batch", "1024", "--s",
      "4096", "--format", "json")))
    assert.are.equal(false, json.fits)
    assert.is_nil(json.step_s)
    -- ZeRO 3 over 32 GPUs with full recomputation fits and is priced
    o.zero, o.checkpointing = 3, "full"
    local z = tw.training.step(o)
    assert.is_true(z.fits)
    assert.is_true(z.step_s > 0)
  end)
end)

describe("issue 70 item 5: default weight formats", function()
  it("deepseek-v3 defaults to its checkpoint's fp8", function()
    local c = tw.models.load("deepseek-v3")
    assert.are.equal("fp8", c.weight_dtype)
    -- 8 bits per stored weight: the decode step reads each weight at 1 byte
    local d = tw.inference.decode_step { model = "deepseek-v3", hw = "h200_sxm", t = 8, context = 1 }
    assert.are.equal("fp8", d.weight_dtype)
    assert.is_true(math.abs(d.bits_per_weight - 8) < 1e-9)
  end)

  it("a gpt-oss config.json without quantization_config is bf16, says so, and is offered mxfp4 first", function()
    local path = "tests/fixtures/hf_variants/gpt-oss-20b-no-quantization"
    local c = tw.models.load(path)
    assert.are.equal("bf16", c.weight_dtype)
    assert.truthy(c.weight_dtype_source:find("no quantization_config", 1, true))
    assert.truthy(c.weight_dtype_source:find("--weight-dtype mxfp4", 1, true))
    -- on an L4 (24 GB) the bf16 weights (about 42 GB) do not fit; mxfp4 (about 13 GB) does, and comes first
    local text = run_cli("decode", path, "--hw", "l4", "--batch", "1")
    assert.truthy(text:find("would fit   mxfp4 weights", 1, true), text)
    assert.truthy(text:find("no quantization_config", 1, true), text)
  end)
end)

describe("issue 70 item 7: names", function()
  it("model ids ignore case, as device ids do", function()
    assert.are.equal("llama-3.1-8b", tw.models.load("llama-3.1-8B").id)
    assert.are.equal("llama-3.1-8b", tw.models.resolve("Llama-3.1-8B").id)
  end)

  it("an unknown device suggests one of its own line first: b100 -> b200, not a100", function()
    local ok, err = pcall(tw.hw.resolve, "b100", "decode.hw")
    assert.is_false(ok)
    assert.truthy(err:find("did you mean 'b200'", 1, true), err)
    -- the first letter breaks ties only: a nearer key still wins
    assert.are.equal("a10", require("tilewave.util.check").nearest("a10x", { a10 = true, b10x = true }))
  end)

  it("prefill names its own tensor-parallel option", function()
    local text = run_cli("prefill", "llama-3.1-8b", "--prompt", "100", "--t", "3")
    assert.truthy(text:find("prefill.t: expected a divisor of num_attention_heads 32", 1, true), text)
  end)
end)

describe("issue 70 item 9: loose ends", function()
  it("a fresh clone's regression checks find their baselines current", function()
    local text = run_cli("check", "tests/regression/gpt_neox.lua", "tests/regression/llama.lua",
      "tests/regression/modernbert.lua")
    assert.truthy(text:find("84 passed, 0 failed", 1, true), text:sub(-300))
    assert.falsy(text:find("stale", 1, true))
  end)

  it("a baseline's hash ignores a definition's citations and names, not what it prices", function()
    local regress = require "tilewave.explore.regress"
    local c, spec = tw.models.load("pythia-160m"), tw.hw.load("h100_sxm5")
    local h = regress.definition_hash(c, spec)
    local s2 = {}
    for k, v in pairs(spec) do s2[k] = v end
    s2.sources = { mem_bw = "another citation" }
    s2.name = "renamed"
    assert.are.equal(h, regress.definition_hash(c, s2))
    s2.mem_bw = spec.mem_bw * 1.01
    assert.are_not.equal(h, regress.definition_hash(c, s2))
  end)
end)

describe("issue 70 item 3: a serving engine's memory budget", function()
  it("decode with vLLM fits against 0.9 of the memory, as vLLM allocates it", function()
    -- mistral-7b, batch 128 x 4096 tokens: KV 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072
    -- bytes per token x 524,288 tokens = 68.72 GB, weights 14.48 GB, workspace 1.07 GB: 84.28 GB,
    -- under the H100's 85.52 GB (NVML) but over vLLM's 0.9 x 85.52 = 76.97 GB
    local text = run_cli("decode", "mistral-7b", "--batch", "128", "--context", "4096", "--engine", "vllm")
    assert.truthy(text:find("does not fit: needs 84.28 GB, has 76.97 GB (vllm engine: gpu_memory_utilization 0.90",
      1, true), text)
    -- the standalone default engine takes the whole memory: it fits
    text = run_cli("decode", "mistral-7b", "--batch", "128", "--context", "4096")
    assert.truthy(text:find("84.28 GB of 85.52 GB", 1, true), text)
    -- TensorRT-LLM: the weights, then 0.9 of what they leave: 14.48 + 0.9 x (85.52 - 14.48) = 78.42 GB
    text = run_cli("decode", "mistral-7b", "--batch", "64", "--context", "4096", "--engine", "trtllm")
    assert.truthy(text:find("of 78.42 GB (trtllm engine: the KV cache takes 0.90 of the memory the weights leave)", 1,
      true), text)
  end)
end)

describe("issue 70 item 6: headers that hide", function()
  it("mixed pools: the serve header gives both pools' KV capacity", function()
    local text = run_cli("serve", "llama-3.1-8b", "--hw", "h100_sxm5", "--prefill-pool", "t=1,replicas=1",
      "--decode-pool", "t=1,replicas=1,hw=l40s", "--rate", "1", "--requests", "100")
    assert.truthy(text:find("tokens per prefill replica, %d+ per decode replica"), text:sub(1, 600))
  end)

  it("hw: the datasheet's memory and NVML's, in MiB", function()
    local text = run_cli("hw", "h200_sxm")
    assert.truthy(text:find("141 GB (datasheet)", 1, true), text)
    -- 143,771 MiB x 2^20 = 150.76 GB
    assert.truthy(text:find("150.8 GB = 143771 MiB (NVML; priced)", 1, true), text)
  end)
end)

describe("issue 70 item 9: decode --out", function()
  it("writes the table atomically and refuses a folder that is not there", function()
    local path = os.tmpname()
    local text = run_cli("decode", "llama-3.1-8b", "--batch", "1,8", "--out", path)
    assert.truthy(text:find("wrote " .. path, 1, true), text)
    local f = assert(io.open(path))
    local body = f:read("a")
    f:close()
    os.remove(path)
    assert.truthy(body:find("^decode llama%-3%.1%-8b on h100_sxm5"), body)
    text = run_cli("decode", "llama-3.1-8b", "--out", "/nonexistent-dir/x.txt")
    assert.truthy(text:find("decode.out: cannot write /nonexistent-dir/x.txt", 1, true), text)
  end)
end)

describe("issue 70 item 2: charts draw what the table prints", function()
  local charts = require "tilewave.report.serve_charts"
  local plot = require "tilewave.report.plot"
  local function run(rate, state)
    local s = { mean = 1, p50 = 0.1 * rate, p90 = 0.2 * rate, p99 = 0.3 * rate, max = rate }
    return { rate = rate, model = "m", hw = "h", gpus = 1, engine = "vllm", scheduler = "vllm",
             ttft_s = s, tpot_s = s, throughput = { requests_per_s = rate },
             interval = { ["ttft_s.p99"] = { 1, 2 }, ["tpot_s.p99"] = { 1, 2 }, ["ttft_s.p50"] = { 1, 2 },
                          ["tpot_s.p50"] = { 1, 2 } },
             stability = { state = state } }
  end

  it("no TTFT for an unstable load, TPOT for every load", function()
    local c = charts.latency { run(5, "stable"), run(20, "stable"), run(70, "unstable") }
    for _, s in ipairs(c.series) do
      local xs = {}
      for _, p in ipairs(s.points) do xs[#xs + 1] = p[1] end
      if s.title:find("^TTFT") then assert.are.same({ 5, 20 }, xs, s.title)
      else assert.are.same({ 5, 20, 70 }, xs, s.title) end
    end
    -- every load unstable: no TTFT series at all (a chart of TPOT alone)
    c = charts.latency { run(70, "unstable"), run(80, "unstable") }
    for _, s in ipairs(c.series) do assert.falsy(s.title:find("^TTFT")) end
  end)

  it("a point label in the right third of the axis ends at its point, so it is not cut off", function()
    -- x from 10 to 40: the cut at 10 + 2/3 x 30 = 30; labels of points past it are right-aligned
    local script = plot.script({ title = "t", series = { { title = "s", points = { { 10, 1, "left one" },
      { 40, 2, "h200_sxm t2 x1" } }, with = "linespoints", labels = true } } }, "/tmp/x.svg")
    assert.truthy(script:find('$d1l << EOD\n10 1 "left one"\nEOD', 1, true), script)
    assert.truthy(script:find('$d1r << EOD\n40 2 "h200_sxm t2 x1"\nEOD', 1, true), script)
    assert.truthy(script:find("$d1r using 1:2:3 with labels right offset -0.5,0.3", 1, true), script)
  end)

  it("a mark's label sits on an opaque box, and the roofline's title names every device", function()
    local script = plot.script({ title = "t", series = { { title = "s", points = { { 1, 1 }, { 2, 2 } } } },
      marks = { { x = 1.5, label = "memory full past batch 254" } } }, "/tmp/x.svg")
    assert.truthy(script:find("memory full past batch 254' at 1.5, graph 0.97999999999999998 rotate by 90 right "
      .. "offset -0.6,0 font ',10' tc rgb 'gray30' front boxed", 1, true), script)
    assert.truthy(script:find("set style textbox opaque", 1, true))
    local chart = require("tilewave.explore.figures").roofline({ "h100_sxm5", "h200_sxm" })
    assert.are.equal("Roofline, bf16: h100_sxm5, h200_sxm", chart.title)
  end)
end)

describe("issue 70 item 8: workloads", function()
  it("a dataset's requests past the model's context are dropped and counted, as benchmark clients do", function()
    -- arxiv (Vidur): isl up to 4096, osl up to 3273; phi-3-mini's context is 4096 tokens
    local r = tw.serve.simulate { model = "phi-3-mini", hw = "h100_sxm5", workload = { dataset = "arxiv", rate = 1,
                                  requests = 500, measure = "replay" } }
    assert.are.equal(4096, r.dropped.max_total)
    assert.is_true(r.dropped.requests > 0)
    local text = run_cli("serve", "phi-3-mini", "--dataset", "arxiv", "--rate", "1", "--requests", "300", "--replay")
    assert.truthy(text:find("had isl %+ osl above 4096 tokens and were dropped"), text:sub(-800))
    -- lengths the user gave are what was asked: refused, not dropped
    text = run_cli("serve", "phi-3-mini", "--isl", "4000", "--osl", "200", "--rate", "1")
    assert.truthy(text:find("expected isl + osl within max_position_embeddings 4096", 1, true), text)
  end)

  it("durations take min and h where they are typed", function()
    local seconds = require("tilewave.cli.serve").seconds
    assert.are.equal(600, seconds("10min", "serve.think_time"))
    assert.are.equal(5400, seconds("1.5h", "serve.think_time"))
    assert.are.equal(0.05, seconds("50ms", "serve.slo.tpot"))
    local ok, err = pcall(seconds, "10", "serve.think_time")
    assert.is_false(ok)
    assert.truthy(err:find("(h, min, s, ms, us)", 1, true))
  end)
end)
