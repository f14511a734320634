--- tilewave.explore.descent: the numerical steps of the fitter (tilewave.explore.fit): a
-- bounded coordinate descent over named parameters and the rounding of fitted values.
-- A parameter is `{ name, lo, hi, get = function() -> value, set = function(value), tiny }`
-- (`tiny`: the first step from 0, for latencies); the loss is any function of the parameters'
-- current values, lower is better. Deterministic: parameters are visited in array order.
local M = {}

local format, ipairs, floor = string.format, ipairs, math.floor

--- `v` held to the parameter's range [p.lo, p.hi].
function M.clamp(p, v)
  if v < p.lo then return p.lo end
  if v > p.hi then return p.hi end
  return v
end

--- Coordinate descent with multiplicative steps of 0.25 / round (a parameter at 0 first steps
-- to `p.tiny`), each direction followed while the loss falls (at most 40 steps);
-- `progress(round, rounds, loss)` after each round. Returns the best loss; the parameters
-- are left at their best values.
function M.descend(ps, loss, rounds, progress)
  local best = loss()
  for round = 1, rounds do
    local step = 0.25 / round
    for _, p in ipairs(ps) do
      for _, dir in ipairs { 1, -1 } do
        local moved = 0
        while moved < 40 do
          local old = p.get()
          local new = M.clamp(p, old == 0 and (dir > 0 and p.tiny or 0) or old * (1 + dir * step))
          if new == old then break end
          p.set(new)
          local l = loss()
          if l < best - 1e-12 then best, moved = l, moved + 1 else p.set(old); break end
        end
        if moved > 0 then break end
      end
    end
    if progress then progress(round, rounds, best) end
  end
  return best
end

--- `x` rounded to a multiple of `q`, as the nearest double to its 10-digit decimal (what
-- tilewave.util.literal writes, so a written file reads back the same value).
function M.round_to(x, q) return tonumber(format("%.10g", floor(x / q + 0.5) * q)) end

return M
