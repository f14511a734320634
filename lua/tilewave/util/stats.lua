--- tilewave.util.stats: the statistics benchmark clients print, computed as they compute them -
-- numpy's linear percentile (`numpy.percentile`, its default method, Hyndman and Fan 1996
-- definition 7: position q/100 (n - 1) of the sorted values, interpolated), the mean and the
-- population standard deviation (`numpy.std`, ddof 0), which vLLM's benchmark_serving, SGLang's
-- bench_serving and GenAI-Perf print. (A prediction interval's quantile is another definition:
-- tilewave.explore.accuracy.quantile.)
-- @module tilewave.util.stats
local M = {}

--- A sorted copy of the numbers `v` (not modified).
function M.sorted(v)
  local s = {}
  for i, x in ipairs(v) do s[i] = x end
  table.sort(s)
  return s
end

--- numpy's linear percentile `q` (0 to 100) of the sorted list `s`; 0 when it is empty.
function M.percentile_sorted(s, q)
  local n = #s
  if n == 0 then return 0 end
  local pos = q / 100 * (n - 1)
  local f = math.floor(pos)
  if f + 1 >= n then return s[n] end
  return s[f + 1] + (pos - f) * (s[f + 2] - s[f + 1])
end

--- numpy's linear percentile `q` (0 to 100) of the numbers `v`; 0 when empty.
function M.percentile(v, q) return M.percentile_sorted(M.sorted(v), q) end

--- The mean and the population standard deviation of the numbers `v`; 0, 0 when empty.
function M.mean_std(v)
  local n, sum = #v, 0
  if n == 0 then return 0, 0 end
  for _, x in ipairs(v) do sum = sum + x end
  local mean, var = sum / n, 0
  for _, x in ipairs(v) do var = var + (x - mean) ^ 2 end
  return mean, math.sqrt(var / n)
end

return M
