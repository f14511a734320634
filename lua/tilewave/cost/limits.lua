--- tilewave.cost.limits: the physical floors the pricing layer (tilewave.cost.price)
-- applies to every time it prices, so that no printed rate is impossible:
--   an op (per call)   >= max(executed FLOP / (dtype peak x ceiling of its kernel class),
--                             DRAM bytes its kernels move / (mem_bw x memory ceiling))
--   a collective       >= the bytes each rank must send / link bandwidth
--   a decode step      >= max(bytes moved / mem_bw, FLOP / peak) (the datasheet figures: the
--                         "ideal" engine streams at exactly mem_bw, the bound itself)
-- The ceilings, with their sources, are tilewave.data.ceilings (the best measured fraction per
-- kernel class). The model's own fractions sit below them, so a floor binds only where the
-- mechanism would otherwise claim more than any kernel has sustained. Pure functions of the
-- pricing context; no core calls. Units: s, byte, FLOP, FLOP/s, byte/s.
local ceilings = require "tilewave.data.ceilings"

local M = {}

--- The rates of a pricing context's device and dtype at the ceilings: `{ matmul (FLOP/s),
-- attention (FLOP/s), bw (byte/s) }`.
function M.rates(spec, peak)
  return { matmul = peak * ceilings.matmul, attention = peak * ceilings.attention,
           bw = spec.mem_bw * ceilings.memory }
end

--- FLOP a backward pass executes per forward FLOP of an op: a GEMM's data and weight
-- gradients (2); FlashAttention's five matmuls against two (2.5, Dao 2023 §3.1).
M.BACKWARD_GEMM, M.BACKWARD_FLASH = 2, 2.5

--- The least time of one call of `op` (tilewave.ops.layers) under context `ctx`
-- (tilewave.cost.price.context, with `lim` = M.rates), s. `kernel_bytes`: the DRAM bytes its
-- memory-bound kernels move after the engine's fusion (elementwise ops: an op fused into a
-- neighbour moves none of its own); `backward`: the op's backward instead (executed FLOP
-- times M.BACKWARD_*, memory-bound kernels' bytes as given).
function M.op(ctx, op, kernel_bytes, backward)
  local lim, kind = ctx.lim, op.kind
  if kind == "elementwise" then return (kernel_bytes or 0) / lim.bw end
  local flops, rate, bytes = op.flops, lim.matmul, op.bytes
  if kind == "attention" and op.impl == "flash" then
    rate = lim.attention
    if backward then flops = flops * M.BACKWARD_FLASH end
  elseif backward then
    flops = flops * M.BACKWARD_GEMM
  end
  if backward then bytes = 0 end -- the gradients' traffic is not the forward's; FLOP bound only
  local c, m = flops / rate, bytes / lim.bw
  return c > m and c or m
end

-- bytes each rank must send per message byte, by collective (Thakur et al. 2005; the
-- bandwidth-optimal bound every algorithm meets or exceeds: ring and tree all-reduce alike)
local WIRE = {
  allreduce = function(n) return 2 * (n - 1) / n end,
  allreduce_ring = function(n) return 2 * (n - 1) / n end,
  allreduce_tree = function(n) return 2 * (n - 1) / n end,
  allgather_ring = function(n) return (n - 1) / n end,
  reducescatter_ring = function(n) return (n - 1) / n end,
  alltoall = function(n) return (n - 1) / n end,
  p2p = function() return 1 end,
}

--- The least time of a collective `kind` of `bytes` over `n` ranks on a link of `link_bw`
-- byte/s (one direction), s: the bytes each rank must send over the link at ceilings.link.
function M.collective(kind, bytes, n, link_bw)
  local f = WIRE[kind]
  if not f or n <= 1 then return 0 end
  return f(n) * bytes / (link_bw * ceilings.link)
end

--- The least time of one decode step moving `bytes` and executing `flops` on a device of
-- datasheet bandwidth `mem_bw` (byte/s) and dense peak `peak` (FLOP/s), s.
function M.decode(bytes, flops, mem_bw, peak)
  local m, c = bytes / mem_bw, flops / peak
  return m > c and m or c
end

--- Refuse an architecture (`g`: hw.gemm_params of `spec`) whose sustained fractions claim more
-- than any kernel has sustained: `compute_frac` (of the dtype in use), mem_frac, write_frac, the
-- attention fractions, kernel_bw_frac and the TMA kernel's fraction where only N is off 16 bytes
-- (dtype_n_off_tma), each at most its ceiling.
-- @raise `hw/arch/<arch>.lua gemm.<field>: expected at most <ceiling> (tilewave.data.ceilings), got
-- <v>`
function M.check_arch(spec, g, compute_frac)
  local where = "hw/arch/" .. tostring(spec.arch) .. ".lua gemm."
  local function at_most(v, ceiling, field)
    if v and v > ceiling then
      error(string.format("%s%s: expected at most %g (tilewave.data.ceilings), got %s", where, field, ceiling,
        tostring(v)), 0)
    end
  end
  at_most(compute_frac, ceilings.matmul, "compute_frac")
  at_most(g.mem_frac, ceilings.memory, "mem_frac")
  at_most(g.write_frac, ceilings.memory, "write_frac")
  for _, f in ipairs { "attention_frac", "attention_bwd_frac", "attention_frac_fa2", "attention_bwd_frac_fa2" } do
    at_most(g[f], ceilings.matmul, f)
  end
  for c, v in pairs(g.kernel_bw_frac or {}) do at_most(v, ceilings.memory, "kernel_bw_frac." .. c) end
  for dt, o in pairs(g.dtype_n_off_tma or {}) do at_most(o.frac, ceilings.matmul, "dtype_n_off_tma." .. dt .. ".frac") end
end

return M
