--- tilewave.data.hw_gemm_schema: the schema of an architecture's GEMM parameters
-- (`gemm = { ... }` in hw/arch/<arch>.lua, or a device file's own overrides), each field with
-- its validator and physical range; tilewave.data.hw validates every spec with it.
local check = require "tilewave.util.check"
local dtype = require "tilewave.data.dtype"

local M = {}

local format, pairs, ipairs = string.format, pairs, ipairs

--- Refuse a key of `tbl` not in the set `allowed`: `<path>: unknown field 'x' (did you mean ...)`.
function M.fields(tbl, allowed, path)
  local k = check.unknown_key(tbl, allowed)
  if k ~= nil then error(format("%s: unknown field '%s'%s", path, tostring(k), check.did_you_mean(k, allowed)), 0) end
end

local function validate_tiles(tiles, path)
  check.table(tiles, path)
  if #tiles < 1 or #tiles > 16 then check.fail(path, "expected 1 to 16 tiles", #tiles) end
  for i, t in ipairs(tiles) do
    local p = format("%s[%d]", path, i)
    check.table(t, p)
    M.fields(t, { m = true, n = true, eff = true, ctas_per_sm = true, tma = true, dtypes = true }, p)
    check.positive_int(t.m, p .. ".m")
    check.positive_int(t.n, p .. ".n")
    check.fraction(t.eff, p .. ".eff")
    if t.ctas_per_sm ~= nil then check.positive_int(t.ctas_per_sm, p .. ".ctas_per_sm") end
    if t.tma ~= nil and type(t.tma) ~= "boolean" then check.fail(p .. ".tma", "expected boolean", t.tma) end
    if t.dtypes ~= nil then -- offered only to these dtypes (cuBLAS's kernels differ by dtype)
      check.table(t.dtypes, p .. ".dtypes")
      if #t.dtypes < 1 then check.fail(p .. ".dtypes", "expected a non-empty list of dtypes", #t.dtypes) end
      for j, d in ipairs(t.dtypes) do
        if not dtype.sizes[d] then check.fail(format("%s.dtypes[%d]", p, j), "expected one of " .. check.keys(dtype.sizes), d) end
      end
    end
  end
  for _, t in ipairs(tiles) do if not t.tma and not t.dtypes then return end end
  check.fail(path, "expected at least one tile without tma = true or dtypes (misaligned GEMMs of every dtype need one)",
    #tiles)
end

-- Physical ranges of the figures (generous: every real device sits well inside them).
local function frac(v, p) return check.within(v, 0.01, 1, "fraction", p) end
local function latency(v, p) return check.within(v, 0, 1e-3, "s", p) end
-- a factor per alignment class: 1, 2, 4 ... 128 bytes
local function align_classes(v, p)
  check.table(v, p)
  if #v ~= 8 then check.fail(p, "expected 8 numbers (1, 2, 4 ... 128 bytes)", #v) end
  for i = 1, 8 do frac(v[i], format("%s[%d]", p, i)) end
end

-- { <dtype> = { <field> = ... } }: dtype keys, then each table's own fields, then `each(x, path)`
local function per_dtype_tables(v, p, allowed, each)
  check.table(v, p)
  M.fields(v, dtype.sizes, p)
  for k, x in pairs(v) do
    check.table(x, p .. "." .. k)
    M.fields(x, allowed, p .. "." .. k)
    each(x, p .. "." .. k)
  end
end

-- { <dtype> = x }: dtype keys, each value checked by `each(x, path)`
local function per_dtype(each)
  return function(v, p)
    check.table(v, p)
    M.fields(v, dtype.sizes, p)
    for k, x in pairs(v) do each(x, p .. "." .. k) end
  end
end

local function exposed(v, p) return check.within(v, 0, 1, "fraction", p) end
local function stages(v, p) return check.within(v, 0, 64, "stages", p) end
local function boolean(v, p) if type(v) ~= "boolean" then check.fail(p, "expected boolean", v) end end
local function split_k(v, p) check.positive_int(v, p); return check.within(v, 1, 64, "integer", p) end

local GEMM_FIELDS = {
  compute_frac = frac, mem_frac = frac, write_frac = frac,
  write_exposed = exposed,
  -- ... of the kernel class below 16-byte alignment (src/tw_gemm.h), else write_exposed
  write_exposed_non_tma = exposed,
  -- extra C-write time where C's row pitch is an odd multiple of 16 bytes (src/tw_gemm.h)
  write_sector_cost = function(v, p) return check.within(v, 0, 16, "number", p) end,
  -- main-loop stages a kernel loads before its first MMA: exposed once (TMA), every wave below 16 B
  -- (src/tw_gemm.h)
  fill_stages = stages,
  -- fraction of the last wave's hidden C writes exposed: the pipeline's drain (src/tw_gemm.h)
  drain_exposed = exposed,
  call_overhead_s = function(v, p) return check.within(v, 0, 1, "s", p) end,
  tile_latency_s = latency, kstep_latency_s = latency, streamk_fixup_s = latency, splitk_latency_s = latency,
  stream_k = boolean,
  -- below 16-byte alignment, split-K of any factor (default true: CUTLASS's split-K kernels)
  split_k_any = boolean,
  -- the largest split-K factor of 2-byte dtypes; a dtype of e bytes gets max_split_k * e / 2
  -- (tilewave.data.hw)
  max_split_k = split_k,
  tiles = validate_tiles,
  attention_frac = frac, attention_bwd_frac = frac, attention_frac_fa2 = frac, attention_bwd_frac_fa2 = frac,
  intervals = function(v, p)
    check.table(v, p)
    -- per class, and for GEMMs per dtype ("gemm_bf16", ...: the interval of that dtype's kernels)
    local known = { gemm = true, attention = true, forward = true, decode = true, training = true }
    for d in pairs(dtype.sizes) do known["gemm_" .. d] = true end
    M.fields(v, known, p)
    for k, iv in pairs(v) do
      check.table(iv, p .. "." .. k)
      check.positive(iv[1], p .. "." .. k .. "[1]")
      check.positive(iv[2], p .. "." .. k .. "[2]")
      if iv[1] > 1 or iv[2] < 1 then check.fail(p .. "." .. k, "expected { low <= 1, high >= 1 }", iv[1]) end
    end
  end,
  kernel_bw_frac = function(v, p)
    check.table(v, p)
    M.fields(v, { vector = true, strided = true, transpose = true, softmax = true }, p)
    for k, x in pairs(v) do frac(x, p .. "." .. k) end
  end,
  -- SM-side limit of a kernel class: byte (read + write) per SM per clock cycle, in (0, 1024]
  kernel_sm_bytes_per_cycle = function(v, p)
    check.table(v, p)
    M.fields(v, { vector = true, strided = true, transpose = true, softmax = true }, p)
    for k, x in pairs(v) do check.within(x, 1e-3, 1024, "byte per SM per cycle", p .. "." .. k) end
  end,
  dtype_compute_frac = per_dtype(frac),
  align_eff = align_classes, align_mem_eff = align_classes,
  -- per dtype, the alignment factors of a kernel family other than the tensor-core one
  -- (fp32 without tensor cores runs SIMT kernels with no TMA): { <dtype> = { align_eff =,
  -- align_mem_eff = } }, each optional, else the architecture's
  -- per dtype, a fixed cost per GEMM kernel beyond the engine's (the kernel family's prologue:
  -- fp8 scale loads, tf32's conversion of fp32 operands), s
  dtype_latency_s = per_dtype(latency),
  -- ... and, per dtype, one only its TMA kernel class pays (N and K 16-byte aligned; src/tw_gemm.h)
  dtype_tma_latency_s = per_dtype(latency),
  -- per dtype, the fraction of C's write time not hidden under the main loop when its kernel family
  -- differs from the architecture's (non-persistent kernels without a TMA store), else
  -- write_exposed
  dtype_write_exposed = per_dtype(exposed),
  -- per dtype, whether its kernel family has stream-K kernels (int8's CUTLASS sm80 IMMA kernels
  -- on Hopper are not persistent), else stream_k
  dtype_stream_k = per_dtype(boolean),
  -- per dtype, whether its kernels below 16-byte alignment split K by any factor (CUTLASS's
  -- split-K kernels) or by powers of two (src/tw_gemm.h), else split_k_any
  dtype_split_k_any = per_dtype(boolean),
  -- per dtype, fill_stages of its kernel family (0 where it has no such pipeline), else fill_stages
  dtype_fill_stages = per_dtype(stages),
  -- FLOP per SM per clock (2-byte dtypes) of the device align_eff was fitted on: other devices of
  -- the architecture scale the penalty by their own rate (tilewave.data.hw.scale_align); 0: none
  align_ref_rate = function(v, p) return check.within(v, 0, 1e6, "FLOP per SM per clock", p) end,
  -- per dtype, the largest split-K factor of its kernel family (int8's IMMA kernels on Hopper
  -- run without a split over K), else the architecture's max_split_k
  dtype_max_split_k = per_dtype(split_k),
  -- per dtype, the outputs (M <= m, N <= n elements) below which a GEMM under 4-byte alignment
  -- runs the split-K form even unsplit: fp32 partials and the reduction kernel (tw_gemm.h,
  -- unsplit_reduce_m/_n): { <dtype> = { m =, n = } }
  dtype_unsplit_reduce = function(v, p)
    per_dtype_tables(v, p, { m = true, n = true }, function(x, q)
      check.within(x.m, 0, 2 ^ 31, "elements", q .. ".m")
      check.within(x.n, 0, 2 ^ 31, "elements", q .. ".n")
    end)
  end,
  -- per dtype, the TMA kernel the library runs where only N is off 16 bytes (src/tw_gemm.h,
  -- n_off_tma_eff): { <dtype> = { frac = fraction of the dtype's peak that kernel sustains,
  -- max_mn = largest M * N (elements), overhead_s = extra fixed cost (s), tile = { m =, n = }
  -- (one of `tiles`) } }
  dtype_n_off_tma = function(v, p)
    per_dtype_tables(v, p, { frac = true, max_mn = true, overhead_s = true, tile = true }, function(x, q)
      frac(x.frac, q .. ".frac")
      check.within(x.max_mn, 0, 2 ^ 62, "elements", q .. ".max_mn")
      latency(x.overhead_s, q .. ".overhead_s")
      check.table(x.tile, q .. ".tile")
      M.fields(x.tile, { m = true, n = true }, q .. ".tile")
      check.positive_int(x.tile.m, q .. ".tile.m")
      check.positive_int(x.tile.n, q .. ".tile.n")
    end)
  end,
  dtype_align = function(v, p)
    per_dtype_tables(v, p, { align_eff = true, align_mem_eff = true }, function(x, q)
      for f, c in pairs(x) do align_classes(c, q .. "." .. f) end
    end)
  end,
  sources = check.table,
}

-- Architecture fields that may be left out (the fallbacks: compute_frac for every
-- dtype, mem_frac for every kernel class and the attention MMA, borrowed intervals).
local OPTIONAL = { sources = true, write_frac = true, write_exposed = true, stream_k = true, streamk_fixup_s = true,
                   splitk_latency_s = true, align_mem_eff = true, dtype_compute_frac = true, kernel_bw_frac = true, kernel_sm_bytes_per_cycle = true, attention_frac = true,
                   attention_bwd_frac = true, attention_frac_fa2 = true, attention_bwd_frac_fa2 = true,
                   intervals = true, dtype_align = true, dtype_latency_s = true, dtype_tma_latency_s = true,
                   dtype_max_split_k = true, align_ref_rate = true, dtype_unsplit_reduce = true,
                   dtype_write_exposed = true, write_sector_cost = true,
                   dtype_stream_k = true, split_k_any = true, dtype_split_k_any = true, write_exposed_non_tma = true, fill_stages = true, drain_exposed = true,
                   dtype_fill_stages = true, dtype_n_off_tma = true }

--- Validate GEMM parameters `g` at `path`; `complete`: every non-optional field present.
function M.validate_gemm(g, path, complete)
  check.table(g, path)
  M.fields(g, GEMM_FIELDS, path)
  for k, f in pairs(GEMM_FIELDS) do
    if g[k] ~= nil then f(g[k], path .. "." .. k)
    elseif complete and not OPTIONAL[k] then check.fail(path .. "." .. k, "expected a value", nil) end
  end
end


return M
