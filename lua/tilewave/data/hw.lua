--- tilewave.data.hw: hardware specs - load, validate, list, and turn into GEMM devices.
--
-- A spec is a Lua file `hw/<id>.lua` returning a table of pure data. It is
-- loaded as text into an empty environment holding only unit constants
-- (KB, MB, GB, TB, KiB, MiB, GiB, MHz, GHz, TFLOPS, us), so a spec cannot call
-- `os`, `io` or `require`. It is checked against a schema that rejects unknown
-- keys and requires a source for every figure. Units: byte, byte/s, FLOP/s,
-- Hz, W, s. GEMM kernel parameters come from `hw/arch/<arch>.lua`, which a
-- spec may override field by field in its own `gemm` table.
--
-- Expected failures (file not found, unknown id, schema violation) return
-- `nil, msg`; messages name the file and the field:
-- `hw/x.lua: hw.mem_bw: expected positive number, got string '3.35TB/s'`.
-- @module tw.hw
local check = require "tilewave.util.check"
local sandbox = require "tilewave.util.sandbox"
local dtype = require "tilewave.data.dtype"
local core = require "tilewave.core"
local device = require "tilewave.data.hw_device"

local M = {}

local type, pairs, ipairs, pcall, error, format = type, pairs, ipairs, pcall, error, string.format
local sort, setmetatable = table.sort, setmetatable

local function this_dir()
  local src = debug.getinfo(1, "S").source
  return (src:sub(2):match("^(.*)/[^/]*$")) or "."
end

--- Directory holding the spec files: `<lua dir>/../../hw` (source tree and
-- install prefix share this layout). May be reassigned by a script.
-- (without `..` segments: a file's path in a message never runs through tilewave's Lua
-- directory, which tilewave.cli reads as a bug of tilewave's own)
local function normalize(p)
  local n
  repeat p, n = p:gsub("/[^/]+/%.%./", "/", 1) until n == 0
  return p
end
M.dir = normalize(this_dir() .. "/../../../hw")

-- Figures that must carry a source when present.
local FIGURES = {
  sm_count = true, boost_clock_hz = true, memory_bytes = true, usable_memory_bytes = true, mem_bw = true, l2_bytes = true,
  smem_per_sm_bytes = true, tdp_w = true, peak_flops = true, interconnect = true, compute_capability = true,
  host_op_s = true, node = true, measured = true,
}

--- Load a pure-data Lua file into the unit-constant sandbox (tilewave.util.sandbox).
M.load_data = sandbox.load

local schema = require "tilewave.data.hw_gemm_schema"
local tables = require "tilewave.util.tables"
local fields, validate_gemm = schema.fields, schema.validate_gemm

--- The estimate classes a device's `measured` table may name (tilewave.cost.interval).
M.MEASURED_CLASSES = { gemm = true, attention = true, forward = true, decode = true, training = true }

local SPEC_FIELDS = {
  name = check.string, vendor = check.string, arch = check.string, form_factor = check.string,
  compute_capability = check.positive,
  sm_count = function(v, p) check.positive_int(v, p); return check.within(v, 1, 100000, "integer", p) end,
  boost_clock_hz = function(v, p) return check.within(v, 1e7, 1e10, "Hz", p) end,
  -- the host machine's PyTorch dispatch: one nn.Linear call on CUDA, s (scripts/probe --host,
  -- host.csv op module_linear; tilewave.cost.engines.on_host)
  host_op_s = function(v, p) return check.within(v, 1e-7, 1e-3, "s", p) end,
  memory_bytes = function(v, p) return check.within(v, 1e6, 1e14, "byte", p) end,
  usable_memory_bytes = function(v, p) return check.within(v, 1e6, 1e14, "byte", p) end,
  -- a rental price: { per_hour = USD per GPU-hour, provider, date (YYYY-MM-DD), source }
  price = function(v, p)
    check.table(v, p)
    check.options(v, { per_hour = true, provider = true, date = true, source = true }, p)
    check.within(v.per_hour, 0.01, 1000, "USD per GPU-hour", p .. ".per_hour")
    check.string(v.provider, p .. ".provider")
    check.string(v.date, p .. ".date")
    check.string(v.source, p .. ".source")
    return v
  end,
  mem_bw = function(v, p) return check.within(v, 1e9, 1e15, "byte/s", p) end,
  l2_bytes = function(v, p) return check.within(v, 1e3, 1e11, "byte", p) end,
  smem_per_sm_bytes = check.positive, tdp_w = check.positive,
  peak_flops = function(v, p)
    check.table(v, p)
    fields(v, dtype.sizes, p)
    if next(v) == nil then check.fail(p, "expected at least one dtype", v) end
    for k, x in pairs(v) do check.within(x, 1e9, 1e18, "FLOP/s", p .. "." .. k) end
  end,
  interconnect = function(v, p)
    check.table(v, p)
    fields(v, { nvlink_bw = true, pcie_bw = true, fabric_bw = true, notes = true }, p)
    for k, x in pairs(v) do
      -- a link between 1 MB/s and 1 PB/s (NVLink 5 is 900 GB/s a direction): a denormal or absurd
      -- figure is refused by its field, not priced into a collective
      if k == "notes" then check.string(x, p .. ".notes") else check.within(x, 1e6, 1e15, "byte/s", p .. "." .. k) end
    end
  end,
  gemm = function(v, p) validate_gemm(v, p, false) end,
  -- the node the device ships in: a cluster id of hw/clusters (tilewave.data.cluster.of_device)
  node = function(v, p)
    check.string(v, p)
    local f = v:match("^[%w_%-]+$") and io.open(format("%s/clusters/%s.lua", M.dir, v), "r")
    if not f then check.fail(p, "expected a cluster id (a file of hw/clusters)", v) end
    f:close()
    return v
  end,
  -- what was measured on the device, by estimate class: { gemm = "<data and where>", decode = ... }
  measured = function(v, p)
    check.table(v, p)
    fields(v, M.MEASURED_CLASSES, p)
    for k, x in pairs(v) do check.string(x, p .. "." .. k) end
    return v
  end,
  sources = check.table, notes = check.string, id = check.string,
}
local REQUIRED = { "name", "vendor", "arch", "sm_count", "boost_clock_hz", "memory_bytes",
                   "mem_bw", "l2_bytes", "peak_flops", "sources" }
