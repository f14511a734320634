--- tilewave.explore.published_serving: a published serving result (a row of
-- ../shared/reference/serving/published_given.csv or published_given_2.csv) as the options of
-- tw.serve.simulate that state the deployment, engine release, load and lengths its source gives,
-- and the simulated figure that answers it. scripts/serving_published.lua runs every row; this
-- module is the mapping alone, one function a question:
--   M.source(row)        which source (and release) a row belongs to, and the engine it ran;
--   M.options(row)       the simulate options, or nil and why the row cannot be expressed;
--   M.predicted(row, s)  the figure of a simulation `s` the row publishes, in the row's unit.
-- Sources (each row's own `source` and `engine_version` columns):
--   TensorRT-LLM perf-overview v0.17 (trtllm-bench offline) and v1.0 (PyTorch backend, offline);
--   TensorRT-LLM performance.md v0.5/v0.6.1 (static batching, gptSessionBenchmark);
--   TensorRT-LLM perf-overview online serving v0.14.0 (Triton tensorrtllm_backend, a request rate);
--   SGLang v0.3.0 against vLLM v0.6.0 (ShareGPT, Poisson rates and offline);
--   NVIDIA's DLI LLM-sizing data (NIM, GenAI-Perf closed loop at a fixed concurrency);
--   Lambda's vLLM report (v0.5.4 and v0.6.0, ShareGPT, every prompt at once).
-- A row is never given a constant of its own: each is simulated from the source's stated set-up.
-- @module tilewave.explore.published_serving
local M = {}

--- The files, under ../shared/reference/serving/.
M.FILES = { "published_given.csv", "published_given_2.csv" }

-- Hugging Face ids to presets (a checkpoint of the same architecture maps to its preset: Llama
-- 3.3 70B and the FP8 re-quantizations are Llama 3.1's shapes)
M.MODELS = { ["meta-llama/Llama-3.1-8B"] = "llama-3.1-8b", ["meta-llama/Llama-3.1-8B-Instruct"] = "llama-3.1-8b",
  ["meta-llama/Llama-3.1-70B"] = "llama-3.1-70b", ["meta-llama/Llama-3.1-70B-Instruct"] = "llama-3.1-70b",
  ["meta-llama/Llama-3.1-405B"] = "llama-3.1-405b", ["mistralai/Mistral-7B-v0.1"] = "mistral-7b",
  ["mistralai/Mixtral-8x7B-v0.1"] = "mixtral-8x7b", ["meta-llama/Llama-2-7b-hf"] = "llama-2-7b",
  ["mistralai/Mixtral-8x22B-v0.1"] = "mixtral-8x22b", ["meta-llama/Llama-2-70b-hf"] = "llama-2-70b",
  ["meta-llama/Meta-Llama-3-8B-Instruct"] = "llama-3-8b", ["meta-llama/Meta-Llama-3-70B-Instruct"] = "llama-3-70b",
  ["meta-llama/Meta-Llama-3.1-8B-Instruct"] = "llama-3.1-8b", ["meta-llama/Meta-Llama-3.1-70B-Instruct"] = "llama-3.1-70b",
  ["meta-llama/Llama-3.3-70B-Instruct"] = "llama-3.1-70b", ["meta-llama/Llama-3.1-405B-Instruct"] = "llama-3.1-405b",
  ["neuralmagic/Meta-Llama-3.1-8B-FP8"] = "llama-3.1-8b", ["neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8"] = "llama-3.1-70b",
  ["NousResearch/Hermes-3-Llama-3.1-405B-FP8"] = "llama-3.1-405b",
  ["Llama 3.1 405B FP8 (checkpoint not named in this section)"] = "llama-3.1-405b",
  ["mistralai/Mistral-7B-Instruct-v0.3"] = "mistral-7b", ["mistralai/Mixtral-8x7B-Instruct-v0.1"] = "mixtral-8x7b",
  ["mistralai/Mixtral-8x22B-Instruct-v0.1"] = "mixtral-8x22b",
  ["meta-llama/Llama-4-Scout-17B-16E-Instruct"] = "llama-4-scout",
  ["meta-llama/Llama-4-Maverick-17B-128E-Instruct"] = "llama-4-maverick" }

M.GPUS = { ["H100-SXM5-80GB"] = "h100_sxm5", ["H200-SXM-141GB"] = "h200_sxm", ["A100-SXM4-80GB"] = "a100_sxm4_80gb",
  ["L40S-48GB"] = "l40s", ["GH200-480GB"] = "gh200_480gb", ["B200-180GB (DGX B200)"] = "b200",
  ["GB200-192GB (GB200 NVL72)"] = "gb200" }

local function gpu_of(g)
  if M.GPUS[g] then return M.GPUS[g] end
  if g:find("^A100%-80GB") then return "a100_sxm4_80gb" end -- SXM or PCIe not stated: taken as SXM
  if g:find("^H100%-80GB") then return "h100_sxm5" end
end

--- The source a row belongs to (a short name, one per source and release), the engine release it
-- ran (tilewave.cost.engine_versions) and its scheduler (nil: the engine's), or nil.
function M.source(r)
  local s, e = r.source, r.engine
  if s:find("v0.17", 1, true) then return "trtllm-v0.17", "trtllm@" .. r.engine_version, nil end
  if s:find("perf-overview (v1.0)", 1, true) then return "trtllm-v1.0", "trtllm@1.0", nil end
  if s:find("online serving (v0.14.0)", 1, true) then return "trtllm-v0.14-online", "trtllm@0.x", nil end
  if s:find("performance.md", 1, true) then return "trtllm-v0.5-static", "trtllm@" .. r.engine_version, "static" end
  -- "older version of NVIDIA NIM", release not stated: taken as a TensorRT-LLM 0.8 - 0.11 engine
  -- (an assumption, not a source: the rows' batch-1 ITL rises with the context as XQA without
  -- multi-block mode does, tilewave.cost.engine_versions trtllm@0.8) behind NIM's server
  if s:find("^NVIDIA DLI") then return "nim-genai-perf", "trtllm@0.10", nil end
  if s:find("^Lambda") then
    local v = r.engine_version:match("^0%.(%d)")
    return "lambda-vllm-0." .. v, "vllm@0." .. v, { base = "vllm_v0", max_num_seqs = 256 }
  end
  if e:find("^SGLang") then return "sglang-v0.3", "sglang@" .. r.engine_version, nil end
  -- the server ran --num-scheduler-steps 10 (the row's notes)
  if e:find("^vLLM") then return "vllm-v0.6", "vllm@" .. r.engine_version, { base = "vllm_v0", multi_step = 10 } end
end

-- the weight and KV formats of a row's dtype on device `hw`: FP8 checkpoints run W8A8 with an FP8
-- KV cache where the device has FP8 tensor cores; on an A100 (none) vLLM runs them weight-only
-- (its Marlin FP8 kernels) with the KV cache in the model's 16-bit type unless --kv-cache-dtype
-- says otherwise, which the Lambda rows do not
local function weight_dtype(r, hw)
  if r.dtype == "FP4" then return "nvfp4", "fp8" end -- TensorRT-LLM's FP4 checkpoints keep an FP8 KV cache
  if r.dtype:find("FP8") then return "fp8", hw:find("^a100") and "bf16" or "fp8" end
  return "bf16", "bf16"
end

--- The options of tw.serve.simulate for row `r` (the engine `engine_override` instead of the
-- row's, for fits), and the row's source; or nil and why the row cannot be expressed.
function M.options(r, engine_override)
  local src, engine, sched = M.source(r)
  local model, hw = M.MODELS[r.model], gpu_of(r.gpu)
  if not src then return nil, "source" end
  if r.gpu == "" then return nil, "GPU not stated by the source" end
  if not model then return nil, "model " .. r.model end
  if not hw then return nil, "gpu " .. r.gpu end
  if (tonumber(r.pp) or 1) > 1 then return nil, "pipeline parallelism" end
  if r.metric == "itl" and src == "vllm-v0.6" then return nil, "vLLM multi-step ITL (bursts of 10 tokens)" end
  if r.notes:find("enable_attention_dp", 1, true) and (tonumber(r.tp) or 1) > 1 then
    return nil, "attention data parallel with expert parallelism (TensorRT-LLM --ep with enable_attention_dp)"
  end
  local wd, kd = weight_dtype(r, hw)
  local o = { model = model, hw = hw, t = tonumber(r.tp) or 1, engine = engine_override or engine, scheduler = sched,
              weight_dtype = wd, kv_dtype = kd, allow_long_context = true }
  local isl, osl = tonumber(r.isl), tonumber(r.osl)
  local n = tonumber(r.num_requests)
  if src == "trtllm-v0.5-static" then
    local batch = tonumber(r.concurrency)
    o.scheduler = { base = "gptsession", max_num_seqs = batch }
    o.workload = { arrival = "offline", requests = batch, isl = isl, osl = osl }
  elseif r.scenario == "fixed_concurrency" then
    -- GenAI-Perf's closed loop: c requests in flight, each sent when one returns; its measurement
    -- windows cover many of each slot's requests (request count not published: 8 a slot, at least 200)
    local c = tonumber(r.concurrency)
    o.workload = { concurrency = c, requests = math.min(math.max(8 * c, 200), 2000), isl = isl, osl = osl }
  elseif r.scenario == "offline" and isl then
    o.workload = { arrival = "offline", requests = math.min(n or 1000, 5000), isl = isl, osl = osl }
  elseif r.scenario == "offline" then
    o.workload = { arrival = "offline", requests = n, dataset = "sharegpt" }
  elseif isl then
    o.workload = { rate = tonumber(r.rate_rps), requests = n, isl = isl, osl = osl }
  else
    o.workload = { rate = tonumber(r.rate_rps), requests = n, dataset = "sharegpt" }
  end
  return o, src
end

--- The figure of simulation `s` (tw.serve.simulate's result) that row `r` publishes, in the row's
-- unit (ms for latencies given in ms, tokens/s, requests/s). GenAI-Perf's inter-token latency is a
-- request's (E2E - TTFT) / (output - 1) averaged over requests (genai-perf metrics: its ITL is what
-- vLLM calls TPOT), so its `itl` rows read the TPOT mean; a stat the source leaves unstated is
-- read as the mean.
function M.predicted(r, s)
  local m, stat = r.metric, r.stat == "median" and "p50" or "mean"
  local scale = r.unit == "ms" and 1e3 or 1
  if m == "throughput_tokens_per_s" then
    local v = s.throughput.output_tokens_per_s
    -- per GPU where the unit says so, and where the source leaves it open at t > 1 (TensorRT-LLM
    -- performance.md's A100 table: "per-GPU vs total NOT stated"; the H100 table of the same document
    -- is per GPU, and read as totals its 70B rows would fall 4x below the same engine's 7B rows per GPU)
    if r.unit == "tokens/s/GPU" or (r.notes:find("per-GPU vs total NOT stated", 1, true) and s.gpus > 1) then
      v = v / s.gpus
    end
    return v
  elseif m == "throughput_requests_per_s" then return s.throughput.requests_per_s
  elseif m == "ttft" then return s.ttft_s[stat] * scale
  elseif m == "tpot" then return s.tpot_s[stat] * scale
  elseif m == "itl" and r.source:find("GenAI-Perf", 1, true) then return s.tpot_s.mean * scale
  elseif m == "itl" then return s.itl_s[stat] * scale
  elseif m == "e2e_latency" then return s.e2e_s[stat] * scale end
end

return M
