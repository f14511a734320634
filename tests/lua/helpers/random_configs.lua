-- Random model configs and workloads for the estimate equivalence fixture
-- (tests/fixtures/estimate_equivalence): every family's presets with random vocabulary,
-- depth, MLP width and heads, under random workloads, devices, dtypes and engines.
-- A fixed 63-bit LCG (the one of scripts/bench.lua), so the same seed gives the same list.
local models = require "tilewave.data.models"
local hw = require "tilewave.data.hw"

local M = {}

local PRESETS = { "llama-2-7b", "llama-3-8b", "llama-3.2-1b", "mistral-7b", "mixtral-8x7b", "pythia-1b",
                  "gpt-neox-20b", "gpt3-1.3b", "modernbert-base", "modernbert-large", "phi-3-mini", "qwen2.5-7b",
                  "qwen3-8b", "gemma-2-9b", "deepseek-v3", "geniac-12b" }
local HW = { "h100_sxm5", "a100_sxm4_80gb", "h200_sxm", "l4", "mi300x", "v100_sxm2", "rtx4090", "b200" }
local DTYPES = { "bf16", "bf16", "fp16", "fp8", "fp32" }
local ENGINES = { "compiled", "eager", "fused", "hf", "ideal", "vllm", "sglang", "trtllm" }
local HEADS = { 8, 12, 16, 20, 24, 32, 40, 48, 64 }

local function divisors(n)
  local out = {}
  for d = 1, n do if n % d == 0 then out[#out + 1] = d end end
  return out
end

--- `n` cases from `seed`: `{ { config (raw table for models.define), hw, opts }, ... }`.
function M.cases(seed, n)
  local state = seed
  local function rnd(k)
    state = (state * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
    return (state >> 33) % k
  end
  local function pick(list) return list[rnd(#list) + 1] end
  local specs = {}
  for _, id in ipairs(HW) do specs[id] = hw.load(id) end
  local bases = {}
  for i, id in ipairs(PRESETS) do bases[i] = models.resolve(id) end
  local out = {}
  for i = 1, n do
    local base = bases[rnd(#bases) + 1]
    local c = {}
    for k, v in pairs(base) do c[k] = v end
    c.id, c.name = nil, nil
    c.vocab_size = 1000 + rnd(262144)
    c.num_hidden_layers = (base.first_k_dense_replace or 0) + 1 + rnd(2 * base.num_hidden_layers)
    if rnd(2) == 0 then c.intermediate_size = 64 * (1 + rnd(base.intermediate_size // 16)) + rnd(3) * rnd(64) end
    local a = c.num_attention_heads
    if rnd(3) == 0 and base.family ~= "deepseek" then
      -- new heads; the key/value heads a divisor of them; hidden size a multiple of them unless
      -- the family states head_dim (then only the heads change)
      a = pick(HEADS)
      c.num_attention_heads = a
      local kvs = divisors(a)
      c.num_key_value_heads = kvs[rnd(#kvs) + 1]
      local explicit = base.head_dim ~= base.hidden_size // base.num_attention_heads
      if not explicit then
        c.hidden_size = a * (32 + 8 * rnd(24))
        c.head_dim = nil
      end
    end
    local kv = c.num_key_value_heads or a
    local ts = {}
    for _, t in ipairs(divisors(a)) do
      if t <= 8 and (kv % t == 0 or t % kv == 0) then ts[#ts + 1] = t end
    end
    local dev = pick(HW)
    local dts = {}
    for _, d in ipairs(DTYPES) do if specs[dev].peak_flops[d] then dts[#dts + 1] = d end end
    local opts = { b = 1 + rnd(16), s = 1 + rnd(8192), t = pick(ts), dtype = pick(dts),
                   attention = rnd(2) == 0 and "flash" or "standard", engine = pick(ENGINES), detail = false }
    out[i] = { config = c, hw = dev, opts = opts }
  end
  return out
end

--- A case's estimate: its time_s (s) and every total as one line of text (time_s flops
-- model_flops kernels layer_s, %.17g), or nil and "error <message>".
function M.totals(tw, case)
  local ok, r = pcall(function()
    return tw.transformer.estimate(models.define(case.config, "fixture"), case.hw, case.opts)
  end)
  if not ok then return nil, "error " .. tostring(r) end
  return r.time_s, string.format("%.17g %.17g %.17g %d %.17g", r.time_s, r.flops, r.model_flops, r.kernels, r.layer_s)
end

--- FNV-1a (64-bit) of the strings `list[i]` for i in [lo, hi], each followed by a newline, as
-- 16 hex digits (Fowler, Noll and Vo; the offset basis and prime of the 64-bit variant).
function M.fnv(list, lo, hi)
  local h = -3750763034362895579 -- 0xcbf29ce484222325
  local byte = string.byte
  for i = lo, hi do
    local s = list[i] .. "\n"
    for j = 1, #s do h = (h ~ byte(s, j)) * 1099511628211 end
  end
  return string.format("%016x", h)
end

return M
