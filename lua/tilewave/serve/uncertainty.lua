--- tilewave.serve.uncertainty: the step-cost uncertainty the sizing search samples
-- (tilewave.serve.size.p_meet). The device's decode interval (tilewave.cost.interval: the 5th and
-- 95th percentiles of measured / predicted over the calibration rows) is read as a lognormal, and
-- N stratified draws are taken at its quantiles (i - 1/2) / N (stratified sampling: McKay, Beckman
-- and Conover 1979, Latin hypercube in one dimension). Unitless scales of the step cost.
-- @module tilewave.serve.uncertainty
local M = {}

local exp, log = math.exp, math.log

local phi = require("tilewave.serve.workload").normal_cdf -- the standard normal CDF; z_of inverts it

--- The standard normal quantile of probability `q` in (0, 1): the inverse of
-- tilewave.serve.workload.normal_cdf by bisection on [-10, 10] (100 halvings: exact to a double).
-- Each q's answer is kept (a search asks for the same N quantiles at every deployment and rate).
local z_memo = {}
local function z_of(q)
  local z = z_memo[q]
  if z then return z end
  local a, b = -10, 10
  for _ = 1, 100 do
    local m = (a + b) / 2
    if phi(m) < q then a = m else b = m end
  end
  z = (a + b) / 2
  z_memo[q] = z
  return z
end

-- the standard normal's 95th percentile, z_of(0.95): an interval [low, high] read as the 5th and
-- 95th percentiles of a lognormal spans 2 x Z95 of its log-standard deviations
local Z95 = 1.6448536269514722

--- The N step-cost scales of tilewave.serve.size.p_meet: the lognormal whose 5th and 95th
-- percentiles are `low` and `high` (0 < low <= high), at its quantiles (i - 1/2) / N, ascending.
function M.scales(low, high, n)
  local mu, sigma = (log(low) + log(high)) / 2, (log(high) - log(low)) / (2 * Z95)
  local out = {}
  for i = 1, n do out[i] = exp(mu + sigma * z_of((i - 0.5) / n)) end
  return out
end

M.z_of = z_of

return M
