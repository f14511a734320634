--- tilewave.data.serving_results: serving benchmark results as the engines' own clients write them,
-- read into one shape for calibration (tilewave.explore.serving_fit).
--
-- Formats, as their writers' source defines them:
--   vllm    `vllm bench serve --save-result` (vllm-project/vllm benchmarks/benchmark_serving.py,
--           `result` dict): one JSON object with request_rate (request/s; Python's json writes an
--           unpaced run as Infinity), max_concurrency (null or an integer), num_prompts, duration (s),
--           completed, and per request input_lens, output_lens (tokens), ttfts (s; 0 for a failed
--           request), itls (the gaps of each request, s), errors ("" when it succeeded).
--   sglang  `python -m sglang.bench_serving --output-file F --output-details` (sgl-project/sglang
--           python/sglang/bench_serving.py): JSON Lines, one run appended per line, each the same
--           fields as vLLM's (input_lens, output_lens, ttfts, itls, errors, request_rate,
--           max_concurrency, duration, completed); the last line is read (`run` picks another).
--   genai-perf  GenAI-Perf's (and AIPerf's) summary, profile_export_genai_perf.json: statistics, not
--           requests: time_to_first_token and inter_token_latency ({ avg, p50, p90, unit }),
--           request_throughput { avg }, input_sequence_length and output_sequence_length ({ avg, std },
--           tokens), request_count, input_config { concurrency | request_rate } (triton-inference-server/
--           perf_analyzer genai-perf docs). Its per-request profile_export.json holds response texts,
--           not token counts (a tokenizer would be needed): it is not read.
-- Limits: a file of at most 16 MiB (tilewave.util.sandbox.MAX_FILE_BYTES), text without NUL bytes;
-- per-request arrays of one length, 1 to M.MAX_REQUESTS requests; every number finite and >= 0 (an
-- unpaced request_rate is Infinity, the one exception); errors strings; a run's duration positive,
-- and every request's TTFT within it; a statistic's p50 at most its p90.
-- Units: s, token, request/s.
-- @module tilewave.data.serving_results
local sandbox = require "tilewave.util.sandbox"

local M = {}
local format = string.format

--- The most requests a file may hold: a calibration replays every one at each of its ~150
-- evaluations.
M.MAX_REQUESTS = 20000

local function fail(path, field, what, got)
  error(format("%s: %s: %s%s", path, field, what, got ~= nil and (", got " .. tostring(got)) or ""), 0)
end

local function decode(path, text, line)
  local cjson = require "cjson.safe"
  local v, err = cjson.decode(text)
  if v == nil then
    fail(path, line and format("line %d", line) or "JSON", "expected JSON (" .. tostring(err) .. ")")
  end
  if type(v) ~= "table" then fail(path, "JSON", "expected an object", type(v)) end
  return v
end

local ARRAYS = { "input_lens", "output_lens", "ttfts", "itls" }

-- a number field: finite, >= 0 (nil when absent and optional)
local function number(path, v, field, optional)
  if v == nil or v == require("cjson").null then
    if optional then return nil end
    fail(path, field, "expected a number")
  end
  if type(v) ~= "number" or v ~= v or v < 0 or v == math.huge then
    fail(path, field, "expected a finite non-negative number", v)
  end
  return v
end

-- a GenAI-Perf statistic { avg, p50, p90, unit } in s (units ms, s, ns)
local SCALE = { ms = 1e-3, s = 1, ns = 1e-9, us = 1e-6 }
local function stat(path, doc, key)
  local v = doc[key]
  if type(v) ~= "table" then fail(path, key, "expected a statistic { avg, p50, p90, unit }", v == nil and "none" or type(v)) end
  local k = SCALE[v.unit]
  if not k then fail(path, key .. ".unit", "expected ms, s, us or ns", v.unit) end
  local out = {}
  for _, f in ipairs { "avg", "p50", "p90" } do out[f] = number(path, v[f], key .. "." .. f) * k end
  if out.p50 > out.p90 then fail(path, key .. ".p50", format("expected at most p90 %g %s", v.p90, v.unit), v.p50) end
  return { mean = out.avg, p50 = out.p50, p90 = out.p90 }
end

