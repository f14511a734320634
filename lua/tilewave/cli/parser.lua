--- tilewave.cli.parser: the argparse definition of every `tilewave` command and
-- the converters of its numeric arguments. Commands and their options are
-- documented in their help strings (`tilewave help COMMAND`).
local argparse = require "argparse"
local calibrate = require "tilewave.cli.calibrate"

local M = {}
local format = string.format

--- The marker M.main puts in front of a negative number's digits so that argparse does not
-- take "-3" for an option; the converters turn it back into "-".
M.NEG = "\u{2212}"

local function unmark(s) return (s:gsub("^" .. M.NEG, "-")) end

--- Convert an argument to an integer (a negative one included: the validator names it).
local function to_int(s)
  s = unmark(s)
  local v = math.tointeger(tonumber(s))
  if v == nil then return nil, format("expected an integer, got '%s'", s) end
  return v
end

--- Convert an argument to a number.
local function to_num(s)
  s = unmark(s)
  local v = tonumber(s)
  if v == nil then return nil, format("expected a number, got '%s'", s) end
  return v
end
M.to_int, M.to_num, M.unmark = to_int, to_num, unmark

--- argparse converters that name the field in their message: "gemm.k: expected an integer, got '1.5'".
local function int_arg(field)
  return function(s)
    local v, err = to_int(s)
    if v == nil then return nil, field .. ": " .. err end
    return v
  end
end
local function num_arg(field)
  return function(s)
    local v, err = to_num(s)
    if v == nil then return nil, field .. ": " .. err end
    return v
  end
end

