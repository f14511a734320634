--- tilewave.explore.bounds: calibration bounds, the pinned error of every calibration set
-- (`tilewave calibrate --bounds FILE`; ctest calibration_bounds*). A bounds file returns
-- `{ ["<set>|<engine>"] = max MAPE (fraction), coverage = { ["<set>|<engine>"] = { lo, hi } },
-- exempt = { ["<set>|<engine>"] = "why it has no bound" } }`: every set a run prints is either
-- bounded or exempt with its reason (issue 55), so a new set cannot go unwatched.
local M = {}
local format = string.format

-- the reason `key` is exempt from a bound: `exempt[key]`, or the reason of a key of `exempt` ending
-- in "*" whose text before it starts `key`
local function exemption(exempt, key)
  if exempt[key] then return exempt[key], key end
  for k, why in pairs(exempt) do
    if k:sub(-1) == "*" and key:sub(1, #k - 1) == k:sub(1, -2) then return why, k end
  end
  return nil
end

--- Check summaries against `bounds` (`{ ["<set>|<engine>"] = max MAPE, coverage = {
-- ["<set>|<engine>"] = { lo, hi } }, exempt = { ["<set>|<engine>"] = "why it has no bound" } }`, an
-- exempt key ending in `*` covering every key it starts): MAPE at most its bound, interval coverage
-- within its range, and every set either bounded or exempt with its reason.
-- @return an array of failure lines (a set over its bound, outside its coverage, or with neither a
--   bound nor an exemption), and an array of bound and exemption keys that matched no set
-- @raise `calibrate.bounds.exempt[<key>]: expected a reason (non-empty string), got ...`
function M.check(summaries, bounds)
  local fails, seen = {}, {}
  local cov, exempt = bounds.coverage or {}, bounds.exempt or {}
  for k, why in pairs(exempt) do
    if type(why) ~= "string" or why == "" then
      error(format("calibrate.bounds.exempt[%q]: expected a reason (non-empty string), got %s", tostring(k),
        type(why) == "string" and '""' or tostring(why)), 0)
    end
  end
  for _, s in ipairs(summaries) do
    local key = s.set .. "|" .. s.engine
    local c = cov[key]
    if c then
      seen["coverage:" .. key] = true
      if s.coverage < c[1] or s.coverage > c[2] then
        fails[#fails + 1] = format("%s (%s): interval coverage %.1f%% outside %.0f-%.0f%%", s.set, s.engine,
          100 * s.coverage, 100 * c[1], 100 * c[2])
      end
    end
    local b = bounds[key]
    local why, ekey = exemption(exempt, key)
    if b then
      seen[key] = true
      if s.mape > b then
        fails[#fails + 1] = format("%s (%s): MAPE %.1f%% above its bound %.1f%%", s.set, s.engine, 100 * s.mape, 100 * b)
      end
    elseif why then
      seen["exempt:" .. ekey] = true
    else
      fails[#fails + 1] = format("%s (%s): MAPE %.1f%% has no bound (add [\"%s\"] = <max MAPE>, or list it "
        .. "under exempt with the reason)", s.set, s.engine, 100 * s.mape, key)
    end
  end
  local missing = {}
  for k in pairs(bounds) do
    if k ~= "coverage" and k ~= "exempt" and not seen[k] then missing[#missing + 1] = k end
  end
  for k in pairs(cov) do if not seen["coverage:" .. k] then missing[#missing + 1] = "coverage:" .. k end end
  for k in pairs(exempt) do if not seen["exempt:" .. k] then missing[#missing + 1] = "exempt:" .. k end end
  table.sort(missing)
  return fails, missing
end

return M
