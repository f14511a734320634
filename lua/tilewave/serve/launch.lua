--- tilewave.serve.launch: the command that starts a deployment the sizing search ranks, in the
-- engine's own flags (issue 52 item 3), so a ranked row can be run as it was simulated.
--
-- Each flag is the one the engine release documents, for the setting the simulation used:
--   vLLM (`vllm serve`; docs.vllm.ai "Engine Arguments", vllm/engine/arg_utils.py):
--     --tensor-parallel-size, --pipeline-parallel-size, --data-parallel-size with
--     --enable-expert-parallel, --max-num-seqs, --max-num-batched-tokens, --gpu-memory-utilization,
--     --quantization fp8, --kv-cache-dtype fp8; --num-scheduler-steps (v0.6 - v0.7 only: multi-step
--     scheduling, removed with the v0 engine)
--   SGLang (`python -m sglang.launch_server`; sglang/srt/server_args.py, docs "Server Arguments"):
--     --model-path, --tp-size, --pp-size, --dp-size with --enable-dp-attention and --ep-size,
--     --max-running-requests, --chunked-prefill-size,
--     --mem-fraction-static, --quantization fp8, --kv-cache-dtype fp8_e5m2
--   TensorRT-LLM (`trtllm-serve`; nvidia.github.io/TensorRT-LLM 0.18.2 commands/trtllm-serve):
--     --backend pytorch (1.0 and later; 0.x runs its TensorRT engine), --tp_size, --pp_size, --ep_size
--     (attention DP: enable_attention_dp in the --extra_llm_api_options YAML), --max_batch_size,
--     --max_num_tokens, --kv_cache_free_gpu_memory_fraction; FP8 weights come from an FP8
--     checkpoint (no flag quantizes on load)
-- The context is capped (--max-model-len, --context-length, --max_seq_len) where one sequence's KV
-- cache cannot hold the model's whole context (M.max_model_len), as the engine refuses to start
-- otherwise. Replicas are that many copies of the command behind a load balancer (the simulation routes to
-- the least loaded); disaggregated pools give each pool's command and leave the KV-transfer
-- connector between them to the engine's own configuration. NIM and custom engines get no command.
-- A replica wider than one node names its layout (M.layout): its nodes, and whether one NVLink
-- domain joins them (a GB200 NVL72 rack) or the scale-out network does.
-- @module tilewave.serve.launch
local hw = require "tilewave.data.hw"
local cluster = require "tilewave.data.cluster"
local HF_REPOS = require "tilewave.data.hf_repos"
local versions = require "tilewave.cost.engine_versions"

local M = {}

local format = string.format

--- `s` as one word of a POSIX shell command line: as it is when every character is one no shell
-- reads specially (letters, digits and `@%+=:,./_-`), else in single quotes, each single quote
-- inside written '\'' (POSIX.1-2017, Shell Command Language 2.2.2 "Single-Quotes": a single-quoted
-- string keeps the literal value of every character, and cannot hold a single quote). So a model
-- path or id printed in a launch line is one argument when pasted, never a second command
-- (tests/lua/launch_spec.lua parses every printed line with sh).
function M.shell_quote(s)
  s = tostring(s)
  if s ~= "" and not s:find("[^%w@%%+=:,./_-]") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- the engine family of a resolved engine name: "vllm@0.6" -> vllm, "sglang+custom" -> sglang
local function family(name)
  return (name or ""):match("^(%a+)")
end

-- whether release `name` is vLLM's v0 engine (0.5 - 0.7: its scheduler preset says so), whose flags
-- differ from the v1 engine's (draft model, KV transfer)
local function v0(name)
  local p = versions.presets[name]
  return p ~= nil and p.scheduler == "vllm_v0"
end

--- The longest request a deployment can start with, when it is shorter than the model's context:
-- an engine refuses to start a model whose context one sequence's KV cache cannot hold (vLLM:
-- "The model's max seq len (131072) is larger than the maximum number of tokens that can be stored
-- in KV cache", vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory), so the launch line
-- caps it at the KV capacity one sequence may take: a replica's (an expert-parallel group's over its
-- ep ranks, each holding its own sequences' cache). nil when the context fits.
-- @param kv the KV capacity, tokens; @param ep ranks holding it; @param ctx max_position_embeddings
function M.max_model_len(kv, ep, ctx)
  if not (kv and ctx) then return nil end
  local per = kv // (ep or 1)
  if per < ctx then return per end
  return nil
end

