-- The hostile-input catalogue of issue 32, second part: the classes write, accepted, message
-- and options (tests/hostile/catalogue.lua holds the first and the case format).
return function(add, shared, json, llama)
  local format = string.format
  ---------------------------------------------------------------------------------------------
  -- write: outputs that must never lose data or report a false success
  local writers = {
    { "report", "report --models pythia-70m --s 512 --out %s", "report.out" },
    { "report csv", "report --models pythia-70m --s 512 --format csv --out %s", "report.out" },
    { "sweep", "sweep s.lua --out %s", "sweep.out" },
    { "check junit", "check c.lua --junit %s", "check.junit" },
    { "plot", "plot roofline --hw h100_sxm5 --models pythia-70m --out %s", "plot.out" },
  }
  local targets = {
    { "/dev/full", "/dev/full", "char device" },
    { "/proc/version", "/proc/version", "system file" },
    { "a directory", "adir", "directory" },
    { "a missing directory", "nodir/x.out", "does not exist" },
  }
  local files = { ["s.lua"] = "return { base = 'pythia-70m', vary = { hidden_size = { 512, 1024 } } }",
                  ["c.lua"] = "return { name = 'c', models = { 'pythia-70m' }, hw = 'h100_sxm5', workload = { b = 1, s = 128 } }" }
  for _, w in ipairs(writers) do
    for _, t in ipairs(targets) do
      add("write", format("%s to %s", w[1], t[1]), { files = files, setup = "mkdir -p adir", cmd = format(w[2], t[2]),
        err = { w[3], t[3] }, stdout_ok = true })
    end
    -- a failing run keeps the user's existing file
    add("write", w[1] .. ": a failure keeps the existing file", { files = { ["keep.out"] = "precious\n",
      ["s.lua"] = "return { base = 'pythia-70m', vary = { hidden_size = { 512, 1024 } }, where = function() error('boom') end }",
      ["c.lua"] = files["c.lua"] },
      cmd = format(w[2]:gsub("pythia%-70m", "nosuchmodel"):gsub("c%.lua", "nosuch.lua"), "keep.out"),
      err = "", stdout_ok = true,
      after = function(dir, read) return read(dir .. "/keep.out") == "precious\n", "the existing file changed" end })
    add("write", w[1] .. ": writes through a temporary (control)", { files = files, cmd = format(w[2], "new.out"),
      after = function(dir, read)
        local ok = read(dir .. "/new.out") ~= ""
        local p = io.popen("ls " .. dir)
        local names = p:read("a")
        p:close()
        return ok and not names:find("%.tmp%-"), "no output, or a temporary left behind"
      end, ok = "" })
  end
  for _, c in ipairs {
    { "gemm", "gemm 64 64 64" }, { "hw", "hw" }, { "hw one", "hw h100_sxm5" }, { "models", "models" },
    { "decode", "decode pythia-70m --context 64" }, { "train", "train pythia-70m --global-batch 8" },
    { "report", "report --models pythia-70m --s 512" }, { "sweep", "sweep s.lua" }, { "check", "check c.lua" },
    { "roofline", "roofline --flops 1e12 --bytes 1e9" }, { "version", "--version" }, { "help", "--help" },
    { "help gemm", "help gemm" }, { "train search", "train pythia-70m --global-batch 8 --search" },
  } do
    add("write", c[1] .. " to a full stdout", { files = files, cmd = c[2], stdout = "/dev/full",
      err = "cannot write to stdout: No space left on device" })
  end
  -- a baseline path must end in .json: /dev/full itself is refused by name, and a .json link to it
  -- as a character device
  add("write", "update-baseline onto /dev/full", { files = { ["c.lua"] = "return { name = 'c', models = { 'pythia-70m' }, hw = 'h100_sxm5', workload = { b = 1, s = 128 }, expect = { baseline = '/dev/full' } }" },
    cmd = "check --update-baseline c.lua", err = { "expect.baseline", "a path ending in .json" } })
  add("write", "update-baseline onto a .json link to /dev/full", { files = { ["c.lua"] = "return { name = 'c', models = { 'pythia-70m' }, hw = 'h100_sxm5', workload = { b = 1, s = 128 }, expect = { baseline = 'full.json' } }" },
    setup = "ln -s /dev/full full.json", cmd = "check --update-baseline c.lua", err = "char device" })
  add("write", "calibrate --out /dev/full", { cmd = "calibrate " .. shared .. "/reference/calibration/h100 --base h100_sxm5 --rounds 1 --out /dev/full",
    err = { "calibrate.out", "char device" }, stdout_ok = true })

  ---------------------------------------------------------------------------------------------
  -- accepted: inputs that used to pass silently and now fail, naming what is wrong
  add("accepted", "--version after an unknown option", { cmd = "gemm 64 64 64 --bogus --version", err = "--bogus", code = 2 })
  add("accepted", "--version inside a command", { cmd = "gemm 64 64 64 --version", err = "--version", code = 2 })
  add("accepted", "measured CSV with a negative rate", { files = { ["m.csv"] = "m,n,k,tflops\n2304,1600,4096,100\n2304,1700,4096,-5\n" },
    cmd = "plot gemm --sweep wave --hw h100_sxm5 --measured m.csv --out o.svg", err = { "row 3", "tflops" } })
  add("accepted", "measured CSV with a short row", { files = { ["m.csv"] = "m,n,k,tflops\n2304,1600\n" },
    cmd = "plot gemm --sweep wave --hw h100_sxm5 --measured m.csv --out o.svg", err = { "row 2", "k" } })
  add("accepted", "measured CSV with text", { files = { ["m.csv"] = "m,n,k,tflops\nx,1600,4096,100\n" },
    cmd = "plot gemm --sweep wave --hw h100_sxm5 --measured m.csv --out o.svg", err = { "row 2", "m" } })
  add("accepted", "measured CSV with no rows", { files = { ["m.csv"] = "m,n,k,tflops\n" },
    cmd = "plot gemm --sweep wave --hw h100_sxm5 --measured m.csv --out o.svg", err = "no" })
  add("accepted", "measured CSV with a zero time", { files = { ["m.csv"] = "m,n,k,time_s\n2304,1600,4096,0\n" },
    cmd = "plot gemm --sweep wave --hw h100_sxm5 --measured m.csv --out o.svg", err = { "row 2", "time_s" } })
  for _, w in ipairs { { "batch", "workload.batch" }, { "seq", "workload.seq" }, { "seq_len", "workload.seq_len" },
                       { "bs", "workload.bs" }, { "S", "workload.S" } } do
    add("accepted", "check workload key " .. w[1], { files = { ["c.lua"] = format(
      "return { name = 'c', models = { 'pythia-70m' }, hw = 'h100_sxm5', workload = { %s = 4 } }", w[1]) },
      cmd = "check c.lua", err = w[2] })
  end
  add("accepted", "check with an empty sweep", { files = { ["c.lua"] = "return { name = 'c', hw = 'h100_sxm5', sweep = { base = 'pythia-70m', vary = { hidden_size = { 512 } }, where = function() return false end } }" },
    cmd = "check c.lua", err = "no (model, hw) pair" })
  add("accepted", "check sweep key typo", { files = { ["c.lua"] = "return { name = 'c', hw = 'h100_sxm5', sweep = { base = 'pythia-70m', vari = {} } }" },
    cmd = "check c.lua", err = { "sweep.vari", "did you mean 'vary'" } })
  add("accepted", "check expect typo", { files = { ["c.lua"] = "return { name = 'c', models = { 'pythia-70m' }, expect = { mfu_min = 0.1 } }" },
    cmd = "check c.lua", err = "expect.mfu_min" })
  add("accepted", "sweep spec key typo", { files = { ["s.lua"] = "return { base = 'pythia-70m', varry = { hidden_size = { 512 } } }" },
    cmd = "sweep s.lua", err = { "varry", "did you mean 'vary'" } })
  add("accepted", "sweep workload typo", { files = { ["s.lua"] = "return { base = 'pythia-70m', vary = { hidden_size = { 512 } }, workload = { seq = 128 } }" },
    cmd = "sweep s.lua", err = "seq" })
  add("accepted", "hw file field typo", { files = { ["x.lua"] = "return { name = 'x', vendor = 'nvidia', arch = 'hopper', mem_bandwith = 1 }" },
    cmd = "hw x.lua", err = "mem_bandwith" })
  add("accepted", "cluster file field typo", { files = { ["x.lua"] = "return { name = 'x', gpus_per_nodes = 8 }" },
    cmd = "train pythia-70m --global-batch 8 --cluster x.lua", err = "gpus_per_nodes" })
  add("accepted", "selective recomputation with flash reports a no-op", { cmd = "train pythia-70m --global-batch 8 --checkpointing selective",
    ok = "no-op" })
  add("accepted", "max context inside the model", { cmd = "decode llama-3-8b --context 1024", ok = "max context 8192" })

  ---------------------------------------------------------------------------------------------
  -- message: errors name the user's field, never tilewave's internals
  add("message", "report --t 0", { cmd = "report --models pythia-70m --t 0", err = "report.t" })
  add("message", "report --t -1", { cmd = "report --models pythia-70m --t -1", err = "report.t" })
  add("message", "report --b -1", { cmd = "report --models pythia-70m --b -1", err = "report.b" })
  add("message", "calibrate --rounds -1 in fit mode", { cmd = "calibrate " .. shared .. "/reference/calibration/h100 --base h100_sxm5 --out x.lua --rounds -1",
    err = "calibrate.rounds" })
  add("message", "decode of a step past 2^53", { cmd = "decode llama-2-7b --context 4096 --batch 1099511627776",
    err = "decode." })
  add("message", "memory past 2^53", { cmd = "decode llama-2-7b --context 4096 --batch 4503599627370496", err = "decode." })
  for _, b in ipairs {
    { "not JSON", "x" }, { "entries a string", '{"entries": "x"}' }, { "entry a string", '{"entries": {"pythia-70m@h100_sxm5": "x"}}' },
    { "time_s a string", '{"entries": {"pythia-70m@h100_sxm5": {"time_s": "fast"}}}' },
    { "time_s infinite", '{"entries": {"pythia-70m@h100_sxm5": {"time_s": 1e400}}}' },
    { "time_s negative", '{"entries": {"pythia-70m@h100_sxm5": {"time_s": -1}}}' },
    { "hash a number", '{"entries": {"pythia-70m@h100_sxm5": {"definition_hash": 5}}}' },
    { "version a number", '{"tilewave_version": 5, "entries": {}}' }, { "an array", "[1, 2]" }, { "null", "null" },
  } do
    add("message", "baseline " .. b[1], { files = { ["b.json"] = b[2], ["c.lua"] =
      "return { name = 'c', models = { 'pythia-70m' }, hw = 'h100_sxm5', workload = { b = 1, s = 128 }, expect = { baseline = 'b.json' } }" },
      cmd = "check c.lua", err = "expect.baseline" })
  end
  add("message", "a head_dim absurd for decode", { files = { ["config.json"] = llama { head_dim = 1048576 } },
    cmd = "decode config.json --context 10", err = "head_dim" })
  add("message", "a cluster with a zero link", { files = { ["x.lua"] = "return { name = 'x', gpus_per_node = 8, node = 'h100_sxm5', intra = { bw = 0, latency_s = 0 }, inter = { bw = 1e9, latency_s = 0 } }" },
    cmd = "train pythia-70m --global-batch 8 --cluster x.lua", err = "x.lua" })
  -- serve (issue 35)
  add("message", "serve: a negative rate", { cmd = "serve pythia-70m --rate " .. "\u{2212}" .. "2 --isl 10 --osl 10", err = "serve.workload.rate" })
  add("message", "serve: a rate list with a word", { cmd = "serve pythia-70m --rate 1,x", err = "serve.rate" })
  add("message", "serve: an unknown dataset", { cmd = "serve pythia-70m --rate 1 --dataset reddit", err = "serve.workload.dataset" })
  add("message", "serve: a malformed SLO", { cmd = "serve pythia-70m --rate 1 --slo ttft=fast", err = "serve.slo.ttft" })
  add("message", "serve: a malformed length", { cmd = "serve pythia-70m --rate 1 --isl 10-x --osl 5", err = "serve.isl" })
  add("message", "serve: a prompt past the KV cache", { cmd = "serve llama-3.1-8b --rate 1 --isl 90000000 --osl 5 --allow-long-context", err = "serve.workload" })
  add("message", "serve: an unknown scheduler", { cmd = "serve pythia-70m --rate 1 --isl 10 --osl 5 --scheduler fifo", err = "serve.scheduler" })
  add("message", "serve: a trace that is missing", { cmd = "serve pythia-70m --trace nope.csv", err = "serve.workload.trace" })
  add("message", "serve: a trace going back in time", { files = { ["t.csv"] = "arrival_s,input_tokens,output_tokens\n1,10,5\n0.5,10,5\n" },
    cmd = "serve pythia-70m --trace t.csv", err = "arrival_s" })
  add("message", "serve: an encoder", { cmd = "serve modernbert-base --rate 1 --isl 10 --osl 5", err = "encoder" })
  add("message", "an unknown device", { cmd = "gemm 64 64 64 --hw h100x", err = { "hw", "h100x", "did you mean 'h100'" } })
  add("message", "a device id in capitals", { cmd = "gemm 64 64 64 --hw H100_SXM5", ok = "(h100_sxm5)" })
  add("message", "a model path that is not there", { cmd = "decode ./nope/qwen3-9b --context 64",
    err = { "./nope/qwen3-9b", "no such file or directory" } })
  add("message", "sweep: a range changed after it was made", { files = { ["r.lua"] = "local r = require('tilewave')"
    .. ".range(50000, 50010) rawset(r, 1, -5) return { base = 'pythia-70m', vary = { vocab_size = r } }" },
    cmd = "sweep r.lua", err = { "sweep.vary.vocab_size", "a changed one" } })
  add("message", "an unknown model", { cmd = "decode llama-9 --context 64", err = "llama-9" })
  add("message", "an unknown engine", { cmd = "decode pythia-70m --context 64 --engine tgi", err = "decode.engine" })
  add("message", "an unknown dtype", { cmd = "gemm 64 64 64 --dtype fp2", err = "dtype" })
  add("message", "a dtype the device lacks", { cmd = "gemm 64 64 64 --dtype fp8 --hw v100_sxm2", err = "gemm.dtype" })
  add("message", "an encoder decoded", { cmd = "decode modernbert-base --context 64", err = "encoder" })
  add("message", "t not dividing heads", { cmd = "decode llama-2-7b --context 64 --t 3", err = "decode.t" })
  add("message", "ep on a dense model", { cmd = "decode llama-2-7b --context 64 --ep 2", err = "decode.ep" })
  add("message", "context past the model", { cmd = "decode llama-2-7b --context 8192", err = "max_position_embeddings" })
  add("message", "int4 group 1", { cmd = "decode llama-2-7b --context 64 --weight-dtype int4 --group 1", err = "decode.group" })
  add("message", "an unknown command", { cmd = "nosuch", err = "nosuch", code = 2 })
  add("message", "an unknown option", { cmd = "gemm 64 64 64 --nosuch", err = "--nosuch", code = 2 })
  add("message", "help of an unknown command", { cmd = "help nosuch", err = "nosuch", code = 2 })
  add("message", "a missing argument", { cmd = "gemm 64 64", err = "k", code = 2 })

  ---------------------------------------------------------------------------------------------
  -- options: every API function and spec file refuses unknown keys (through tilewave run)
  for _, o in ipairs {
    { "gemm", "tw.gemm { m = 64, n = 64, k = 64, hw = 'h100_sxm5', %s = 1 }" },
    { "transformer.estimate", "tw.transformer.estimate('pythia-70m', 'h100_sxm5', { s = 128, %s = 1 })" },
    { "decode", "tw.inference.decode { model = 'pythia-70m', hw = 'h100_sxm5', context = 64, %s = 1 }" },
    { "memory", "tw.inference.memory { model = 'pythia-70m', hw = 'h100_sxm5', context = 64, %s = 1 }" },
    { "prefill", "tw.inference.prefill { model = 'pythia-70m', hw = 'h100_sxm5', prompt = 64, %s = 1 }" },
    { "training", "tw.training.step { model = 'pythia-70m', global_batch = 8, %s = 1 }" },
    { "training.search", "tw.training.search { model = 'pythia-70m', global_batch = 8, %s = 1 }" },
    { "training.best", "tw.training.best { model = 'pythia-70m', global_batch = 8, %s = 1 }" },
    { "rules.check", "tw.rules.check('pythia-70m', { s = 128, %s = 1 }, 'h100_sxm5')" },
    { "search.nearby", "tw.search.nearby('pythia-70m', 'h100_sxm5', { s = 128, %s = 1 })" },
    { "sweep", "tw.sweep { base = 'pythia-70m', %s = 1 }" },
    { "report", "tw.analysis.models { models = { 'pythia-70m' }, %s = 1 }" },
  } do
    for _, key in ipairs { "gpus", "seq_len", "batch_size" } do
      add("options", format("%s %s", o[1], key), { files = { ["x.lua"] = "local tw = require 'tilewave'\n" .. format(o[2], key) },
        cmd = "run x.lua", err = { o[1] .. ": unknown option '" .. key .. "'" } })
    end
  end
end
