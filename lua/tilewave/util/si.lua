--- tilewave.util.si: a number with an SI prefix and its unit, 4 significant digits.
--
--   si(1.234e-5, "s") -> "12.34 us"; si(0, "B") -> "0 B"
local format, ipairs = string.format, ipairs

local PREFIXES = { { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" }, { 1, "" },
                   { 1e-3, "m" }, { 1e-6, "u" }, { 1e-9, "n" } }

local function si(v, unit)
  if v == 0 then return "0 " .. unit end
  local a = v < 0 and -v or v
  for _, p in ipairs(PREFIXES) do
    if a >= p[1] * 0.99995 then return format("%.4g %s%s", v / p[1], p[2], unit) end
  end
  return format("%.4g %s", v, unit)
end

return si
