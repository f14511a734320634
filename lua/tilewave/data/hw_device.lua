--- tilewave.data.hw_device: the core GEMM device of a hardware spec for one dtype.
--
-- Turns a spec (tilewave.data.hw) and its architecture's GEMM parameters (`hw/arch/<arch>.lua`)
-- into the plain fields of `core.device` (src/tw_gemm.h, tw_device): the dtype's peak and
-- sustained fraction, bandwidth fractions, latencies, split-K and stream-K limits, the tiles its
-- kernels offer and the alignment factors. Per-dtype tables (`dtype_*`) override the
-- architecture's field for their dtype. Pure: no I/O, no core calls.
-- @module tilewave.data.hw_device
local check = require "tilewave.util.check"
local dtype = require "tilewave.data.dtype"

local M = {}

local ipairs, error, format, max, min = ipairs, error, string.format, math.max, math.min

-- The per-dtype value t[dt] when the table gives one (false included), else `default`.
local function per_dtype(t, dt, default)
  local v = t and t[dt]
  if v == nil then return default end
  return v
end

--- The sustained fraction of the dense peak a GEMM of dtype `dt` reaches:
-- `gemm.dtype_compute_frac[dt]` where the architecture gives one (Hopper's
-- fp8 and int8 kernels sustain less of their datasheet peak than bf16),
-- otherwise `gemm.compute_frac`. `g` is a gemm_params() table.
function M.compute_frac(g, dt)
  return per_dtype(g.dtype_compute_frac, dt, g.compute_frac)
end

