--- tilewave.cost.engine_versions: serving engines by release, as the mechanisms that changed
-- between releases (issue 48 item 4). `vllm@0.6` selects a profile; a plain `vllm` is the newest.
--
-- What a release changes, and where each figure comes from:
--   decode_attention  the generation-phase attention kernel (tilewave.cost.engines): TensorRT-LLM
--                  before 0.8 reads a GQA group's KV cache once per query head ("mmha"; XQA from 0.8),
--                  and before 0.12 one block per sequence and KV head streams the whole context
--                  ("xqa": multi-block mode off)
--   scheduler      the step policy (tilewave.serve.schedulers): vLLM <= 0.7 prefill-first with
--                  whole prompts (v0 engine), vLLM >= 0.8 one token budget with chunked prefill
--                  always on (v1 engine), SGLang prefill batches first, TensorRT-LLM in-flight
--                  batching
--   host_overlap   the share of host work done while the GPU runs the previous step
--                  (src/tw_serve.h): SGLang's overlap ("zero-overhead") scheduler from v0.4,
--                  TensorRT-LLM's overlap scheduler in the PyTorch backend of 1.0 (trtllm-serve),
--                  vLLM's asynchronous scheduling, on by default from 0.14; 0 elsewhere
--   graph_sizes    the CUDA-graph capture sizes: a decode batch runs at the next captured size
--                  ("vllm_v0": 1, 2, 4, then 8 .. 256 by 8, vllm/worker/model_runner.py
--                  _BATCH_SIZES_TO_CAPTURE; "vllm_v1": 1, 2, 4, 8 .. 248 by 8, 256 .. min(2 x
--                  max_num_seqs, 512) by 16, vllm/config CompilationConfig
--                  cudagraph_capture_sizes); a batch past the largest runs without padding
--   token_host_s, seq_host_s  host time per step and per sequence (tilewave.cost.engines), fitted
--                  only to the given rows of the release they name; a release without rows borrows
--                  its neighbour's and says so
--   async_output   vLLM 0.6's asynchronous output processor (vllm PR #7049, on by default from
--                  v0.6.0) detokenizes and sends step n's outputs while step n + 1 runs, so a
--                  request's first and last tokens reach the client when the next step ends (TTFT
--                  and E2E; ITL and TPOT keep their gaps; src/tw_serve.h); off elsewhere (v0.5
--                  processes outputs before the next step; the v1 engine core hands them to the API
--                  server's process as the step ends)
--   prefix_caching on by default: vLLM v1 (automatic prefix caching, facts.md §2.3), SGLang
--                  (RadixAttention, §2.6), TensorRT-LLM 1.0 (KvCacheConfig enable_block_reuse, on
--                  in the LLM API); off in vLLM <= 0.7 (--enable-prefix-caching) and TensorRT-LLM
--                  0.x engines
--   client         where the benchmark client measures TTFT and ITL (docs/serving.md): "stream"
--                  (vllm bench serve, sglang.bench_serving, GenAI-Perf: after HTTP, tokenization
--                  and streaming); the simulator leaves the client's own time out
-- Units: s.
-- @module tilewave.cost.engine_versions
local M = {}

local SERVING = "../shared/reference/serving/"
local FACTS = SERVING .. "facts.md"
-- the fits of the given rows (scripts/serving_published.lua --fit ENGINE, grid token_host_s 0-4 ms,
-- seq_host_s 0-45 us): vLLM v0.6.0 10.4% MAPE over 16 rows; SGLang v0.3.0 10.9% over 20;
-- TensorRT-LLM 16.7% over every 4th of its 330 rows (v0.17 offline, v0.5 static; fitted before
-- 0.5-0.7 had a profile of their own, trtllm@0.5, which borrows these host times)
local VLLM_STEP_S, VLLM_SEQ_S = 2e-3, 30e-6
local SGLANG_STEP_S, SGLANG_SEQ_S = 1e-3, 45e-6
local TRTLLM_STEP_S, TRTLLM_SEQ_S = 0.25e-3, 10e-6
-- vLLM 0.5.3's host time per sequence: the per-step work the vLLM team profiled (Llama-3-8B on one
-- H100, ShareGPT: API server 33% and scheduling 29% of the time, the GPU 38%; blog.vllm.ai
-- 2024-09-05 "vLLM v0.6.0: 2.7x Throughput Improvement") done in turn with the GPU, so the host
-- takes 62/38 of the GPU's time; seq_host_s fitted so that this run's GPU share is 38%
-- (180 us gives 38.1% on 500 ShareGPT requests offline; checked against the blog's other figures,
-- v0.6.0 with --num-scheduler-steps 10 over v0.5.3: 1.89x here against 2.7x published for the 8B
-- on one H100, 1.45x against 1.8x for Llama-3-70B on 4 H100s)
local VLLM05_SEQ_S = 180e-6
-- the share of the fitted host time an overlapped scheduler hides: SGLang v0.4's release blog
-- (lmsys.org 2024-12-04) gives its zero-overhead scheduler "1.1x increase in throughput"; 0.45
-- makes sglang@0.4 / sglang@0.3 offline throughput 1.10 on the given SGLang rows' setup
-- (Llama-3.1-8B, one A100, 1000 ShareGPT requests). Full overlap (1) would give 1.25: the fitted
-- host terms hold more than the host's own time. TensorRT-LLM's overlap scheduler (same design,
-- after NanoFlow) takes it too.
local OVERLAP = 0.45

