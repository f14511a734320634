--- tilewave.serve.schedulers: serving schedulers as policy data.
--
-- A scheduler is a table of the fields src/tw_serve.h runs: `policy` ("continuous" or "static"),
-- `mix` (prefill chunks and decodes share a step), `chunked` (prompts cut to the token budget),
-- `reserve` (KV for prompt + output reserved at admission, never preempting; false: blocks taken as
-- written, preemption by recomputation), `max_num_seqs`, `max_num_batched_tokens` (the token budget
-- of a step), `block_size` (tokens per KV block), `gpu_memory_utilization` (the fraction of memory
-- the engine takes), `memory_basis` ("total": the fraction of device memory, weights and
-- activations inside it, as vLLM; "free": the fraction of what is free after loading, as
-- TensorRT-LLM; "static": of device memory for weights + KV, activations outside it, as SGLang's
-- mem_fraction_static), `watermark` (fraction of blocks kept free when admitting), `router`
-- ("round_robin" or "least_loaded", across data-parallel replicas), `multi_step` (decode steps run
-- as one block before prompts are scheduled again: vLLM's --num-scheduler-steps; default 1),
-- `dp_attention_tokens` (an expert-parallel group's token budget: "per_rank", default, each
-- data-parallel attention rank its own max_num_batched_tokens, as vLLM's data-parallel engine
-- cores; "global", the budget the group's, split over its ranks, as SGLang's DP attention),
-- `whole_batch` (true: a static batch's KV cache, max_num_seqs requests at the longest isl + osl,
-- is allocated before it runs and must fit, as TensorRT-LLM's GptSession; a batch that does not is
-- refused, not run in waves).
-- Defaults drift between releases: each preset names the version and the file it follows
-- (../shared/reference/serving/facts.md, §2, quotes them). Users compose: `{ base = "vllm",
-- max_num_seqs = 64 }`.
-- @module tilewave.serve.schedulers
local check = require "tilewave.util.check"
local tables = require "tilewave.util.tables"

local M = {}

local FACTS = "../shared/reference/serving/facts.md"

M.presets = {
  vllm = {
    description = "vLLM v1 engine: one token budget per step, running requests first, chunked prefill, "
      .. "paged KV, preemption by recomputation",
    policy = "continuous", mix = true, chunked = true, reserve = false,
    max_num_seqs = 256, max_num_batched_tokens = 2048, block_size = 16,
    gpu_memory_utilization = 0.9, memory_basis = "total", watermark = 0,
    -- vLLM v1 EngineArgs defaults, API server: >= 70 GiB and not A100: 1024 seqs, 8192 tokens
    large = { min_memory_bytes = 70 * 2 ^ 30, except = { "a100" }, max_num_seqs = 1024, max_num_batched_tokens = 8192 },
    source = FACTS .. " §2.3 (vllm/v1/core/sched/scheduler.py; EngineArgs get_batch_defaults for the API "
      .. "server; block_size 16; gpu_memory_utilization 0.90 before 2026)",
  },
  vllm_v0 = {
    description = "vLLM v0 engine (<= 0.6): prefill-first steps, whole prompts, paged KV, recomputation",
    policy = "continuous", mix = false, chunked = false, reserve = false,
    max_num_seqs = 256, max_num_batched_tokens = 4096, block_size = 16,
    gpu_memory_utilization = 0.9, memory_basis = "total", watermark = 0.01,
    source = FACTS .. " §2.2 (vllm/core/scheduler.py _schedule_default; max_num_batched_tokens = "
      .. "max(max_model_len, 2048), here 4096; watermark 0.01 as Vidur's vLLM scheduler)",
  },
  sarathi = {
    description = "Sarathi-Serve: stall-free batching, decodes first, then prefill chunks up to the budget",
    policy = "continuous", mix = true, chunked = true, reserve = false,
    max_num_seqs = 128, max_num_batched_tokens = 512, block_size = 16,
    gpu_memory_utilization = 0.9, memory_basis = "total", watermark = 0.01,
    source = FACTS .. " §2.4 (Vidur's Sarathi scheduler: chunk_size 512 is the whole step's budget, batch "
      .. "cap 128, 1% watermark)",
  },
  orca = {
    description = "Orca: iteration-level batching, whole prefills, KV reserved for the whole request",
    policy = "continuous", mix = true, chunked = false, reserve = true,
    max_num_seqs = 128, max_num_batched_tokens = 8192, block_size = 16,
    gpu_memory_utilization = 0.9, memory_basis = "total", watermark = 0,
    source = FACTS .. " §2.1 (Yu et al. OSDI'22; Vidur's Orca scheduler reserves the request's blocks at "
      .. "admission and never preempts; batch cap 128)",
  },
  static = {
    description = "static batching: a batch of requests runs until its last request finishes",
    policy = "static", mix = false, chunked = false, reserve = true,
    max_num_seqs = 32, max_num_batched_tokens = 8192, block_size = 16,
    gpu_memory_utilization = 0.9, memory_basis = "total", watermark = 0,
    source = FACTS .. " §2.1 (Vidur's FasterTransformer scheduler: request-level batches, memory freed "
      .. "when the batch ends)",
  },
  gptsession = {
    description = "TensorRT-LLM GptSession (gptSessionBenchmark, releases before 1.0): static batches, the whole "
      .. "batch's KV cache allocated before it runs",
    policy = "static", mix = false, chunked = false, reserve = true, whole_batch = true,
    max_num_seqs = 64, max_num_batched_tokens = 8192, block_size = 1,
    gpu_memory_utilization = 1, memory_basis = "total", watermark = 0,
    source = "TensorRT-LLM docs/source/reference/memory.md, C++ runtime: without paged KV cache the runtime allocates "
      .. "each layer's KV cache as [batch size, 2, heads, max seq length, head dim]; with paged KV cache and no "
      .. "in-flight batching a batch the pool cannot hold fails ('No free blocks left'): so a batch either fits in "
      .. "the device's memory less weights and activations, or the run does not start; max_num_seqs 64: the batch "
      .. "of the benchmark's run (the caller sets it); max_num_batched_tokens as static's (the context phase's "
      .. "tokens priced in steps of at most 8192)",
  },
  sglang = {
    description = "SGLang (v0.3-v0.4): prefill batches first (chunked), else the decode batch; token-granular KV",
    policy = "continuous", mix = false, chunked = true, reserve = false,
    max_num_seqs = 1024, max_num_batched_tokens = 8192, block_size = 1,
    gpu_memory_utilization = 0.88, memory_basis = "static", watermark = 0,
    small = { max_memory_bytes = 25 * 2 ^ 30, max_num_batched_tokens = 2048 },
    dp_attention_tokens = "global",
    source = FACTS .. " §2.6 (server_args.py: chunked_prefill_size 8192, 2048 below 25 GB; page_size 1; "
      .. "mem_fraction_static 0.88 at TP 1; no mixed batches by default); max_num_seqs 1024: an assumption "
      .. "(max_running_requests is derived from memory); with --enable-dp-attention the chunked prefill "
      .. "size is the group's, each rank given chunked_prefill_size // dp_size (server_args.py "
      .. "_handle_data_parallelism)",
  },
  trtllm = {
    description = "TensorRT-LLM in-flight batching, GUARANTEED_NO_EVICT: KV for prompt + output reserved",
    policy = "continuous", mix = true, chunked = true, reserve = true,
    max_num_seqs = 2048, max_num_batched_tokens = 8192, block_size = 32,
    gpu_memory_utilization = 0.9, memory_basis = "free", watermark = 0,
    source = FACTS .. " §2.5 (BuildConfig max_batch_size 2048, max_num_tokens 8192; "
      .. "free_gpu_memory_fraction 0.9 of memory free after loading; capacity scheduler GUARANTEED_NO_EVICT); "
      .. "chunked context and tokens_per_block 32 are assumptions (needed for prompts above max_num_tokens)",
  },
}

local BOOL = function(v, p) if type(v) ~= "boolean" then check.fail(p, "expected true or false", v) end end
local FIELDS = {
  base = true, description = check.string, source = check.string,
  policy = function(v, p) check.one_of(v, { continuous = true, static = true }, p) end,
  mix = BOOL, chunked = BOOL, reserve = BOOL,
  -- the core's bounds (src/tw_serve.c, policy limits): 10^6 sequences and tokens a block, 10^8 a step
  max_num_seqs = function(v, p) check.positive_int(v, p); check.within(v, 1, 1e6, "sequences", p) end,
  max_num_batched_tokens = function(v, p) check.positive_int(v, p); check.within(v, 1, 1e8, "tokens", p) end,
  block_size = function(v, p) check.positive_int(v, p); check.within(v, 1, 1e6, "tokens", p) end,
  gpu_memory_utilization = function(v, p) check.within(v, 0.05, 1, "fraction", p) end,
  memory_basis = function(v, p) check.one_of(v, { total = true, free = true, static = true }, p) end,
  watermark = function(v, p) check.within(v, 0, 0.5, "fraction", p) end,
  router = function(v, p) check.one_of(v, { round_robin = true, least_loaded = true }, p) end,
  multi_step = function(v, p) check.positive_int(v, p); check.within(v, 1, 1000, "steps", p) end,
  dp_attention_tokens = function(v, p) check.one_of(v, { per_rank = true, global = true }, p) end,
  whole_batch = BOOL,
}

--- Resolve a scheduler for a device: nil (`default`, the engine's), a preset name, or a table
-- with an optional `base` preset overridden field by field. Device-dependent defaults (vLLM's
-- larger budget on >= 70 GiB GPUs, SGLang's smaller one below 25 GB) apply to fields the caller
-- did not set.
-- @param s the scheduler
-- @param default the preset used when `s` or its base is nil
-- @param spec the device (tilewave.data.hw)
-- @string path error prefix
-- @return a fresh table with every field and `name`
-- @raise `<path>: expected one of ...`; `<path>.<field>: <expectation>, got <value>`
function M.resolve(s, default, spec, path)
  if s == nil then s = default end
  local named = type(s) == "string"
  if named then s = { base = s } end
  check.table(s, path)
  check.options(s, FIELDS, path)
  local base = s.base or default
  local p = M.presets[base]
  if not p then check.fail(path .. ((s.base and not named) and ".base" or ""), "expected one of " .. check.keys(M.presets), base) end
  local out = tables.copy(p)
  local mem = spec.memory_bytes or 0
  local large, small = p.large, p.small
  if large and mem >= large.min_memory_bytes then
    local excluded = false
    for _, e in ipairs(large.except) do
      if (spec.id or ""):find(e, 1, true) then excluded = true end
    end
    if not excluded then out.max_num_seqs, out.max_num_batched_tokens = large.max_num_seqs, large.max_num_batched_tokens end
  end
  if small and mem < small.max_memory_bytes then out.max_num_batched_tokens = small.max_num_batched_tokens end
  out.large, out.small = nil, nil
  local changed = 0
  for k, v in pairs(s) do
    if k ~= "base" then
      if FIELDS[k] ~= true then FIELDS[k](v, path .. "." .. k) end
      out[k] = v
      changed = changed + 1
    end
  end
  out.router = out.router or "round_robin"
  out.multi_step = out.multi_step or 1
  out.name = changed == 0 and base or base .. "+custom"
  return out
end

return M