-- GenAI-Perf's summary (see the module's comment)
local function genai_perf(path, doc)
  local function count(key)
    local v = doc[key]
    if type(v) ~= "table" then fail(path, key, "expected { avg, std } (tokens)", v == nil and "none" or type(v)) end
    return { mean = number(path, v.avg, key .. ".avg"), std = number(path, v.std or 0, key .. ".std") }
  end
  local out = { format = "genai-perf", path = path, requests = {} }
  out.ttft, out.tpot = stat(path, doc, "time_to_first_token"), stat(path, doc, "inter_token_latency")
  local rt = doc.request_throughput
  out.requests_per_s = number(path, type(rt) == "table" and rt.avg or nil, "request_throughput.avg")
  out.isl, out.osl = count("input_sequence_length"), count("output_sequence_length")
  if out.isl.mean < 1 or out.osl.mean < 1 then fail(path, "input_sequence_length", "expected at least 1 token", out.isl.mean) end
  local n = doc.request_count
  if type(n) == "table" then n = n.avg end
  n = number(path, n or 1000, "request_count")
  if n < 1 or n % 1 ~= 0 or n > M.MAX_REQUESTS then
    fail(path, "request_count", format("expected an integer from 1 to %d", M.MAX_REQUESTS), n)
  end
  out.completed = math.tointeger(n)
  local cfg = type(doc.input_config) == "table" and doc.input_config or {}
  local cc, rr = cfg.concurrency, cfg.request_rate
  if type(cc) == "number" and cc >= 1 and cc % 1 == 0 then out.rate, out.max_concurrency = math.huge, math.tointeger(cc)
  elseif type(rr) == "number" and rr > 0 and rr == rr then out.rate = rr
  else fail(path, "input_config", "expected concurrency (an integer) or request_rate (request/s)", "neither") end
  if not (out.requests_per_s > 0) then fail(path, "request_throughput.avg", "expected a positive rate", out.requests_per_s) end
  out.duration_s = out.completed / out.requests_per_s
  out.aggregate = true
  return out
end

-- the model a result names: vLLM's and SGLang's model_id (or model), GenAI-Perf's input_config.model
-- (a string or a list); nil when it names none
local function model_of(doc)
  local m = doc.model_id or doc.model
  local cfg = type(doc.input_config) == "table" and doc.input_config or nil
  if m == nil and cfg then m = cfg.model end
  if type(m) == "table" then m = m[1] end
  return type(m) == "string" and m ~= "" and m or nil
end