--- The families with versions: each profile's preset name, the releases it covers ({ from, to },
-- to exclusive; nil: open), and the newest one a plain family name means.
M.families = {
  vllm = { newest = "vllm@0.14", profiles = {
    { name = "vllm@0.5", from = "0.5", to = "0.6" },
    { name = "vllm@0.6", from = "0.6", to = "0.8" },
    { name = "vllm@v1", from = "0.8", to = "0.14", alias = "v1" },
    { name = "vllm@0.14", from = "0.14" } } },
  sglang = { newest = "sglang@0.4", profiles = {
    { name = "sglang@0.3", from = "0.3", to = "0.4" },
    { name = "sglang@0.4", from = "0.4" } } },
  trtllm = { newest = "trtllm@1.0", profiles = {
    { name = "trtllm@0.5", from = "0.5", to = "0.8" },
    { name = "trtllm@0.8", from = "0.8", to = "0.12" },
    { name = "trtllm@0.x", from = "0.12", to = "1.0", alias = "0.x" },
    { name = "trtllm@1.0", from = "1.0" } } },
}

M.presets = {
  ["vllm@0.5"] = {
    description = "vLLM 0.5 (v0 engine): prefill-first steps, one step per scheduling round, output "
      .. "processing in turn with the GPU, API server in the engine's process",
    base = "compiled", logits = "last", scheduler = "vllm_v0", host_overlap = 0,
    graph_sizes = "vllm_v0", token_host_s = VLLM_STEP_S, seq_host_s = VLLM05_SEQ_S, host_spread = 0.4,
    version = "0.5.0 - 0.5.5",
    source = "blog.vllm.ai 2024-09-05 (v0.5.3 profile: GPU 38% of the time on Llama-3-8B, one H100): "
      .. "seq_host_s fitted to that share, token_host_s as vllm@0.6; no v0.5 row in " .. SERVING
      .. "published_given.csv; host_spread 0.4 as the eager engine's",
  },
  ["vllm@0.6"] = {
    description = "vLLM 0.6-0.7 (v0 engine): prefill-first steps, multi-step scheduling available "
      .. "(--num-scheduler-steps), asynchronous output processing",
    base = "compiled", logits = "last", scheduler = "vllm_v0", host_overlap = 0,
    graph_sizes = "vllm_v0", token_host_s = VLLM_STEP_S, seq_host_s = VLLM_SEQ_S, version = "0.6.0 - 0.7.x",
    async_output = true,
    source = "token_host_s and seq_host_s fitted by scripts/serving_published.lua --fit vllm@0.6 to the vLLM "
      .. "v0.6.0 rows of " .. SERVING .. "published_given.csv (10.4% MAPE, 16 rows; the server ran "
      .. "--num-scheduler-steps 10); " .. FACTS .. " §2.2 for the scheduler",
  },
  ["vllm@v1"] = {
    description = "vLLM 0.8-0.13 (v1 engine): one token budget per step, running requests first, chunked "
      .. "prefill always on, prefix caching on, engine core apart from the API server",
    base = "compiled", logits = "last", scheduler = "vllm", host_overlap = 0,
    graph_sizes = "vllm_v1", token_host_s = VLLM_STEP_S, seq_host_s = VLLM_SEQ_S, version = "0.8 - 0.13.x",
    prefix_caching = true,
    source = FACTS .. " §2.3 (scheduler, defaults); host times borrowed from vllm@0.6's fit: no v1 row in "
      .. SERVING .. "published_given.csv",
  },
  ["vllm@0.14"] = {
    description = "vLLM >= 0.14 (v1 engine, asynchronous scheduling on by default): the engine core schedules "
      .. "step n + 1 while the GPU runs step n",
    base = "vllm@v1", host_overlap = OVERLAP, version = ">= 0.14",
    source = "vLLM v0.14.0 release notes (Jan 2026): 'Async scheduling is now enabled by default' (#27614: "
      .. "'overlaps engine core scheduling with GPU execution'; --no-async-scheduling turns it off; pipeline "
      .. "parallelism excluded); experimental behind --async-scheduling since #19970 (June 2025, after NanoFlow); "
      .. "host_overlap as sglang@0.4's (the same design); host times as vllm@v1. Checked, not fitted, on "
      .. SERVING .. "result_files/vllm0191_tokenkaki_a100-40gb_qwen3-8b_r5_detailed (vLLM 0.19.1, A100 40GB, "
      .. "Qwen3-8B at 5 req/s): TPOT bias +18.7% as vllm@v1, +11.5% with the overlap",
  },
  ["sglang@0.3"] = {
    description = "SGLang 0.3: prefill batches first (chunked), else the decode batch; FlashInfer; the "
      .. "scheduler runs in turn with the GPU",
    base = "compiled", logits = "last", scheduler = "sglang", host_overlap = 0,
    decode_attention = "full", token_host_s = SGLANG_STEP_S, seq_host_s = SGLANG_SEQ_S, version = "0.3.x",
    prefix_caching = true,
    source = "token_host_s and seq_host_s fitted by scripts/serving_published.lua --fit sglang@0.3 to the SGLang "
      .. "v0.3.0 rows of " .. SERVING .. "published_given.csv (10.9% MAPE, 20 rows); " .. FACTS .. " §2.6",
  },
  ["sglang@0.4"] = {
    description = "SGLang >= 0.4: as 0.3, with the overlap scheduler: the next batch is scheduled while "
      .. "the GPU runs this one",
    base = "sglang@0.3", host_overlap = OVERLAP, version = ">= 0.4",
    source = "SGLang v0.4 release blog (lmsys.org 2024-12-04, 'zero-overhead batch scheduler': CPU "
      .. "scheduling overlapped with GPU computation, on by default; --disable-overlap-schedule turns it "
      .. "off); host_overlap 0.45 fitted to that blog's 1.1x (see OVERLAP); host times as sglang@0.3 (no v0.4 row in " .. SERVING .. "published_given.csv)",
  },
  ["trtllm@0.x"] = {
    description = "TensorRT-LLM 0.x: a compiled TensorRT engine, in-flight batching in C++ (trtllm-bench, "
      .. "gptManagerBenchmark)",
    base = "compiled", logits = "last", scheduler = "trtllm", host_overlap = 0,
    decode_attention = "full", token_host_s = TRTLLM_STEP_S, seq_host_s = TRTLLM_SEQ_S, version = "0.12 - 0.21",
    source = "token_host_s and seq_host_s fitted by scripts/serving_published.lua --fit trtllm@0.x to the "
      .. "TensorRT-LLM rows (v0.17 offline, v0.5 static) of " .. SERVING .. "published_given.csv "
      .. "(16.7% MAPE over every 4th of 330 rows); " .. FACTS .. " §2.5; NVIDIA GPUs only (TensorRT-LLM is "
      .. "built on CUDA and NVIDIA's kernels: its support matrix lists NVIDIA architectures alone)",
    vendors = { nvidia = true },
  },
  ["trtllm@0.5"] = {
    description = "TensorRT-LLM 0.5-0.7: as 0.x, with the masked multi-head attention kernel in the generation "
      .. "phase for MQA/GQA models too (one thread block per query head, each streaming its KV head's cache)",
    base = "trtllm@0.x", decode_attention = "mmha", version = "0.5 - 0.7.x",
    source = "TensorRT-LLM blog 'New XQA-kernel provides 2.4x more Llama-70B throughput within the same latency "
      .. "budget' (docs/source/blogs/XQA-kernel.md: XQA reduces data loading for MQA/GQA in the generation phase, "
      .. "'included in the v0.8 releases'; Llama-70B on one H200, 128/2048: 1,227 tok/s/GPU without XQA, 2,941 with); "
      .. "gpt_attention.md of those releases (masked MHA: a single CUDA thread-block per head; multi-block mode a "
      .. "build option, off by default); host times as trtllm@0.x",
  },
  ["trtllm@0.8"] = {
    description = "TensorRT-LLM 0.8-0.11: as 0.x, with the XQA generation kernel and multi-block mode off: "
      .. "one thread block per sequence and KV head streams the whole context",
    base = "trtllm@0.x", decode_attention = "xqa", version = "0.8 - 0.11.x",
    source = "XQA from 0.8 (docs/source/blogs/XQA-kernel.md); multi-block mode a build option off by default "
      .. "until it moved to the runtime, on by default, in 0.12 (NVIDIA/TensorRT-LLM#2119, Aug 2024; #1548 on "
      .. "0.9: without it batch-1 decode slows as the context grows); checked on the NIM rows of " .. SERVING
      .. "published_given_2.csv (an 'older version' of NIM): batch-1 ITL rises 5.1 -> 7.5 ms from 200 to 7,000 "
      .. "tokens of context on an H100 (Llama 3 8B FP8), where the whole chip streaming the cache would add "
      .. "0.2 ms; host times as trtllm@0.x",
  },
  ["trtllm@1.0"] = {
    description = "TensorRT-LLM >= 1.0 (trtllm-serve, PyTorch backend): in-flight batching with the "
      .. "overlap scheduler",
    base = "trtllm@0.x", host_overlap = OVERLAP, version = ">= 1.0", prefix_caching = true,
    source = "TensorRT-LLM docs, torch/features/overlap_scheduler ('Enabled by default'; "
      .. "disable_overlap_scheduler=True turns it off: the host's work of step n runs beside the GPU's step "
      .. "n + 1); host_overlap as sglang@0.4's; host times as trtllm@0.x (no 1.0 row in "
      .. SERVING .. "published_given.csv)",
  },
  nim = {
    description = "NVIDIA NIM for LLMs: TensorRT-LLM >= 1.0 behind NIM's OpenAI server",
    base = "trtllm@1.0", version = "NIM 1.x",
    source = "NIM for LLMs docs (the optimized profiles run TensorRT-LLM; measured with GenAI-Perf); "
      .. "as trtllm@1.0, not fitted: no NIM row in " .. SERVING .. "published_given.csv",
  },
}

