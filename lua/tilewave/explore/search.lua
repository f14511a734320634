--- tilewave.explore.search: nearby model shapes, ranked by predicted throughput.
--
--   tw.search.nearby("pythia-2.8b", "h100_sxm5", { b = 4, s = 2048, tolerance = 0.05 })
--
-- Candidates keep the layer count and family and vary, around the config:
--   hidden_size          h + 64*i, i = -steps .. steps
--   num_attention_heads  every a' dividing h' with a/2 <= a' <= 2a and head dim in
--                        [min(64, hd), max(128, hd)] (hd the config's; the range of
--                        head dims in common use; `head_dim = {lo, hi}` overrides)
--                        (kv heads kept for GQA, = a' for MHA), and a multiple of t
--                        (engines split whole heads over the tensor-parallel ranks)
--   intermediate_size    the config's I/h ratio at h' (rounded to 64); gated MLPs
--                        (families with `glu`) also try +-64 and +-128 around it
--   vocab_size           v, and v padded up to multiples of 64 and 128 (never smaller)
-- and are kept when their total parameter count is within `tolerance`
-- (relative) of the config's. Ranking is by predicted tokens/s times
-- parameter count (tilewave.transformer.estimate), i.e. forward throughput at
-- equal model size: a shape 3% smaller does not win by being smaller. Only shapes predicted
-- faster than the config are listed - more tokens/s and more tokens/s per parameter - so an
-- answer is never predicted slower than what it replaces; an empty list says none is.
-- @module tw.search
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local models = require "tilewave.data.models"
local transformer = require "tilewave.cost.forward"
local tables = require "tilewave.util.tables"

local M = {}

local ipairs, pairs, abs, sort = ipairs, pairs, math.abs, table.sort

local OPTIONS = { b = true, s = true, t = true, dtype = true, attention = true, engine = true, tolerance = true,
                  steps = true, limit = true, head_dim = true }

local function round64(x) return 64 * math.max(1, math.floor(x / 64 + 0.5)) end

local function intermediates(c, h2, glu)
  local I, h = c.intermediate_size, c.hidden_size
  if not glu then return { h2 == h and I or round64(I * h2 / h) } end
  local set, out = {}, {}
  local centre = h2 == h and I or round64(I * h2 / h)
  for _, d in ipairs { 0, -64, 64, -128, 128 } do
    local v = centre + d
    if v > 0 and not set[v] then set[v] = true; out[#out + 1] = v end
  end
  if h2 == h and not set[I] then out[#out + 1] = I end
  return out
end

local function vocabs(v)
  local out, set = { v }, { [v] = true }
  for _, m in ipairs { 64, 128 } do
    local p = m * ((v + m - 1) // m)
    if not set[p] then set[p] = true; out[#out + 1] = p end
  end
  return out
end

--- Nearby shapes of `model` on `device`.
-- @param model a preset id, a config.json path or a folder holding one, or a config table
--   (tilewave.data.models)
-- @param device a device id (hw/<id>.lua), a spec path or a spec table (tilewave.data.hw)
-- @tparam table opts workload `b`, `s`, `t`, `dtype`, `attention` (as
--   tilewave.transformer.estimate); `tolerance` (relative parameter-count
--   window, default 0.05), `steps` (hidden-size steps of 64 each way,
--   default 4), `limit` (rows returned, default 10), `head_dim` ({lo, hi})
-- @return array, best first, of the shapes predicted faster than the config (speedup > 1 and
--   size_speedup > 1; empty when none is): `{ config, changes = {field=value}, params,
--   params_ratio, tflops, tokens_per_s, time_s, speedup (tokens/s against the
--   config's), size_speedup (speedup * params_ratio, the ranking key),
--   is_base (false) }`, and the config's own row
-- @raise as tilewave.transformer.estimate; `search.nearby.<option>: ...`
function M.nearby(model, device, opts)
  -- 94 lines, one function: the candidate shapes, their pricing and the ranking key share the
  -- base's shape and options
  opts = opts or {}
  check.table(opts, "search.nearby")
  check.options(opts, OPTIONS, "search.nearby")
  local c = models.resolve(model, "search.nearby.model")
  local spec = hw.resolve(device, "search.nearby.hw")
  local tol = opts.tolerance or 0.05
  check.positive(tol, "search.nearby.tolerance")
  local steps = opts.steps or 4
  if steps ~= 0 then check.positive_int(steps, "search.nearby.steps") end
  local limit = check.positive_int(opts.limit or 10, "search.nearby.limit")
  -- totals only: the candidates' per-op rows are never read
  local w = { b = opts.b, s = opts.s, t = opts.t, dtype = opts.dtype, attention = opts.attention, engine = opts.engine,
              detail = false }
  local t = opts.t or 1
  local base_params = models.params(c).total
  local family = models.families[c.family]
  local h, a, kv = c.hidden_size, c.num_attention_heads, c.num_key_value_heads
  local gqa = kv < a
  local hd_range = opts.head_dim or { math.min(64, c.head_dim), math.max(128, c.head_dim) }
  check.table(hd_range, "search.nearby.head_dim")
  local hd_lo = check.positive_int(hd_range[1], "search.nearby.head_dim[1]")
  local hd_hi = check.positive_int(hd_range[2], "search.nearby.head_dim[2]")

  -- (hidden, heads, kv heads, head dim) shapes to try: the config's own, and every head
  -- count in [a/2, 2a] dividing h' with an allowed head dim
  local shapes = {}
  for i = -steps, steps do
    local h2 = h + 64 * i
    for a2 = math.max(1, (a + 1) // 2), 2 * a do
      local own = h2 == h and a2 == a
      local kv2 = (gqa or own) and kv or a2
      local hd2 = own and c.head_dim or h2 // a2
      if own or (h2 > 0 and h2 % a2 == 0 and hd2 >= hd_lo and hd2 <= hd_hi and a2 % t == 0 and a2 % kv2 == 0) then
        shapes[#shapes + 1] = { h2, a2, kv2, hd2 }
      end
    end
  end

  local rows, base_row = require("tilewave.util.json").array(), nil -- [] in JSON when nothing nearby is faster
  local function consider(changes)
    local cfg = tables.copy(c)
    tables.copy(changes, cfg)
    local params = family.params(cfg)
    if abs(params.total / base_params - 1) > tol then return end
    cfg = models.define(cfg)
    local r = transformer.estimate(cfg, spec, w)
    local row = { config = cfg, params = params.total, params_ratio = params.total / base_params,
                  tflops = r.tflops, tokens_per_s = r.tokens_per_s, time_s = r.time_s, changes = {} }
    for k, val in pairs(changes) do
      if c[k] ~= val and k ~= "head_dim" then row.changes[k] = val end
    end
    row.is_base = next(row.changes) == nil
    rows[#rows + 1] = row
    if row.is_base then base_row = row end
  end
  for _, sh in ipairs(shapes) do
    for _, I2 in ipairs(intermediates(c, sh[1], family.glu)) do
      for _, v2 in ipairs(vocabs(c.vocab_size)) do
        consider { hidden_size = sh[1], num_attention_heads = sh[2], num_key_value_heads = sh[3],
                   intermediate_size = I2, vocab_size = v2, head_dim = sh[4] }
      end
    end
  end
  for _, r in ipairs(rows) do
    r.speedup = r.tokens_per_s / base_row.tokens_per_s
    r.size_speedup = r.speedup * r.params_ratio
  end
  -- best first; ties broken by fewest changes, then smallest parameter change, then
  -- hidden/heads/I/v
  local function key(r)
    local n = 0
    for _ in pairs(r.changes) do n = n + 1 end
    return n
  end
  sort(rows, function(x, y)
    if x.size_speedup ~= y.size_speedup then return x.size_speedup > y.size_speedup end
    local kx, ky = key(x), key(y)
    if kx ~= ky then return kx < ky end
    local px, py = abs(x.params_ratio - 1), abs(y.params_ratio - 1)
    if px ~= py then return px < py end
    local cx, cy = x.config, y.config
    for _, f in ipairs { "hidden_size", "num_attention_heads", "intermediate_size", "vocab_size" } do
      if cx[f] ~= cy[f] then return cx[f] < cy[f] end
    end
    return false
  end)
  local out = {}
  for _, r in ipairs(rows) do
    if #out >= limit then break end
    if not r.is_base and r.speedup > 1 and r.size_speedup > 1 then out[#out + 1] = r end
  end
  return out, base_row
end

return M