-- Disaggregated pools' KV transfer, as each engine's docs start it: vLLM V1's NixlConnector
-- (docs.vllm.ai features/nixl_connector_usage: --kv-transfer-config with kv_connector NixlConnector,
-- kv_role kv_both on both pools); SGLang's --disaggregation-mode prefill or decode over NIXL
-- (docs.sglang.io advanced_features/pd_disaggregation, --disaggregation-transfer-backend). vLLM 0.x
-- before V1 and TensorRT-LLM keep the note: configured apart.
local DISAGG = {
  vllm = { prefill = M.shell_quote('--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_both"}'),
           decode = M.shell_quote('--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_both"}'),
           note = "a proxy in front sends each request to a prefill replica, then a decode one (vLLM's disaggregated "
             .. "serving proxy)" },
  sglang = { prefill = "--disaggregation-mode prefill --disaggregation-transfer-backend nixl",
             decode = "--disaggregation-mode decode --disaggregation-transfer-backend nixl",
             note = "SGLang's router in front pairs a prefill replica with a decode one (--pd-disaggregation)" },
}

-- each engine's flag for it: vLLM --max-model-len (vllm/engine/arg_utils.py), SGLang
-- --context-length (sglang/srt/server_args.py), trtllm-serve --max_seq_len (trtllm-serve --help)
local MODEL_LEN = { vllm = "--max-model-len %d", sglang = "--context-length %d", trtllm = "--max_seq_len %d" }