--- An argparse converter of a comma-separated integer list, "1,8,32" -> { 1, 8, 32 } (each
-- value checked by the command's validator), naming `field` in its message:
-- "decode.batch: expected a comma-separated list of integers, got '8,x'". At most 64 values.
local function int_list(field)
  return function(s)
    local out = {}
    for part in (s .. ","):gmatch("([^,]*),") do
      local v = to_int(part)
      if v == nil then return nil, format("%s: expected a comma-separated list of integers, got '%s'", field, unmark(s)) end
      out[#out + 1] = v
    end
    if #out > 64 then return nil, format("%s: expected at most 64 values, got %d", field, #out) end
    return out
  end
end

M.int_arg, M.num_arg, M.int_list = int_arg, num_arg, int_list

--- An argparse converter of `--speculative draft=MODEL,k=K,acceptance=A` (tilewave.cost.speculative).
function M.speculative(s)
  local out, seen = {}, {}
  for part in (s .. ","):gmatch("([^,]*),") do
    local k, v = part:match("^(%a+)=(.+)$")
    if k and seen[k] then return nil, format("speculative.%s: given twice in '%s'", k, s) end
    if k then seen[k] = true end
    if k == "draft" then out.draft = v
    elseif k == "k" and math.tointeger(tonumber(v)) then out.k = math.tointeger(tonumber(v))
    elseif k == "acceptance" and tonumber(v) then out.acceptance = tonumber(v)
    else
      return nil, format("speculative: expected draft=MODEL,k=INTEGER,acceptance=NUMBER, got '%s'", part)
    end
  end
  return out
end

local ENGINE_HELP = "How software runs the kernels: compiled (fused, CUDA graph), fused (fused, host-launched), "
  .. "eager (PyTorch ops from Python), hf (generate()), llama.cpp, ideal. See tilewave.cost.engines."

--- The argparse parser of every command.
function M.parser()
  local p = argparse("tilewave", "Performance model of transformer workloads on GPUs: GEMM tile/wave/alignment, roofline, model forward, inference, training, sweeps and regression checks.")
    :epilog("Units: s, byte, FLOP, FLOP/s. See README.md.")
  p:command_target("command")
  p:require_command(true)
  p:flag("--version", "Print the version of tilewave and of its core library, and exit.")
  local help = p:command("help", "Show the help of tilewave or of one command.")
  help:argument("topic", "Command to show the help of."):args("?")

  local run = p:command("run", "Run a Lua script with require \"tilewave\" available and arg set.")
  run:argument("script", "Lua script to run.")
  run:argument("args", "Arguments passed to the script as arg[1..]."):args("*")

  local g = p:command("gemm", "Predict one GEMM C[MxN] = A[MxK].B[KxN].")
  g:argument("m", "Rows of A and C."):convert(int_arg("gemm.m"))
  g:argument("n", "Columns of B and C."):convert(int_arg("gemm.n"))
  g:argument("k", "Reduction dimension."):convert(int_arg("gemm.k"))
  g:option("--hw", "Device id (see `tilewave hw`) or spec path (the default of every command)."):default("h100_sxm5")
  g:option("--dtype", "Element type: fp32, tf32, fp16, bf16, fp8, int8, fp64 (default bf16 as every command, fp16 on "
    .. "a device without bf16: V100, T4, P100).")
  g:option("--batch", "Batch count (batched GEMM)."):default("1"):convert(int_arg("gemm.batch"))
  g:option("--timing", "kernel: device time among back-to-back kernels (CUDA events, profilers); "
    .. "isolated: one synchronized call by wall clock (the co-design paper's torch.mm)."):choices({ "kernel", "isolated" })
    :default("kernel")
  g:option("--engine", ENGINE_HELP):default("compiled")
  g:option("--format", "Output format."):choices({ "text", "json" }):default("text")

  local r = p:command("roofline", "Roofline bound of a kernel of given FLOP and bytes.")
  r:option("--flops", "Work, FLOP."):convert(num_arg("roofline.flops")):count(1)
  r:option("--bytes", "DRAM traffic, byte."):convert(num_arg("roofline.bytes")):count(1)
  r:option("--hw", "Device id or spec path."):default("h100_sxm5")
  r:option("--dtype", "Element type (default bf16, fp16 on a device without bf16)."):default(nil)
  r:flag("--achievable", "Use the calibrated achievable fractions instead of datasheet peaks.")
  r:option("--format", "Output format."):choices({ "text", "json" }):default("text")

  local rep = p:command("report", "The main report: every preset of the LLaMA, GPT-NeoX/Pythia and ModernBERT "
    .. "families (or --models) on one device: parameters, forward time, TFLOP/s, MFU, slowest GEMMs and why, "
    .. "co-design rule violations with fixes, best nearby shape.")
  rep:option("--hw", "Device id or spec path."):default("h100_sxm5")
  -- the family names as tilewave.data.models lists them (tests/lua/cli_spec.lua checks the two agree)
  rep:option("--models", "Comma-separated model ids, config.json paths and/or family names (deepseek, gemma2, "
    .. "gemma3, gpt3, gpt_neox, gpt_oss, llama, llama4, mistral, modernbert, phi3, qwen2, qwen3, qwen_moe).")
    :default("llama,gpt_neox,modernbert")
  rep:option("--b", "Micro-batch size b."):default("4"):convert(int_arg("report.b"))
  rep:option("--s", "Sequence length s."):default("2048"):convert(int_arg("report.s"))
  rep:option("--t", "Tensor-parallel size t."):default("1"):convert(int_arg("report.t"))
  rep:option("--dtype", "Element type."):default("bf16")
  rep:option("--attention", "Attention kernel (default standard, unlike prefill and train: the report checks the "
    .. "co-design paper's rules, which price attention as its batched GEMMs QK^T and AV, arXiv 2401.14489).")
    :choices({ "standard", "flash" }):default("standard")
  rep:option("--engine", ENGINE_HELP):default("compiled")
  rep:option("--cluster", "Cluster for the training section (hw/clusters; default: the one built of --hw).")
  rep:option("--format", "Output format."):choices({ "markdown", "csv", "json" }):default("markdown")
  rep:option("--out", "Write the report to FILE instead of stdout.")
  rep:flag("--allow-long-context", "Accept s above a model's max_position_embeddings.")
  rep:option("--plots", "Also draw the report's figures (roofline.svg, decode.svg) into DIR and link them (Markdown).")

  local mo = p:command("models", "List model presets (of one family), with parameter counts.")
  mo:argument("family", "Family name, or a config.json path or a folder holding one."):args("?")
  mo:option("--format", "Output format (csv and json give the counts as integers)."):choices({ "text", "csv", "json" })
    :default("text")

  local sw = p:command("sweep", "Estimate every config of a grid (a Lua spec file returning tw.sweep's options), "
    .. "streaming one row per config.")
  sw:argument("spec", "Sweep spec file: returns { base = , vary = , where = , hw = , workload = }.")
  sw:option("--shard", "I/N: shard I of N (0 <= I < N): the configs that pass the filters, dealt out in turn, so shards differ by at most one row; shards concatenate to the full grid.")
  sw:option("--out", "Write rows to FILE instead of stdout.")
  sw:option("--format", "Row format."):choices({ "csv", "jsonl" }):default("csv")
  sw:flag("--progress", "Report configs done, configs per second and an ETA on stderr (on by default when stderr "
    .. "is a terminal).")

  local ck = p:command("check", "Regression checks of config families against bounds, co-design rules and baselines.")
  ck:argument("files", "Check files (Lua)."):args("+")
  ck:flag("--update-baseline", "Write or refresh each file's baseline JSON instead of checking.")
  ck:option("--junit", "Also write JUnit XML to FILE.")
  ck:flag("--tap", "Print TAP instead of one line per pair.")

  local de = p:command("decode", "Predict one decode step (TPOT, tokens/s) and the memory fit of a model on a device.")
  de:argument("model", "Model id, config.json path or a folder holding one.")
  de:option("--hw", "Device id or spec path."):default("h100_sxm5")
  de:option("--context", "Tokens in each sequence's KV cache; a list (2048,8192) gives one row each.")
    :default("2048"):convert(int_list("decode.context"))
  de:option("--batch", "Sequences decoded together; a list (1,8,32) gives one row each."):default("1")
    :convert(int_list("decode.batch"))
  de:option("--weight-dtype", "fp32, bf16, fp16, fp8, int8, int4, mxfp4, nvfp4 (weight-only), q8_0, q4_0, q4_k_m "
    .. "(default: the checkpoint's, as its config.json quantization_config declares, else bf16).")
  de:option("--group", "int4 quantization group size."):convert(int_arg("decode.group"))
  de:option("--kv-dtype", "KV cache dtype."):default("bf16")
  de:option("--t", "Tensor-parallel size."):default("1"):convert(int_arg("decode.t"))
  de:option("--ep", "Expert-parallel size (MoE models; attention data-parallel over batch / ep sequences)."):default("1")
    :convert(int_arg("decode.ep"))
  de:option("--engine", ENGINE_HELP):default("compiled")
  de:option("--decode-attention", "How the decode attention kernel spreads over the SMs: split_kv (FlashDecoding, "
    .. "the engine's default), no_split (one block per sequence and query head: FlashAttention before 2.2), full (every "
    .. "SM streams)."):choices({ "split_kv", "no_split", "full" })
  de:option("--speculative", "Speculative decoding: draft=MODEL,k=4,acceptance=0.7 (TPOT per output token)."):convert(M.speculative)
  de:flag("--allow-long-context", "Accept a context above the model's max_position_embeddings (e.g. RoPE scaling).")
  de:option("--format", "Output format (json: one object, or `runs` for lists)."):choices({ "text", "csv", "json" })
    :default("text")

  local pf = p:command("prefill", "Predict the time to first token (TTFT): the forward pass over the prompt.")
  pf:argument("model", "Model id, config.json path or a folder holding one.")
  pf:option("--hw", "Device id or spec path."):default("h100_sxm5")
  pf:option("--prompt", "Prompt tokens per sequence; a list (512,2048) gives one row each."):args(1)
    :convert(int_list("prefill.prompt"))
  pf:option("--batch", "Sequences prefilled together; a list gives one row each."):default("1")
    :convert(int_list("prefill.batch"))
  pf:option("--dtype", "Compute dtype."):default("bf16")
  pf:option("--attention", "flash or standard."):default("flash")
  pf:option("--t", "Tensor-parallel size."):default("1"):convert(int_arg("prefill.t"))
  pf:option("--engine", ENGINE_HELP):default("compiled")
  pf:flag("--allow-long-context", "Accept a prompt above the model's max_position_embeddings (e.g. RoPE scaling).")
  pf:option("--format", "Output format."):choices({ "text", "csv", "json" }):default("text")

  local trn = p:command("train", "Predict a training step (or --search every split) of a model on a cluster.")
  trn:argument("model", "Model id, config.json path or a folder holding one.")
  trn:option("--cluster", "Cluster id (hw/clusters) or path."):default("dgx_h100")
  trn:option("--nodes", "Nodes."):default("1"):convert(int_arg("train.nodes"))
  trn:option("--global-batch", "Sequences per optimizer step."):default("512"):convert(int_arg("train.global_batch"))
  trn:option("--s", "Sequence length."):default("2048"):convert(int_arg("train.s"))
  trn:option("--t", "Tensor-parallel size."):default("1"):convert(int_arg("train.t"))
  trn:option("--p", "Pipeline-parallel size."):default("1"):convert(int_arg("train.p"))
  trn:option("--micro-batch", "Micro-batch size."):default("1"):convert(int_arg("train.micro_batch"))
  trn:option("--zero", "ZeRO stage 0-3."):default("0"):convert(int_arg("train.zero"))
  trn:option("--ep", "Expert-parallel size (MoE models; divides d and the experts)."):default("1")
    :convert(int_arg("train.ep"))
  trn:option("--checkpointing", "none, selective, full."):default("none")
  trn:option("--attention", "flash or standard."):default("flash")
  trn:option("--engine", ENGINE_HELP):default("compiled")
  trn:flag("--search", "Rank every (t, p, micro-batch, checkpointing, ZeRO) instead.")
  trn:option("--top", "Rows of --search to print."):default("10"):convert(int_arg("train.top"))
  trn:option("--format", "Output format (json: the step, or `ranked` and `rejected` counts with --search)."):choices({ "text", "json" })
    :default("text")

  calibrate.define(p)
  require("tilewave.cli.plot").define(p, ENGINE_HELP)
  require("tilewave.cli.serve").define(p, ENGINE_HELP)
  require("tilewave.cli.engines").define(p)
  local h = p:command("hw", "List devices, or show one.")
  h:argument("id", "Device id or spec path."):args("?")
  h:option("--format", "Output format."):choices({ "text", "json" }):default("text")
  -- a repeated option is an error everywhere ("option '--hw' must be used at most 1 time"), never
  -- its last value silently (argparse overwrites by default)
  local function strict(cmd)
    for _, o in ipairs(cmd._options) do o:overwrite(false) end
    for _, c in ipairs(cmd._commands) do strict(c) end
  end
  strict(p)
  return p
end


return M