--- The name of model `name` as it is compared across files and presets: lower case, without its
-- organization, a "meta-" prefix, or a suffix naming a tuning or a format (-instruct, -chat, -hf,
-- -it, -base, -fp8, -awq, -gptq, -int4, -int8), e.g. meta-llama/Meta-Llama-3-8B-Instruct ->
-- llama-3-8b.
function M.model_key(name)
  local s = tostring(name):lower():gsub("^.*/", ""):gsub("^meta%-", "")
  local changed = true
  while changed do
    changed = false
    for _, suffix in ipairs { "-instruct", "-chat", "-hf", "-it", "-base", "-fp8", "-awq", "-gptq", "-int4", "-int8" } do
      if s:sub(-#suffix) == suffix then s, changed = s:sub(1, -#suffix - 1), true end
    end
  end
  return s
end

--- Read a benchmark result file.
-- @string path the file
-- @tparam[opt] table o `{ run (1-based line of a JSON Lines file; default the last) }`
-- @return `{ format ("vllm" | "sglang" | "genai-perf"), path, model (the model the file names, or nil),
--   rate (request/s; math.huge: unpaced),
--   max_concurrency (or nil), duration_s, requests = { { input, output, ttft_s, itls = {...}, ok }
--   ... } (in the file's order), completed (requests that succeeded) }`; a GenAI-Perf summary has
--   no requests but `aggregate = true`, ttft and tpot ({ mean, p50, p90 }, s), requests_per_s, isl
--   and osl ({ mean, std })
-- @raise `<path>: <field>: <expectation>, got <value>` for a file of another format, truncated
--   JSON, arrays of different lengths, negative or NaN times, no completed request, a file over 16
--   MiB
function M.read(path, o)
  -- 69 lines, one function: a result file validated field by field, in the order its errors are
  -- raised
  o = o or {}
  local text, err = sandbox.read_file(path)
  if not text then error(err, 0) end
  local nul = text:find("\0", 1, true)
  if nul then fail(path, "JSON", "expected text, got a NUL byte at byte " .. nul) end
  local doc, fmt
  local lines = {}
  for l in text:gmatch("[^\n]+") do if l:find("%S") then lines[#lines + 1] = l end end
  if #lines == 0 then fail(path, "JSON", "expected a benchmark result, got an empty file") end
  if #lines > 1 and lines[1]:find("^%s*{") and lines[1]:find("}%s*$") and text:sub(1, 1) == "{" then
    -- JSON Lines: one run a line (SGLang appends); a one-object file spread over lines is plain
    -- JSON
    local okl = pcall(decode, path, lines[1], 1)
    if okl then
      local i = o.run or #lines
      if math.type(i) ~= "integer" or i < 1 or i > #lines then
        fail(path, "run", format("expected a line from 1 to %d", #lines), o.run)
      end
      doc, fmt = decode(path, lines[i], i), "sglang"
    end
  end
  if not doc then
    doc = decode(path, text)
    -- one run of SGLang's JSONL is one line: its backend field names it
    fmt = type(doc.backend) == "string" and doc.backend:find("^sglang") and "sglang" or "vllm"
  end
  if doc.input_lens == nil and type(doc.time_to_first_token) == "table" then
    local g = genai_perf(path, doc)
    g.model = model_of(doc)
    return g
  end
  for _, k in ipairs(ARRAYS) do
    if type(doc[k]) ~= "table" then
      -- vLLM's benchmark writes the arrays only with --save-detailed since 2025 (vllm/benchmarks/
      -- serve.py: without it the per-request keys are dropped from --save-result's JSON)
      fail(path, k, "expected the per-request array of vLLM's --save-result JSON (rerun vllm bench serve with "
        .. "--save-result --save-detailed) or SGLang's bench_serving --output-details JSONL (input_lens, "
        .. "output_lens, ttfts, itls)", doc[k] == nil and "none" or type(doc[k]))
    end
  end
  local n = #doc.input_lens
  if n == 0 then fail(path, "input_lens", "expected at least one request", 0) end
  if n > M.MAX_REQUESTS then
    fail(path, "input_lens", format("expected at most %d requests (calibration replays them about 150 times)",
      M.MAX_REQUESTS), n)
  end
  for _, k in ipairs { "output_lens", "ttfts", "itls" } do
    if #doc[k] ~= n then fail(path, k, format("expected %d entries, as input_lens", n), #doc[k]) end
  end
  if doc.errors ~= nil and doc.errors ~= require("cjson").null then
    if type(doc.errors) ~= "table" then fail(path, "errors", "expected a list of strings", type(doc.errors)) end
    if #doc.errors ~= n then fail(path, "errors", format("expected %d entries, as input_lens", n), #doc.errors) end
    for i, e in ipairs(doc.errors) do
      if type(e) ~= "string" then fail(path, format("errors[%d]", i), "expected a string (\"\" for a success)", type(e)) end
    end
  end
  local out = { format = fmt, path = path, requests = {}, completed = 0, model = model_of(doc) }
  for i = 1, n do
    local e = doc.errors and doc.errors[i]
    local failed = type(e) == "string" and e ~= ""
    local q = { input = number(path, doc.input_lens[i], format("input_lens[%d]", i)),
                output = number(path, doc.output_lens[i], format("output_lens[%d]", i)),
                ttft_s = number(path, doc.ttfts[i], format("ttfts[%d]", i)), itls = {} }
    if type(doc.itls[i]) ~= "table" then fail(path, format("itls[%d]", i), "expected a list of gaps (s)", type(doc.itls[i])) end
    for j, g in ipairs(doc.itls[i]) do q.itls[j] = number(path, g, format("itls[%d][%d]", i, j)) end
    q.ok = not failed and q.ttft_s > 0 and q.output >= 1 and q.input >= 1
    if q.ok then out.completed = out.completed + 1 end
    out.requests[i] = q
  end
  if out.completed == 0 then fail(path, "errors", "expected at least one completed request", "none of " .. n) end
  local rate = doc.request_rate
  if rate == nil or rate == "inf" then rate = math.huge end
  out.rate = rate == math.huge and rate or number(path, rate, "request_rate")
  if out.rate == 0 then fail(path, "request_rate", "expected a positive rate (or Infinity: unpaced)", 0) end
  local mc = number(path, doc.max_concurrency, "max_concurrency", true)
  if mc ~= nil and (mc < 1 or mc % 1 ~= 0) then fail(path, "max_concurrency", "expected a positive integer", mc) end
  out.max_concurrency = mc and math.tointeger(mc)
  out.duration_s = number(path, doc.duration, "duration")
  if not (out.duration_s > 0) then fail(path, "duration", "expected a positive duration (s)", out.duration_s) end
  -- a request's first token comes within the run
  for i, q in ipairs(out.requests) do
    if q.ttft_s > out.duration_s then
      fail(path, format("ttfts[%d]", i), format("expected at most the run's duration %g s", out.duration_s), q.ttft_s)
    end
  end
  return out
end

return M
