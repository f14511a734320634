-- The 200 MB benchmark of issue 69 item 2: `calibrate --serving` on a vLLM --save-detailed result
-- file of 200 MB reads it in bounded memory (tilewave.data.json_stream) and fits what the same
-- requests without their texts fit.
--   build/tilewave run scripts/bench_result_file.lua [MB (default 200)] [max RSS MiB (default 400)]
-- It writes a run of tilewave's own (serve --requests-format vllm: 4,000 requests at 6 req/s), a
-- copy padded to MB with generated texts as vLLM writes them (one string a request), calibrates
-- both, and prints the peak RSS (VmHWM) of the process that read the large one. Exit 1 when the
-- fits differ or the RSS passes the bound.
local args = { ... }
local mb, max_rss = tonumber(args[1] or 200), tonumber(args[2] or 400)
local exe = os.getenv("TILEWAVE_EXE") or "build/tilewave"
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local small, big = dir .. "/small.json", dir .. "/big.json"
local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  return ok, out
end
assert(run(string.format("%s serve llama-3-8b --hw h100_sxm5 --rate 6 --isl 1024 --osl 256 --requests-out %s "
  .. "--requests-format vllm", exe, small)))
local doc = require("cjson").decode(assert(io.open(small)):read("a"))
local n = #doc.input_lens
-- the texts: each request's share of the padding, JSON-escaped as vLLM's json.dump writes them
local per = math.max(1, math.floor((mb * 1e6 - assert(io.open(small)):seek("end")) / n))
local f = assert(io.open(big, "w"))
local text = (string.rep("The quick brown fox \\\"jumps\\\" over the lazy dog.\\n", per // 50 + 1)):sub(1, per)
-- the file as the small one, with generated_texts before the arrays (vLLM's key order)
local body = assert(io.open(small)):read("a")
assert(f:write('{"generated_texts": ['))
for i = 1, n do assert(f:write(i > 1 and ', "' or '"', text, '"')) end
assert(f:write("], ", body:sub(2)))
assert(f:close())
local size = assert(io.open(big)):seek("end")
local function fit(path)
  local ok, out = run(string.format("/usr/bin/time -f 'rss_kib %%M' %s calibrate --serving %s --model llama-3-8b "
    .. "--hw h100_sxm5 --engine vllm@0.6", exe, path))
  return ok, out, tonumber(out:match("rss_kib (%d+)"))
end
local ok1, out1, rss1 = fit(small)
local ok2, out2, rss2 = fit(big)
local strip = function(s) return (s:gsub("rss_kib %d+", ""):gsub("[^\n]*%.json[^\n]*\n", "")) end
print(string.format("result file %.1f MB (%d requests); peak RSS %.0f MiB reading it, %.0f MiB for the %.1f MB "
  .. "file without texts (bound %d MiB)", size / 1e6, n, (rss2 or 0) / 1024, (rss1 or 0) / 1024,
  assert(io.open(small)):seek("end") / 1e6, max_rss))
local same = ok1 and ok2 and strip(out1) == strip(out2)
print(same and "fits: identical" or ("fits differ:\n" .. out1 .. "\n" .. out2))
os.execute("rm -rf " .. dir)
if not same or not rss2 or rss2 / 1024 > max_rss then os.exit(1) end
