--- tilewave.data.models: model configs - presets, validation, Hugging Face configs.
--
-- One concern past 400 lines: a config from any source (a preset, a config.json, a table) to one
-- validated table, and the counts read off it (parameters, KV per token); the families and the
-- config.json field map are their own modules (data/families, data/config_json).
--
-- A config is a plain table using the Hugging Face `config.json` field names:
--   family                   "gpt_neox" | "llama" | "modernbert" | "gpt3" | "mistral" | "qwen2"
--                            (or a family a user registered)
--   hidden_size              h, positive integer
--   num_attention_heads      a, positive integer; h/a is the head dim unless head_dim is given
--   num_key_value_heads      kv (GQA), positive integer dividing a; default a
--   num_hidden_layers        L, positive integer
--   intermediate_size        FFN width I (for GeGLU/SwiGLU: the width of one of the two up GEMMs)
--   vocab_size               v, rows actually allocated (padded)
--   tie_word_embeddings      boolean
--   max_position_embeddings  positive integer (learned-position rows for gpt3)
--   head_dim                 optional positive integer; default h/a
-- plus the family's own fields (e.g. rotary_pct, global_attn_every_n_layers; mistral:
-- sliding_window, num_local_experts, num_experts_per_tok; qwen2: attention_bias)
-- and descriptive ones (id, name, source). Sizes are counts of elements.
--
-- Errors name the field: `model.num_attention_heads: expected a divisor of
-- hidden_size 2560, got 33`. Expected failures of lookups (unknown id,
-- unreadable file) return `nil, msg`.
-- @module tw.models
local check = require "tilewave.util.check"
local tables = require "tilewave.util.tables"

local M = {}

local type, pairs, ipairs, format, sort, math_type = type, pairs, ipairs, string.format, table.sort, math.type

--- Families by name; each a module of tilewave.families (families/llama.lua shows the shape).
-- FAMILY_ORDER is their load order, so `tilewave models`'s (the mission's three first): a new
-- family file joins it (docs/models.md, "Adding a family"); M.register(family) adds one at run time.
M.families = {}
local FAMILY_ORDER = { "llama", "gpt_neox", "modernbert", "gpt3", "mistral", "qwen2", "qwen3", "phi3", "gemma2", "deepseek", "qwen_moe",
                       "gpt_oss", "gemma3", "llama4" }
for _, name in ipairs(FAMILY_ORDER) do M.families[name] = require("tilewave.data.families." .. name) end

local function boolean(v, path)
  if type(v) ~= "boolean" then check.fail(path, "expected boolean", v) end
  return v
end

local VALIDATORS = {
  positive_int = check.positive_int, positive = check.positive, fraction = check.fraction,
  string = check.string, boolean = boolean, table = check.table,
}

-- Fields every family has.
local COMMON = {
  family = "string", hidden_size = "positive_int", num_attention_heads = "positive_int",
  num_key_value_heads = "positive_int", num_hidden_layers = "positive_int",
  intermediate_size = "positive_int", vocab_size = "positive_int", tie_word_embeddings = "boolean",
  max_position_embeddings = "positive_int", head_dim = "positive_int",
  id = "string", name = "string", source = "string", notes = "string",
  -- the checkpoint's weight format (tilewave.data.quant), the default of every command that prices
  -- the model; from config.json's quantization_config (data/config_json.lua) or a preset's source
  weight_dtype = "string", weight_group = "positive_int", weight_dtype_source = "string",
  -- the format the family's published checkpoints ship in (gpt-oss: mxfp4), offered first when a
  -- configuration does not fit (tilewave.explore.memory_fit) and named when a config.json lacks it
  native_weight_dtype = "string",
}
local REQUIRED = { "hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size", "vocab_size" }

-- Sizes above this are rejected as absurd (products of them must stay exact in doubles):
-- 2^24 = 16,777,216, 1.6x the longest context published (Llama 4 Scout's 10M tokens, Meta,
-- "The Llama 4 herd", 2025-04-05) and 300x the widest hidden size in model_configs.md.
local MAX_DIM = 2 ^ 24
--- The largest size field a config may have (2^24, an integer).
M.MAX_DIM = 16777216
--- Most parameters a config may have: 2^53 (9.0e15, ~5000x the largest published model), so
-- that every count is exact in a double and no integer product wraps around.
M.MAX_PARAMS = 2 ^ 53

