-- The command that starts a ranked deployment (tilewave.serve.launch): each engine's documented
-- flags, with the values the simulation used, written out by hand here.
local launch = require "tilewave.serve.launch"

local function deployment(over)
  local d = { engine = "vllm", mode = "agg", t = 2, replicas = 1, max_num_seqs = 256, max_num_batched_tokens = 8192,
              gpu_memory_utilization = 0.9, weight_dtype = "bf16", kv_dtype = "bf16", multi_step = 1 }
  for k, v in pairs(over or {}) do d[k] = v end
  return d
end

describe("tilewave.serve.launch", function()
  it("writes vllm serve with the simulated limits, fp8 flags where the dtypes are fp8", function()
    local l = launch.of(deployment { weight_dtype = "fp8", kv_dtype = "fp8" }, "meta-llama/Llama-3.1-8B-Instruct")
    assert.are.equal("vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 --max-num-seqs 256 "
      .. "--max-num-batched-tokens 8192 --gpu-memory-utilization 0.90 --quantization fp8 --kv-cache-dtype fp8",
      l.command)
    assert.are.equal(1, l.copies)
    -- the release whose flags these are
    assert.are.equal("vllm@0.14 flags (>= 0.14)", l.note)
  end)
  it("caps the context where one sequence's KV cache cannot hold it, as each engine names the flag", function()
    -- issue 69: llama-3.1-70b fp8 on one H100 keeps 9,232 tokens of KV; vLLM refuses to start its
    -- 131,072-token context without --max-model-len 9232
    local d = deployment { t = 1, kv_capacity_tokens = 9232, max_position_embeddings = 131072 }
    assert.truthy(launch.of(d, "a/b").command:find(" %-%-max%-model%-len 9232$"))
    d.engine = "sglang"
    assert.truthy(launch.of(d, "a/b").command:find(" %-%-context%-length 9232$"))
    d.engine = "trtllm"
    assert.truthy(launch.of(d, "a/b").command:find(" %-%-max_seq_len 9232$"))
    -- an expert-parallel group of 8 ranks holding 80,000 tokens: 10,000 a rank, one sequence's most
    assert.are.equal(10000, launch.max_model_len(80000, 8, 131072))
    -- a cache that holds the whole context: no flag
    d = deployment { kv_capacity_tokens = 200000, max_position_embeddings = 131072 }
    assert.falsy(launch.of(d, "a/b").command:find("max-model-len", 1, true))
  end)
  it("adds --num-scheduler-steps only for vLLM 0.6, where multi-step exists", function()
    local d = deployment { engine = "vllm@0.6", multi_step = 10 }
    assert.truthy(launch.of(d, "a/b").command:find("%-%-num%-scheduler%-steps 10$"))
    d.engine = "vllm@v1"
    assert.falsy(launch.of(d, "a/b").command:find("num-scheduler-steps", 1, true))
  end)
  it("writes SGLang's and TensorRT-LLM's flags, and the copies behind a balancer", function()
    -- a preset is served from its Hugging Face repository (tilewave.data.hf_repos)
    local l = launch.of(deployment { engine = "sglang@0.4", replicas = 3, gpu_memory_utilization = 0.88 }, "llama-3.1-8b")
    assert.are.equal("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp-size 2 "
      .. "--max-running-requests 256 --chunked-prefill-size 8192 --mem-fraction-static 0.88", l.command)
    assert.are.equal(3, l.copies)
    assert.are.equal("sglang@0.4 flags (>= 0.4); 3 copies behind a load balancer (least loaded)", l.note)
    -- a preset without a public checkpoint keeps the placeholder
    assert.truthy(launch.of(deployment {}, "gpt3-175b").command:find("'<checkpoint of gpt3-175b>'", 1, true))
    local t = launch.of(deployment { engine = "trtllm", max_num_seqs = 2048 }, "x/y")
    assert.are.equal("trtllm-serve x/y --backend pytorch --tp_size 2 --max_batch_size 2048 --max_num_tokens 8192 "
      .. "--kv_cache_free_gpu_memory_fraction 0.90", t.command)
    -- 0.x runs its TensorRT engine: no --backend
    assert.falsy(launch.of(deployment { engine = "trtllm@0.x" }, "x/y").command:find("backend", 1, true))
  end)
  it("gives each disaggregated pool its command, and none for an engine it cannot launch", function()
    local l = launch.of(deployment { mode = "disagg", prefill = { t = 1, replicas = 2 }, decode = { t = 4, replicas = 1 } },
      "a/b")
    assert.truthy(l.pools.prefill.command:find("--tensor-parallel-size 1 ", 1, true))
    assert.are.same({ 2, 1 }, { l.pools.prefill.copies, l.pools.decode.copies })
    assert.truthy(l.pools.decode.command:find("--tensor-parallel-size 4 ", 1, true))
    -- vLLM V1's NixlConnector on both pools (docs.vllm.ai features/nixl_connector_usage), one shell word
    local kv = [['--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_both"}']]
    assert.are.equal(kv, l.pools.prefill.command:sub(-#kv))
    assert.are.equal(kv, l.pools.decode.command:sub(-#kv))
    assert.truthy(l.note:find("proxy", 1, true))
    -- SGLang: each pool its disaggregation mode over NIXL (docs.sglang.io pd_disaggregation)
    local g = launch.of(deployment { engine = "sglang", mode = "disagg", prefill = { t = 1, replicas = 1 },
                                     decode = { t = 1, replicas = 1 } }, "a/b")
    assert.truthy(g.pools.prefill.command:find("%-%-disaggregation%-mode prefill %-%-disaggregation%-transfer%-backend nixl$"))
    assert.truthy(g.pools.decode.command:find("%-%-disaggregation%-mode decode %-%-disaggregation%-transfer%-backend nixl$"))
    -- vLLM 0.6 (no V1 connector): the note, no flag
    local old = launch.of(deployment { engine = "vllm@0.6", mode = "disagg", prefill = { t = 1, replicas = 1 },
                                       decode = { t = 1, replicas = 1 } }, "a/b")
    assert.falsy(old.pools.prefill.command:find("kv-transfer", 1, true))
    -- an int4 row needs a quantized checkpoint
    assert.truthy(launch.of(deployment { weight_dtype = "int4" }, "a/b").note:find("AWQ or GPTQ int4 checkpoint", 1, true))
    -- an engine file launches as the release it was calibrated on
    local f = launch.of(deployment { engine = "mine", engine_base = "vllm@0.6", multi_step = 10 }, "a/b")
    assert.truthy(f.command:find("^vllm serve a/b .*%-%-num%-scheduler%-steps 10$"), f.command)
    local n = launch.of(deployment { engine = "compiled" }, "a/b")
    assert.is_nil(n.command)
    assert.truthy(n.note:find("not generated", 1, true))
  end)
  -- issue 66 item 2: a model path with shell syntax is one argument when the line is pasted
  it("quotes every argument a shell would read specially, so a pasted line runs one command", function()
    assert.are.equal("a/b-1.5_x@main", launch.shell_quote("a/b-1.5_x@main"))
    assert.are.equal("'it'\\''s'", launch.shell_quote("it's"))
    assert.are.equal("''", launch.shell_quote(""))
    local names = { "./m;touch PWNED;x", "./$(touch PWNED)", "./`touch PWNED`", "./it's a model", "./a\nb",
                    "./x|y&z>w<v", "./*?[a]~#!{}" }
    local engines = { "vllm", "vllm@0.6", "sglang", "trtllm", "trtllm@0.x" }
    local modes = { {}, { ep = 2 }, { pp = 2 }, { mode = "disagg", prefill = { t = 1, replicas = 1 },
                                                  decode = { t = 2, replicas = 1 } } }
    -- each line run by sh with the engines' programs as functions that print their arguments
    local stubs = "vllm() { printf '%s\\0' \"$@\"; }; python() { printf '%s\\0' \"$@\"; }; "
    for _, name in ipairs(names) do
      for _, e in ipairs(engines) do
        for _, m in ipairs(modes) do
          local over = { engine = e }
          for k, v in pairs(m) do over[k] = v end
          local l = launch.of(deployment(over), name)
          for _, cmd in ipairs { l.command or false, l.pools and l.pools.prefill.command or false,
                                 l.pools and l.pools.decode.command or false } do
            if cmd then
              local line = cmd:gsub("^trtllm%-serve ", "trtllm_serve ")
              local script = stubs .. "trtllm_serve() { printf '%s\\0' \"$@\"; }; " .. line
              local p = assert(io.popen("sh -c " .. launch.shell_quote(script) .. " 2>&1"))
              local out = p:read("a")
              p:close()
              local argv = {}
              for a in out:gmatch("([^%z]*)%z") do argv[#argv + 1] = a end
              -- the model is the one argument after the program (and its -m module, --model-path)
              local at = argv[1] == "serve" and 2 or argv[1] == "-m" and 4 or 1
              assert.are.equal(name, argv[at], cmd)
              for i, a in ipairs(argv) do
                if i ~= at then assert.is_nil(a:find("PWNED", 1, true), cmd) end
              end
              assert.is_nil(io.open("PWNED"), cmd)
            end
          end
        end
      end
    end
  end)
end)

-- issue 69 item 5: every flag a launch line prints is one its engine release defines. The lists,
-- by release, from each engine's argument definitions:
--   vLLM: vllm/engine/arg_utils.py EngineArgs.add_cli_args at v0.5.5, v0.6.6 and v0.10.0 (V1), with
--     vllm/config.py's KVTransferConfig (--kv-transfer-config, V1) and SpeculativeConfig
--     (--speculative-config, 0.8 on; --speculative-model and --num-speculative-tokens before);
--   SGLang: python/sglang/srt/server_args.py ServerArgs.add_cli_args at v0.3.6 and v0.4.6 / v0.5;
--   TensorRT-LLM: `trtllm-serve --help` (tensorrt_llm/commands/serve.py) at 0.18.2 and 1.0.
-- vllm@0.14 (asynchronous scheduling on by default) is checked against the v1 list: it prints the
-- same flags, not re-read from arg_utils.py at v0.14.
local FLAGS = {
  ["vllm@0.5"] = { "--tensor-parallel-size", "--pipeline-parallel-size", "--max-num-seqs", "--max-num-batched-tokens",
                   "--gpu-memory-utilization", "--quantization", "--kv-cache-dtype", "--max-model-len",
                   "--speculative-model", "--num-speculative-tokens" },
  ["vllm@0.6"] = { "--tensor-parallel-size", "--pipeline-parallel-size", "--max-num-seqs", "--max-num-batched-tokens",
                   "--gpu-memory-utilization", "--quantization", "--kv-cache-dtype", "--max-model-len",
                   "--num-scheduler-steps", "--speculative-model", "--num-speculative-tokens" },
  ["vllm@v1"] = { "--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size",
                  "--enable-expert-parallel", "--max-num-seqs", "--max-num-batched-tokens", "--gpu-memory-utilization",
                  "--quantization", "--kv-cache-dtype", "--max-model-len", "--speculative-config",
                  "--kv-transfer-config" },
  ["vllm@0.14"] = "vllm@v1",
  ["sglang@0.3"] = { "--model-path", "--tp-size", "--dp-size", "--max-running-requests", "--chunked-prefill-size",
                     "--mem-fraction-static", "--quantization", "--kv-cache-dtype", "--context-length" },
  ["sglang@0.4"] = { "--model-path", "--tp-size", "--pp-size", "--dp-size", "--enable-dp-attention", "--ep-size",
                     "--max-running-requests", "--chunked-prefill-size", "--mem-fraction-static", "--quantization",
                     "--kv-cache-dtype", "--context-length", "--disaggregation-mode",
                     "--disaggregation-transfer-backend", "--speculative-algorithm", "--speculative-draft-model-path",
                     "--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens" },
  ["trtllm@0.x"] = { "--tp_size", "--pp_size", "--ep_size", "--max_batch_size", "--max_num_tokens",
                     "--kv_cache_free_gpu_memory_fraction", "--max_seq_len" },
  ["trtllm@1.0"] = { "--backend", "--tp_size", "--pp_size", "--ep_size", "--max_batch_size", "--max_num_tokens",
                     "--kv_cache_free_gpu_memory_fraction", "--max_seq_len" },
}

describe("tilewave.serve.launch, flags by release (issue 69 item 5)", function()
  it("prints only flags its release defines, names the release, or says why there is no command", function()
    local modes = { {}, { weight_dtype = "fp8", kv_dtype = "fp8" }, { ep = 2 }, { pp = 2 }, { multi_step = 8 },
                    { kv_capacity_tokens = 9232, max_position_embeddings = 131072 },
                    { speculative = { draft = "llama-3.2-1b", k = 4, acceptance = 0.7 } },
                    { mode = "disagg", prefill = { t = 1, replicas = 1 }, decode = { t = 2, replicas = 1 } } }
    local checked = 0
    for _, rel in ipairs { "vllm@0.5", "vllm@0.6", "vllm@v1", "vllm@0.14", "sglang@0.3", "sglang@0.4", "trtllm@0.5",
                           "trtllm@0.x", "trtllm@1.0" } do
      local allowed = {}
      local list = FLAGS[rel]
      if type(list) == "string" then list = FLAGS[list] end
      for _, f in ipairs(list or {}) do allowed[f] = true end
      for _, m in ipairs(modes) do
        local over = { engine = rel }
        for k, v in pairs(m) do over[k] = v end
        local l = launch.of(deployment(over), "llama-3.1-8b")
        assert.are.equal(rel, l.release)
        local cmds = { l.command, l.pools and l.pools.prefill.command, l.pools and l.pools.decode.command }
        if not (cmds[1] or cmds[2]) then
          assert.truthy(l.note:find("^no command: " .. rel:gsub("%p", "%%%0") .. " has no "), l.note)
        else
          assert.truthy(l.note:find("^" .. rel:gsub("%p", "%%%0") .. " flags"), l.note)
        end
        for i = 1, 3 do
          for flag in (cmds[i] or ""):gmatch("%-%-[%w%-_]+") do
            assert.truthy(allowed[flag], string.format("%s: %s is not a flag of that release (%s)", rel, flag,
              cmds[i]))
            checked = checked + 1
          end
        end
      end
    end
    assert.is_true(checked > 250, checked)
    -- the draft model's flags, as each release names them
    local sd = { speculative = { draft = "llama-3.2-1b", k = 4, acceptance = 0.7 } }
    sd.engine = "vllm@v1"
    assert.truthy(launch.of(deployment(sd), "a/b").command:find([[ --speculative-config '{"model":"meta-llama/Llama-3.2-1B-Instruct","num_speculative_tokens":4}']], 1, true))
    sd.engine = "vllm@0.6"
    assert.truthy(launch.of(deployment(sd), "a/b").command:find(" --speculative-model meta-llama/Llama-3.2-1B-Instruct "
      .. "--num-speculative-tokens 4", 1, true))
    sd.engine = "sglang"
    assert.truthy(launch.of(deployment(sd), "a/b").command:find("--speculative-draft-model-path "
      .. "meta-llama/Llama-3.2-1B-Instruct --speculative-num-steps 4", 1, true))
  end)
end)