-- Apple publishes GPU cores and memory bandwidth but not clocks, cache sizes
-- or one memory size per chip (../shared/reference/hardware_specs.md): those
-- fields are optional for vendor "apple".
local REQUIRED_APPLE = { "name", "vendor", "arch", "sm_count", "mem_bw", "peak_flops", "sources" }

-- An architecture file's data, its `base` applied (tilewave.data.hw_arch), from M.dir.
local hw_arch = require "tilewave.data.hw_arch"
local deep = hw_arch.deep
local function load_arch(name) return hw_arch.load(M.dir, name) end

--- The data of a device file at `path`, with its `base` applied: a device file may name a base
-- device (`base = "a100_sxm4_80gb"`, a file of hw/) and state only what differs and its own
-- `name`. Its fields replace the base's; a table field (`peak_flops`, `interconnect`, `sources`,
-- `gemm`) replaces the base's key by key; `sources.base` says where the rest comes from. At most
-- four bases deep. Returns the data, or `nil, msg` naming the file.
function M.load_device_data(path, depth)
  local data, err = M.load_data(path)
  if not data or data.base == nil then return data, err end
  local own_base = data.base
  if type(own_base) ~= "string" or not own_base:match("^[%w_.-]+$") then
    return nil, format("%s: hw.base: expected a device id (a file of hw/), got %s", path, check.describe(own_base))
  end
  if (depth or 0) >= 4 then return nil, format("%s: hw.base: expected a chain of at most 4 bases", path) end
  if type(data.name) ~= "string" then
    return nil, format("%s: hw.name: expected string (a device with a base names itself), got %s", path,
      check.describe(data.name))
  end
  local base_path = format("%s/%s.lua", M.dir, own_base)
  if base_path == path then return nil, format("%s: hw.base: a device cannot be its own base", path) end
  local b, berr = M.load_device_data(base_path, (depth or 0) + 1)
  if not b then return nil, format("%s: hw.base: %s", path, berr) end
  local out = deep(b)
  out.base, out.id = nil, nil
  out.price = nil -- a rental price is the device's own, never its base's
  out.measured = nil -- and so is a measurement (tilewave.cost.interval widens an unmeasured device's)
  for k, v in pairs(data) do
    if k ~= "base" then
      if type(v) == "table" and type(out[k]) == "table" then
        tables.copy(v, out[k])
      else
        out[k] = v
      end
    end
  end
  out.sources = out.sources or {}
  out.sources.base = format("hw/%s.lua: every figure not set in %s", own_base, path:match("([^/]+)$") or path)
  return out
end

--- Check a spec table (as returned by a spec file). Returns the spec, or
-- `nil, msg` where msg names `label` (the file) and the field.
-- specs validate() passed (weak keys), so resolve() does not check a table again: the pricing
-- caches (gemm_device, tilewave.cost.price contexts) already treat a checked spec as fixed
local validated = setmetatable({}, { __mode = "k" })

function M.validate(spec, label)
  label = label or "hw"
  local ok, err = pcall(function()
    check.table(spec, "hw")
    fields(spec, SPEC_FIELDS, "hw")
    for _, k in ipairs(spec.vendor == "apple" and REQUIRED_APPLE or REQUIRED) do
      if spec[k] == nil then check.fail("hw." .. k, "expected a value", nil) end
    end
    for k, f in pairs(SPEC_FIELDS) do
      if spec[k] ~= nil then f(spec[k], "hw." .. k) end
    end
    check.one_of(spec.vendor, { nvidia = true, amd = true, apple = true }, "hw.vendor")
    for k in pairs(FIGURES) do
      if spec[k] ~= nil and type(spec.sources[k]) ~= "string" then
        check.fail("hw.sources." .. k, "expected the source of hw." .. k, spec.sources[k])
      end
    end
  end)
  if not ok then return nil, format("%s: %s", label, err) end
  -- the narrow dtypes only the architectures whose tensor cores run them may list: FP8 from Ada and
  -- Hopper (NVIDIA Ada Lovelace and Hopper architecture whitepapers) and AMD CDNA 3 (MI300 ISA),
  -- FP4 from Blackwell (NVIDIA Blackwell architecture technical brief)
  for dt, archs in pairs(M.DTYPE_ARCHS) do
    if spec.peak_flops[dt] and not archs[spec.arch] then
      return nil, format("%s: hw.peak_flops.%s: expected no %s peak on arch '%s' (its tensor cores run none; %s "
        .. "from %s)", label, dt, dt, tostring(spec.arch), dt, check.keys(archs))
    end
  end
  local arch, aerr = load_arch(spec.arch)
  if not arch then return nil, format("%s: hw.arch: unknown architecture '%s' (%s)", label, spec.arch, aerr) end
  -- the core checks the device it will price with (its bounds, e.g. tile sizes up to 4096): build
  -- it for every dtype now, so a bad figure fails here naming the file, not on first use
  for _, dt in ipairs(dtype.names()) do
    if spec.peak_flops[dt] then
      local okd, derr = pcall(M.gemm_device, spec, dt, "hw.peak_flops." .. dt)
      if not okd then return nil, format("%s: hw.gemm (%s): %s", label, dt, tostring(derr)) end
    end
  end
  validated[spec] = true
  return spec
end

--- Ids of the specs in `M.dir`, sorted.
function M.list()
  local lfs = require "lfs"
  local ids = {}
  local ok, iter, state = pcall(lfs.dir, M.dir)
  if not ok then return ids end
  for f in iter, state do
    local id = f:match("^([%w_%-]+)%.lua$")
    if id then ids[#ids + 1] = id end
  end
  sort(ids)
  return ids
end

local spec_cache = {}

--- The architectures whose tensor cores run each narrow dtype (hw.validate refuses a peak
-- elsewhere).
M.DTYPE_ARCHS = {
  fp8 = { ada = true, hopper = true, blackwell = true, blackwell_ultra = true, blackwell_rtx = true, cdna3 = true,
          cdna4 = true },
  -- FP4 also from CDNA 4 (AMD CDNA 4 architecture: MXFP4 and MXFP6 matrix formats)
  fp4 = { blackwell = true, blackwell_ultra = true, blackwell_rtx = true, cdna4 = true },
}

--- The memory of device `spec` every command prices against, byte: what an application can
-- allocate, the total NVML reports (`usable_memory_bytes`: an "80 GB" H100 reports 81,559 MiB =
-- 85.52 GB) where the spec states it, else the datasheet's `memory_bytes`; nil when neither is
-- known.
function M.memory(spec)
  return spec.usable_memory_bytes or spec.memory_bytes
end

--- Short names for the devices most asked for, each the variant the name means in vendors'
-- and clouds' listings when no form factor is given (the SXM board of an HGX/DGX node, the
-- 80 GB A100): `h100` → h100_sxm5, `h200` → h200_sxm, `a100` → a100_sxm4_80gb. Ids are
-- matched case-insensitively (`H100_SXM5`).
-- The newer parts' ids are the names people type (`b300`, `gb200`, `mi355x`, `rtx5090`, `h20`);
-- their aliases are the spellings with a separator or a form factor.
M.aliases = {
  h100 = "h100_sxm5", h200 = "h200_sxm", a100 = "a100_sxm4_80gb",
  b200_sxm = "b200", b300_sxm = "b300", h800_sxm = "h800", h20_sxm = "h20",
  rtx_5090 = "rtx5090", rtx_4090 = "rtx4090", rtx_3090ti = "rtx3090ti", rtxpro6000 = "rtx_pro_6000",
  rtx_pro6000 = "rtx_pro_6000", mi300 = "mi300x", mi325 = "mi325x", mi350 = "mi350x", mi355 = "mi355x",
}

--- The device id `id` names: itself lower-cased, or the id its alias stands for.
function M.canonical(id)
  local low = id:lower()
  return M.aliases[low] or low
end

--- Load a spec by id (`"a100_sxm4_80gb"`, any case, or an alias of M.aliases) or by path
-- (anything with a `/` or ending in `.lua`). Returns the spec table (shared and cached: do not
-- modify it; copy it to make a variant), or `nil, msg` (an unknown id: the nearest known one
-- and the list).
function M.load(id_or_path)
  if type(id_or_path) ~= "string" then
    return nil, "hw: expected device id or path, got " .. check.describe(id_or_path)
  end
  if spec_cache[id_or_path] then return spec_cache[id_or_path] end
  local path, id
  if id_or_path:find("/", 1, true) or id_or_path:match("%.lua$") then
    path = id_or_path
    id = path:match("([^/]+)%.lua$") or path
  else
    id = M.canonical(id_or_path)
    path = format("%s/%s.lua", M.dir, id)
    local f = id:match("^[%w_%-]+$") and io.open(path, "r")
    local node = not f and id:match("^[%w_%-]+$") and io.open(format("%s/clusters/%s.lua", M.dir, id), "r")
    if node then -- a system, not a device: name the device and say its node comes with it
      node:close()
      local ok, c = pcall(M.load_data, format("%s/clusters/%s.lua", M.dir, id))
      local gpu = ok and type(c) == "table" and type(c.gpu) == "string" and c.gpu or "its GPU"
      return nil, format("hw: '%s' is a cluster (hw/clusters/%s.lua), not a device: give its GPU, '%s' "
        .. "(a device is priced on the node its file names: tilewave hw %s)", id_or_path, id, gpu, gpu)
    end
    if not f then
      local known = {}
      for _, k in ipairs(M.list()) do known[k] = true end
      for k in pairs(M.aliases) do known[k] = true end
      return nil, format("hw: unknown device '%s'%s (known: %s)", id_or_path, check.did_you_mean(id, known),
        table.concat(M.list(), ", "))
    end
    f:close()
  end
  local data, err = M.load_device_data(path)
  if not data then return nil, err end
  if data.id ~= nil and data.id ~= id then
    return nil, format("%s: hw.id: expected '%s' (the file name), got %s", path, id, check.describe(data.id))
  end
  data.id = id
  local spec, verr = M.validate(data, path)
  if not spec then return nil, verr end
  spec_cache[id_or_path] = spec
  return spec
end

--- A spec from an id, path or table; raises `<path>: msg` on failure.
function M.resolve(v, path)
  if type(v) == "table" then
    if validated[v] then return v end
    local spec, err = M.validate(v, path)
    if not spec then error(err, 0) end
    return spec
  elseif type(v) == "string" then
    local spec, err = M.load(v)
    -- named by the field that gave it: "decode.hw: unknown device 'h900' ..."
    if not spec then error(path and (err:gsub("^hw:", path .. ":", 1)) or err, 0) end
    return spec
  end
  check.fail(path, "expected device id or spec table", v)
end

--- The fitted parameters of architecture `name` (hw/arch/<name>.lua), its `gemm` table.
function M.arch_params(name)
  return assert(load_arch(name)).gemm
end

local params_cache = setmetatable({}, { __mode = "k" })

--- The GEMM kernel parameters of a spec: its architecture's, overridden by
-- the spec's own `gemm` fields. The table is shared by every call for the spec (as the
-- architecture's tables are): read it, or copy it before changing anything.
function M.gemm_params(spec)
  local g = params_cache[spec]
  if g then return g end
  local arch = assert(load_arch(spec.arch))
  g = {}
  tables.copy(arch.gemm, g)
  tables.copy(spec.gemm or {}, g)
  params_cache[spec] = g
  return g
end

--- The sustained fraction of the dense peak a GEMM of dtype `dt` reaches (tilewave.data.hw_device).
M.compute_frac = device.compute_frac
--- Alignment factors rescaled to another SM (tilewave.data.hw_device.scale_align).
M.scale_align = device.scale_align

--- The fields gemm_device() passes to the core (`core.device`, tw_gemm.h tw_device), as a
-- plain table, and the dtype's element sizes; arguments and errors as gemm_device()
-- (tilewave.data.hw_device.fields over gemm_params(spec)).
function M.gemm_device_fields(spec, dt, path, call_overhead_s, reduce_overhead_s)
  return device.fields(spec, M.gemm_params(spec), dt, path, call_overhead_s, reduce_overhead_s)
end

local device_cache = setmetatable({}, { __mode = "k" })

--- The core GEMM device (userdata) of a spec for a dtype, and the dtype's
-- element sizes. `call_overhead_s` (optional, s >= 0) replaces the
-- architecture's per-call overhead (which is the isolated torch.mm wall-clock
-- overhead the calibration data carries), e.g. with a back-to-back kernel gap
-- for kernels queued in one stream. `reduce_overhead_s` (optional, s >= 0,
-- default 0) is the fixed cost of a split-K reduction kernel (the engine's
-- per-kernel cost). The architecture's `splitk_latency_s` (optional, s, default 0)
-- becomes the core's `splitk_tma_latency_s`: the device time a split-K GEMM of the
-- TMA kernel class (N and K 16-byte aligned) spends beyond its two kernels' launch
-- costs. kernels.csv of `scripts/probe --kernels` shows cuBLASLt's nvjet `_splitK_`
-- kernel 1.3-3.7 µs slower than one kernel over the same K; the CUTLASS split-K
-- kernels a misaligned GEMM gets are not, so they are not charged it.
-- Raises `<path>: ...` if the spec has no peak for the dtype.
function M.gemm_device(spec, dt, path, call_overhead_s, reduce_overhead_s)
  local key = format("%s@%.17g@%.17g", dt, call_overhead_s or -1, reduce_overhead_s or 0)
  local by_dtype = device_cache[spec]
  if by_dtype and by_dtype[key] then return by_dtype[key], dtype.get(dt) end
  local fields, sizes = M.gemm_device_fields(spec, dt, path, call_overhead_s, reduce_overhead_s)
  local dev = core.device(fields)
  by_dtype = by_dtype or {}
  by_dtype[key] = dev
  device_cache[spec] = by_dtype
  return dev, sizes
end

return M