--- Register a user family (a table like the modules in tilewave.families):
-- `name`, `fields` (extra field -> validator name), `defaults`, `presets`,
-- `params(cfg)`, `ops(cfg, workload)`.
function M.register(family)
  check.table(family, "family")
  check.string(family.name, "family.name")
  for _, k in ipairs { "params", "ops" } do
    if type(family[k]) ~= "function" then check.fail("family." .. k, "expected function", family[k]) end
  end
  family.fields = family.fields or {}
  family.defaults = family.defaults or {}
  family.presets = family.presets or {}
  M.families[family.name] = family
  return family
end

local validated = setmetatable({}, { __mode = "k" })

-- Refuse a config of more than M.MAX_PARAMS parameters, naming its largest dimension. A cheap
-- bound first (most configs are far below); past it, the family's count in floating point,
-- which cannot wrap around.
local SIZE_FIELDS = { "hidden_size", "intermediate_size", "num_hidden_layers", "vocab_size", "moe_intermediate_size",
                      "num_local_experts", "n_routed_experts", "num_experts", "num_attention_heads", "head_dim" }
local function check_size(c, fam, path)
  local h, I, L, v = c.hidden_size, c.intermediate_size, c.num_hidden_layers, c.vocab_size
  local E = c.num_local_experts or c.n_routed_experts or c.num_experts or 1
  local wide = math.max(h, I, c.moe_intermediate_size or 0, c.num_attention_heads * c.head_dim)
  if (wide + 0.0) * wide * L * (E + 2) * 8 + 4.0 * v * h < 2 ^ 50 then return end
  local f = {}
  for k, x in pairs(c) do f[k] = math_type(x) == "integer" and x + 0.0 or x end
  local ok, p = pcall(fam.params, f)
  local total = ok and p.total or math.huge
  if total <= M.MAX_PARAMS then return end
  local big, field = 0, "hidden_size"
  for _, k in ipairs(SIZE_FIELDS) do
    if c[k] and c[k] > big then big, field = c[k], k end
  end
  check.fail(check.field(path, field), format("expected a config under 2^53 parameters (this one has %.3g)", total),
    c[field])
end

--- Validate a user's config and fill defaults; returns a new table (the
-- argument is not modified). `path` prefixes messages (default "model").
-- @raise `<path>.<field>: <expectation>, got <value>`
function M.define(cfg, path)
  -- 62 lines, one function: a config validated field by field, in the order its errors are raised
  path = path or "model"
  check.table(cfg, path)
  local fam = M.families[cfg.family]
  if not fam then
    local names = {}
    for k in pairs(M.families) do names[k] = true end
    check.fail(check.field(path, "family"), "expected one of " .. check.keys(names), cfg.family)
  end
  local c = tables.copy(fam.defaults)
  tables.copy(cfg, c)
  for k, v in pairs(c) do
    local kind = COMMON[k] or fam.fields[k]
    if not kind then
      local known = {}
      for f in pairs(COMMON) do known[f] = true end
      for f in pairs(fam.fields) do known[f] = true end
      error(format("%s: unknown field '%s'%s for family %s (known: %s)", path, tostring(k),
        check.did_you_mean(k, known), fam.name, check.keys(known)), 0)
    end
    -- the common valid values pass without building the field's path (a search defines
    -- thousands of configs); anything else goes through the validator, which names it
    if not (kind == "positive_int" and math_type(v) == "integer" and v >= 1 or kind == "string" and type(v) == "string"
            or kind == "boolean" and type(v) == "boolean") then
      VALIDATORS[kind](v, check.field(path, k))
    end
    if kind == "positive_int" and v > MAX_DIM then
      check.fail(check.field(path, k), format("expected at most %d", MAX_DIM), v)
    end
  end
  for _, k in ipairs(REQUIRED) do
    if c[k] == nil then check.fail(check.field(path, k), "expected positive integer", nil) end
    if c[k] > MAX_DIM then check.fail(check.field(path, k), format("expected at most %d", MAX_DIM), c[k]) end
  end
  local h, a = c.hidden_size, c.num_attention_heads
  if c.head_dim == nil then
    if h % a ~= 0 then
      check.fail(check.field(path, "num_attention_heads"), format("expected a divisor of hidden_size %d", h), a)
    end
    c.head_dim = h // a
  end
  -- attention wider than 8x the hidden state is no published model (Gemma 7B: 16 x 256 =
  -- 4096 for h = 3072, 1.33x; model_configs.md): a head_dim beyond it is a typo
  if c.head_dim * a > 8 * h then
    check.fail(check.field(path, "head_dim"), format("expected num_attention_heads * head_dim at most 8 * hidden_size "
      .. "= %d", 8 * h), c.head_dim)
  end
  c.num_key_value_heads = c.num_key_value_heads or a
  if a % c.num_key_value_heads ~= 0 or c.num_key_value_heads > a then
    check.fail(check.field(path, "num_key_value_heads"), format("expected a divisor of num_attention_heads %d", a),
      c.num_key_value_heads)
  end
  if c.tie_word_embeddings == nil then c.tie_word_embeddings = false end
  if c.weight_dtype ~= nil or c.weight_group ~= nil then
    require("tilewave.data.quant").format(c.weight_dtype or "bf16", c.weight_group, check.field(path, "weight_dtype"))
  end
  if fam.validate then fam.validate(c, path) end
  check_size(c, fam, path)
  c.name = c.name or c.id or fam.name
  validated[c] = true
  return c