-- The core's tiles for dtype `dt`: the spec's that have no `dtypes` list or name `dt`
-- in it, with `tma = true` as the core's 1
local function core_tiles(tiles, dt)
  local out = {}
  for _, t in ipairs(tiles) do
    local offered = t.dtypes == nil
    for _, d in ipairs(t.dtypes or {}) do offered = offered or d == dt end
    if offered then
      out[#out + 1] = { m = t.m, n = t.n, eff = t.eff, ctas_per_sm = t.ctas_per_sm, tma = t.tma and 1 or 0 }
    end
  end
  return out
end

-- The core's n_off_tma_* fields of dtype `dt` (src/tw_gemm.h): off (eff 0) unless the
-- architecture's dtype_n_off_tma names the dtype. Its `frac` of the peak becomes a factor on the
-- dtype's compute_frac `cf`; its tile must be one of the dtype's core tiles (1-based index).
local function n_off_tma(g, dt, tiles, cf)
  local o = g.dtype_n_off_tma and g.dtype_n_off_tma[dt]
  if not o then return 0, 0, 0, 1 end
  for i, t in ipairs(tiles) do
    if t.m == o.tile.m and t.n == o.tile.n then return o.frac / cf, o.max_mn, o.overhead_s, i end
  end
  error(format("dtype_n_off_tma.%s.tile: expected one of the tiles %s kernels have, got %dx%d", dt, dt,
    o.tile.m, o.tile.n), 0)
end

--- Alignment classes `eff` (align_eff levels fitted where the tensor cores run `ref` FLOP per
-- SM per clock) on an SM whose tensor cores run `ratio` times as many. A misaligned kernel issues
-- 16 / alignment loads where one 16-byte vector would do; that issue time per K step is set by
-- the SM's load/store pipeline, which Ampere, Ada, Turing and Volta SMs share (4 partitions),
-- and it adds to the tensor time: slowdown 1 + (1/eff - 1) x ratio, so eff' = 1 / that. An
-- RTX 4090 (512 FLOP per SM per clock in bf16 against the A100's 2049) loses a quarter of the
-- A100's penalty. Levels of 1 stay 1; `ratio` > 0.
function M.scale_align(eff, ratio)
  local out = {}
  for i, e in ipairs(eff) do out[i] = 1 / (1 + (1 / e - 1) * ratio) end
  return out
end

--- The fields of the core GEMM device (`core.device`, src/tw_gemm.h tw_device) of `spec` for
-- dtype `dt`, as a plain table, and the dtype's element sizes. `g` is the spec's GEMM parameters
-- (tilewave.data.hw.gemm_params); `call_overhead_s` and `reduce_overhead_s` as
-- tilewave.data.hw.gemm_device. Raises `<path>: expected one of ...` for an unknown dtype and
-- `<path>: '<dt>' not supported by <device>` where the spec has no peak for it.
function M.fields(spec, g, dt, path, call_overhead_s, reduce_overhead_s)
  local sizes = dtype.get(dt)
  if not sizes then check.fail(path or "dtype", "expected one of " .. check.keys(dtype.sizes), dt) end
  local peak = spec.peak_flops[dt]
  if not peak then
    error(format("%s: '%s' not supported by %s (supported: %s)", path or "dtype", dt,
      spec.id or spec.name, check.keys(spec.peak_flops)), 0)
  end
  local own = g.dtype_align and g.dtype_align[dt] or {}
  local ur = g.dtype_unsplit_reduce and g.dtype_unsplit_reduce[dt]
  local exposed = per_dtype(g.dtype_write_exposed, dt, g.write_exposed or 0)
  local align_eff = own.align_eff or g.align_eff
  if (g.align_ref_rate or 0) > 0 and sizes.in_bytes == 2 and not own.align_eff and spec.boost_clock_hz then
    align_eff = M.scale_align(align_eff, peak / (spec.sm_count * spec.boost_clock_hz) / g.align_ref_rate)
  end
  local tiles = core_tiles(g.tiles, dt)
  local no_eff, no_mn, no_s, no_tile = n_off_tma(g, dt, tiles, M.compute_frac(g, dt))
  return {
    sm_count = spec.sm_count, peak_flops = peak, compute_frac = M.compute_frac(g, dt),
    mem_bw = spec.mem_bw, mem_frac = g.mem_frac, write_frac = g.write_frac or g.mem_frac, l2_bytes = spec.l2_bytes or 0,
    write_exposed = exposed, write_exposed_non_tma = per_dtype(g.dtype_write_exposed, dt, g.write_exposed_non_tma or exposed),
    write_sector_cost = g.write_sector_cost or 0, fill_stages = per_dtype(g.dtype_fill_stages, dt, g.fill_stages or 0),
    drain_exposed = g.drain_exposed or 0,
    call_overhead_s = (call_overhead_s or g.call_overhead_s) + (g.dtype_latency_s and g.dtype_latency_s[dt] or 0),
    tma_overhead_s = per_dtype(g.dtype_tma_latency_s, dt, 0),
    reduce_overhead_s = reduce_overhead_s or 0, splitk_tma_latency_s = g.splitk_latency_s or 0,
    unsplit_reduce_m = ur and ur.m or 0, unsplit_reduce_n = ur and ur.n or 0,
    tile_latency_s = g.tile_latency_s, kstep_latency_s = g.kstep_latency_s,
    -- max_split_k counts splits of a 2-byte K; a 64-byte main-loop stage holds 2/in_bytes as many
    -- elements
    max_split_k = g.dtype_max_split_k and g.dtype_max_split_k[dt]
                  or max(1, min(64, math.floor(g.max_split_k * sizes.in_bytes / 2))),
    stream_k = per_dtype(g.dtype_stream_k, dt, g.stream_k) and 1 or 0, streamk_fixup_s = g.streamk_fixup_s or 0,
    -- below 16 bytes, split-K of any factor unless the architecture or the dtype says otherwise
    split_k_any = per_dtype(g.dtype_split_k_any, dt, g.split_k_any ~= false) and 1 or 0,
    n_off_tma_eff = no_eff, n_off_tma_max_mn = no_mn, n_off_tma_overhead_s = no_s, n_off_tma_tile = no_tile,
    tiles = tiles, align_eff = align_eff, align_mem_eff = own.align_mem_eff or g.align_mem_eff,
  }, sizes
end

return M
