--- tilewave.data.hw_arch: architecture files (`hw/arch/<name>.lua`) - the GEMM kernel parameters
-- a device's architecture gives it (tilewave.data.hw.gemm_params). Pure data, loaded in the
-- unit-constant sandbox like a device file; `base` chains (at most 4) apply field by field.
-- Expected failures return `nil, msg` naming the file and the field.
local check = require "tilewave.util.check"
local sandbox = require "tilewave.util.sandbox"
local schema = require "tilewave.data.hw_gemm_schema"
local tables = require "tilewave.util.tables"

local M = {}

local type, pairs, pcall, error, format = type, pairs, pcall, error, string.format
local fields, validate_gemm = schema.fields, schema.validate_gemm

local arch_cache = {}

-- An architecture file may name a `base` architecture and state only what differs: its `gemm`
-- fields replace the base's one by one (a table field whole), its sources likewise, and
-- `sources.base` says where the rest comes from.
function M.deep(t)
  if type(t) ~= "table" then return t end
  local o = {}
  for k, v in pairs(t) do o[k] = M.deep(v) end
  return o
end

local function load_arch(dir, name, depth)
  local key = dir .. "\0" .. name
  if arch_cache[key] then return arch_cache[key] end
  local path = format("%s/arch/%s.lua", dir, name)
  local data, err = sandbox.load(path)
  if not data then return nil, err end
  local ok, verr = pcall(function()
    fields(data, { name = true, gemm = true, notes = true, base = true }, "arch")
    check.string(data.name, "arch.name")
    if data.base ~= nil then
      check.string(data.base, "arch.base")
      if (depth or 0) > 4 or data.base == name then check.fail("arch.base", "expected a chain of at most 4 bases", data.base) end
      local b, berr = load_arch(dir, data.base, (depth or 0) + 1)
      if not b then error(format("arch.base: %s", berr), 0) end
      local g = M.deep(b.gemm)
      local own = data.gemm or {}
      check.table(own, "arch.gemm")
      for k, v in pairs(own) do
        if k == "sources" then
          check.table(v, "arch.gemm.sources")
          tables.copy(v, g.sources)
        else
          g[k] = v
        end
      end
      g.sources.base = format("hw/arch/%s.lua: every figure not set in hw/arch/%s.lua", data.base, name)
      data.gemm = g
    end
    validate_gemm(data.gemm, "arch.gemm", true)
    if type(data.gemm.sources) ~= "table" then check.fail("arch.gemm.sources", "expected table", data.gemm.sources) end
  end)
  if not ok then return nil, format("%s: %s", path, verr) end
  arch_cache[key] = data
  return data
end

--- The data of architecture `name` under the hw directory `dir`, its base applied and checked
-- (cached per directory and name), or `nil, msg`.
M.load = load_arch

return M