end

--- Check one field value `v` of family `family` as define() would (its validator and bound),
-- without building a config: cheap enough for every value of a 10^6-long sweep list.
-- @raise `<path>: <expectation>, got <value>`; `<path>: unknown field ...`
function M.check_field(family, k, v, path)
  local fam = M.families[family]
  local kind = COMMON[k] or (fam and fam.fields[k])
  if not kind then
    local known = {}
    for f in pairs(COMMON) do known[f] = true end
    for f in pairs(fam and fam.fields or {}) do known[f] = true end
    error(format("%s: unknown field '%s'%s for family %s (known: %s)", path, tostring(k),
      check.did_you_mean(k, known), tostring(family), check.keys(known)), 0)
  end
  VALIDATORS[kind](v, path)
  if kind == "positive_int" and v > MAX_DIM then check.fail(path, format("expected at most %d", MAX_DIM), v) end
  return v
end

--- A validated config from an id, a config table, or an already validated config.
-- @raise as define(); `<path>: unknown model '<id>' (known: ...)`
function M.resolve(v, path)
  path = path or "model"
  if type(v) == "string" then
    local c, err = M.load(v)
    -- named by the option that gave it ("decode.model: unknown model ..."), not "model:"
    if not c then error((tostring(err):gsub("^model: ", path .. ": ")), 0) end
    return c
  end
  if validated[v] then return v end
  return M.define(v, path)
end

--- Whether `id` names a preset of some family.
function M.is_preset(id)
  for _, fam in pairs(M.families) do if fam.presets[id] then return true end end
  return false
end

