--- tilewave.util.si: a number with an SI prefix and its unit, 4 significant digits.
--
--   si(1.234e-5, "s") -> "12.34 µs"; si(2.9e5, "s") -> "2.9e+05 s"; si(0, "B") -> "0 B";
--   si(1500, "") -> "1.5 k"
-- Seconds take only the prefixes below one (ms, µs, ns): "290 ks" reads badly,
-- so a long time stays in seconds. Non-finite values print as "inf" / "nan".
local format, ipairs = string.format, ipairs

local PREFIXES = { { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" }, { 1, "" },
                   { 1e-3, "m" }, { 1e-6, "µ" }, { 1e-9, "n" } }

local function trim(s) return (s:gsub(" +$", "")) end

local function si(v, unit)
  if v == 0 then return trim("0 " .. unit) end
  if v ~= v or v == math.huge or v == -math.huge then return trim(format("%s %s", tostring(v), unit)) end
  local a = v < 0 and -v or v
  if unit == "s" and a >= 0.99995 then return format("%.4g s", v) end
  for _, p in ipairs(PREFIXES) do
    if a >= p[1] * 0.99995 then return trim(format("%.4g %s%s", v / p[1], p[2], unit)) end
  end
  return trim(format("%.4g %s", v, unit))
end

return si
