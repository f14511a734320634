--- tilewave.data.cluster: multi-GPU cluster descriptions - a node type and its links.
--
-- A cluster file `hw/clusters/<id>.lua` is pure data loaded like a hardware
-- spec (sandbox with unit constants, schema, a source per figure):
--   name            string
--   gpu             device id of hw/ (or a spec table)
--   gpus_per_node   positive integer
--   intra           { bw = byte/s per GPU one direction, latency_s = s, bus_frac }: NVLink /
--     NVSwitch / PCIe
--   inter           { bw = byte/s per GPU one direction, latency_s = s, bus_frac }: the network
--     between nodes
-- `bus_frac` (optional, in (0, 1], default 1): the bus bandwidth collectives reach over `bw`
-- (nccl-tests' busbw, which is defined so that a ring all-reduce of B bytes over n ranks takes
-- 2(n-1)/n * B / busbw); collectives are priced at bw * bus_frac (M.collective_bw).
--   nvlink_domain   positive integer, optional (default gpus_per_node): the GPUs one NVLink or
--     Infinity Fabric domain joins. A rack-scale system's domain spans nodes: a GB200 NVL72 has
--     4 GPUs a compute tray (node) and 72 in one NVLink domain through its NVLink Switch trays.
--   sources         { gpu=, gpus_per_node=, intra=, inter= } (and nvlink_domain= when set)
-- A group of ranks uses `intra` when it fits inside one NVLink domain, else `inter` (M.link).
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local tables = require "tilewave.util.tables"

local M = {}

local format = string.format

--- Directory of the cluster files (hw/clusters).
function M.dir() return hw.dir .. "/clusters" end

local validated = setmetatable({}, { __mode = "k" })

local FIELDS = { name = true, gpu = true, gpus_per_node = true, intra = true, inter = true, sources = true,
                 id = true, notes = true, nvlink_domain = true }

local function link(v, path)
  check.table(v, path)
  local known = { bw = true, latency_s = true, bus_frac = true }
  for k in pairs(v) do
    if not known[k] then
      error(format("%s: unknown field '%s'%s", path, tostring(k), check.did_you_mean(k, known)), 0)
    end
  end
  check.positive(v.bw, path .. ".bw")
  check.nonneg(v.latency_s, path .. ".latency_s")
  if v.bus_frac ~= nil and (type(v.bus_frac) ~= "number" or not (v.bus_frac > 0 and v.bus_frac <= 1)) then
    check.fail(path .. ".bus_frac", "expected a fraction in (0, 1]", v.bus_frac)
  end
end

--- Check a cluster table; returns it with `spec` (the GPU's hardware spec) set,
-- or raises `<label>: cluster.<field>: ...`.
function M.validate(c, label)
  label = label or "cluster"
  local ok, err = pcall(function()
    check.table(c, "cluster")
    for k in pairs(c) do
      if not FIELDS[k] then
        error(format("cluster: unknown field '%s'%s", tostring(k), check.did_you_mean(k, FIELDS)), 0)
      end
    end
    check.string(c.name, "cluster.name")
    check.positive_int(c.gpus_per_node, "cluster.gpus_per_node")
    if c.nvlink_domain ~= nil then
      check.positive_int(c.nvlink_domain, "cluster.nvlink_domain")
      if c.nvlink_domain < c.gpus_per_node or c.nvlink_domain % c.gpus_per_node ~= 0 then
        check.fail("cluster.nvlink_domain", format("expected a multiple of gpus_per_node %d", c.gpus_per_node),
          c.nvlink_domain)
      end
      if type(c.sources) == "table" and type(c.sources.nvlink_domain) ~= "string" then
        check.fail("cluster.sources.nvlink_domain", "expected the source of cluster.nvlink_domain",
          c.sources.nvlink_domain)
      end
    end
    link(c.intra, "cluster.intra")
    link(c.inter, "cluster.inter")
    check.table(c.sources, "cluster.sources")
    for _, k in ipairs { "gpu", "gpus_per_node", "intra", "inter" } do
      if type(c.sources[k]) ~= "string" then check.fail("cluster.sources." .. k, "expected the source of cluster." .. k, c.sources[k]) end
    end
  end)
  if not ok then error(format("%s: %s", label, err), 0) end
  local out = tables.copy(c)
  out.spec = hw.resolve(c.gpu, label .. ": cluster.gpu")
  validated[out] = true
  return out
end

--- Ids of the cluster files, sorted.
function M.list()
  local lfs = require "lfs"
  local ids = {}
  local ok, iter, state = pcall(lfs.dir, M.dir())
  if not ok then return ids end
  for f in iter, state do
    local id = f:match("^([%w_%-]+)%.lua$")
    if id then ids[#ids + 1] = id end
  end
  table.sort(ids)
  return ids
end

local cache = {}

--- A cluster by id (hw/clusters/<id>.lua), path, or table.
-- @raise `cluster: unknown cluster 'x' (known: ...)`; schema errors naming the file and field
function M.resolve(v, path)
  path = path or "cluster"
  if type(v) == "table" then
    if validated[v] then return v end
    return M.validate(v, path)
  end
  if type(v) ~= "string" then check.fail(path, "expected cluster id or table", v) end
  if cache[v] then return cache[v] end
  local file = v
  if not (v:find("/", 1, true) or v:match("%.lua$")) then
    file = format("%s/%s.lua", M.dir(), v)
    local f = io.open(file, "r")
    if not f then
      error(format("%s: unknown cluster '%s' (known: %s)", path, v, table.concat(M.list(), ", ")), 0)
    end
    f:close()
  end
  local data, err = hw.load_data(file)
  if not data then error(err, 0) end
  data.id = v:match("([^/]+)%.lua$") or v
  local c = M.validate(data, file)
  cache[v] = c
  return c
end

--- The GPUs one NVLink (or Infinity Fabric) domain of cluster `c` joins: `nvlink_domain`, else
-- one node's `gpus_per_node`.
function M.domain(c)
  return c.nvlink_domain or c.gpus_per_node
end

--- The link a group of `n` ranks, spaced `stride` ranks apart, uses: intra
-- when the whole group sits inside one NVLink domain (n * stride <= M.domain(c)), else inter.
function M.link(c, n, stride)
  if n * (stride or 1) <= M.domain(c) then return c.intra, "intra" end
  return c.inter, "inter"
end

--- The cluster a device ships in: its spec's `node` (hw/<id>.lua), else DGX H100's nodes
-- (hw/clusters/dgx_h100.lua), the layout every device without a node was priced on before nodes
-- were data: 8 GPUs a domain, 50 GB/s of InfiniBand per GPU each way.
-- @raise as M.resolve, naming `path` (a device whose node file is missing or bad)
function M.of_device(spec, path)
  return M.resolve(spec.node or "dgx_h100", path or "hw.node")
end

--- The bandwidth collectives reach on link `l` (an `intra` or `inter` table), byte/s per GPU one
-- direction: bw * bus_frac.
function M.collective_bw(l)
  return l.bw * (l.bus_frac or 1)
end

return M
