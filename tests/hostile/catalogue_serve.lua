-- Hostile inputs, round 3 (issue 51): every option of serve and the sizing search, outputs that a
-- later failure must not clobber, speculative decoding's memory and draft, config.json as
-- transformers 5 writes it, messages that name the right thing, and sweep budgets. Each class of the
-- issue has cases here; each was reproduced failing (accepted, ignored, or misnamed) before its fix.
-- Called by catalogue.lua with its `add(class, name, case)` and helpers.
return function(add)
  local S = "serve llama-3.1-8b --search --rate 4 --hw h100 --requests 60 "
  local SLO = "--slo ttft=1s,tpot=50ms "

  -- 1. options silently ignored or wrongly accepted
  add("ignored", "search: --isl not a length", { cmd = S .. SLO .. "--isl abc --osl 10", err = { "serve.isl", "'abc'" } })
  add("ignored", "search: --osl range reversed", { cmd = S .. SLO .. "--isl 10 --osl 200-100", err = "osl" })
  add("ignored", "search: an unknown device in --price", { cmd = S .. SLO .. "--price h100_sxm6=2.49",
    err = { "size.prices", "h100_sxm6", "did you mean 'h100_sxm5'" } })
  add("ignored", "search: one device priced twice", { cmd = S .. SLO .. "--price h100=1,h100_sxm5=2",
    err = "size.prices.h100_sxm5: given twice" })
  add("ignored", "search: a price of zero", { cmd = S .. SLO .. "--price h100=0", err = "size.prices" })
  add("ignored", "search: --top 0", { cmd = S .. SLO .. "--top 0", err = "size.top: expected positive integer, got 0" })
  add("ignored", "search: a device twice in --hw", { cmd = "serve llama-3.1-8b --search --rate 4 " .. SLO
    .. "--hw h100,H100_SXM5", err = "size.hw: h100_sxm5 given twice" })
  add("ignored", "--slo with ttft twice", { cmd = S .. "--slo ttft=2s,ttft=1us", err = "serve.slo.ttft: given twice" })
  add("ignored", "--slo without a unit (issue 48 item 6)", { cmd = S .. "--slo ttft=1,tpot=50ms",
    err = "serve.slo.ttft: expected a duration with its unit (h, min, s, ms, us), got '1'" })
  add("ignored", "--slo twice", { cmd = S .. SLO .. "--slo ttft=2s", err = "'--slo' must be used at most 1 time", code = 2 })
  add("ignored", "--hw twice", { cmd = "gemm 64 64 64 --hw h100 --hw h200", err = "'--hw' must be used at most 1 time",
    code = 2 })
  add("ignored", "--speculative with draft twice", { cmd = "serve llama-3-8b --rate 1 --speculative "
    .. "draft=llama-3.2-1b,draft=llama-3.2-1b,k=4", err = "speculative.draft: given twice", code = 2 })
  add("ignored", "a trace with input_tokens twice", { files = { ["t.csv"] =
    "arrival_s,input_tokens,output_tokens,input_tokens\n0,10,5,20\n" }, cmd = "serve pythia-70m --trace t.csv",
    err = "column 'input_tokens' twice in the header" })
  add("ignored", "--requests-out into a missing directory", { cmd = "serve pythia-70m --rate 1 --requests 10 "
    .. "--requests-out nodir/r.csv", err = { "serve.requests_out", "nodir" } })
  add("ignored", "search: --requests-out (not written by the search)", { cmd = S .. SLO .. "--requests-out r.csv",
    err = "serve.requests_out: --requests-out does not apply with --search" })
  add("ignored", "search: --t (the search chooses t)", { cmd = S .. SLO .. "--t 2", err = "serve.t: --t does not apply" })
  add("ignored", "search: --concurrency", { cmd = "serve llama-3.1-8b --search --concurrency 4 " .. SLO,
    err = "does not apply with --search" })
  add("ignored", "simulate: --top (a search option)", { cmd = "serve pythia-70m --rate 1 --top 3",
    err = "serve.top: --top applies with --search only" })
  add("ignored", "simulate: --price (a search option)", { cmd = "serve pythia-70m --rate 1 --price h100=2",
    err = "serve.price: --price applies with --search only" })
  add("ignored", "--cv without --rate", { cmd = "serve pythia-70m --offline --requests 10 --cv 2",
    err = "serve.cv: --cv applies with --rate" })
  add("names", "--isl alone names the missing --osl", { cmd = "serve pythia-70m --rate 1 --requests 10 --isl 100",
    err = "serve.osl: expected --osl with --isl" })
  add("names", "--osl alone names the missing --isl", { cmd = "serve pythia-70m --rate 1 --requests 10 --osl 100",
    err = "serve.isl: expected --isl with --osl" })
  add("ignored", "plot: a device twice", { cmd = "plot decode pythia-70m --hw h100,h100 --out x.svg",
    err = "plot.hw: h100 given twice" })
  add("ignored", "plot: empty model names", { cmd = "plot roofline --models ,, --out x.svg", err = "plot.models" })
  add("ignored", "serve: a device list without --search", { cmd = "serve pythia-70m --rate 1 --hw h100,h200",
    err = "serve.hw: expected one device (a list is for --search)" })
  add("names", "prefill --prompt 0 names the prompt", { cmd = "prefill pythia-70m --prompt 0",
    err = "prefill.prompt: expected positive integer, got 0" })
  add("ignored", "calibrate: --rounds without --base", { cmd = "calibrate --rounds -1",
    err = "calibrate.rounds: --rounds applies in fit mode only" })
  add("ignored", "search: CSV is CSV (control)", { cmd = S .. SLO .. "--format csv",
    ok = "rank,hw,mode,weight_dtype,gpus,t,ep,pp,replicas,max_num_seqs,max_rate_rps,ttft_s,tpot_s" })

  -- 2. a search that cannot run is an error naming the option, never "no deployment meets the SLO"
  add("cannot-run", "search: an unknown --dataset", { cmd = S .. SLO .. "--dataset nope", err = "size.workload.dataset" })
  add("cannot-run", "search: --slo p=90 with no target", { cmd = S .. "--slo p=90", err = "serve.slo: expected a target" })
  add("cannot-run", "search: --hw ,", { cmd = "serve llama-3.1-8b --search --rate 4 " .. SLO .. "--hw ,",
    err = "size.hw: expected comma-separated device ids" })
  add("cannot-run", "search: --modes ''", { cmd = S .. SLO .. "--modes ''", err = "size.modes" })
  add("cannot-run", "search: disagg on one GPU", { cmd = S .. SLO .. "--modes disagg --max-gpus 1",
    err = "size.max_gpus: expected at least 2 with modes disagg" })
  add("cannot-run", "search: an encoder", { cmd = "serve modernbert-base --search --rate 1 " .. SLO .. "--hw h100",
    err = "size.model: modernbert-base is an encoder" })
  add("cannot-run", "search: --speculative without a draft", { cmd = S .. SLO .. "--speculative k=4",
    err = "size.speculative.draft: expected a draft model" })

  -- 3. JSON shapes: every list a JSON array, even when empty
  add("json", "search: empty lists are []", { cmd = "serve llama-3.1-8b --search --rate 4 --hw h100 --requests 60 "
    .. "--slo ttft=1us --format json", ok = '"deployments":[]' })
  add("json", "report: no rule broken is an empty list", { cmd = "report --models llama-3-8b --format json",
    ok = '"violations":[]' })
  add("json", "decode that does not fit: would_fit is a list", { cmd = "decode llama-3-70b --hw l4 --context 2048 "
    .. "--format json", ok = '"would_fit":[' })

  -- 4. outputs clobbered by a later failure
  add("clobber", "serve --out then a --plots that cannot be made", { files = { ["o1.txt"] = "keep\n" },
    cmd = "serve pythia-70m --rate 1,2 --requests 20 --out o1.txt --plots nodir/x", err = "serve.plots",
    after = function(dir, read) return read(dir .. "/o1.txt") == "keep\n", "o1.txt was replaced" end })
  add("clobber", "serve --out and --requests-out one file", { files = { ["x"] = "keep\n" },
    cmd = "serve pythia-70m --rate 1 --requests 20 --out x --requests-out x", err = "the same file as serve.out",
    after = function(dir, read) return read(dir .. "/x") == "keep\n", "x was replaced" end })
  add("clobber", "serve --out and --series-out one file (./x and x)", {
    cmd = "serve pythia-70m --rate 1 --requests 20 --out x --series-out ./x", err = "the same file" })
  add("clobber", "search --out then --plots onto a file", { files = { ["o.txt"] = "keep\n", ["p"] = "a file\n" },
    cmd = S .. SLO .. "--out o.txt --plots p", err = "serve.plots: expected a directory",
    after = function(dir, read) return read(dir .. "/o.txt") == "keep\n", "o.txt was replaced" end })

  add("clobber", "report --plots then an --out that cannot be written", {
    cmd = "report --models llama-3.1-8b --plots figs --out nodir/r.md", err = "report.out",
    after = function(dir, read) return read(dir .. "/figs/roofline.svg") == "", "a figure was written" end })

  -- a search whose SLO gives TPOT alone (once an internal error in its header)
  add("results", "search with a TPOT-only SLO", { cmd = "serve llama-3.1-8b --search --rate 5 --slo tpot=20ms "
    .. "--hw h100_sxm5 --isl 128 --osl 64 --requests 300 --samples 2", ok = "within TPOT <= 20 ms at p99" })

  -- an output onto one of the run's own inputs (by device and inode: ./x, x and a link are one file)
  local TRACE = "arrival_s,input_tokens,output_tokens\n0,100,10\n0.5,100,10\n"
  add("clobber", "serve --out onto its --trace (./t.csv)", { files = { ["t.csv"] = TRACE },
    cmd = "serve pythia-70m --trace t.csv --out ./t.csv", err = { "serve.out", "an input of this run" },
    after = function(dir, read) return read(dir .. "/t.csv") == TRACE, "the trace was replaced" end })
  add("clobber", "sweep --out onto a link to its spec", { files = { ["s.lua"] =
    "return { base = 'pythia-70m', vary = { num_hidden_layers = { 2, 4 } }, hw = { 'h100_sxm5' } }" },
    setup = "ln -s s.lua l.lua", cmd = "sweep s.lua --out l.lua", err = { "sweep.out", "an input of this run (read as s.lua)" },
    after = function(dir, read) return read(dir .. "/s.lua"):sub(1, 6) == "return", "the spec was replaced" end })
  add("clobber", "check --junit onto its check file", { files = { ["c.lua"] =
    "return { name = 'c', models = { 'pythia-70m' }, hw = { 'h100_sxm5' } }" },
    cmd = "check c.lua --junit c.lua", err = { "check.junit", "an input of this run" },
    after = function(dir, read) return read(dir .. "/c.lua"):sub(1, 6) == "return", "the check file was replaced" end })

  -- 5. memory: the most requests a run takes is said before the run
  add("memory", "serve --requests 1e8", { cmd = "serve pythia-70m --rate 1 --requests 100000000",
    err = "serve.workload.requests: expected at most 1e7" })

  -- 6. speculative decoding: the draft's memory and its tokenizer
  add("speculative", "a draft of another vocabulary", { cmd = "decode llama-3-8b --speculative draft=pythia-70m,k=4",
    err = "decode.speculative.draft: pythia-70m's vocabulary (50304) differs from llama-3-8b's (128256)" })
  add("speculative", "serve: a draft of another vocabulary", { cmd = "serve llama-3-8b --rate 1 --speculative "
    .. "draft=pythia-70m,k=4", err = "serve.speculative.draft" })
  add("speculative", "a 70B draft for an 8B target on one H100 does not fit", { cmd = "decode llama-3-8b --hw h100 "
    .. "--speculative draft=llama-3-70b,k=4", ok = "does not fit: needs 159.2 GB, has 85.52 GB" })
  add("speculative", "serve: a 70B draft does not fit beside an 8B target", { cmd = "serve llama-3-8b --rate 1 "
    .. "--speculative draft=llama-3-70b,k=4", err = "does not fit on h100_sxm5" })

  -- 8. messages that name the right thing
  add("names", "decode context*batch past 2^53 says which limit", {
    cmd = "decode llama-3-8b --context 8000000 --batch 1000000 --allow-long-context",
    err = "the KV cache's elements" })
  add("names", "a denormal link names its field", { files = { ["g.lua"] = "return { base = 'h100_sxm5', name = 'g', "
    .. "interconnect = { nvlink_bw = 1e-310 }, sources = { interconnect = 'test' } }" },
    cmd = "decode llama-3-70b --hw g.lua --t 2", err = "hw.interconnect.nvlink_bw" })
  add("names", "an fp4 peak on Ampere", { files = { ["a.lua"] = "return { base = 'a100_sxm4_80gb', name = 'a', "
    .. "peak_flops = { fp4 = 1e15 }, sources = { peak_flops = 'test' } }" },
    cmd = "gemm 64 64 64 --hw a.lua --dtype fp4", err = "hw.peak_flops.fp4: expected no fp4 peak on arch 'ampere'" })
  add("names", "an unknown model names the option", { cmd = "serve nope-model --rate 1", err = "serve.model: unknown model" })

  -- 9. sweeps: a row within the CPU budget, ranges that cannot wrap
  add("sweep", "a where that rejects everything", { files = { ["s.lua"] = "local tw = require 'tilewave' return { "
    .. "base = 'pythia-70m', vary = { vocab_size = tw.range(50000, 2050000) }, where = function(c) return false end }" },
    cmd = "sweep s.lua --format csv", err = "sweep: no row in 5 s of CPU", stdout_ok = true })
  add("sweep", "tw.range past 2^62", { files = { ["r.lua"] = "local tw = require 'tilewave' "
    .. "return { base = 'pythia-70m', vary = { vocab_size = tw.range(-(1 << 62), 1 << 62) } }" },
    cmd = "sweep r.lua", err = "range.first: expected an integer within +-2^53" })

  -- 10. engine releases and steady state (issue 48, round 4)
  add("names", "an engine release without a profile", { cmd = "serve pythia-70m --rate 1 --engine vllm@0.3",
    err = "serve.engine: expected a vllm release with a profile: 0.5 (0.5 to before 0.6), 0.6 (0.6 to before 0.8), v1" })
  add("names", "an engine release that is not a number", { cmd = "serve pythia-70m --rate 1 --engine vllm@0.6.",
    err = "serve.engine: expected a vllm release with a profile" })
  add("names", "a release of a family without versions", { cmd = "serve pythia-70m --rate 1 --engine tgi@2",
    err = "serve.engine: expected an engine family with versions (sglang, trtllm, vllm)" })
  add("names", "engines: a release without a profile", { cmd = "engines sglang@0.2",
    err = "engines.name: expected a sglang release with a profile" })
  add("ignored", "--replay without --rate", { cmd = "serve pythia-70m --offline --replay",
    err = "serve.replay: --replay applies with --rate" })
  add("ignored", "--replay twice", { cmd = "serve pythia-70m --rate 1 --replay --replay",
    err = "'--replay' must be used at most 1 time", code = 2 })
  add("ignored", "search: --replay (the search runs steady state)", { cmd = S .. SLO .. "--replay",
    err = "serve.replay: --replay does not apply with --search" })
  add("names", "a steady window outside the run (the core's binding)", { files = { ["w.lua"] =
    "local tw = require 'tilewave' tw.serve.simulate { model = 'pythia-70m', hw = 'h100', workload = { rate = 1, "
    .. "requests = 10, dataset = 'sharegpt', measure = 'steadily' } }" }, cmd = "run w.lua", err = "serve.workload.measure: expected one of" })

  -- 11. benchmark result files for calibrate --serving (issue 52 item 4): one line naming the file
  -- and the field, nothing written
  local C = "calibrate --serving r.json --model llama-3.1-8b --hw h100 --out e.lua"
  local function NONE(dir) return io.open(dir .. "/e.lua") == nil, "e.lua was written" end
  local ok_req = '"input_lens": [10], "output_lens": [2], "ttfts": [0.1], "itls": [[0.01]], "errors": [""], '
    .. '"request_rate": 1, "duration": 1'
  add("results", "another format (a trace CSV)", { files = { ["r.json"] = "arrival_s,input_tokens,output_tokens\n0,1,1\n" },
    cmd = C, err = "r.json: JSON: expected JSON", after = NONE })
  add("results", "truncated JSON", { files = { ["r.json"] = '{"input_lens": [10], "output_lens": [2' }, cmd = C,
    err = "r.json: JSON: expected JSON", after = NONE })
  add("results", "arrays of different lengths", { files = { ["r.json"] = '{"input_lens": [10, 20], "output_lens": [2], '
    .. '"ttfts": [0.1, 0.1], "itls": [[], []], "duration": 1}' }, cmd = C,
    err = "r.json: output_lens: expected 2 entries, as input_lens, got 1", after = NONE })
  add("results", "a negative time", { files = { ["r.json"] = (('{' .. ok_req .. '}'):gsub('%[0%.1%]', '[-0.1]')) },
    cmd = C, err = "r.json: ttfts[1]: expected a finite non-negative number, got -0.1", after = NONE })
  add("results", "a NaN gap", { files = { ["r.json"] = (('{' .. ok_req .. '}'):gsub('%[%[0%.01%]%]', '[[NaN]]')) },
    cmd = C, err = "r.json: itls[1][1]: expected a finite non-negative number", after = NONE })
  -- issue 66 item 4: an option a mode does not use is refused, naming both
  local ONE = '{' .. ok_req .. '}'
  for _, o in ipairs { { "--format json", "calibrate.format" }, { "--rounds 3", "calibrate.rounds" },
                       { "--holdout x", "calibrate.holdout" } } do
    add("options", "calibrate --serving with " .. o[1], { files = { ["r.json"] = ONE }, cmd = C .. " " .. o[1],
      err = { o[2], "does not apply with --serving" }, after = NONE })
  end
  local S = "serve llama-3.1-8b --search --rate 2 --slo ttft=2s,tpot=50ms "
  for _, o in ipairs { { "--prefix-tokens 100", "serve.prefix_tokens" }, { "--prefix-share 0.5", "serve.prefix_share" },
                       { "--prefix-caching off --turns 2", "serve.prefix_caching" },
                       { "--pp 2 --modes disagg", "serve.pp" } } do
    add("options", "--search with " .. o[1], { cmd = S .. o[1], err = o[2] })
  end
  add("options", "serve --trace with --dataset", { files = { ["t.csv"] = "arrival_s,input_tokens,output_tokens\n0,10,5\n" },
    cmd = "serve pythia-70m --trace t.csv --dataset lmsys", err = { "serve.dataset", "does not apply with --trace" } })
  add("options", "--plots ''", { cmd = "serve pythia-70m --rate 1,2 --replay --requests 10 --isl 10 --osl 5 --plots ''",
    err = { "serve.plots", "expected a folder" },
    after = function(dir) return io.open(dir .. "/serve_latency.svg") == nil, "a chart was written into the folder" end })
  -- a search whose inputs cannot run fails with the reason (issue 66 item 4), never "no deployment"
  add("options", "--search at p95", { cmd = "serve llama-3.1-8b --search --rate 2 --slo ttft=2s,tpot=50ms,p=95",
    err = "size.slo.percentile" })
  add("options", "--search past the model's context", { cmd = S .. "--isl 200000 --osl 10",
    err = "max_position_embeddings 131072" })
  add("options", "--search with --turns and disagg", { cmd = S .. "--turns 3 --modes disagg",
    err = "serve.workload.conversation" })
  add("options", "--search with mixed pools on one device", { cmd = S .. "--modes mixed --hw h100_sxm5",
    err = "size.modes" })
  -- issue 66 item 5: errors name the field the user gave, engine files' fields included
  add("message", "an engine file's token_host_s of 1e300", { files = { ["e.lua"] =
    'return { base = "vllm@0.6", token_host_s = 1e300 }' }, cmd = "serve llama-3.1-8b --rate 1 --isl 10 --osl 10 --engine e.lua",
    err = "serve.engine.token_host_s: expected a host time in seconds from 0 to 10" })
  add("message", "an engine file's unknown scheduler", { files = { ["e.lua"] = 'return { base = "vllm@0.6", scheduler = "x" }' },
    cmd = "serve llama-3.1-8b --rate 1 --isl 10 --osl 10 --engine e.lua", err = "serve.engine.scheduler: expected one of" })
  add("message", "--turns 1000 past the model's context", { cmd = "serve llama-3.1-8b --rate 1 --turns 1000 --isl 100 --osl 100",
    err = "serve.workload.conversation.turns: expected a conversation's last turn" })
  add("message", "--prefix-tokens 200000 past the model's context", { cmd = "serve llama-3.1-8b --rate 1 "
    .. "--prefix-tokens 200000 --isl 100 --osl 100", err = "serve.workload.prefix.tokens: expected the prefix of 200000" })
  add("message", "a pool's replicas past the limit", { cmd = "serve llama-3.1-8b --rate 1 --isl 10 --osl 10 "
    .. "--prefill-pool t=1,replicas=5000 --decode-pool t=1,replicas=1", err = "serve.disagg.prefill.replicas: expected at most 4096" })
  -- issue 66 item 3: impossible figures in a benchmark file
  add("results", "an Infinity TTFT", { files = { ["r.json"] = (('{' .. ok_req .. '}'):gsub('%[0%.1%]', '[Infinity]')) },
    cmd = C, err = "r.json: ttfts[1]: expected a finite non-negative number, got inf", after = NONE })
  add("results", "an Infinity duration", { files = { ["r.json"] = (('{' .. ok_req .. '}'):gsub('"duration": [%d.]+',
    '"duration": Infinity')) }, cmd = C, err = "r.json: duration: expected a finite non-negative number, got inf", after = NONE })
  add("results", "a TTFT longer than the run", { files = { ["r.json"] = (('{' .. ok_req .. '}'):gsub('%[0%.1%]', '[1e6]')) },
    cmd = C, err = { "r.json: ttfts[1]", "at most the run's duration" }, after = NONE })
  add("results", "a non-string error", { files = { ["r.json"] = (('{' .. ok_req .. '}'):gsub('%[""%]', '[7]')) },
    cmd = C, err = "r.json: errors[1]: expected a string", after = NONE })
  add("results", "trailing NUL bytes", { files = { ["r.json"] = '{' .. ok_req .. '}\0\0\0' },
    cmd = C, err = "r.json: JSON: expected text, got a NUL byte", after = NONE })
  add("results", "a file that ran another model", { files = { ["r.json"] = '{"model_id": "meta-llama/Llama-3.1-8B", '
    .. ok_req .. '}' }, cmd = (C:gsub("llama%-3%.1%-8b", "pythia-70m")), err = "calibrate.model: r.json ran meta-llama/Llama-3.1-8B, not pythia-70m",
    after = NONE })
  add("results", "the same file twice", { files = { ["r.json"] = '{' .. ok_req .. '}' },
    cmd = C .. " ./r.json", err = "given twice", after = NONE })
  add("results", "a GenAI-Perf p50 above its p90", { files = { ["r.json"] = '{"time_to_first_token": {"avg": 1, "p50": 5, '
    .. '"p90": 2, "unit": "ms"}}' }, cmd = C, err = "r.json: time_to_first_token.p50: expected at most p90", after = NONE })
  add("results", "no completed request", { files = { ["r.json"] = (('{' .. ok_req .. '}'):gsub('%[""%]', '["timeout"]')) },
    cmd = C, err = "r.json: errors: expected at least one completed request", after = NONE })
  add("results", "a prompt past the model's context", { files = { ["r.json"] = (('{' .. ok_req .. '}')
    :gsub('"input_lens": %[10%]', '"input_lens": [200000]')) }, cmd = C,
    err = { "cannot replay r.json", "max_position_embeddings" }, after = NONE })
  add("results", "an engine file without .lua", { files = { ["r.json"] = '{' .. ok_req .. '}' },
    cmd = "calibrate --serving r.json --model llama-3.1-8b --out e.txt", err = "calibrate.out: expected a .lua engine file" })

  -- 12. engine files (--engine FILE.lua, as calibrate --serving writes them): the sandbox's budgets
  add("results", "an engine file that is not there", { cmd = "serve pythia-70m --rate 1 --engine nope.lua",
    err = "serve.engine: nope.lua: cannot read" })
  add("results", "an engine file with a negative host time", { files = { ["e.lua"] =
    'return { base = "vllm@0.6", seq_host_s = -1 }' }, cmd = "serve pythia-70m --rate 1 --engine e.lua",
    err = "serve.engine.seq_host_s: expected a host time in seconds from 0 to 10, got -1" })
  add("results", "an engine file that loops", { files = { ["e.lua"] = "while true do end" },
    cmd = "serve pythia-70m --rate 1 --engine e.lua", err = "exceeds the data-file budget" })
  add("results", "more requests than a calibration replays", { files = { ["r.json"] = '{"input_lens": ['
    .. string.rep("1,", 20000) .. '1], "output_lens": [], "ttfts": [], "itls": [], "duration": 1}' }, cmd = C,
    err = "r.json: input_lens: expected at most 20000 requests", after = NONE })

  -- 13. a shared system prompt (prefix caching)
  add("names", "--prefix-tokens 0", { cmd = "serve pythia-70m --rate 1 --isl 10 --osl 10 --prefix-tokens 0",
    err = "serve.workload.prefix.tokens: expected positive integer, got 0" })
  add("names", "--prefix-share above 1", { cmd = "serve pythia-70m --rate 1 --isl 10 --osl 10 --prefix-tokens 8 "
    .. "--prefix-share 1.5", err = "serve.workload.prefix.share" })
  add("ignored", "--prefix-share without --prefix-tokens", { cmd = "serve pythia-70m --rate 1 --isl 10 --osl 10 "
    .. "--prefix-share 0.5", err = "serve.prefix_share: --prefix-share applies with --prefix-tokens" })
  add("names", "a prefix past the model's context", { cmd = "serve pythia-70m --rate 1 --isl 10 --osl 10 "
    .. "--prefix-tokens 5000", err = "max_position_embeddings 2048" })

  -- 14. an engine on a GPU it does not run on; a device named by the option that gave it
  add("names", "TensorRT-LLM on an AMD GPU", { cmd = "serve pythia-70m --rate 1 --isl 10 --osl 10 --engine trtllm "
    .. "--hw mi300x", err = "serve.engine: trtllm runs on nvidia GPUs only; mi300x is amd" })
  add("names", "NIM on an AMD GPU, decode", { cmd = "decode pythia-70m --engine nim --hw mi300x",
    err = "decode.engine: nim runs on nvidia GPUs only; mi300x is amd" })
  add("names", "an unknown device named by its option", { cmd = "decode pythia-70m --hw h900",
    err = { "decode.hw: unknown device 'h900'", "did you mean" } })
  add("names", "an unknown device in a serve run", { cmd = "serve pythia-70m --rate 1 --isl 10 --osl 10 --hw h900",
    err = { "serve.hw: unknown device 'h900'" } })

  -- 15. disaggregated pools from the command line
  local D = "serve pythia-70m --rate 1 --isl 10 --osl 10 "
  add("names", "--prefill-pool without --decode-pool", { cmd = D .. "--prefill-pool t=1",
    err = "serve.prefill_pool: expected with --decode-pool" })
  add("names", "a pool key twice", { cmd = D .. "--prefill-pool t=1,t=2 --decode-pool t=1",
    err = "serve.prefill_pool.t: given twice", code = 2 })
  add("names", "an unknown pool key", { cmd = D .. "--prefill-pool t=1 --decode-pool gpus=2",
    err = "serve.decode_pool: expected t=N,replicas=N,hw=DEVICE, got 'gpus=2'", code = 2 })
  add("names", "an unknown pool device", { cmd = D .. "--prefill-pool t=1 --decode-pool hw=h900",
    err = "serve.disagg.decode.hw: unknown device 'h900'" })
  add("ignored", "--replicas with pools", { cmd = D .. "--prefill-pool t=1 --decode-pool t=1 --replicas 2",
    err = "serve.replicas: --replicas does not apply with --prefill-pool and --decode-pool" })

  -- 16. expert parallelism
  local E = "serve mixtral-8x7b --rate 1 --isl 10 --osl 10 "
  add("names", "ep on a dense model", { cmd = D .. "--ep 2",
    err = "serve.ep: pythia-70m has no experts to spread (expected ep = 1)" })
  add("names", "ep that does not divide the experts", { cmd = E .. "--ep 3",
    err = "serve.ep: expected a divisor of the 8 experts, got 3" })
  add("names", "ep beside t", { cmd = E .. "--ep 2 --t 2",
    err = "serve.ep: expected t = 1 with expert parallelism (attention data-parallel), got 2" })
  add("names", "an expert imbalance without ep", { cmd = E .. "--expert-imbalance 1.2",
    err = "serve.expert_imbalance: expected none without ep > 1, got 1.2" })
  add("ranges", "an expert imbalance past ep", { cmd = E .. "--ep 2 --expert-imbalance 3",
    err = "serve.expert_imbalance: expected a number in [1, 2]" })
  add("ranges", "an expert imbalance below 1", { cmd = E .. "--ep 2 --expert-imbalance 0.5",
    err = "serve.expert_imbalance: expected a number in [1, 2]" })
  add("names", "ep with disaggregated pools", { cmd = "serve mixtral-8x7b --rate 1 --isl 10 --osl 10 --ep 2 "
    .. "--prefill-pool t=2 --decode-pool t=2", err = "serve.ep: --ep does not apply with --prefill-pool" })
  -- 17. pipeline parallelism
  add("names", "pp past the layers", { cmd = D .. "--pp 7",
    err = "serve.pp: expected at most num_hidden_layers 6 of pythia-70m (a stage holds one layer at least), got 7" })
  add("names", "pp beside ep", { cmd = E .. "--ep 2 --pp 2",
    err = "serve.pp: expected 1 with ep > 1 (expert parallelism runs one stage), got 2" })
  add("names", "pp with disaggregated pools", { cmd = D .. "--pp 2 --prefill-pool t=1 --decode-pool t=1",
    err = "serve.pp: --pp does not apply with --prefill-pool" })
  add("ranges", "pp times replicas past the schedulers", { cmd = D .. "--pp 6 --replicas 1000",
    err = "serve.replicas: expected at most 682 with pp = 6" })
  add("names", "a zero pp", { cmd = D .. "--pp 0", err = "serve.pp: expected positive integer, got 0" })
  -- 18. multi-turn conversations
  local C = "serve pythia-70m --rate 1 --isl 10 --osl 10 "
  add("names", "--think-time without --turns", { cmd = C .. "--think-time 5s",
    err = "serve.think_time: --think-time applies with --turns" })
  add("units", "a think time without its unit", { cmd = C .. "--turns 3 --think-time 5",
    err = "serve.think_time: expected a duration with its unit (h, min, s, ms, us), got '5'" })
  add("ranges", "zero turns", { cmd = C .. "--turns 0",
    err = "serve.workload.conversation.turns: expected positive integer, got 0" })
  add("names", "turns beside a shared prefix", { cmd = C .. "--turns 3 --prefix-tokens 100",
    err = "serve.workload.conversation: expected no shared prefix" })
  add("names", "turns over sharegpt_multi", { cmd = "serve pythia-70m --rate 1 --dataset sharegpt_multi --turns 3",
    err = "serve.workload.conversation: expected a per-turn dataset" })
  add("names", "turns with disaggregated pools", { cmd = C .. "--turns 3 --prefill-pool t=1 --decode-pool t=1",
    err = "serve.workload.conversation: expected none with disagg" })
  add("names", "a negative ep", { cmd = E .. "--ep -2", err = "serve.ep: expected positive integer, got -2" })
  -- 19. TensorRT-LLM's GptSession and masked MHA (issue 48 item 4)
  add("memory", "a GptSession batch whose KV cache does not fit at once", { cmd = "serve llama-2-70b --hw h200_sxm "
    .. "--engine trtllm@0.6.1 --scheduler gptsession --max-num-seqs 256 --weight-dtype fp8 --kv-dtype fp8 --isl 128 "
    .. "--osl 2048 --offline --requests 256",
    err = "serve.scheduler.max_num_seqs: expected a batch whose KV cache fits at once (256 requests of isl + osl up to 2176" })
  add("names", "a decode attention kernel that does not exist", { cmd = "decode llama-3-8b --decode-attention xqa2",
    err = "'--decode-attention' must be one of 'split_kv', 'no_split', 'mmha', 'xqa', 'full'", code = 2 })
  add("names", "a TensorRT-LLM release before 0.5", { cmd = "serve llama-3-8b --rate 1 --engine trtllm@0.4",
    err = "expected a trtllm release with a profile: 0.5 (0.5 to before 0.8), 0.8 (0.8 to before 0.12), 0.x (0.12 to "
      .. "before 1.0), 1.0 (1.0 and later)" })
end
