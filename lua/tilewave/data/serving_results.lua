--- tilewave.data.serving_results: serving benchmark results as the engines' own clients write them,
-- read into one shape for calibration (tilewave.explore.serving_fit).
--
-- Formats, as their writers' source defines them:
--   vllm    `vllm bench serve --save-result --save-detailed` (vllm-project/vllm benchmarks/
--           benchmark_serving.py, vllm/benchmarks/serve.py, `result` dict): one JSON object with
--           request_rate (request/s; Python's json writes an unpaced run as Infinity),
--           max_concurrency (null or an integer), num_prompts, duration (s), completed, and per
--           request input_lens, output_lens (tokens), ttfts (s; 0 for a failed request), itls (the
--           gaps of each request, s), errors ("" when it succeeded), start_times (0.10 and later: s
--           since the run began, when each request was sent). `--append-result` appends one run a
--           line (JSON Lines).
--   sglang  `python -m sglang.bench_serving --output-file F --output-details` (sgl-project/sglang
--           python/sglang/bench_serving.py): JSON Lines, one run appended per line, each the same
--           fields as vLLM's. A line's `backend` names its client (sglang, vllm, ...).
--   Without the per-request arrays (vLLM without --save-detailed, SGLang without --output-details)
--           and GenAI-Perf's and AIPerf's summaries: statistics, read by
--           tilewave.data.serving_summaries and fitted as statistics.
-- A JSON Lines file's runs are read one line at a time: `run` picks one (default the last) or
-- "all" (every run, each fitted as its own load).
-- Limits: a plain JSON file of at most M.MAX_FILE_BYTES, a JSON Lines line of at most that; text
-- without NUL bytes; per-request arrays of one length, 1 to M.MAX_REQUESTS requests; every number
-- finite and >= 0 (an unpaced request_rate is Infinity, the one exception); errors strings; a run's
-- duration positive, and every request's TTFT within it; a statistic's p50 at most its p90.
-- Units: s, token, request/s.
-- @module tilewave.data.serving_results
local sandbox = require "tilewave.util.sandbox"
local summaries = require "tilewave.data.serving_summaries"

local M = {}
local format = string.format

--- The most requests a file may hold: a calibration replays every one at each of its ~150
-- evaluations.
M.MAX_REQUESTS = 20000

--- The largest result file (plain JSON) or JSON Lines line this reader takes, byte: 64 MiB, above
-- tilewave.util.sandbox's 16 MiB for other user files, as a benchmark's own per-request output is
-- large (4,000 requests of 1024/256 tokens with --save-detailed: 18.4 MB). A JSON Lines file has
-- no whole-file limit: it is read a line at a time.
M.MAX_FILE_BYTES = 64 * 1024 * 1024

--- The largest plain JSON file read member by member (tilewave.data.json_stream), byte: 4 GiB. A
-- file past M.MAX_FILE_BYTES is read that way, its generated texts skipped and each request's ITLs
-- reduced to their sum as they are read, so memory stays at a few chunks and the arrays of numbers.
M.MAX_STREAM_BYTES = 4 * 1024 * 1024 * 1024

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
local number = summaries.number

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

-- the lines of open file `f`, read in chunks of 1 MiB: a line longer than `max` bytes ends the
-- iteration with (nil, "long"), so no line is held past the limit
local function lines_of(f, max)
  local buf, eof = "", false
  local it = {}
  -- the limit of the lines after this one (the first line's may be smaller)
  function it.limit(m) max = m end
  return setmetatable(it, { __call = function()
    while true do
      local nl = buf:find("\n", 1, true)
      if nl then
        local l = buf:sub(1, nl - 1)
        buf = buf:sub(nl + 1)
        return l
      end
      if #buf > max then return nil, "long" end
      if eof then
        if buf == "" then return nil end
        local l = buf
        buf = ""
        return l
      end
      local c = f:read(1048576)
      if c then buf = buf .. c else eof = true end
    end
  end })
end

-- the runs of a file: one document, or a JSON Lines file's lines (each { doc, line })
local function runs_of(path, o)
  local lfs = require "lfs"
  local ok, cerr = sandbox.check_file(path, math.huge)
  if not ok then error(cerr, 0) end
  local size = lfs.attributes(path, "size") or 0
  local f, oerr = io.open(path, "r")
  if not f then error(format("%s: cannot read (%s)", path, tostring(oerr)), 0) end
  -- a file too large to hold whole is JSON Lines only if its first line ends within 1 MiB: a
  -- plain JSON file on one line is not read to 64 MiB to find that out
  local next_line = lines_of(f, size > M.MAX_FILE_BYTES and 1048576 or M.MAX_FILE_BYTES)
  local first = next_line()
  next_line.limit(M.MAX_FILE_BYTES)
  if first == nil and size == 0 then f:close(); fail(path, "JSON", "expected a benchmark result, got an empty file") end
  -- JSON Lines: the first line is a whole object (a plain JSON file spread over lines is not)
  local jsonl = first and first:find("^%s*{") and first:find("}%s*$") and pcall(decode, path, first, 1)
  if jsonl then
    local want = o.run
    if want ~= nil and want ~= "all" and (math.type(want) ~= "integer" or want < 1) then
      f:close()
      fail(path, "run", "expected a line number from 1 or 'all'", want)
    end
    local lines, n, last, l, i = {}, 0, nil, first, 1
    while l do
      if l:find("%S") then
        n = n + 1
        if want == "all" or want == n then lines[#lines + 1] = { text = l, line = n }
        elseif want == nil then last = { text = l, line = n } end
      end
      local why
      l, why = next_line()
      i = i + 1
      if why then
        f:close()
        fail(path, format("line %d", i), format("expected at most %d MiB a line (tilewave.data.serving_results."
          .. "MAX_FILE_BYTES)", M.MAX_FILE_BYTES // 2 ^ 20))
      end
    end
    f:close()
    if want == nil then lines = { last } end
    if #lines == 0 then fail(path, "run", format("expected a line from 1 to %d", n), want) end
    for _, r in ipairs(lines) do r.doc = decode(path, r.text, r.line); r.text = nil end
    return lines, n
  end
  if o.run ~= nil and o.run ~= 1 and o.run ~= "all" then
    f:close()
    fail(path, "run", "expected 1 or 'all': the file holds one run (it is not JSON Lines)", o.run)
  end
  if size > M.MAX_FILE_BYTES then
    -- too large to hold whole: member by member, the texts skipped, the ITLs summed
    if size > M.MAX_STREAM_BYTES then
      f:close()
      fail(path, "JSON", format("expected at most %d MiB (tilewave.data.serving_results.MAX_STREAM_BYTES)",
        M.MAX_STREAM_BYTES // 2 ^ 20), size .. " bytes")
    end
    f:seek("set", 0)
    local cjson = require "cjson.safe"
    local ok2, doc = pcall(require("tilewave.data.json_stream").object, f, path,
      { generated_texts = "skip", itls = "sums" },
      function(text, key)
        local v, derr = cjson.decode(text)
        if v == nil and text ~= "null" then
          fail(path, key or "JSON", "expected JSON (" .. tostring(derr) .. ")")
        end
        return v
      end,
      function(x, _, i, j) number(path, x, format("itls[%d][%d]", i, j)) end)
    f:close()
    if not ok2 then error(doc, 0) end
    return { { doc = doc, line = nil } }, 1
  end
  f:close()
  local text, err = sandbox.read_file(path, M.MAX_FILE_BYTES)
  if not text then
    error((err:gsub("tilewave%.util%.sandbox%.MAX_FILE_BYTES", "tilewave.data.serving_results.MAX_FILE_BYTES")), 0)
  end
  local nul = text:find("\0", 1, true)
  if nul then fail(path, "JSON", "expected text, got a NUL byte at byte " .. nul) end
  return { { doc = decode(path, text), line = nil } }, 1
end

-- the client a document comes from: SGLang's bench_serving always writes `backend` (its
-- --backend, "sglang..." for its own server); vLLM's writes it before 0.9 and not since, so a
-- run without one, or naming another server, is vLLM's, JSON Lines (--append-result) or not
local function client(doc)
  local b = type(doc.backend) == "string" and doc.backend or nil
  if b and b:find("^sglang") then return "sglang" end
  return "vllm"
end

-- one run's document read into the shape M.read returns
local function one(path, doc, jsonl)
  if doc[1] ~= nil then fail(path, "JSON", "expected an object (one run's result)", "an array") end
  if type(doc.time_to_first_token) == "table" then
    local g = summaries.genai_perf(path, doc, M.MAX_REQUESTS)
    g.model = model_of(doc)
    g.load = summaries.load_name(g.rate, g.max_concurrency)
    return g
  end
  local fmt = client(doc)
  if doc.input_lens == nil and doc.ttfts == nil then
    local g = summaries.vllm_sglang(path, doc, fmt, M.MAX_REQUESTS)
    g.model = model_of(doc)
    g.load = summaries.load_name(g.rate, g.max_concurrency)
    return g
  end
  return M.requests(path, doc, fmt)
end

--- Read a benchmark result file: one run (the last of a JSON Lines file unless `run` picks one).
-- @string path the file
-- @tparam[opt] table o `{ run (1-based line of a JSON Lines file; default the last) }`
-- @return `{ format ("vllm" | "sglang" | "genai-perf" | "aiperf"), path, model (the model the file
--   names, or nil), rate (request/s; math.huge: unpaced), max_concurrency (or nil), load (its name:
--   tilewave.data.serving_summaries.load_name), duration_s, requests = { { input, output, ttft_s,
--   itls = {...} (nil for a file read member by member), itl_sum (s), itl_n, ok, start_s (or nil) }
--   ... } (in the file's order), completed (requests that
--   succeeded), run (the JSON Lines line, or nil) }`; a summary has no requests but `aggregate =
--   true`, ttft and tpot ({ mean, p50, p90, p99 }, s, each nil where the file has none),
--   requests_per_s, isl and osl ({ mean, kind, std | ratio }: how the client drew them), and
--   `count_assumed` (a sentence) where the file gives no request count
-- @raise `<path>: <field>: <expectation>, got <value>` for a file of another format, truncated
--   JSON, arrays of different lengths, negative or NaN times, no completed request, a file over
--   M.MAX_FILE_BYTES; a result without what a fit needs says what to rerun
function M.read(path, o)
  return M.read_runs(path, o)[1]
end

--- Every run `o.run` selects of a file (`"all"`: each line of a JSON Lines file), each as M.read
-- returns one, with `run` its line.
function M.read_runs(path, o)
  o = o or {}
  local list, n = runs_of(path, o)
  local out = {}
  for i, r in ipairs(list) do
    local res = one(path, r.doc, r.line ~= nil)
    res.run = r.line
    if r.line and n > 1 then res.path = format("%s:%d", path, r.line) end
    out[i] = res
  end
  return out
end

--- A vLLM or SGLang run `doc` with per-request arrays, from `path`, of client `fmt`: the requests
-- in the file's order (see M.read).
function M.requests(path, doc, fmt)
  -- 69 lines, one function: a result file validated field by field, in the order its errors are
  -- raised
  -- a file read member by member carries each request's ITL sum and count, not the gaps
  if doc.itls == nil and doc.itls_sums then
    doc.itls = {}
    for i, sum in ipairs(doc.itls_sums) do doc.itls[i] = { sum = sum, n = doc.itls_counts[i] } end
  end
  for _, k in ipairs(ARRAYS) do
    if type(doc[k]) ~= "table" then
      -- vLLM's benchmark writes the arrays only with --save-detailed since 2025 (vllm/benchmarks/
      -- serve.py: without it the per-request keys are dropped from --save-result's JSON)
      fail(path, k, "expected the per-request array of vLLM's --save-result --save-detailed JSON or SGLang's "
        .. "bench_serving --output-details JSONL (input_lens, output_lens, ttfts, itls)",
        doc[k] == nil and "none" or type(doc[k]))
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
  local starts = doc.start_times
  if starts ~= nil and starts ~= require("cjson").null then
    if type(starts) ~= "table" or #starts ~= n then
      fail(path, "start_times", format("expected %d send times (s), as input_lens", n), type(starts) == "table"
        and #starts or type(starts))
    end
  else
    starts = nil
  end
  local out = { format = fmt, path = path, requests = {}, completed = 0, model = model_of(doc) }
  for i = 1, n do
    local e = doc.errors and doc.errors[i]
    local failed = type(e) == "string" and e ~= ""
    local q = { input = number(path, doc.input_lens[i], format("input_lens[%d]", i)),
                output = number(path, doc.output_lens[i], format("output_lens[%d]", i)),
                ttft_s = number(path, doc.ttfts[i], format("ttfts[%d]", i)), itls = {},
                start_s = starts and number(path, starts[i], format("start_times[%d]", i)) or nil }
    if type(doc.itls[i]) ~= "table" then fail(path, format("itls[%d]", i), "expected a list of gaps (s)", type(doc.itls[i])) end
    if doc.itls[i].sum then
      q.itl_sum, q.itl_n, q.itls = doc.itls[i].sum, doc.itls[i].n, nil
    else
      local sum = 0
      for j, g in ipairs(doc.itls[i]) do
        q.itls[j] = number(path, g, format("itls[%d][%d]", i, j))
        sum = sum + q.itls[j]
      end
      q.itl_sum, q.itl_n = sum, #q.itls
    end
    q.ok = not failed and q.ttft_s > 0 and q.output >= 1 and q.input >= 1
    if q.ok then out.completed = out.completed + 1 end
    out.requests[i] = q
  end
  if out.completed == 0 then fail(path, "errors", "expected at least one completed request", "none of " .. n) end
  -- the p99 of every gap of the completed requests (numpy's linear percentile, as the client's
  -- p99_itl_ms); none where the gaps were summed as read (a file read member by member)
  local gaps = {}
  for _, q in ipairs(out.requests) do
    if q.ok and q.itls then for _, g in ipairs(q.itls) do gaps[#gaps + 1] = g end end
  end
  if #gaps > 0 then out.itl_p99 = require("tilewave.util.stats").percentile(gaps, 99) end
  local rate = doc.request_rate
  if rate == nil or rate == "inf" then rate = math.huge end
  out.rate = rate == math.huge and rate or number(path, rate, "request_rate")
  if out.rate == 0 then fail(path, "request_rate", "expected a positive rate (or Infinity: unpaced)", 0) end
  local mc = number(path, doc.max_concurrency, "max_concurrency", true)
  if mc ~= nil and (mc < 1 or mc % 1 ~= 0) then fail(path, "max_concurrency", "expected a positive integer", mc) end
  out.max_concurrency = mc and math.tointeger(mc)
  out.load = summaries.load_name(out.rate, out.max_concurrency)
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