local BUILD = {
  vllm = function(d, model, t, name)
    -- expert parallelism: each data-parallel engine core its own limits, the group's over ep
    local n = d.ep or 1
    local ep = n > 1 and format(" --data-parallel-size %d --enable-expert-parallel", n)
      or (d.pp or 1) > 1 and " --pipeline-parallel-size " .. d.pp or ""
    local parts = { "vllm serve " .. model, "--tensor-parallel-size " .. t .. ep, "--max-num-seqs " .. d.max_num_seqs // n,
      "--max-num-batched-tokens " .. d.max_num_batched_tokens // n,
      format("--gpu-memory-utilization %.2f", d.gpu_memory_utilization) }
    if d.weight_dtype == "fp8" then parts[#parts + 1] = "--quantization fp8" end
    if d.kv_dtype == "fp8" then parts[#parts + 1] = "--kv-cache-dtype fp8" end
    if (d.multi_step or 1) > 1 and name == "vllm@0.6" then
      parts[#parts + 1] = "--num-scheduler-steps " .. d.multi_step
    end
    return table.concat(parts, " ")
  end,
  sglang = function(d, model, t)
    -- expert parallelism: tp-size counts every GPU, DP attention over them (docs "DP Attention")
    local tp = (d.ep or 1) > 1 and format("%d --dp-size %d --enable-dp-attention --ep-size %d", d.ep, d.ep, d.ep)
      or (d.pp or 1) > 1 and t .. " --pp-size " .. d.pp or t
    local parts = { "python -m sglang.launch_server --model-path " .. model, "--tp-size " .. tp,
      "--max-running-requests " .. d.max_num_seqs, "--chunked-prefill-size " .. d.max_num_batched_tokens,
      format("--mem-fraction-static %.2f", d.gpu_memory_utilization) }
    if d.weight_dtype == "fp8" then parts[#parts + 1] = "--quantization fp8" end
    if d.kv_dtype == "fp8" then parts[#parts + 1] = "--kv-cache-dtype fp8_e5m2" end
    return table.concat(parts, " ")
  end,
  trtllm = function(d, model, t, name)
    local parts = { "trtllm-serve " .. model }
    if not name:find("^trtllm@0") then parts[#parts + 1] = "--backend pytorch" end
    parts[#parts + 1] = "--tp_size " .. ((d.ep or 1) > 1 and d.ep .. " --ep_size " .. d.ep
      or (d.pp or 1) > 1 and t .. " --pp_size " .. d.pp or t)
    parts[#parts + 1] = "--max_batch_size " .. d.max_num_seqs // (d.ep or 1) -- per attention-DP rank
    parts[#parts + 1] = "--max_num_tokens " .. d.max_num_batched_tokens // (d.ep or 1)
    parts[#parts + 1] = format("--kv_cache_free_gpu_memory_fraction %.2f", d.gpu_memory_utilization)
    return table.concat(parts, " ")
  end,
}

-- Draft-model speculative decoding of deployment `d` (its `speculative`: draft, k) in each engine's
-- flags, the draft named by its repository (tilewave.data.hf_repos) where tilewave knows it:
--   vLLM 0.8 and later: --speculative-config '{"model": DRAFT, "num_speculative_tokens": k}'
--     (docs.vllm.ai "Speculative Decoding"); 0.6 and 0.7: --speculative-model DRAFT
--     --num-speculative-tokens k (vllm/engine/arg_utils.py of those releases)
--   SGLang: --speculative-algorithm STANDALONE --speculative-draft-model-path DRAFT
--     --speculative-num-steps k --speculative-eagle-topk 1 --speculative-num-draft-tokens k + 1
--     (sglang/srt/server_args.py, docs "Speculative Decoding": a standalone draft model)
--   TensorRT-LLM: none on the command line: a note for --extra_llm_api_options' speculative_config
-- @return flags (or nil), note (or nil)
local function draft_flags(d, fam, name)
  local sd = d.speculative
  if not sd then return nil end
  local draft = tostring(sd.draft)
  draft = HF_REPOS[draft:lower()] or draft
  if fam == "vllm" then
    if v0(name) then
      return format("--speculative-model %s --num-speculative-tokens %d", M.shell_quote(draft), sd.k)
    end
    local cfg = require("tilewave.util.json").encode { model = draft, num_speculative_tokens = sd.k }
    return "--speculative-config " .. M.shell_quote((cfg:gsub("\\/", "/")))
  elseif fam == "sglang" then
    return format("--speculative-algorithm STANDALONE --speculative-draft-model-path %s --speculative-num-steps %d "
      .. "--speculative-eagle-topk 1 --speculative-num-draft-tokens %d", M.shell_quote(draft), sd.k, sd.k + 1)
  end
  return nil, format("speculative_config: { decoding_type: DraftTarget, max_draft_len: %d, speculative_model_dir: "
    .. "%s } in --extra_llm_api_options", sd.k, draft)
end

--- The layout of `per` GPUs of one replica on device `id`'s node (hw/<id>.lua `node`,
-- tilewave.data.cluster.of_device): nil within one node; else the nodes it spans and what joins
-- them: one NVLink domain (a rack-scale system: the engine's multi-node launch over NVLink, as
-- the GB200 NVL72 runs it) or the scale-out network between domains.
function M.layout(id, per)
  local spec = hw.load(id)
  if not spec then return nil end
  local cl = cluster.of_device(spec)
  local gpn, domain = cl.gpus_per_node, cluster.domain(cl)
  if per <= gpn then return nil end
  local nodes = -(-per // gpn)
  if per <= domain then
    return format("layout: %d GPUs a replica on %d nodes of %d, all in one NVLink domain of %d (%s)", per, nodes,
      gpn, domain, cl.id)
  end
  return format("layout: %d GPUs a replica on %d nodes of %d; past the NVLink domain of %d they talk over the "
    .. "scale-out network (%s)", per, nodes, gpn, domain, cl.id)
end

--- The launch of deployment `d` (tilewave.serve.simulate's shape, as the sizing search ranks it).
-- @param d the deployment: engine, t, replicas, max_num_seqs, max_num_batched_tokens,
--   gpu_memory_utilization, weight_dtype, kv_dtype, multi_step, mode, prefill, decode,
--   kv_capacity_tokens and max_position_embeddings (the context cap, M.max_model_len)
-- @string model the model as the user named it: a Hugging Face repo or a path is used as it is, a
--   tilewave preset id becomes its repository (tilewave.data.hf_repos), or `<checkpoint of ID>` to
--   fill in where it has none
-- @return `{ engine, command (one replica, or nil), copies (replicas), pools = { prefill = {
--   command, copies }, decode = ... } (disaggregated), note }`
--- The engine release whose flags a launch line of engine `name` uses: the profile a versioned
-- name stands for (tilewave.cost.engine_versions.lookup), the newest for a plain family name.
-- @return the release (e.g. "vllm@v1"), and the versions it covers (">= 0.8"), or nil
function M.release(name)
  local fam = family(name)
  local f = versions.families[fam]
  if not f then return nil end
  local r = name:find("@", 1, true) and versions.lookup(name) or f.newest
  local p = r and versions.presets[r]
  return r, p and p.version
end

-- What a release cannot run, by feature: the launch of a deployment that needs it is no command but
-- this reason (the flags arrived later: vLLM's --enable-expert-parallel and --data-parallel-size in
-- 0.8, V1's --kv-transfer-config connectors; SGLang 0.3 had no --pp-size, --ep-size, disaggregation
-- or standalone speculative decoding; trtllm-serve itself arrived in TensorRT-LLM 0.16)
local LACKS = {
  ["vllm@0.5"] = { ep = "expert parallelism (--enable-expert-parallel, vLLM 0.8 and later)" },
  ["vllm@0.6"] = { ep = "expert parallelism (--enable-expert-parallel, vLLM 0.8 and later)" },
  ["sglang@0.3"] = { ep = "expert parallelism (--ep-size, SGLang 0.4 and later)",
                     pp = "pipeline parallelism (--pp-size, SGLang 0.4 and later)",
                     disagg = "disaggregated pools (--disaggregation-mode, SGLang 0.4 and later)",
                     speculative = "a standalone draft model (--speculative-algorithm STANDALONE, SGLang 0.5)" },
  ["trtllm@0.5"] = { all = "trtllm-serve (TensorRT-LLM 0.16 and later; 0.5-0.7 serve through Triton)" },
}

function M.of(d, model)
  -- an engine file (calibrate --serving) launches as the release it was fitted on
  local name = d.engine_base or d.engine
  local fam = family(name)
  name = M.release(name) or name
  local lacks = LACKS[name] or {}
  local need = lacks.all or (d.ep or 1) > 1 and lacks.ep or (d.pp or 1) > 1 and lacks.pp
    or d.mode == "disagg" and lacks.disagg or d.speculative and lacks.speculative
  if need then
    return { engine = d.engine, release = name, note = format("no command: %s has no %s", name, need) }
  end
  local build = BUILD[fam]
  local m = tostring(model)
  -- a preset's repository where tilewave.data.hf_repos names one, else a placeholder to fill in
  if not (m:find("/", 1, true)) then m = HF_REPOS[m:lower()] or "<checkpoint of " .. m .. ">" end
  m = M.shell_quote(m)
  if not build then
    return { engine = d.engine, note = format("no command: %s's launch is not generated (vllm, sglang and trtllm are)",
      d.engine) }
  end
  local out = { engine = d.engine }
  -- the command, with the context capped where the KV cache needs it (M.max_model_len)
  local function command(t, kv)
    local c = build(d, m, t, name)
    local len = M.max_model_len(kv, d.ep, d.max_position_embeddings)
    return len and c .. " " .. format(MODEL_LEN[fam], len) or c
  end
  if d.mode == "disagg" then
    local pre = command(d.prefill.t, d.kv_capacity_tokens)
    local dec = command(d.decode.t, d.decode.kv_capacity_tokens or d.kv_capacity_tokens)
    local kv = DISAGG[fam] and not v0(name) and DISAGG[fam]
    if kv then pre, dec = pre .. " " .. kv.prefill, dec .. " " .. kv.decode end
    out.pools = { prefill = { command = pre, copies = d.prefill.replicas },
                  decode = { command = dec, copies = d.decode.replicas } }
    out.note = kv and kv.note or "each pool's replicas behind the engine's KV-transfer connector (configured apart)"
  else
    out.command, out.copies = command(d.t, d.kv_capacity_tokens), d.replicas
    local flags, spec_note = draft_flags(d, fam, name)
    if flags then out.command = out.command .. " " .. flags end
    if d.replicas > 1 then out.note = format("%d copies behind a load balancer (least loaded)", d.replicas) end
    if spec_note then out.note = (out.note and out.note .. "; " or "") .. spec_note end
  end
  local per = d.mode == "disagg" and math.max(d.prefill.t, d.decode.t)
    or (d.t or 1) * (d.ep or 1) * (d.pp or 1)
  local where = d.hw and M.layout(d.hw, per)
  if where then out.note = (out.note and out.note .. "; " or "") .. where end
  if (d.ep or 1) > 1 and fam == "trtllm" then
    out.note = (out.note and out.note .. "; " or "") .. "enable_attention_dp: true in --extra_llm_api_options"
  end
  if d.weight_dtype == "int4" or d.weight_dtype == "int8" then
    -- weight-only formats are read from a quantized checkpoint's quantization_config (no flag
    -- quantizes to them on load)
    out.note = (out.note and out.note .. "; " or "") .. format("an AWQ or GPTQ %s checkpoint (its quantization_config "
      .. "names the method)", d.weight_dtype)
  end
  if d.weight_dtype == "fp8" and fam == "trtllm" then
    out.note = (out.note and out.note .. "; " or "") .. "an FP8 checkpoint (trtllm-serve quantizes none on load)"
  end
  local rel, range = M.release(d.engine_base or d.engine)
  if rel then
    out.release = rel
    out.note = format("%s flags (%s)", rel, range or rel) .. (out.note and "; " .. out.note or "")
  end
  return out
end

return M