--- The batch a decode step of `b` sequences runs at under capture sizes `kind` (M.presets'
-- graph_sizes; nil: no padding): the next captured size, or `b` past the largest.
-- @int b sequences in the step (>= 1)
-- @int max_num_seqs the scheduler's (vLLM v1 captures up to min(2 x max_num_seqs, 512))
-- the largest batch capture kind `kind` captures
local function largest(kind, max_num_seqs)
  return kind == "vllm_v1" and math.min(2 * max_num_seqs, 512) or 256
end

function M.graph_batch(kind, b, max_num_seqs)
  if kind == nil or b <= 2 then return b end
  if b <= 4 then return 4 end
  local top = largest(kind, max_num_seqs)
  if b > top then return b end
  if b <= 256 then return math.min(top, 8 * -(-b // 8)) end
  return math.min(top, 256 + 16 * -(-(b - 256) // 16))
end

--- The captured batch sizes of capture kind `kind` (M.presets' graph_sizes) up to `top` sequences,
-- ascending: a batch in (s_prev, s] runs at s (M.graph_batch); empty without a kind.
function M.graph_list(kind, max_num_seqs, top)
  local out, b = {}, 1
  if kind == nil then return out end
  local last = math.min(top, largest(kind, max_num_seqs))
  while b <= last do
    local s = M.graph_batch(kind, b, max_num_seqs)
    out[#out + 1] = s
    b = s + 1
  end
  return out
end

-- a release string as numbers: "0.6.3" -> { 0, 6, 3 }; nil when it is not one
local function parse(v)
  if type(v) ~= "string" or not v:match("^%d+[%.%d]*$") or v:find("%.%.") or v:find("%.$") then return nil end
  local out = {}
  for d in v:gmatch("%d+") do out[#out + 1] = tonumber(d) end
  return out
end

-- a < b, releases compared part by part (missing parts are 0)
local function less(a, b)
  for i = 1, math.max(#a, #b) do
    local x, y = a[i] or 0, b[i] or 0
    if x ~= y then return x < y end
  end
  return false
end

--- The preset that `family@version` names: the profile covering that release.
-- @string name e.g. "vllm@0.6.3", "vllm@v1", "sglang@0.4", "trtllm@1.0"
-- @return the preset name, or nil and the reason (naming the versions there are)
function M.lookup(name)
  local fam, ver = name:match("^([%w%._-]+)@(.*)$")
  if not fam then return nil end
  if M.presets[name] then return name end
  local f = M.families[fam]
  local known = {}
  for k in pairs(M.families) do known[#known + 1] = k end
  table.sort(known)
  if not f then return nil, "expected an engine family with versions (" .. table.concat(known, ", ") .. ")" end
  local list = {}
  for _, p in ipairs(f.profiles) do
    list[#list + 1] = p.name:match("@(.*)$") .. " (" .. p.from .. (p.to and " to before " .. p.to or " and later") .. ")"
    if p.alias == ver then return p.name end
  end
  local v = parse(ver)
  if v then
    for _, p in ipairs(f.profiles) do
      if not less(v, parse(p.from)) and (not p.to or less(v, parse(p.to))) then return p.name end
    end
  end
  return nil, "expected a " .. fam .. " release with a profile: " .. table.concat(list, ", ")
end

return M