--- Ids of the presets, sorted; of one family if `family` is given.
function M.list(family)
  local ids = {}
  for name, fam in pairs(M.families) do
    if family == nil or family == name then
      for id in pairs(fam.presets) do ids[#ids + 1] = id end
    end
  end
  sort(ids)
  return ids
end

local cache = {}

--- The config of a preset id (e.g. "pythia-2.8b"): a fresh validated table,
-- or `nil, msg` for an unknown id.
function M.load(id)
  if type(id) ~= "string" then return nil, "model: expected model id, got " .. check.describe(id) end
  -- a Hugging Face config.json path works wherever an id does
  if id:match("%.json$") then return M.from_hf_config(id) end
  -- a folder holding a config.json, as Hugging Face snapshots are laid out
  if not M.is_preset(id) and require("lfs").attributes(id, "mode") == "directory" then
    local f = id:gsub("/+$", "") .. "/config.json"
    if require("lfs").attributes(f, "mode") == nil then
      return nil, format("model: %s: a folder without a config.json", id)
    end
    return M.from_hf_config(f)
  end
  -- preset ids are lower case; a user's capitals ("llama-3.1-8B", as Hugging Face repos spell them)
  -- name the same preset, as device ids do
  if not M.is_preset(id) and M.is_preset(id:lower()) then id = id:lower() end
  if cache[id] then
    local c = tables.copy(cache[id])
    validated[c] = true
    return c
  end
  for name, fam in pairs(M.families) do
    local p = fam.presets[id]
    if p then
      local cfg = { family = name, id = id }
      tables.copy(p, cfg)
      local c = M.define(cfg, "model " .. id)
      cache[id] = c
      return M.load(id)
    end
  end
  -- a path (a "/" or a leading "." or "~") that is not there: say so, not "unknown model"
  if id:find("/", 1, true) or id:match("^[.~]") then
    return nil, format("model: %s: no such file or directory (a preset id, a config.json or a folder holding one)", id)
  end
  local known = {}
  for _, k in ipairs(M.list()) do known[k] = true end
  return nil, format("model: unknown model '%s'%s (known: %s)", id, check.did_you_mean(id, known),
    table.concat(M.list(), ", "))
end

-- Fields that mean a mixture of experts in some model type (an error on a dense type).
local EXPERT_FIELDS = { num_local_experts = true, num_experts_per_tok = true, n_routed_experts = true,
                        num_experts = true, moe_intermediate_size = true, n_shared_experts = true,
                        shared_expert_intermediate_size = true }

--- Read a Hugging Face config.json (lua-cjson). The `model_type` picks the family
-- (a family lists the types it reads in `hf_model_type` or `hf_model_types`, with the
-- fields each type may carry): llama, mistral, qwen2, mixtral (the llama family),
-- gpt_neox, modernbert. Common fields and the type's fields are kept, others ignored;
-- a mixture-of-experts field on a dense type is an error, never silence.
-- @return config, or `nil, msg` (unreadable file, bad JSON, unknown model_type)
-- @raise as define() for present but invalid fields
function M.from_hf_config(path)
  local cjson = require "cjson"
  if type(path) ~= "string" then
    return nil, "from_hf_config: expected the path of a config.json, got " .. check.describe(path)
  end
  local text, rerr = require("tilewave.util.sandbox").read_file(path) -- a regular file, size capped
  if not text then return nil, rerr end
  local cj = require "tilewave.data.config_json"
  local ok, j = pcall(cjson.decode, text)
  if not ok or type(j) ~= "table" then return nil, format("%s: not a JSON object (%s)", path, tostring(j)) end
  j = cj.integers(j)
  if j[1] ~= nil then return nil, format("%s: not a JSON object (an array)", path) end
  local family, kind
  local known = {}
  for name, fam in pairs(M.families) do
    local types = fam.hf_model_types or (fam.hf_model_type and { [fam.hf_model_type] = { fields = fam.fields } }) or {}
    for t, spec in pairs(types) do
      known[t] = true
      if t == j.model_type then family, kind = name, spec end
    end
  end
  if not family then
    return nil, format("%s: model_type: expected one of %s, got %s", path, check.keys(known),
      check.describe(j.model_type))
  end
  local fam = M.families[family]
  local qdt = cj.weight_dtype(path, j.quantization_config)
  -- a multimodal type holds its language model's fields in a nested object (Gemma 3: text_config)
  if kind.nested then
    local inner = j[kind.nested]
    if type(inner) ~= "table" or inner[1] ~= nil then
      return nil, format("%s: %s: expected an object (the text model's config), got %s", path, kind.nested,
        check.describe(inner))
    end
    j = inner
  end
  -- fields read elsewhere from config.json that tilewave does not model still must be sane
  cj.check_rope(path, "rope_scaling", j.rope_scaling)
  cj.check_rope(path, "rope_parameters", j.rope_parameters)
  local cfg = { family = family }
  for k, v in pairs(j) do
    if EXPERT_FIELDS[k] and v ~= cjson.null and not kind.fields[k] then
      error(format("%s: %s: a mixture-of-experts field on model_type '%s', which tilewave reads as dense",
        path, k, j.model_type), 0)
    end
    -- a family field is kept unless it belongs to other model types only (hf_type_fields)
    local keep = COMMON[k] or (fam.fields[k] and (kind.fields[k] or not (fam.hf_type_fields or {})[k]))
    if keep and v ~= cjson.null and k ~= "family" then cfg[k] = v end
  end
  tables.copy(kind.implies or {}, cfg)
  if qdt then cfg.weight_dtype, cfg.weight_group, cfg.weight_dtype_source = qdt.name, qdt.group, qdt.source end
  local native = (fam.defaults or {}).native_weight_dtype
  if not qdt and native then
    -- a checkpoint without quantization_config is read in 16 bits, and says that the family's own
    -- checkpoints are not (a dequantized copy, or a config.json stripped of the field)
    cfg.weight_dtype, cfg.weight_dtype_source = "bf16", format("config.json has no quantization_config: read as bf16; "
      .. "the published %s checkpoints ship %s (--weight-dtype %s)", family, native, native)
  end
  -- Qwen2 lists a window it does not use unless use_sliding_window is true
  if kind.fields.use_sliding_window and j.use_sliding_window ~= true then cfg.sliding_window = nil end
  cfg.use_sliding_window = nil
  cfg.id = cfg.id or (path:match("([^/]+)/config%.json$") or path:match("([^/]+)%.json$"))
  return M.define(cfg, path .. ":")
end

--- The KV cache of config `c` per rank at tensor-parallel size t: `heads` x `head_dim`,
-- K and V each (2 * heads * head_dim elements per token per layer). Default: the KV
-- heads split over t (replicated below one per rank); a family may define
-- `kv_cache(c, t)` (DeepSeek's latent: kv_lora + rope elements, not split).
function M.kv_cache(c, t)
  local fam = M.families[c.family]
  if fam.kv_cache then return fam.kv_cache(c, t) end
  return { heads = -(-c.num_key_value_heads // (t or 1)), head_dim = c.head_dim }
end

--- The KV-cache spans of config `c`: `{ { count = layers, window = tokens or nil }, ... }`, the
-- layers that keep the last `window` tokens (a sliding window) and those that keep every token.
-- A family may alternate them (Gemma 2: `kv_windows`); otherwise every layer keeps
-- `sliding_window` tokens (Mistral) or all of them.
function M.kv_windows(c)
  local fam = M.families[c.family]
  if fam.kv_windows then return fam.kv_windows(c) end
  return { { count = c.num_hidden_layers, window = c.sliding_window } }
end

--- Tokens held in the KV cache of one sequence at `context` tokens, summed over the layers
-- (integer): sum of count x min(context, window). Bytes are this times 2 x KV heads x head dim x
-- bytes per element; decode attention reads as many keys.
function M.kv_layer_tokens(c, context)
  local n = 0
  for _, s in ipairs(M.kv_windows(c)) do n = n + s.count * math.min(context, s.window or context) end
  return n
end

--- The most KV tokens over the layers one sequence can hold whatever its context (every layer
-- windowed), or nil when some layer keeps every token.
function M.kv_layer_tokens_max(c)
  local n = 0
  for _, s in ipairs(M.kv_windows(c)) do
    if not s.window then return nil end
    n = n + s.count * s.window
  end
  return n
end

--- The routed experts of config `c`: E (num_local_experts, n_routed_experts or
-- num_experts, as the model type names it) and k (num_experts_per_tok); nil when dense.
function M.experts(c)
  local E = c.num_local_experts or c.n_routed_experts or c.num_experts
  if E then return E, c.num_experts_per_tok end
  return nil
end

--- Parameter counts of a model (id or config).
-- @return `{ total, non_embedding, embedding, active }` (counts of parameters; active =
--   those used per token, below total for mixture-of-experts models; what
--   "non-embedding" excludes follows each family's published convention, see
--   its params()); ModernBERT adds `mlm_head`
function M.params(model)
  local c = M.resolve(model, "params.model")
  local p = M.families[c.family].params(c)
  p.active = p.active or p.total -- dense: every parameter is active per token
  return p
end

return M
