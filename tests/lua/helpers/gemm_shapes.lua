--- Test helper: a fixed pseudo-random list of GEMM shapes for the equivalence fixture
-- (tests/fixtures/gemm_equivalence). The same seed gives the same shapes on every machine:
-- a 63-bit LCG (Lua integers are signed; the constants are Knuth's MMIX LCG).
-- Shapes come in blocks of BLOCK sharing a device index, batch and element sizes, so that
-- one block is one core.gemm_many call. Dimensions are 2^(r % 15) + r' % 64 (log-uniform
-- with odd offsets, so every alignment class appears); every 7th shape of a block is a
-- power of two times 64 (aligned, the common case of real models).
local M = {}

M.BLOCK = 1000
local BATCHES = { 1, 1, 1, 1, 2, 3, 8, 32, 96 }
local BYTES = { { 2, 2 }, { 2, 2 }, { 2, 2 }, { 1, 2 }, { 4, 4 }, { 1, 1 } }

local function lcg(state)
  state[1] = (state[1] * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
  return state[1] >> 33
end

local function dim(state, aligned)
  local p = 1 << (lcg(state) % 15)
  local off = lcg(state) % 64
  if aligned then return 64 * (1 << (lcg(state) % 8)) end
  return p + off
end

--- `count` shapes (a multiple of BLOCK) over `devices` device indices, from `seed`:
-- an array of blocks `{ device = i, batch, in_bytes, out_bytes, flat = { m1, n1, k1, ... } }`.
function M.blocks(seed, count, devices)
  local state, out = { seed }, {}
  for b = 1, count // M.BLOCK do
    local bytes = BYTES[lcg(state) % #BYTES + 1]
    local blk = { device = (b - 1) % devices + 1, batch = BATCHES[lcg(state) % #BATCHES + 1],
                  in_bytes = bytes[1], out_bytes = bytes[2], flat = {} }
    for i = 1, M.BLOCK do
      local aligned = i % 7 == 0
      local m, n, k = dim(state, aligned), dim(state, aligned), dim(state, aligned)
      -- keep M*N*batch at most 2^40 (far inside the core's TW_OUTPUT_MAX, 2^53) by shrinking M
      while m * n * blk.batch > (1 << 40) do m = m // 2 + 1 end
      local f = blk.flat
      f[#f + 1], f[#f + 2], f[#f + 3] = m, n, k
    end
    out[#out + 1] = blk
  end
  return out
end

return M
