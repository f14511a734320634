-- busted specs for the `tilewave` executable (tilewave.cli), run as a process.
local run = dofile("tests/lua/helpers/process.lua").run

-- Run `tilewave run <tmp script> args` with the script's source `src`.
local function run_script(src, args)
  local path = os.tmpname()
  local f = io.open(path, "w")
  f:write(src)
  f:close()
  local code, out, err = run("run " .. path .. (args and " " .. args or ""))
  os.remove(path)
  return code, out, err
end

describe("tilewave CLI", function()
  it("predicts the README's GEMM example with its tile/wave/alignment breakdown", function()
    local code, out = run("gemm 2304 1600 4096 --hw a100_sxm4_80gb --dtype fp16")
    assert.equal(0, code)
    assert.truthy(out:find("GEMM M=2304 N=1600 K=4096 batch=1, fp16 on NVIDIA A100 SXM4 80GB", 1, true))
    assert.truthy(out:find("efficiency  tile ", 1, true))
    assert.truthy(out:find("waves? of 108"))
  end)

  it("writes JSON with the documented fields", function()
    local code, out = run("gemm 4096 4096 4096 --hw h100_sxm5 --dtype bf16 --format json")
    assert.equal(0, code)
    local r = require("cjson").decode(out)
    assert.equal(2 * 4096 ^ 3, r.flops)
    assert.equal("h100_sxm5", r.hw)
    assert.is_number(r.tile_eff)
    assert.is_number(r.tile.m)
  end)

  it("writes each sweep row as csv.field writes its values", function()
    -- the CLI formats the estimate's four floats in one call when none is integral
    local tw = require "tilewave"
    local field = require("tilewave.util.csv").field
    local spec = { base = "pythia-70m", hw = { "h100_sxm5" }, workload = { b = 2, s = 512 },
                   vary = { hidden_size = { 448, 512, 576 }, vocab_size = { 50304, 50277 } } }
    local path = os.tmpname()
    local f = io.open(path, "w")
    f:write("return ", require("tilewave.util.literal").encode(spec), "\n")
    f:close()
    local code, out = run("sweep " .. path)
    os.remove(path)
    assert.equal(0, code)
    local expect = { "index,hw,hidden_size,vocab_size,params,time_s,tflops,mfu,tokens_per_s" }
    for cfg, hw_id, est in tw.sweep(spec) do
      expect[#expect + 1] = table.concat({ string.format("%d", est.index), hw_id, field(cfg.hidden_size),
        field(cfg.vocab_size), field(est.params), field(est.time_s), field(est.tflops), field(est.mfu),
        field(est.tokens_per_s) }, ",")
    end
    assert.equal(7, #expect)
    assert.equal(table.concat(expect, "\n") .. "\n", out)
  end)

  it("exits 1 with one line naming the field on bad input", function()
    local code, out, err = run("gemm 0 1600 4096")
    assert.equal(1, code)
    assert.equal("", out)
    assert.equal("tilewave: gemm.m: expected positive integer, got 0\n", err)
  end)

  it("exits 1 for an unknown device", function()
    local code, _, err = run("gemm 1 1 1 --hw h100x")
    assert.equal(1, code)
    assert.truthy(err:find("^tilewave: gemm.hw: unknown device 'h100x' %(did you mean 'h100'%?%) %(known: a10, "))
  end)

  it("exits 2 with a usage message for a malformed argument", function()
    local code, _, err = run("gemm abc 1 1")
    assert.equal(2, code)
    assert.equal(1, select(2, err:gsub("\n", "")))
  end)

  it("lists devices and shows one with sources", function()
    local code, out = run("hw")
    assert.equal(0, code)
    assert.truthy(out:find("v100_sxm2", 1, true))
    assert.truthy(out:find("138.9", 1, true)) -- V100 ops:byte 125e12/900e9
    code, out = run("hw h100_sxm5")
    assert.equal(0, code)
    assert.truthy(out:find("132", 1, true))
    assert.truthy(out:find("whitepaper", 1, true))
  end)

  it("computes a roofline", function()
    local code, out = run("roofline --flops 17179869184 --bytes 138412032 --hw v100_sxm2")
    assert.equal(0, code)
    assert.truthy(out:find("ridge point 138.89 FLOP/B -> memory-bound", 1, true))
  end)

  it("runs a user script with arg set and its options untouched", function()
    local code, out = run_script('local tw = require "tilewave"\nprint(tw._VERSION, arg[0] ~= nil, arg[1], arg[2])\n',
      "--hw x")
    assert.equal(0, code)
    assert.equal("0.1.0\ttrue\t--hw\tx\n", out)
  end)

  it("exits 1 when a script fails", function()
    local code, _, err = run_script('error("boom", 0)\n')
    assert.equal(1, code)
    assert.equal("tilewave: boom\n", err)
  end)

  it("prints help", function()
    local code, out = run("gemm --help")
    assert.equal(0, code)
    assert.truthy(out:find("Usage: tilewave gemm", 1, true))
  end)

  describe("report", function()
    it("is byte-identical across two runs and covers all three families", function()
      local c1, out1 = run("report")
      local c2, out2 = run("report")
      assert.equal(0, c1)
      assert.equal(0, c2)
      assert.equal(out1, out2)
      assert.truthy(out1:find("on NVIDIA H100 SXM5", 1, true))
      assert.truthy(out1:find("b = 4, s = 2048 (8192 tokens)", 1, true))
      for _, id in ipairs { "llama-3.1-8b", "llama-3.2-1b", "pythia-2.8b", "gpt-neox-20b", "modernbert-base",
                             "modernbert-large" } do
        assert.truthy(out1:find("## " .. id .. ":", 1, true), id)
      end
      -- Pythia-2.8B's h/a = 80 is reported with its fix
      assert.truthy(out1:find("**head_dim_64**: h/a = 80", 1, true))
      -- the inference section: decoders only
      assert.truthy(out1:find("## Inference: decode", 1, true))
      assert.truthy(out1:find("\n| llama-3.1-8b | bf16 | ", 1, true))
      assert.falsy(out1:find("\n| modernbert-base | bf16 | ", 1, true))
      -- the training section on the DGX H100 cluster
      assert.truthy(out1:find("## Training: best configuration", 1, true))
      assert.truthy(out1:find("(dgx_h100)", 1, true))
    end)

    it("writes CSV and JSON for chosen models and families", function()
      local code, out = run("report --models pythia-2.8b,modernbert --format csv --hw a100_sxm4_80gb")
      assert.equal(0, code)
      local lines = {}
      for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
      assert.equal(4, #lines)
      assert.truthy(lines[1]:find("^model,family,hw,dtype,b,s,t,attention,params"))
      assert.truthy(lines[2]:find("^pythia%-2%.8b,gpt_neox,a100_sxm4_80gb,bf16,4,2048,1,standard,2775208960,"))
      code, out = run("report --models llama-3.2-1b --format json --b 1 --s 8192")
      assert.equal(0, code)
      local r = require("cjson").decode(out)
      assert.equal(1235814400, r.models[1].params.total)
      assert.equal(8192, r.workload.s)
    end)

    it("writes to --out", function()
      local path = os.tmpname()
      local code, out = run("report --models pythia-70m --out " .. path)
      assert.equal(0, code)
      assert.equal("", out)
      local f = io.open(path)
      local text = f:read("a")
      f:close()
      os.remove(path)
      assert.truthy(text:find("## pythia-70m: Pythia-70M", 1, true))
    end)

    it("exits 1 naming an unknown model", function()
      local code, _, err = run("report --models pythia-3b")
      assert.equal(1, code)
      assert.truthy(err:find("report.models: unknown model or family 'pythia-3b'", 1, true))
    end)
  end)

  it("lists model presets with parameter counts", function()
    local code, out = run("models gpt_neox")
    assert.equal(0, code)
    assert.truthy(out:find("pythia-2.8b", 1, true))
    assert.truthy(out:find("2,775,208,960", 1, true))
  end)

  it("predicts a decode step with its memory fit", function()
    local code, out = run("decode llama-2-70b --hw h100_sxm5 --context 4096 --t 2")
    assert.equal(0, code)
    assert.truthy(out:find("decode llama-2-70b on h100_sxm5: batch 1, context 4096, bf16 weights (16.00 bits)", 1, true))
    -- KV cache per rank: 2 * 80 * 4 * 128 * 4096 * 2 B = 671.1 MB
    assert.truthy(out:find("KV cache 671.1 MB", 1, true))
    assert.truthy(out:find("fits; max batch", 1, true))
    code, out = run("decode modernbert-base --context 8")
    assert.equal(1, code)
  end)

  it("answers lists of batch sizes and contexts, one row each, and agrees with the API", function()
    local tw = require "tilewave"
    local code, out = run("decode llama-3-8b --batch 1,8 --context 2048,8192 --format json")
    assert.equal(0, code)
    local runs = require("cjson").decode(out).runs
    assert.equal(4, #runs)
    -- batch outermost, then context; each run is tw.inference.decode's answer for its pair
    local want = { { 1, 2048 }, { 1, 8192 }, { 8, 2048 }, { 8, 8192 } }
    for i, r in ipairs(runs) do
      assert.same(want[i], { r.decode.batch, r.decode.context })
      local d = tw.inference.decode { model = "llama-3-8b", hw = "h100_sxm5", batch = want[i][1], context = want[i][2] }
      assert.near(d.tpot_s, r.decode.tpot_s, 1e-12 * d.tpot_s)
      assert.is_true(r.memory.fits)
    end
    -- the text table says what each bound in it means
    code, out = run("decode llama-3-8b --batch 1,32 --context 8192")
    assert.equal(0, code)
    assert.truthy(out:find("\nbound: memory = weights and KV cache streamed from HBM\n", 1, true))
    code, out = run("decode llama-3-8b --batch 1,8,32 --format csv")
    assert.equal(0, code)
    assert.truthy(out:find("^batch,context,TPOT,"))
    assert.equal(4, select(2, out:gsub("\n", "")))
    local _, _, err = run("decode llama-3-8b --batch 8,x")
    assert.truthy(err:find("decode.batch: expected a comma-separated list of integers, got '8,x'", 1, true))
  end)

  it("says when decode attention leaves SMs idle, and prices the kernel without a split on request", function()
    -- Llama-3-8B at batch 1, context 512 on an H100: 8 KV heads x 4 context splits = 32 blocks of 132 SMs
    local code, out = run("decode llama-3-8b --context 512")
    assert.equal(0, code)
    assert.truthy(out:find("attention   the KV cache streams from 32 of 132 SMs, 24% of the rate: 32 thread blocks "
      .. "(4 context splits)", 1, true))
    code, out = run("decode llama-3-8b --batch 1,16 --context 512,8192")
    assert.truthy(out:find("\nattention: the KV cache streams from too few SMs (batch 1, context 512: 24% of the rate)\n",
      1, true))
    local _, js = run("decode llama-2-7b --context 2048 --format json")
    local _, jn = run("decode llama-2-7b --context 2048 --format json --decode-attention no_split")
    local split, none = require("cjson").decode(js), require("cjson").decode(jn)
    assert.equal(1, split.decode.kv_eff)
    assert.near(32 / 132, none.decode.kv_eff, 1e-12)
    assert.is_true(none.decode.tpot_s > split.decode.tpot_s)
    local _, _, err = run("decode llama-2-7b --decode-attention flashdecoding")
    assert.truthy(err:find("argument for option '--decode-attention' must be one of", 1, true))
  end)

  it("predicts TTFT with its interval for a list of prompts, and reads a model folder", function()
    local tw = require "tilewave"
    local code, out = run("prefill llama-3-8b --prompt 512,2048 --format json")
    assert.equal(0, code)
    local runs = require("cjson").decode(out).runs
    assert.equal(2, #runs)
    local p = tw.inference.prefill { model = "llama-3-8b", hw = "h100_sxm5", prompt = 2048 }
    assert.near(p.ttft_s, runs[2].ttft_s, 1e-12 * p.ttft_s)
    assert.is_true(runs[2].interval.low < runs[2].ttft_s and runs[2].ttft_s < runs[2].interval.high)
    local _, _, err = run("prefill llama-3-8b")
    assert.truthy(err:find("prefill.prompt: expected positive integer (--prompt N), got nil", 1, true))
    -- a Hugging Face snapshot folder: MODEL names the folder that holds config.json
    local dir = os.tmpname()
    os.remove(dir)
    assert(require("lfs").mkdir(dir))
    local f = assert(io.open(dir .. "/config.json", "w"))
    f:write([[{"model_type":"llama","hidden_size":2048,"intermediate_size":8192,"num_attention_heads":32,
      "num_hidden_layers":16,"num_key_value_heads":8,"vocab_size":128256,"tie_word_embeddings":true,
      "head_dim":64,"max_position_embeddings":131072}]])
    f:close()
    code, out = run("prefill " .. dir .. " --prompt 1024 --format json")
    assert.equal(0, code)
    local q = tw.inference.prefill { model = dir .. "/config.json", hw = "h100_sxm5", prompt = 1024 }
    assert.near(q.ttft_s, require("cjson").decode(out).runs[1].ttft_s, 1e-12 * q.ttft_s)
    os.remove(dir .. "/config.json")
    _, _, err = run("decode " .. dir)
    assert.truthy(err:find("a folder without a config.json", 1, true))
    os.remove(dir)
  end)

  it("lists models as a table, CSV or JSON with the same counts", function()
    local code, out = run("models gemma2 --format json")
    assert.equal(0, code)
    local m = require("cjson").decode(out).models
    assert.same({ "gemma-2-9b", 9241705984 }, { m[1].id, m[1].params })
    code, out = run("models gemma2 --format csv")
    assert.equal(0, code)
    assert.truthy(out:find("\ngemma-2-9b,gemma2,Gemma 2 9B,9241705984,9241705984,3584,16,8,42,14336,256000\n", 1, true))
  end)

  it("predicts a training step and ranks splits", function()
    local code, out = run("train pythia-1b --nodes 1 --global-batch 64 --s 1024 --p 2 --zero 1")
    assert.equal(0, code)
    assert.truthy(out:find("^t 1 p 2 d 4 mb 1 none      ZeRO 1: step "))
    code, out = run("train pythia-1b --nodes 1 --global-batch 64 --s 1024 --search --top 2")
    assert.equal(0, code)
    assert.truthy(out:find("\n  2%. t "))
    assert.truthy(out:find("%d+ valid, %d+ rejected\n$"))
    -- JSON: the step as tw.training.step returns it; with --search the top rows and the counts
    code, out = run("train pythia-1b --nodes 1 --global-batch 64 --s 1024 --p 2 --zero 1 --format json")
    assert.equal(0, code)
    local r = require("cjson").decode(out)
    local want = require("tilewave").training.step { model = "pythia-1b", cluster = "dgx_h100", nodes = 1,
      global_batch = 64, s = 1024, p = 2, zero = 1, attention = "flash", engine = "compiled" }
    assert.near(want.step_s, r.step_s, 1e-12 * want.step_s)
    assert.same({ 1, 2, 4 }, { r.config.t, r.config.p, r.config.d })
    code, out = run("train pythia-1b --nodes 1 --global-batch 64 --s 1024 --search --top 2 --format json")
    assert.equal(0, code)
    r = require("cjson").decode(out)
    assert.equal(2, #r.ranked)
    assert.is_true(r.valid >= 2 and r.ranked[1].tokens_per_s >= r.ranked[2].tokens_per_s)
  end)
end)

describe("a configuration that does not fit", function()
  -- Mixtral 8x7B: 46,702,792,704 parameters x 2 bytes = 93.41 GB of bf16 weights; a context of 2048
  -- tokens x 131,072 bytes (32 layers x 8 KV heads x 128 x 2 x 2 bytes) = 268.4 MB of KV; 1.074 GB of
  -- workspace: 94.75 GB against the 85.52 GB the H100 reports to NVML (81,559 MiB), 9.227 GB short. At
  -- t = 2 each GPU holds half the weights and half the KV heads: 46.70 + 0.134 + 1.074 = 47.91 GB. In fp8
  -- the matrices take a byte a weight (46,702,792,704 - 131,072,000 of input embedding) and the input
  -- embedding stays 16-bit (2 x 131,072,000): 46.834 GB + 0.268 + 1.074 = 48.18 GB
  it("prints the shortfall and what would fit, never a time (decode, one configuration)", function()
    local code, out = run("decode mixtral-8x7b --hw h100 --context 2048")
    assert.equal(0, code)
    assert.truthy(out:find("does not fit: needs 94.75 GB, has 85.52 GB (short by 9.227 GB)", 1, true), out)
    assert.truthy(out:find("would fit   fp8 weights (48.18 GB); or t = 2 (2 GPUs, 47.91 GB each)", 1, true), out)
    assert.is_nil(out:find("tokens/s", 1, true))
    assert.is_nil(out:find("%d ms"))
  end)

  it("cuts the time from table rows and JSON, keeping the rows that fit", function()
    local code, out = run("decode llama-3-8b --hw l4 --batch 1,64 --context 8192")
    assert.equal(0, code)
    assert.truthy(out:find("\n1 +8192 +[0-9.]+ ms"), out)
    assert.truthy(out:find("\n64 +8192 +does not fit +%- +%- +%- +short by"), out)
    local _, js = run("decode mixtral-8x7b --hw h100 --context 2048 --format json")
    local j = require("cjson").decode(js)
    assert.is_false(j.fits)
    assert.is_nil(j.decode)
    assert.is_nil(j.tpot_s)
    assert.equal(94747762688, j.memory.total_bytes)
    assert.equal("fp8", j.would_fit[1].value)
    assert.equal(2, j.would_fit[2].value)
  end)

  it("prints no TTFT for a prefill that does not fit", function()
    local code, out = run("prefill mixtral-8x7b --hw h100 --prompt 512")
    assert.equal(0, code)
    assert.truthy(out:find("\n1 +512 +does not fit", 1), out)
    assert.truthy(out:find("batch 1, prompt 512 does not fit: needs 94.55 GB, has 85.52 GB", 1, true), out)
  end)
end)

describe("tilewave gemm", function()
  it("defaults to the device and dtype every command defaults to: h100_sxm5, bf16", function()
    local code, out = run("gemm 64 64 64")
    assert.equal(0, code)
    assert.truthy(out:find("^GEMM M=64 N=64 K=64 batch=1, bf16 on NVIDIA H100 SXM5 80GB %(h100_sxm5%)"), out)
  end)

  it("names the dimension that breaks alignment and the padded shape predicted faster", function()
    -- N = 4097 bf16: 8194 bytes, 2-byte aligned; K = 4096: 8192 bytes, capped at 128. Below 16 bytes
    -- Hopper's cuBLAS loses TMA (hw/arch/hopper.lua align_eff: 0.192 of the rate at 2 bytes)
    local code, out = run("gemm 4096 4097 4096")
    assert.equal(0, code)
    assert.truthy(out:find("(N 2-byte aligned, K 128-byte aligned)", 1, true), out)
    local n = tonumber(out:match("fix         pad N to (%d+) with zeros %(M=4096 N=%d+ K=4096%)"))
    assert.is_true(n > 4097 and n % 8 == 0 and n <= 4097 + 63, out) -- 16 to 128 bytes: 8 to 64 elements
    assert.is_true(tonumber(out:match("(%d+%.%d+)x faster")) > 3)
    -- K the odd one: the text says K, and the pad is K's
    local _, out2 = run("gemm 4096 4096 4097")
    assert.truthy(out2:find("(N 128-byte aligned, K 2-byte aligned)", 1, true), out2)
    assert.truthy(out2:find("pad K to", 1, true), out2)
    -- aligned: no fix, and JSON says so
    local _, js = run("gemm 4096 4096 4096 --format json")
    assert.is_false(require("cjson").decode(js).fix)
  end)
end)

describe("report --help", function()
  it("lists every model family tilewave has", function()
    local _, out = run("report --help")
    local names = {}
    for k in pairs(require("tilewave").models.families) do names[#names + 1] = k end
    table.sort(names)
    assert.truthy(out:gsub("%s+", " "):find("family names (" .. table.concat(names, ", ") .. ")", 1, true), out)
  end)
end)

describe("train --search", function()
  it("states its workload and prints a tie once, saying why (issue 50)", function()
    local code, out = run("train pythia-70m --search --nodes 1 --global-batch 64 --top 3")
    assert.equal(0, code)
    -- 64 sequences x 2048 tokens = 131,072 tokens per step, on one DGX H100's 8 GPUs
    assert.truthy(out:find("^train pythia%-70m on 1 x dgx_h100 %(8 GPUs%): global batch 64 sequences x s = 2048 tokens "
      .. "%(131%.1 k tokens per step%), bf16, flash attention"), out)
    -- with flash attention selective recomputation recomputes nothing: none and selective tie, one row
    assert.truthy(out:find("\n  1%. t %d+ p %d+ d %d+ mb %d+ none=selective ZeRO"), out)
    assert.truthy(out:find("\na=b: checkpointing a and b tie in step time and memory", 1, false), out)
    local _, rows = out:gsub("\n +%d+%. t ", "")
    assert.equal(3, rows)
  end)

  it("report --help says why its attention default differs", function()
    local _, out = run("report --help")
    assert.truthy(out:gsub("%s+", " "):find("default standard, unlike prefill and train", 1, true), out)
  end)
end)

describe("tilewave.util.output.transaction", function()
  local output = require "tilewave.util.output"
  local lfs = require "lfs"
  local function read(p) local f = io.open(p) if not f then return nil end local s = f:read("a") f:close() return s end

  it("renames every staged file together, or none when the run fails, leaving no temporary (issue 51)", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(lfs.mkdir(dir))
    local a, b = dir .. "/a.txt", dir .. "/b.txt"
    local f = assert(io.open(a, "w")) f:write("keep\n") f:close()
    local tx = output.transaction()
    tx:add(a, "x.a")
    tx:add(b, "x.b")
    local ok, err = pcall(tx.run, tx, function()
      tx:stage(a, "x.a", function(w) w:write("new\n") end)
      tx:stage(b, "x.b", function(w) w:write("new\n") end)
      error("plot: gnuplot failed", 0)
    end)
    assert.is_false(ok)
    assert.equal("plot: gnuplot failed", err)
    assert.equal("keep\n", read(a))
    assert.is_nil(read(b))
    local left = 0
    for e in lfs.dir(dir) do if e:find("tmp", 1, true) then left = left + 1 end end
    assert.equal(0, left)
    -- and all of them when it succeeds
    local tx2 = output.transaction()
    tx2:add(a, "x.a")
    tx2:add(b, "x.b")
    local wrote = tx2:run(function()
      tx2:stage(a, "x.a", function(w) w:write("new\n") end)
      tx2:stage(b, "x.b", function(w) w:write("new b\n") end)
    end)
    assert.same({ a, b }, wrote)
    assert.equal("new\n", read(a))
    assert.equal("new b\n", read(b))
    os.remove(a) os.remove(b) lfs.rmdir(dir)
  end)

  it("refuses two outputs with one path", function()
    local tx = output.transaction()
    tx:add("/tmp/tw_same_out.txt", "serve.out")
    assert.has_error(function() tx:add("/tmp//tw_same_out.txt", "serve.requests_out") end,
      "serve.requests_out: the same file as serve.out (/tmp//tw_same_out.txt)")
  end)
end)

describe("tilewave engines", function()
  it("lists every engine with its host costs and sources, and names an unknown one", function()
    local code, out = run("engines")
    assert.equal(0, code)
    for _, e in ipairs { "compiled", "eager", "hf", "vllm", "sglang", "trtllm", "llama.cpp" } do
      assert.truthy(out:find("\n" .. e:gsub("%p", "%%%0") .. " +") or out:find("^" .. e .. " +"), e)
    end
    -- vLLM's host time fitted to the published v0.6.0 rows: 2 ms a step, 30 us a sequence; the
    -- newest profile (0.14 on) overlaps 45% of it (asynchronous scheduling)
    local _, one = run("engines vllm")
    assert.truthy(one:find("base vllm@0.14; release >= 0.14; scheduler vllm; host 2 ms per step; 30 µs per sequence; "
      .. "45% of it overlapped", 1, true), one)
    assert.truthy(one:find("Async scheduling is now enabled by default", 1, true), one)
    local _, v1 = run("engines vllm@v1")
    assert.truthy(v1:find("host times borrowed from vllm@0.6", 1, true), v1)
    -- TensorRT-LLM before XQA: its decode attention is named
    local _, t05 = run("engines trtllm@0.5")
    assert.truthy(t05:find("base trtllm@0.x; release 0.5 - 0.7.x; scheduler trtllm; host 250 µs per step; 10 µs per "
      .. "sequence; 2.5 µs per kernel; launch graph; decode attention mmha; nvidia GPUs only", 1, true), t05)
    local c2, _, err = run("engines vlm")
    assert.equal(1, c2)
    assert.truthy(err:find("engines.name: expected one of", 1, true) and err:find("did you mean 'vllm'", 1, true), err)
    local _, js = run("engines --format json")
    assert.is_true(#require("cjson").decode(js) >= 9)
  end)
end)

describe("the commands' one shape (tilewave.cli.parser.COMMANDS)", function()
  local parser = require "tilewave.cli.parser"
  local lfs = require "lfs"

  it("lists exactly the cli/<name>.lua modules that define a command, each with define and run", function()
    local files = {}
    for f in lfs.dir("lua/tilewave/cli") do
      local name = f:match("^(.-)%.lua$")
      if name then
        local m = require("tilewave.cli." .. name)
        if m.define then files[#files + 1] = name end
      end
    end
    table.sort(files)
    local listed = {}
    for i, n in ipairs(parser.COMMANDS) do listed[i] = n end
    table.sort(listed)
    assert.are.same(files, listed)
    for _, n in ipairs(parser.COMMANDS) do
      assert.is_function(parser.command(n).run, n)
    end
  end)

  it("lists every command in tilewave help, in order", function()
    -- the commands a user has (README.md's tour and docs/), written out here rather than read from
    -- the list the parser is built from
    local want = { "help", "run", "gemm", "roofline", "report", "models", "sweep", "check", "decode", "prefill",
                   "train", "calibrate", "plot", "serve", "engines", "hw" }
    local p = parser.parser()
    local names = {}
    for i, c in ipairs(p._commands) do names[i] = c._name end
    assert.are.same(want, names)
    local code, out = run("help")
    assert.equal(0, code)
    local last = 0
    for _, n in ipairs(want) do
      local at = out:find("\n   " .. n .. " ", 1, true)
      assert.truthy(at, n)
      assert.is_true(at > last, n .. " out of order")
      last = at
    end
  end)

  it("shows a subcommand's help, for --help after it and for tilewave help (before: plot's own)", function()
    for _, cmd in ipairs { "plot roofline --help", "plot roofline -h", "help plot roofline", "--help plot roofline" } do
      local code, out = run(cmd)
      assert.equal(0, code, cmd)
      assert.truthy(out:find("^Usage: tilewave plot roofline %[%-h%]"), cmd)
    end
    local code, out = run("plot --help")
    assert.equal(0, code)
    assert.truthy(out:find("^Usage: tilewave plot %[%-h%] <command>"))
  end)
end)
