-- tilewave.report.bench_files (issue 69 item 4): each request's ITLs are its simulated chunk gaps,
-- and vLLM's peak figures are counted as vllm/benchmarks/serve.py counts them. Worked by hand on two
-- requests, then checked against the run's own ITL statistics.
local bench = require "tilewave.report.bench_files"
local cjson = require "cjson"
local process = dofile("tests/lua/helpers/process.lua")

-- request 1: sent at 0, first token 0.5 s (client clock), chunks left their steps at 0.9 and 1.2 s
-- (engine clock), finished 1.2 s; request 2: sent at 0.8, first 1.1, one chunk at 1.5, finished 1.5
local function run()
  return { duration_s = 1.5, model = "m", records = {
    arrival_s = { 0, 0.8 }, first_token_s = { 0.5, 1.1 }, finish_s = { 1.2, 1.5 },
    input_tokens = { 10, 20 }, output_tokens = { 3, 2 }, chunks_s = { { 0.9, 1.2 }, { 1.5 } } } }
end

describe("bench_files.vllm", function()
  it("writes each request's chunk gaps, the first what is left of its first-to-last span", function()
    local doc = cjson.decode(bench.vllm(run()))
    -- request 1: the gaps after the first are the chunks' differences (0.3); the first is the span
    -- 1.2 - 0.5 = 0.7 less them: 0.4. Request 2: one chunk, its whole span 0.4
    assert.are.same(2, #doc.itls[1])
    assert.near(0.4, doc.itls[1][1], 1e-12)
    assert.near(0.3, doc.itls[1][2], 1e-12)
    assert.near(0.4, doc.itls[2][1], 1e-12)
    -- TPOT (E2E - TTFT) / (output - 1): 0.35 and 0.4 s; ITL mean (0.4 + 0.3 + 0.4) / 3 s
    assert.near(1e3 * 0.375, doc.mean_tpot_ms, 1e-9)
    assert.near(1e3 * 1.1 / 3, doc.mean_itl_ms, 1e-9)
  end)
  it("counts the peaks over one-second buckets from the first send", function()
    local doc = cjson.decode(bench.vllm(run()))
    -- ceil(1.5 - 0) + 1 = 3 buckets; tokens at 0.5, 0.9 (bucket 0), 1.2, 1.1, 1.5 (bucket 1): 3;
    -- request 1 active in buckets 0..1, request 2 in 0..1: 2
    assert.are.equal(3, doc.max_output_tokens_per_s)
    assert.are.equal(2, doc.max_concurrent_requests)
  end)
  it("refuses records without chunk times rather than inventing gaps", function()
    local r = run()
    r.records.chunks_s = nil
    local ok, err = pcall(bench.vllm, r)
    assert.is_false(ok)
    assert.truthy(err:find("lack chunks_s", 1, true), err)
  end)
end)

describe("serve --requests-format vllm", function()
  it("writes the ITLs the run simulated: their mean is the run's and prefill steps show in the tail", function()
    local tmp, out = os.tmpname(), os.tmpname()
    local code, _, err = process.run(string.format("serve llama-3-8b --rate 6 --isl 1024 --osl 256 --replay "
      .. "--requests 200 --requests-out %s --requests-format vllm --format json --out %s", tmp, out))
    assert.are.equal(0, code, err)
    local doc = cjson.decode(assert(io.open(tmp)):read("a"))
    local rep = cjson.decode(assert(io.open(out)):read("a"))
    os.remove(tmp)
    os.remove(out)
    local r = rep.runs and rep.runs[1] or rep
    -- every request measured (--replay): the file's gaps are the core's, so the means agree to
    -- rounding and p99 to the core's histogram (bins 1/512 of an octave wide)
    assert.near(1e3 * r.itl_s.mean, doc.mean_itl_ms, 1e-9 * doc.mean_itl_ms)
    assert.near(1e3 * r.itl_s.p99, doc.p99_itl_ms, 2e-3 * doc.p99_itl_ms)
    -- a decode step that shares its step with a prompt is longer: p99 ITL well above the median
    assert.is_true(doc.p99_itl_ms > 1.5 * doc.median_itl_ms)
    local distinct = {}
    for _, g in ipairs(doc.itls[100]) do distinct[g] = true end
    assert.is_true(next(distinct, next(distinct)) ~= nil, "one request's gaps are not all equal")
  end)
end)

describe("simulate's detail", function()
  it("takes true, false or \"chunks\" and names anything else", function()
    local tw = require "tilewave"
    local o = { model = "llama-3-8b", hw = "h100_sxm5", workload = { rate = 2, requests = 10, isl = 64, osl = 4 } }
    o.detail = "chunk"
    local ok, err = pcall(tw.serve.simulate, o)
    assert.is_false(ok)
    assert.truthy(err:find('serve.detail: expected true, false or "chunks", got string \'chunk\'', 1, true), err)
    -- "chunks": each request's 3 chunks after its first, in order, the last at its engine finish
    o.detail = "chunks"
    local r = tw.serve.simulate(o)
    for j = 1, 10 do
      local e = r.records.chunks_s[j]
      assert.are.equal(3, #e)
      assert.is_true(e[1] < e[2] and e[2] < e[3])
      assert.near(r.records.finish_s[j], e[3], 1e-12) -- no front-end time and no async output here
    end
  end)
end)

