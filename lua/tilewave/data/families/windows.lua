--- Sliding-window layouts shared by the families that alternate sliding-window and full
-- attention layer by layer (Gemma 2, Gemma 3, gpt-oss): Hugging Face's `layer_types` list
-- ("sliding_attention" / "full_attention", one per layer), the count of sliding layers, and
-- the KV-cache spans (tilewave.data.models.kv_windows).
local check = require "tilewave.util.check"
local layers = require "tilewave.ops.layers"

local M = {}

local TYPES = { sliding_attention = true, full_attention = true }

--- Check `c.layer_types`, when present: one known type per layer.
-- @raise `<path>.layer_types: expected one entry per layer (L), got ...`;
--   `<path>.layer_types[i]: expected sliding_attention or full_attention, got ...`
function M.validate(c, path)
  local lt = c.layer_types
  if lt == nil then return end
  if #lt ~= c.num_hidden_layers then
    check.fail(check.field(path, "layer_types"), string.format("expected one entry per layer (%d)", c.num_hidden_layers),
      #lt .. " entries")
  end
  for i, t in ipairs(lt) do
    if not TYPES[t] then
      check.fail(check.field(path, "layer_types") .. "[" .. i .. "]", "expected sliding_attention or full_attention", t)
    end
  end
end

--- Layers with a sliding window: none without `sliding_window`; those `layer_types` marks;
-- else `default(c)`.
function M.sliding_layers(c, default)
  if not c.sliding_window then return 0 end
  if c.layer_types then
    local n = 0
    for _, t in ipairs(c.layer_types) do if t == "sliding_attention" then n = n + 1 end end
    return n
  end
  return default(c)
end

--- KV spans with `n_local` sliding layers keeping sliding_window tokens and the rest all.
function M.kv_windows(c, n_local)
  local spans = { { count = c.num_hidden_layers - n_local } }
  if n_local > 0 then spans[2] = { count = n_local, window = c.sliding_window } end
  return spans
end

--- Append to `ops` the attention blocks of a pass with `n_local` sliding-window layers: the
-- full layers' (every key) and the sliding layers' (at most sliding_window keys, suffix "_local"),
-- rotary on the whole head (tilewave.ops.layers.attention); returns ops.
function M.attention(ops, c, w, n_local)
  local L = c.num_hidden_layers
  if L - n_local > 0 then layers.attention(ops, c, w, { count = L - n_local, s_kv = w.s, rotary_frac = 1 }) end
  if n_local > 0 then
    layers.attention(ops, c, w, { count = n_local, s_kv = math.min(w.s, c.sliding_window), rotary_frac = 1,
                                  suffix = "_local" })
  end
  return ops
end

return M
