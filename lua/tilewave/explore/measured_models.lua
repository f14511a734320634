--- tilewave.explore.measured_models: the model configs that measured rows name
-- (tilewave.explore.accuracy).
--
-- A measurement file names a model by a preset id, sometimes with a twist: a ModernBERT layer
-- measured with global attention, or a family built at a reduced depth (scripts/probe's hf set).
local models = require "tilewave.data.models"
local tables = require "tilewave.util.tables"

local M = {}
local format = string.format

--- The preset a measured row's `id` names.
-- @raise `id: expected a preset id (tilewave models), got '<id>'`
function M.preset(id)
  local c = models.load(id)
  if not c then error(format("id: expected a preset id (tilewave models), got '%s'", tostring(id)), 0) end
  return c
end

--- The measured layer ids -> model configs (a ModernBERT global layer: every layer global).
function M.layer_model(id)
  if id == "modernbert-base-global" then
    local d = tables.copy(models.load("modernbert-base"))
    d.global_attn_every_n_layers, d.id, d.name = 1, nil, "modernbert-base (all layers global)"
    return models.define(d)
  end
  return M.preset(id)
end

--- Model `id` with `layers` decoder layers (scripts/probe's hf set builds families at reduced
-- depth): the preset itself when `layers` is nil or its own depth; per-layer type lists are dropped
-- so the family derives them for the new depth.
function M.depth_model(id, layers)
  local c = M.preset(id)
  if not layers or layers == c.num_hidden_layers then return c end
  local d = tables.copy(c)
  d.num_hidden_layers, d.layer_types, d.id, d.name = layers, nil, nil, format("%s (%d layers)", id, layers)
  return models.define(d)
end

return M
