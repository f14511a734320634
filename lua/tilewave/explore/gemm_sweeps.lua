--- tilewave.explore.gemm_sweeps: the co-design paper's GEMM sweeps (Anthony et al.
-- 2024, arXiv 2401.14489, Figs. 2-5 and the logit-GEMM study), as shape lists.
--   square  M = N = 2^i (32 ... 16384), K = 4096        (throughput against size)
--   tile    M = 27648, K = 4096, N = 64 ... 510 step 2  (tile quantization, alignment)
--   wave    M = 2304, K = 4096, N = 1536 ... 6144 step 64 (wave quantization)
--   logit   M = 8192, K = 51200, N = 14272 ... 14400    (logit GEMM, alignment of v)
-- Each: `name`, `title`, `shapes()` (array of { M, N, K }), `x` (index of the swept
-- dimension in a shape), `x_name`, `x_label`, `logx`.
local M = {}

local function range(lo, hi, step, f)
  local s = {}
  for v = lo, hi, step do s[#s + 1] = f(v) end
  return s
end

M.list = {
  { name = "square", title = "M = N = 2^i, K = 4096", x = 1, x_name = "M", x_label = "M = N (elements)", logx = true,
    with = "linespoints", shapes = function() return range(5, 14, 1, function(i) return { 1 << i, 1 << i, 4096 } end) end },
  { name = "tile", title = "tile quantization: M = 27648, K = 4096, N = 64..510 step 2", x = 2, x_name = "N",
    x_label = "N (elements)", shapes = function() return range(64, 510, 2, function(n) return { 27648, n, 4096 } end) end },
  { name = "wave", title = "wave quantization: M = 2304, K = 4096, N = 1536..6144 step 64", x = 2, x_name = "N",
    x_label = "N (elements)", shapes = function() return range(1536, 6144, 64, function(n) return { 2304, n, 4096 } end) end },
  { name = "logit", title = "logit GEMM: M = 8192, K = 51200, N = 14272..14400", x = 2, x_name = "N",
    x_label = "N (vocabulary size, elements)",
    shapes = function() return range(14272, 14400, 1, function(n) return { 8192, n, 51200 } end) end },
}

local by_name = {}
for _, s in ipairs(M.list) do by_name[s.name] = s end
by_name.mn = by_name.square -- the name scripts/gemm_sweeps.lua used first

--- The sweep called `name`.
-- @raise `<path>: expected square, tile, wave or logit, got ...`
function M.get(name, path)
  local s = by_name[name]
  if not s then
    error(string.format("%s: expected square, tile, wave or logit, got '%s'", path or "sweep", tostring(name)), 0)
  end
  return s
end

return M
