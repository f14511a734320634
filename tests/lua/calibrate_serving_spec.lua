-- calibrate --serving (issue 52): the readers on small files written by hand from the formats'
-- source (values worked out below), the round trip through a simulated benchmark with known host
-- times, and bad files named by file and field.
local results = require "tilewave.data.serving_results"
local fit = require "tilewave.explore.serving_fit"
local process = dofile("tests/lua/helpers/process.lua")

local DIR = "tests/fixtures/serving_results/"
local function near(a, b) return math.abs(a - b) <= 1e-12 * math.max(1, math.abs(b)) end

describe("serving_results.read", function()
  it("reads vLLM's --save-result JSON: a failed request is kept out of the completed", function()
    local r = results.read(DIR .. "vllm_small.json")
    assert.are.same({ "vllm", 2.0, 4.0, 3, 4 }, { r.format, r.rate, r.duration_s, r.completed, #r.requests })
    assert.is_nil(r.max_concurrency)
    assert.is_false(r.requests[4].ok) -- errors[4] = "TimeoutError", ttft 0
    -- completed R1 (ttft 20 ms, gaps 10, 12, 14 ms over 3 gaps: TPOT 12 ms), R2 (30 ms; 20 ms),
    -- R3 (40 ms; 10 ms). Even-numbered (fit): R2. Odd (held): R1 and R3: TTFT mean 30 ms, p90
    -- 20 + 0.9 x 20 = 38 ms, TPOT mean 11 ms. Throughput 3 completed / 4 s.
    local m = fit.measured(r)
    assert.is_true(near(m.fit.ttft_mean, 0.030) and near(m.fit.tpot_mean, 0.020))
    assert.is_true(near(m.held.ttft_mean, 0.030) and near(m.held.ttft_p90, 0.038) and near(m.held.tpot_mean, 0.011))
    assert.is_true(near(m.requests_per_s, 0.75))
  end)
  it("reads SGLang's JSONL: the last run by default, another by its line; Infinity is an unpaced rate", function()
    local r = results.read(DIR .. "sglang_small.jsonl")
    assert.are.same({ "sglang", math.huge, 16, 2 }, { r.format, r.rate, r.max_concurrency, r.completed })
    -- R1 TPOT (20 + 20) / 2 = 20 ms, R2 (4 x 10) / 4 = 10 ms; held (odd) = R1, fit (even) = R2
    local m = fit.measured(r)
    assert.is_true(near(m.held.tpot_mean, 0.020) and near(m.fit.tpot_mean, 0.010) and near(m.requests_per_s, 1.0))
    local first = results.read(DIR .. "sglang_small.jsonl", { run = 1 })
    assert.are.same({ 8, 1, 10.0 }, { first.rate, first.completed, first.duration_s })
    -- an unpaced run with max_concurrency replays as a closed loop
    assert.are.equal(16, fit.options({ model = "m" }, r, fit.measured(r).requests).workload.concurrency)
  end)

  it("reads GenAI-Perf's summary: statistics in ms as s, lengths, the closed loop of its concurrency", function()
    local r = results.read(DIR .. "genai_perf_small.json")
    assert.are.same({ "genai-perf", math.huge, 8, 300, true }, { r.format, r.rate, r.max_concurrency, r.completed, r.aggregate })
    assert.is_true(near(r.ttft.mean, 0.024) and near(r.ttft.p90, 0.031) and near(r.tpot.p50, 0.0124))
    assert.are.same({ 512, 0, 128 }, { r.isl.mean, r.isl.std, r.osl.mean })
    -- 300 requests at 4.9 req/s
    assert.is_true(near(r.duration_s, 300 / 4.9))
    local m = fit.measured(r)
    assert.is_true(m.aggregate and near(m.fit.ttft_p50, 0.022) and near(m.held.tpot_mean, 0.0125))
    -- replayed with its own lengths (fixed: no spread), 300 requests as a closed loop of 8
    local w = fit.options({ model = "m" }, r).workload
    assert.are.same({ 512, 128, 300, 300, 8 }, { w.lengths.isl[1], w.lengths.osl[300], #w.lengths.isl,
      #w.lengths.osl, w.concurrency })
  end)

  local tmp = os.tmpname()
  local function bad(text, want)
    local f = assert(io.open(tmp, "w"))
    f:write(text)
    f:close()
    local ok, err = pcall(results.read, tmp)
    assert.is_false(ok)
    assert.truthy(err:find(tmp, 1, true), err)
    assert.truthy(err:find(want, 1, true), err)
  end
  it("names the file and the field of a bad file", function()
    -- neither per-request arrays nor statistics: what to rerun
    bad('{"duration": 1, "request_rate": 1}', "mean_ttft_ms: expected the TTFT statistics of vLLM's or SGLang's "
      .. "result (mean_ttft_ms or median_ttft_ms); rerun the benchmark with --save-result (vLLM) or --output-file")
    bad('{"ttfts": [0.1], "duration": 1}', "input_lens: expected the per-request array")
    bad('{"input_lens": [1, 2', "JSON: expected JSON")
    bad('{"input_lens": [1, 2], "output_lens": [1], "ttfts": [0.1, 0.1], "itls": [[], []], "duration": 1}',
      "output_lens: expected 2 entries, as input_lens, got 1")
    bad('{"input_lens": [1], "output_lens": [1], "ttfts": [-0.1], "itls": [[]], "duration": 1}',
      "ttfts[1]: expected a finite non-negative number, got -0.1")
    bad('{"input_lens": [1], "output_lens": [1], "ttfts": [NaN], "itls": [[]], "duration": 1}', "ttfts[1]")
    bad('{"input_lens": [1], "output_lens": [1], "ttfts": [0], "itls": [[]], "errors": ["boom"], "duration": 1}',
      "errors: expected at least one completed request")
    bad('[1, 2, 3]', "JSON: expected an object (one run's result), got an array")
    bad("", "expected a benchmark result, got an empty file")
    bad('{"time_to_first_token": {"avg": 1, "p50": 1, "p90": 1, "unit": "fortnights"}}',
      "time_to_first_token.unit: expected ms, s, us or ns, got fortnights")
    bad('{"time_to_first_token": {"avg": 1, "p50": 1, "p90": 1, "unit": "ms"}, "inter_token_latency": {"avg": 1, '
      .. '"p50": 1, "p90": 1, "unit": "ms"}, "request_throughput": {"avg": 1}, "input_sequence_length": {"avg": 5}, '
      .. '"output_sequence_length": {"avg": 5}}', "input_config: expected the load: concurrency or request_rate")
    -- issue 66 item 3: impossible figures, each refused by name
    local ONE = '"input_lens": [10], "output_lens": [5], "itls": [[0.01, 0.01, 0.01, 0.01]], "request_rate": 1'
    bad('{' .. ONE .. ', "ttfts": [Infinity], "duration": 10}', "ttfts[1]: expected a finite non-negative number, got inf")
    bad('{' .. ONE .. ', "ttfts": [0.1], "duration": Infinity}', "duration: expected a finite non-negative number, got inf")
    bad('{' .. ONE .. ', "ttfts": [12], "duration": 10}', "ttfts[1]: expected at most the run's duration 10 s, got 12")
    bad('{' .. ONE .. ', "ttfts": [0.1], "duration": 10, "errors": [7]}', "errors[1]: expected a string")
    bad('{' .. ONE .. ', "ttfts": [0.1], "duration": 10}\0\0', "JSON: expected text, got a NUL byte at byte")
    bad('{"time_to_first_token": {"avg": 1, "p50": 5, "p90": 2, "unit": "ms"}}',
      "time_to_first_token.p50: expected at most p90 2 ms, got 5")
    -- more requests than a calibration can replay ~150 times
    local many = {}
    for i = 1, results.MAX_REQUESTS + 1 do many[i] = "1" end
    local list = table.concat(many, ",")
    bad('{"input_lens": [' .. list .. '], "output_lens": [], "ttfts": [], "itls": [], "duration": 1}',
      "input_lens: expected at most 20000 requests")
  end)
  it("prints no error for a metric the file does not hold (one-token outputs have no TPOT)", function()
    local process = dofile("tests/lua/helpers/process.lua")
    local f = assert(io.open(tmp, "w"))
    f:write('{"input_lens": [100, 120, 90, 110], "output_lens": [1, 1, 1, 1], "ttfts": [0.02, 0.021, 0.019, 0.02], '
      .. '"itls": [[], [], [], []], "request_rate": 1, "duration": 4.1}')
    f:close()
    local code, out, err = process.run(string.format("calibrate --serving %s --model llama-3.1-8b --hw h100_sxm5", tmp))
    assert.are.equal(0, code, err)
    -- the base row: TTFT MAPE and bias figures, then "-" twice for TPOT (not "0.0%") and once for ITL p99
    assert.truthy(out:find("\nbase vllm +[%d.]+%% +[-+][%d.]+%% +%- +%- +%- +[-+][%d.]+%%"), out)
    assert.is_nil(out:find("0.0%", 1, true), out)
  end)
  it("refuses a file that ran another model than --model, unless --force", function()
    local process = dofile("tests/lua/helpers/process.lua")
    -- the organization, a meta- prefix and an -Instruct suffix are not the model
    assert.are.equal("llama-3-8b", results.model_key("meta-llama/Meta-Llama-3-8B-Instruct"))
    assert.are.equal("qwen3-4b", results.model_key("Qwen/Qwen3-4B-FP8"))
    local f = assert(io.open(tmp, "w"))
    f:write('{"model_id": "meta-llama/Llama-3.1-8B-Instruct", "input_lens": [10, 12], "output_lens": [5, 5], '
      .. '"ttfts": [0.02, 0.02], "itls": [[0.01, 0.01, 0.01, 0.01], [0.01, 0.01, 0.01, 0.01]], "request_rate": 1, '
      .. '"duration": 2}')
    f:close()
    local code, _, err = process.run(string.format("calibrate --serving %s --model pythia-70m --hw h100_sxm5", tmp))
    assert.are.equal(1, code)
    assert.truthy(err:find("calibrate.model: " .. tmp .. " ran meta-llama/Llama-3.1-8B-Instruct, not pythia-70m", 1, true), err)
    code, _, err = process.run(string.format("calibrate --serving %s --model llama-3.1-8b --hw h100_sxm5", tmp))
    assert.are.equal(0, code, err)
    code, _, err = process.run(string.format("calibrate --serving %s --model pythia-70m --hw h100_sxm5 --force", tmp))
    assert.are.equal(0, code, err)
  end)
  it("refuses the same file given twice", function()
    local process = dofile("tests/lua/helpers/process.lua")
    local f = assert(io.open(tmp, "w"))
    f:write('{"input_lens": [10], "output_lens": [5], "ttfts": [0.1], "itls": [[0.01, 0.01, 0.01, 0.01]], '
      .. '"request_rate": 1, "duration": 10}')
    f:close()
    local code, _, err = process.run(string.format("calibrate --serving %s %s --model llama-3.1-8b --hw h100_sxm5",
      tmp, tmp))
    assert.are.equal(1, code)
    assert.truthy(err:find("given twice", 1, true), err)
  end)
  it("reads a plain JSON file past 64 MiB member by member, and refuses one past 4 GiB (issue 69 items 2, 7)",
    function()
    -- past MAX_FILE_BYTES (here lowered to 100 bytes) a file is read member by member: the texts
    -- skipped, each request's ITLs summed; the requests read are the same
    local whole = results.read(DIR .. "vllm_small.json")
    -- the same file spread over lines, as json.dump(indent=4) writes it (one line would be JSON Lines)
    local text = assert(io.open(DIR .. "vllm_small.json")):read("a")
    local f = assert(io.open(tmp, "w"))
    f:write("{\n", text:match("^%s*{(.*)$"))
    f:close()
    local saved = results.MAX_FILE_BYTES
    results.MAX_FILE_BYTES = 100
    local ok, streamed = pcall(results.read, tmp)
    results.MAX_FILE_BYTES = saved
    assert.is_true(ok, streamed)
    assert.are.equal(#whole.requests, #streamed.requests)
    for i, q in ipairs(whole.requests) do
      local p = streamed.requests[i]
      assert.are.same({ q.input, q.output, q.ttft_s, q.ok, q.itl_n }, { p.input, p.output, p.ttft_s, p.ok, p.itl_n })
      assert.is_true(math.abs(q.itl_sum - p.itl_sum) < 1e-12)
      assert.is_nil(p.itls)
    end
    assert.are.same({ whole.rate, whole.duration_s, whole.completed }, { streamed.rate, streamed.duration_s,
      streamed.completed })
    -- a truncated file read that way names what it expected
    f = assert(io.open(tmp, "w"))
    f:write('{"input_lens": [1, 2], "itls": [[0.1], [0.2')
    f:close()
    results.MAX_FILE_BYTES = 10
    ok, streamed = pcall(results.read, tmp)
    results.MAX_FILE_BYTES = saved
    assert.is_false(ok)
    assert.truthy(streamed:find(tmp .. ": JSON: expected JSON (a closing bracket or quote, got the end of the file)",
      1, true), streamed)
    -- past 4 GiB: a sparse file, refused before a byte is read
    f = assert(io.open(tmp, "w"))
    f:write("{")
    f:seek("set", 4 * 1024 * 1024 * 1024)
    f:write(" ")
    f:close()
    ok, streamed = pcall(results.read, tmp)
    assert.is_false(ok)
    assert.truthy(streamed:find("JSON: expected at most 4096 MiB (tilewave.data.serving_results.MAX_STREAM_BYTES)",
      1, true), streamed)
    os.remove(tmp)
  end)
end)

describe("calibrate --serving, round trip", function()
  it("recovers the host times and the front-end time of a simulated benchmark within 2%", function()
    -- two benchmarks simulated with an engine of known host times (3 ms a step, 50 us a sequence) and
    -- 25 ms a request outside the steps (issue 69 item 3), written as vLLM's result files, fitted
    -- from vllm@0.6's own (2 ms, 30 us, 0)
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    local f = assert(io.open(dir .. "/true.lua", "w"))
    f:write('return { base = "vllm@0.6", token_host_s = 3e-3, seq_host_s = 50e-6, frontend_s = 25e-3 }\n')
    f:close()
    for _, r in ipairs { { 2, 200 }, { 20, 400 } } do
      local code, _, err = process.run(string.format("serve llama-3.1-8b --hw h100_sxm5 --engine %s/true.lua "
        .. "--dataset sharegpt --rate %d --replay --requests %d --requests-out %s/r%d.json --requests-format vllm",
        dir, r[1], r[2], dir, r[1]))
      assert.are.equal(0, code, err)
    end
    local code, out, err = process.run(string.format("calibrate --serving %s/r2.json %s/r20.json --model llama-3.1-8b "
      .. "--hw h100_sxm5 --engine vllm@0.6 --out %s/fitted.lua", dir, dir, dir))
    assert.are.equal(0, code, err)
    assert.truthy(out:find("wrote " .. dir .. "/fitted.lua", 1, true), out)
    local e = dofile(dir .. "/fitted.lua")
    assert.are.equal("vllm@0.6", e.base)
    assert.is_true(math.abs(e.token_host_s / 3e-3 - 1) < 0.02, tostring(e.token_host_s))
    assert.is_true(math.abs(e.seq_host_s / 50e-6 - 1) < 0.02, tostring(e.seq_host_s))
    assert.is_true(math.abs(e.frontend_s / 25e-3 - 1) < 0.02, tostring(e.frontend_s))
    -- the file is an engine serve takes
    local c2, o2 = process.run(string.format("serve llama-3.1-8b --engine %s/fitted.lua --rate 2 --replay "
      .. "--requests 50", dir))
    assert.are.equal(0, c2)
    assert.truthy(o2:find("fitted engine", 1, true), o2)
    os.execute("rm -rf " .. dir)
  end)
  it("refuses a deployment that cannot hold the file's requests, naming both", function()
    -- a prompt of 5000 tokens against pythia-70m's 2048 positions
    local tmp = os.tmpname()
    local f = assert(io.open(tmp, "w"))
    f:write('{"request_rate": 1, "duration": 1, "input_lens": [5000], "output_lens": [2], "ttfts": [0.1], '
      .. '"itls": [[0.01]], "errors": [""]}')
    f:close()
    local code, _, err = process.run("calibrate --serving " .. tmp .. " --model pythia-70m --hw t4")
    os.remove(tmp)
    assert.are.equal(1, code)
    assert.truthy(err:find("cannot replay " .. tmp, 1, true), err)
    assert.truthy(err:find("pythia-70m on t4", 1, true), err)
    assert.truthy(err:find("max_position_embeddings 2048", 1, true), err)
  end)
  it("refuses serving options outside --serving", function()
    local code, _, err = process.run("calibrate --model llama-3.1-8b")
    assert.are.equal(1, code)
    assert.truthy(err:find("calibrate.model: --model applies with --serving only", 1, true), err)
    for _, c in ipairs { { "--ep 2", "calibrate.ep: --ep applies with --serving only" },
                         { "--run all", "calibrate.run: --run applies with --serving only" },
                         { "--kv-dtype fp8", "calibrate.kv_dtype: --kv-dtype applies with --serving only" } } do
      code, _, err = process.run("calibrate " .. c[1])
      assert.are.equal(1, code)
      assert.truthy(err:find(c[2], 1, true), err)
    end
    -- the server's limits, checked by name before a file is read
    code, _, err = process.run("calibrate --serving x.json --model llama-3.1-8b --max-model-len -5")
    assert.are.equal(1, code)
    assert.truthy(err:find("calibrate.max_model_len: expected positive integer, got -5", 1, true), err)
    code, _, err = process.run("calibrate --serving x.json --model llama-3.1-8b --run 0")
    assert.truthy(err:find("calibrate.run: expected a line number from 1 or 'all', got '0'", 1, true), err)
  end)
  -- issue 66 item 3: a name with a newline must not become code in the engine file tilewave writes
  it("writes an engine file whose names stay comments or strings, read back as the fit", function()
    local serving_fit = require "tilewave.explore.serving_fit"
    local evil = "x\ndo return {base=\"vllm@0.6\",token_host_s=0.049} end\n--.json\r]]"
    local held = { ttft_mape = 0.1, ttft_bias = 0.01, tpot_mape = 0.05, tpot_bias = -0.02, throughput = 0.03 }
    local f = { base = "vllm@0.6", token_host_s = 1.25e-3, seq_host_s = 4.5e-5, base_token_host_s = 2e-3,
                base_seq_host_s = 3e-5, frontend_s = 0.02, base_frontend_s = 0, requests = 10, after = { held = held, fit = { loss = 0.1 } },
                before = { held = held } }
    local text = serving_fit.engine_file(f, { requests = {}, path = evil, format = "vllm", rate = 2 },
      { model = evil, hw = "h100_sxm5", t = 1 })
    -- every line is a comment, `return {`, a field or `}`
    for line in text:gmatch("[^\n]*") do
      assert.truthy(line == "" or line:find("^%-%- ") or line == "return {" or line == "}"
        or line:find("^  [%w_]+ = "), line)
    end
    local chunk = assert(load(text, "=engine", "t", {}))
    local e = chunk()
    assert.are.equal("vllm@0.6", e.base)
    assert.are.equal(1.25e-3, e.token_host_s)
    assert.are.equal(4.5e-5, e.seq_host_s)
    assert.are.equal(0.02, e.frontend_s)
    assert.truthy(e.source:find(evil, 1, true))
    -- the comment helper: one line, the text kept but for control characters
    local literal = require "tilewave.util.literal"
    assert.are.equal("-- a b  c]]", literal.comment("a\nb\r\0c]]"))
  end)
end)

describe("a vLLM result file without per-request arrays", function()
  it("is read as a summary and fitted to its statistics (issue 69 item 1)", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    -- what vllm bench serve --save-result writes without --save-detailed: the aggregates alone
    f:write('{"backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": 100, '
      .. '"request_rate": 5.0, "max_concurrency": null, "completed": 100, "duration": 20.0, '
      .. '"total_input_tokens": 12800, "total_output_tokens": 6400, "mean_ttft_ms": 30.0, "median_ttft_ms": 28.0, '
      .. '"p99_ttft_ms": 60.0, "mean_tpot_ms": 12.0, "median_tpot_ms": 11.5, "p99_tpot_ms": 15.0}')
    f:close()
    local r = require("tilewave.data.serving_results").read(path)
    assert.are.same({ "vllm", true, 100, 5, "paced at 5 req/s" }, { r.format, r.aggregate, r.completed, r.rate, r.load })
    -- ms as s; lengths the totals over the completed requests, fixed (vLLM's random range ratio 0)
    assert.are.same({ 0.030, 0.028, 0.060, 0.012 }, { r.ttft.mean, r.ttft.p50, r.ttft.p99, r.tpot.mean })
    assert.are.same({ 128, "fixed", 64 }, { r.isl.mean, r.isl.kind, r.osl.mean })
    assert.are.equal(5, r.requests_per_s)
    -- without its total_output_tokens: the field it needs
    f = assert(io.open(path, "w"))
    f:write('{"backend": "vllm", "completed": 100, "duration": 20.0, "total_input_tokens": 12800, '
      .. '"mean_ttft_ms": 30.0}')
    f:close()
    local ok, err = pcall(require("tilewave.data.serving_results").read, path)
    os.remove(path)
    assert.is_false(ok)
    assert.truthy(err:find("total_output_tokens: expected a number", 1, true), err)
  end)
end)

describe("--requests-format vllm as vLLM writes it (issue 69 item 4)", function()
  -- the keys vllm/benchmarks/serve.py writes with --save-result --save-detailed (its `result` dict
  -- and what main() adds), less date
  local KEYS = { "backend", "endpoint_type", "label", "model_id", "tokenizer_id", "num_prompts", "request_rate",
    "burstiness", "max_concurrency", "duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
    "max_output_tokens_per_s", "max_concurrent_requests",
    "request_throughput", "request_goodput", "output_throughput", "total_token_throughput", "input_lens",
    "output_lens", "ttfts", "itls", "start_times", "generated_texts", "errors", "mean_ttft_ms", "median_ttft_ms",
    "std_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "std_tpot_ms", "p99_tpot_ms", "mean_itl_ms",
    "median_itl_ms", "std_itl_ms", "p99_itl_ms" }
  local REAL = "../shared/reference/serving/result_files/vllm0191_tokenkaki_a100-40gb_qwen3-8b_r5_detailed/"
    .. "vllm-direct-serving-qwen3-8b-a100-detailed.json"
  local cjson = require "cjson"
  local function kind(v)
    if v == cjson.null then return "null" end
    if type(v) == "table" then return "array" end
    return type(v)
  end
  it("has every key of a real vLLM 0.19.1 file, each of its type, and reads back", function()
    local f = io.open(REAL, "r")
    if not f then pending("../shared is not beside the repository") return end
    local real = cjson.decode(f:read("a"))
    f:close()
    local tmp = os.tmpname()
    local code, _, err = process.run(string.format("serve llama-3-8b --rate 4 --requests 50 --replay --isl 128 --osl 16 "
      .. "--requests-out %s --requests-format vllm", tmp))
    assert.are.equal(0, code, err)
    local f2 = assert(io.open(tmp, "r"))
    local ours = cjson.decode(f2:read("a"))
    f2:close()
    for _, k in ipairs(KEYS) do
      assert.truthy(real[k] ~= nil, "the real file lacks " .. k)
      assert.truthy(ours[k] ~= nil, "ours lacks " .. k)
      -- null where vLLM writes null for this run (no concurrency cap, no goodput SLO, no label)
      assert.are.equal(kind(real[k]), kind(ours[k]), k)
    end
    -- per request: start_times ascending from 0, ttfts positive, one ITL list a request of output - 1 gaps
    assert.are.equal(50, #ours.start_times)
    assert.are.equal(0, ours.start_times[1])
    for i = 2, 50 do assert.is_true(ours.start_times[i] >= ours.start_times[i - 1]) end
    assert.are.equal(15, #ours.itls[1])
    -- the aggregates agree with the arrays: mean TTFT in ms
    local t = 0
    for _, x in ipairs(ours.ttfts) do t = t + x end
    assert.is_true(math.abs(ours.mean_ttft_ms - 1e3 * t / 50) < 1e-9)
    local r = results.read(tmp)
    os.remove(tmp)
    assert.are.same({ "vllm", 50, 4 }, { r.format, r.completed, r.rate })
    assert.are.equal(0, r.requests[1].start_s)
  end)
end)

describe("--requests-format sglang and genai-perf as their clients write them (issue 69 item 4)", function()
  local cjson = require "cjson"
  local function kind(v)
    if v == cjson.null then return "null" end
    if type(v) == "table" then return next(v) == nil and "empty" or (v[1] ~= nil and "array" or "object") end
    return type(v)
  end
  local function write(fmt)
    local tmp = os.tmpname()
    local code, _, err = process.run(string.format("serve llama-3-8b --rate 4 --requests 40 --replay --isl 128 --osl 16 "
      .. "--requests-out %s --requests-format %s", tmp, fmt))
    assert.are.equal(0, code, err)
    return tmp
  end
  local RF = "../shared/reference/serving/result_files/"
  it("sglang: every aggregate key of a real SGLang 0.5.5 line, of its type, and the per-request arrays", function()
    local f = io.open(RF .. "sglang055_tonyli_gh200_qwen2.5-3b_agg/agg_n100_in128_out128_c8.jsonl", "r")
    if not f then pending("../shared is not beside the repository") return end
    local real = cjson.decode(f:read("l"))
    f:close()
    local tmp = write("sglang")
    local text = assert(io.open(tmp)):read("a")
    assert.are.equal(1, select(2, text:gsub("\n", ""))) -- one JSON line
    local ours = cjson.decode(text)
    -- the client's own fields and the run's statistics; tag and server_info name the user's setup
    for k, v in pairs(real) do
      if k ~= "tag" and k ~= "server_info" then
        assert.truthy(ours[k] ~= nil, "ours lacks " .. k)
        -- the dataset's parameters are null in ours (no SGLang dataset drew the requests)
        if not k:find("^random_") and not k:find("^sharegpt") and k ~= "dataset_name" and k ~= "max_concurrency"
          and k ~= "total_input_text_tokens" and k ~= "total_input_vision_tokens" then
          assert.are.equal(kind(v), kind(ours[k]), k)
        end
      end
    end
    for _, k in ipairs { "input_lens", "output_lens", "ttfts", "itls", "errors" } do assert.are.equal(40, #ours[k], k) end
    local r = results.read(tmp)
    os.remove(tmp)
    assert.are.same({ "vllm", 40, 4 }, { r.format, r.completed, r.rate })
  end)
  it("genai-perf: the summary's statistics, each { unit, avg, p50, p90, p99, ... }, read back as a summary", function()
    local f = io.open(RF .. "genai-perf_triton-trtllm0.16_issue298_c100/profile_export_genai_perf.streaming.json", "r")
    if not f then pending("../shared is not beside the repository") return end
    local real = cjson.decode(f:read("a"))
    f:close()
    local tmp = write("genai-perf")
    local ours = cjson.decode(assert(io.open(tmp)):read("a"))
    for k, v in pairs(real) do
      if k ~= "input_config" then
        assert.truthy(ours[k] ~= nil, "ours lacks " .. k)
        for sk in pairs(v) do assert.truthy(ours[k][sk] ~= nil, string.format("ours lacks %s.%s", k, sk)) end
        assert.are.equal(v.unit, ours[k].unit, k)
      end
    end
    local r = results.read(tmp)
    os.remove(tmp)
    assert.are.same({ "genai-perf", true, 40, 4 }, { r.format, r.aggregate, r.completed, r.rate })
    assert.are.equal(128, r.isl.mean)
  end)
end)

describe("a paced run with a cap on requests in flight (issue 69 item 6)", function()
  it("replays at its rate with the cap its client held (vllm bench serve --request-rate with --max-concurrency)",
    function()
    local tmp = os.tmpname()
    local f = assert(io.open(tmp, "w"))
    f:write('{"backend": "vllm", "request_rate": 50.0, "max_concurrency": 2, "completed": 40, "duration": 4.0, '
      .. '"total_input_tokens": 5120, "total_output_tokens": 1280, "mean_ttft_ms": 30.0, "median_ttft_ms": 28.0, '
      .. '"p99_ttft_ms": 60.0, "mean_tpot_ms": 12.0, "median_tpot_ms": 11.5, "p99_tpot_ms": 15.0}')
    f:close()
    local r = results.read(tmp)
    os.remove(tmp)
    assert.are.equal("paced at 50 req/s, at most 2 in flight", r.load)
    local o = fit.options({ model = "llama-3.1-8b", hw = "h100_sxm5" }, r)
    assert.are.same({ 50, 2 }, { o.workload.rate, o.workload.concurrency })
    -- never more than 2 in flight: at 50 req/s against ~0.2 s a request, the cap sets the pace
    local run = require("tilewave.serve.simulate").simulate(o)
    assert.is_true(run.throughput.requests_per_s < 15, tostring(run.throughput.requests_per_s))
  end)
end)
