-- The hostile-input catalogue of issue 32, by class. Each case: { class, name, cmd (the
-- tilewave arguments, shell words), files = { name = text } (written to the case's scratch
-- directory first), setup (a shell command run there first), stdout (a path stdout goes to),
-- and the expected outcome: err = "text" or { "text", ... } (exit 1 or 2, or `code`, one line
-- naming the field) or ok = "text" (exit 0, stdout containing it); after(dir, read) checks the
-- files left behind. tests/hostile/run.lua runs them.
local M = {}

local format = string.format

local function json(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    local v = t[k]
    local s
    if type(v) == "string" and v:sub(1, 4) == "raw:" then s = v:sub(5) -- raw JSON
    elseif type(v) == "string" then s = format("%q", v)
    elseif math.type(v) == "integer" then s = format("%d", v)
    elseif type(v) == "number" then s = format("%.17g", v)
    else s = tostring(v) end
    parts[#parts + 1] = format("%q: %s", k, s)
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

local LLAMA = { model_type = "llama", hidden_size = 4096, num_attention_heads = 32, num_key_value_heads = 8,
                num_hidden_layers = 32, intermediate_size = 14336, vocab_size = 128256,
                max_position_embeddings = 8192 }
local function llama(changes)
  local t = {}
  for k, v in pairs(LLAMA) do t[k] = v end
  for k, v in pairs(changes) do
    if v == "raw:null" then t[k] = nil else t[k] = v end
  end
  return json(t)
end

function M.cases(repo)
  local shared = repo .. "/../shared"
  local cases = {}
  local function add(class, name, case)
    case.class, case.name = class, name
    cases[#cases + 1] = case
  end

  ---------------------------------------------------------------------------------------------
  -- budget: user files that would hang or exhaust memory, in every kind of user file
  local payloads = {
    { "endless loop", "while true do end return {}", "budget of" },
    { "self-referencing growth", "local t = {} while true do t[#t + 1] = t end return t", "budget" },
    { "string.rep of 8 GiB", 'return { x = ("x"):rep(2^33) }', "64 MiB" },
    { "rep of rep", 'return { x = ("x"):rep(2^20):rep(2^20) }', "MiB" },
    { "doubling concatenation", 'local s = "x" for i = 1, 40 do s = s .. s end return {}', "memory budget" },
    { "backtracking pattern", 'local s = ("a"):rep(3000) return { x = s:find(".-.-.-.-.-.-c") }', "quantifiers" },
    { "pattern over a long subject", 'local s = ("a"):rep(100000) return { x = s:match("a*b") }', "subject of 100000" },
    { "gsub over a long subject", 'local s = ("ab"):rep(50000) return { x = s:gsub("a", "b") }', "subject of" },
    { "deep recursion", "local function f(n) return f(n + 1) + 1 end return { x = f(1) }", "" },
    { "table of 10^9 slots", "local t = {} for i = 1, 1e9 do t[i] = i end return t", "budget" },
    { "string.format width", 'return { x = ("%099d"):format(1):rep(2^28) }', "MiB" },
    { "a long string key loop", 'local t = {} for i = 1, 1e8 do t["k" .. i] = i end return t', "budget" },
  }
  local kinds = {
    { "hw", "hw x.lua" },
    { "cluster", "train pythia-70m --cluster x.lua --global-batch 8" },
    { "sweep spec", "sweep x.lua" },
    { "check file", "check x.lua" },
    { "plot sweep spec", "plot sweep x.lua --x hidden_size --out o.svg" },
  }
  for _, k in ipairs(kinds) do
    for _, p in ipairs(payloads) do
      add("budget", format("%s: %s", k[1], p[1]), { files = { ["x.lua"] = p[2] }, cmd = k[2], err = { "x.lua", p[3] },
        stdout_ok = true })
    end
  end
  -- calibration bounds files are data files too
  for _, p in ipairs(payloads) do
    add("budget", "bounds file: " .. p[1], { files = { ["x.lua"] = p[2] },
      cmd = "calibrate " .. shared .. "/reference/calibration/h100 --bounds x.lua", err = { "x.lua", p[3] },
      stdout_ok = true })
  end
  -- spec files cannot reach what would lift their budgets or touch the system
  for _, p in ipairs {
    { "coroutine outside the hook", "local co = coroutine.wrap(function() while true do end end) co() return {}", "coroutine" },
    { "debug.sethook off", "debug.sethook() while true do end", "debug" },
    { "metatable __index loop", "return setmetatable({}, { __index = function() while true do end end })", "plain tables" },
    { "nested metatable", "return { base = 'pythia-70m', vary = setmetatable({}, { __pairs = function() while true do end end }) }", "plain tables" },
    { "a forged range", "return { base = 'pythia-70m', vary = { vocab_size = setmetatable({}, { __metatable = 'tilewave.range', __len = function() while true do end end }) } }", "plain tables" },
    { "os.execute", "os.execute('touch pwned') return {}", "execute" },
    { "io.open", "local f = io.open('/etc/passwd') return {}", "io" },
    { "require of os", "local os2 = require 'os' return {}", "require" },
    { "core.memory_limit", "require('tilewave').core.memory_limit(nil) return {}", "core" },
    { "load", "load('while true do end')() return {}", "load" },
    { "where that loops", "return { base = 'pythia-70m', vary = { hidden_size = { 512 } }, where = function() while true do end end }", "budget" },
    { "where that grows", "return { base = 'pythia-70m', vary = { hidden_size = { 512 } }, where = function() local t = {} while true do t[#t + 1] = ('x'):rep(1e6) end end }", "budget" },
  } do
    add("budget", "sweep spec: " .. p[1], { files = { ["x.lua"] = p[2] }, cmd = "sweep x.lua", err = { "x.lua", p[3] },
      stdout_ok = true, after = function(dir) return io.open(dir .. "/pwned") == nil, "a file was created" end })
  end

  ---------------------------------------------------------------------------------------------
  -- special: paths that are not regular files, or are too large, read before anything runs
  -- every special file under a name each command reads as a path (./x.lua, x.json)
  local specials = {
    { "/dev/zero", "zero", "char device" },
    { "/dev/urandom", "urandom", "char device" },
    { "/dev/null", "null", "char device" },
    { "a directory", "dir", "directory" },
    { "a FIFO", "fifo", "named pipe" },
    { "a missing file", "missing", "cannot read" },
    { "a symlink to a symlink to /dev/zero", "zz", "char device" },
    { "a 20 MiB file", "big", "above the 16 MiB" },
  }
  local setup = "for e in lua json csv; do ln -s /dev/zero zero.$e && ln -s /dev/urandom urandom.$e && "
    .. "ln -s /dev/null null.$e && mkdir dir.$e && mkfifo fifo.$e && ln -s zero.$e zz.$e && truncate -s 20M big.$e; done"
  for _, s in ipairs(specials) do
    for _, k in ipairs {
      { "hw", "hw %s" }, { "cluster", "train pythia-70m --global-batch 8 --cluster %s" }, { "sweep", "sweep %s" },
      { "check", "check %s" }, { "config.json", "models %s" },
      { "measured CSV", "plot gemm --sweep wave --hw h100_sxm5 --measured %s --out o.svg" },
    } do
      local ext = k[1] == "config.json" and ".json" or k[1] == "measured CSV" and ".csv" or ".lua"
      local path = "./" .. s[2] .. ext
      add("special", format("%s: %s", k[1], s[1]), { cmd = format(k[2], path), setup = setup,
        err = s[2] == "missing" and "missing" or s[3] })
    end
  end

  ---------------------------------------------------------------------------------------------
  -- config: every config.json field by type and range, naming the file and field
  local fields = { "hidden_size", "num_attention_heads", "num_key_value_heads", "num_hidden_layers",
                   "intermediate_size", "vocab_size", "max_position_embeddings", "head_dim" }
  local values = {
    { "zero", 0, "expected positive integer" },
    { "negative", -1, "expected positive integer" },
    { "fraction", 1.5, "expected positive integer" },
    { "a string of digits", "4096", "expected positive integer" },
    { "a hexadecimal string", "0x1000", "expected positive integer" },
    { "true", "raw:true", "expected positive integer" },
    { "an array", "raw:[4096]", "expected positive integer" },
    { "an object", 'raw:{"v": 1}', "expected positive integer" },
    { "2^62", "raw:4611686018427387904", "expected at most 16777216" },
    { "1e308", "raw:1e308", "expected at most 16777216" },
  }
  for _, f in ipairs(fields) do
    for _, v in ipairs(values) do
      add("config", format("%s %s", f, v[1]), { files = { ["config.json"] = llama { [f] = v[2] } },
        cmd = "models config.json", err = { "config.json: " .. f, v[3] } })
    end
  end
  for _, c in ipairs {
    { "rope_scaling a string", { rope_scaling = "linear" }, "rope_scaling: expected an object" },
    { "rope_scaling factor negative", { rope_scaling = 'raw:{"type": "linear", "factor": -2}' }, "rope_scaling.factor" },
    { "rope_scaling factor zero", { rope_scaling = 'raw:{"type": "linear", "factor": 0}' }, "rope_scaling.factor" },
    { "rope_scaling factor a string", { rope_scaling = 'raw:{"type": "linear", "factor": "2"}' }, "rope_scaling.factor" },
    { "rope_scaling an array", { rope_scaling = "raw:[1, 2]" }, "rope_scaling: expected an object" },
    { "no model_type", { model_type = "raw:null" }, "model_type" },
    { "an unknown model_type", { model_type = "gpt5" }, "model_type" },
    { "heads not dividing hidden", { num_attention_heads = 31 }, "num_attention_heads" },
    { "kv heads not dividing heads", { num_key_value_heads = 5 }, "num_key_value_heads" },
    { "kv heads above heads", { num_key_value_heads = 64 }, "num_key_value_heads" },
    { "head_dim far wider than hidden", { head_dim = 16777216 }, "head_dim" },
    { "2^53 parameters", { hidden_size = 8388608, num_hidden_layers = 16777216, num_attention_heads = 64,
                            num_key_value_heads = 8 }, "2^53 parameters" },
    { "a missing hidden_size", { hidden_size = "raw:null" }, "hidden_size" },
    { "tie_word_embeddings a number", { tie_word_embeddings = 1 }, "tie_word_embeddings" },
    { "rope_theta negative", { rope_theta = -1 }, "rope_theta" },
    -- transformers 5.x: rope_parameters (rope_scaling's new name), also one object per layer type
    { "rope_parameters factor negative", { rope_parameters = 'raw:{"rope_type": "linear", "factor": -4}' },
      "rope_parameters.factor: expected a positive number, got -4" },
    { "rope_parameters per layer type, one factor zero",
      { rope_parameters = 'raw:{"full_attention": {"factor": 8}, "sliding_attention": {"factor": 0}}' },
      "rope_parameters.sliding_attention.factor" },
    { "rope_parameters an array", { rope_parameters = "raw:[8]" }, "rope_parameters: expected an object" },
  } do
    add("config", c[1], { files = { ["config.json"] = llama(c[2]) }, cmd = "models config.json", err = c[3] })
  end
  add("config", "not JSON", { files = { ["config.json"] = "{ model_type: llama" }, cmd = "models config.json",
    err = "not a JSON object" })
  add("config", "a JSON array", { files = { ["config.json"] = "[1, 2, 3]" }, cmd = "models config.json",
    err = "not a JSON object" })
  add("config", "nested 10^5 deep", { files = { ["config.json"] = ("["):rep(100000) .. ("]"):rep(100000) },
    cmd = "models config.json", err = "not a JSON object" })
  add("config", "an empty file", { files = { ["config.json"] = "" }, cmd = "models config.json", err = "not a JSON object" })
  add("config", "NUL bytes", { files = { ["config.json"] = "{\0\0}" }, cmd = "models config.json", err = "not a JSON object" })
  add("config", "MLA kv_lora_rank above hidden", {
    files = { ["config.json"] = json { model_type = "deepseek_v3", hidden_size = 1024, num_attention_heads = 8,
      num_key_value_heads = 8, num_hidden_layers = 4, intermediate_size = 2048, vocab_size = 1000,
      n_shared_experts = 1, first_k_dense_replace = 1, n_routed_experts = 8, num_experts_per_tok = 2, moe_intermediate_size = 256, kv_lora_rank = 1048576,
      q_lora_rank = 512, qk_nope_head_dim = 64, qk_rope_head_dim = 32, v_head_dim = 64 } },
    cmd = "models config.json", err = { "config.json: kv_lora_rank", "at most" } })
  add("config", "text_config null (Gemma 3)", { files = { ["config.json"] = '{"model_type": "gemma3", "text_config": null}' },
    cmd = "models config.json", err = "text_config: expected an object (the text model's config), got null" })
  add("config", "a null in layer_types", { files = { ["config.json"] = json { model_type = "gpt_oss",
      hidden_size = 2880, num_attention_heads = 64, num_key_value_heads = 8, num_hidden_layers = 2, head_dim = 64,
      intermediate_size = 2880, vocab_size = 201088, num_local_experts = 32, num_experts_per_tok = 4,
      sliding_window = 128, layer_types = 'raw:["sliding_attention", null]' } },
    cmd = "models config.json", err = { "layer_types[2]", "got null" } })
  add("config", "integers in a list as JSON floats (Llama 4 no_rope_layers, control)", { files = { ["config.json"] =
      '{"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40, '
      .. '"num_key_value_heads": 8, "num_hidden_layers": 2, "intermediate_size": 8192, "vocab_size": 202048, '
      .. '"num_local_experts": 16, "num_experts_per_tok": 1, "no_rope_layers": [1, 0.0]}}' },
    cmd = "models config.json", ok = "llama4" })
  add("config", "a fraction in an integer list", { files = { ["config.json"] =
      '{"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40, '
      .. '"num_key_value_heads": 8, "num_hidden_layers": 2, "intermediate_size": 8192, "vocab_size": 202048, '
      .. '"num_local_experts": 16, "num_experts_per_tok": 1, "no_rope_layers": [1, 1.5]}}' },
    cmd = "models config.json", err = "no_rope_layers[2]: expected an integer in [0, 1], got 1.5" })
  add("config", "a valid config (control)", { files = { ["config.json"] = llama {} }, cmd = "models config.json",
    ok = "8,030,261,248" })
  add("config", "a model folder's config decoded (control)", { files = { ["config.json"] = llama {} },
    cmd = "decode config.json --context 512", ok = "TPOT" })

  ---------------------------------------------------------------------------------------------
  -- wrap: numbers at and past every bound, on every command's numeric options
  local numeric = {
    { "report --models pythia-70m --b %s", "report.b" },
    { "report --models pythia-70m --s %s", "report.s" },
    { "report --models pythia-70m --t %s", "report.t" },
    { "decode pythia-70m --context %s", "decode.context" },
    { "decode pythia-70m --context 64 --batch %s", "decode.batch" },
    { "decode pythia-70m --context 64 --t %s", "decode.t" },
    { "decode pythia-70m --context 64 --weight-dtype int4 --group %s", "decode.group" },
    { "train pythia-70m --global-batch 8 --nodes %s", "training.nodes" },
    { "train pythia-70m --global-batch %s", "training.global_batch" },
    { "train pythia-70m --global-batch 8 --s %s", "training.s" },
    { "gemm %s 64 64", "gemm.m" },
    { "gemm 64 %s 64", "gemm.n" },
    { "gemm 64 64 %s", "gemm.k" },
    { "gemm 64 64 64 --batch %s", "gemm.batch" },
    { "roofline --flops %s --bytes 1e9", "roofline.flops" },
    { "roofline --flops 1e12 --bytes %s", "roofline.bytes" },
  }
  local bad = {
    { "zero", "0" }, { "minus one", "-1" }, { "a fraction", "1.5" }, { "NaN", "nan" }, { "infinity", "inf" },
    { "2^63-1", "9223372036854775807" }, { "1e308", "1e308" }, { "hexadecimal", "0x10" }, { "empty", "''" },
    { "text", "many" },
  }
  for _, o in ipairs(numeric) do
    for _, b in ipairs(bad) do
      -- valid numbers spelled otherwise (0x10; a roofline's 1.5 FLOP or 1e308 bytes) are not bad
      local number_option = o[2]:find("roofline") ~= nil
      local valid = b[2] == "0x10" or number_option and (b[2] == "1.5" or b[2] == "1e308" or b[2] == "9223372036854775807")
      if not valid then
        -- the message names the option: its last component (".b" in report.b and report.b*s)
        local last = o[2]:match("[^.]+$")
        add("wrap", format("%s %s", o[2], b[1]), { cmd = format(o[1], b[2]), err = {}, err_any = { "." .. last, "*" .. last } })
      end
    end
  end
  for _, c in ipairs {
    { "shard index past 2^31", "sweep s.lua --shard 1/9223372036854775807", "sweep.shard.n" },
    { "shard negative", "sweep s.lua --shard -1/2", "sweep.shard" },
    { "shard equal", "sweep s.lua --shard 2/2", "sweep.shard" },
    { "shard text", "sweep s.lua --shard a/b", "sweep.shard" },
    { "shard 0/0", "sweep s.lua --shard 0/0", "sweep.shard" },
  } do
    add("wrap", c[1], { files = { ["s.lua"] = "return { base = 'pythia-70m', vary = { hidden_size = { 512, 1024 } } }" },
      cmd = c[2], err = c[3] })
  end
  add("wrap", "a grid of 2^60 rows", { files = { ["s.lua"] = [[
local l = {} for i = 1, 1024 do l[i] = 64 * i end
return { base = 'pythia-70m', vary = { hidden_size = l, intermediate_size = l, vocab_size = l, num_hidden_layers = l,
  max_position_embeddings = l, head_dim = l } }]] }, cmd = "sweep s.lua", err = "2^53" })
  add("wrap", "b*s past 2^31", { cmd = "report --models pythia-70m --b 65536 --s 65536 --allow-long-context",
    err = "b*s" })
  add("wrap", "global_batch*s past 2^53", { cmd = "train pythia-70m --global-batch 4294967296 --s 4194304",
    err = "training" })
  add("wrap", "gemm m*n past 2^53", { cmd = "gemm 2147483647 2147483647 64", err = "m*n" })
  add("wrap", "decode batch 2^40", { cmd = "decode llama-2-7b --context 8 --batch 1099511627776", err = "decode" })
  -- thread blocks of a decode attention kernel past 2^53 (batch x KV heads), and the activations' integer products
  add("wrap", "decode no_split batch 2^50", { cmd = "decode llama-2-7b --context 8 --batch 1125899906842624 "
    .. "--decode-attention no_split", err = "decode.context*batch" })
  add("wrap", "decode attention not one of its kernels", { cmd = "decode pythia-70m --decode-attention fa3",
    err = "--decode-attention" })
  add("wrap", "hw unsplit reduction bound negative", { files = { ["x.lua"] = 'return { base = "h100_sxm5", name = "x", '
    .. 'gemm = { dtype_unsplit_reduce = { bf16 = { m = -1, n = 1 } } } }' }, cmd = "hw x.lua",
    err = { "x.lua", "dtype_unsplit_reduce.bf16.m" } })
  add("wrap", "parameters of a huge config", { files = { ["config.json"] = llama { hidden_size = 16777216,
    num_attention_heads = 16384, num_key_value_heads = 16384, num_hidden_layers = 16777216, intermediate_size = 16777216 } },
    cmd = "models config.json", err = "2^53 parameters" })
  add("wrap", "active never above total (control)", { cmd = "models", ok = "mixtral-8x7b" })
  -- a fused attention kernel among the slowest ops (its loss has no GEMM tile: once an internal error)
  add("wrap", "report with flash attention on a small head dim", { cmd = "report --attention flash --models pythia-14m",
    ok = "softmax exponentials on the SFUs" })
  -- the nearby-shape search at t = 2 once tried a 63-head shape and raised on it
  add("wrap", "report at t = 2 of a model whose nearby shapes include odd head counts",
    { cmd = "report --models llama-2-7b --t 2", ok = "llama-2-7b" })
  add("wrap", "a subcommand's help", { cmd = "plot roofline --help", ok = "Usage: tilewave plot roofline" })
  -- a check file aiming --update-baseline at a file that is not a baseline
  add("wrap", "check --update-baseline over a file that is not a baseline", { files = { ["c.lua"] =
    'return { name = "c", models = { "pythia-70m" }, expect = { baseline = "victim.json" } }', ["victim.json"] = "keep me" },
    cmd = "check --update-baseline c.lua", err = { "expect.baseline", "not a tilewave baseline" },
    after = function(dir, read) return read(dir .. "/victim.json") == "keep me", "victim.json was overwritten" end })
  -- a measurement folder's rows, checked before they are priced (tilewave.explore.measured_csv)
  local GEMM_H = "gpu,set,label,m,n,k,batch,dtype,layout,time_s\n"
  add("wrap", "calibrate: a short gemm.csv row", { files = { ["gemm.csv"] = GEMM_H .. "H100,peak,sq,4096,4096\n" },
    cmd = "calibrate .", err = { "gemm.csv row 2", "batch", "a short row" } })
  add("wrap", "calibrate: a zero time (once inf%)", { files = { ["gemm.csv"] = GEMM_H .. "H100,peak,sq,64,64,64,1,bf16,nn,0\n" },
    cmd = "calibrate . --rows", err = { "gemm.csv row 2", "time_s", "got '0'" } })
  add("wrap", "calibrate: an unknown model in decode.csv", { files = { ["decode.csv"] =
    "gpu,id,batch,context,timing,step_s\nH100,nosuch,1,512,graph,0.008\n" }, cmd = "calibrate .",
    err = { "decode.csv row 2", "nosuch" } })
  add("wrap", "calibrate: a fit over a folder with a bad layers.csv row stops before fitting",
    { files = { ["gemm.csv"] = GEMM_H .. "H100,peak,sq,4096,4096,4096,1,bf16,nn,0.00018\n",
                ["layers.csv"] = "gpu,id,b,s,attention,timing,time_s\nH100,pythia-70m,4,2048,flash,graph,-1\n" },
      cmd = "calibrate . --base h100_sxm5 --out fit.lua", err = { "layers.csv row 2", "time_s" },
      after = function(dir) return io.open(dir .. "/fit.lua") == nil, "fit.lua was written" end })
  -- issue 66: a measurement folder's files are opened only when they are regular files within the
  -- size limit (a named pipe hung calibrate; /dev/zero read 8 GiB), and --out never replaces one
  local ROW = GEMM_H .. "H100,peak,sq,4096,4096,4096,1,bf16,nn,0.00018\n"
  for _, sp in ipairs {
    { "a named pipe", "mkfifo %s", "named pipe" }, { "a link to /dev/zero", "ln -s /dev/zero %s", "char device" },
    { "a directory", "mkdir %s", "directory" }, { "a 20 MiB file", "truncate -s 20M %s", "above the 16 MiB" },
  } do
    add("special", "calibrate: device.txt is " .. sp[1], { files = { ["gemm.csv"] = ROW }, setup = sp[2]:format("device.txt"),
      cmd = "calibrate . --base h100_sxm5 --rounds 1 --out fit.lua", err = { "device.txt", sp[3] } })
    add("special", "calibrate: decode.csv is " .. sp[1], { files = { ["gemm.csv"] = ROW }, setup = sp[2]:format("decode.csv"),
      cmd = "calibrate .", err = { "decode.csv", sp[3] } })
  end
  add("write", "calibrate --out onto the folder's own device.txt, --force", { files = { ["gemm.csv"] = ROW,
    ["device.txt"] = "name NVIDIA H100 sms 132 \n" }, cmd = "calibrate . --base h100_sxm5 --rounds 1 --out device.txt --force",
    err = { "calibrate.out", "device.txt", "may not replace" },
    after = function(dir, read) return read(dir .. "/device.txt") == "name NVIDIA H100 sms 132 \n", "device.txt changed" end })
  add("wrap", "an output length past 2^31-1 tokens", { cmd = "serve llama-3.1-8b --offline --requests 10 --isl 128 --osl 2147483648",
    err = { "serve.workload.osl", "2^31-1" } })

  -- write, accepted, message, options: the second part
  dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or ".") .. "/catalogue_io.lua")(add, shared, json, llama)
  -- round 3 (issue 51): serve, the sizing search, speculative decoding, messages, sweep budgets
  dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or ".") .. "/catalogue_serve.lua")(add)
  return cases
end

return M
