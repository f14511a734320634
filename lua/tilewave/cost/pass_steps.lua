--- tilewave.cost.pass_steps: the writers of core.pass's flat array (src/ltilewave_pass.c), with
-- which each op kind of tilewave.cost.price compiles its kernels: per op count, layer, steps and
-- floor (written by price.compile), then per step its kind (0 GEMM, 1 memory-bound kernel, 2 fused
-- attention), part and seven values. Pure layout: no cost is computed here. Units: byte, byte/s,
-- FLOP, FLOP/s as the values are.
-- @module tilewave.cost.pass_steps
local M = {}

--- One step of any kind into array `t` holding `n` values: its kind, part and seven values (the
-- seventh, `g`, is a GEMM's w_bytes; 0 for the other kinds); returns the new n.
function M.push(t, n, kind, part, a, b, c, d, e, f, g)
  t[n + 1], t[n + 2], t[n + 3], t[n + 4], t[n + 5], t[n + 6], t[n + 7], t[n + 8], t[n + 9] =
    kind, part, a, b, c, d, e, f, g or 0
  return n + 9
end

--- Memory-bound kernels `list` of classes `cls`, their bytes times `scale` (price.kernels_s's); push()
-- written out (the hot loop of compile); returns the new n, the steps written and their bytes.
function M.kernel_steps(ctx, t, n, list, cls, part, scale)
  local kbw, bytes = ctx.kbw, 0
  for i = 1, #list do
    local b = scale * list[i]
    t[n + 1], t[n + 2], t[n + 3], t[n + 4], t[n + 5], t[n + 6], t[n + 7], t[n + 8], t[n + 9] =
      1, part, b, kbw[cls and cls[i] or "vector"], 0, 0, 0, 0, 0
    n, bytes = n + 9, bytes + b
  end
  return n, #list, bytes
end

--- A GEMM step (M x N x K, batch, the context's element sizes; `w_bytes` the weight operand's
-- bytes per element as stored, 0 or nil: as A's): push() written out
function M.gemm_step(ctx, t, n, m, nn, k, batch, w_bytes)
  local e = ctx.e
  t[n + 1], t[n + 2], t[n + 3], t[n + 4], t[n + 5], t[n + 6], t[n + 7], t[n + 8], t[n + 9] =
    0, 0, m, nn, k, batch or 1, e.in_bytes, e.out_bytes, w_bytes or 0
  return n + 9
end

return M
