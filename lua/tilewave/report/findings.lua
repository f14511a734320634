--- tilewave.report.findings: published findings checked against tilewave's
-- predictions, for reproduction scripts. Each finding prints what was published,
-- what tilewave predicts, the tolerance and a verdict; the tally ends with
-- `N of M findings reproduced`, and the script exits non-zero unless N = M.
--
--   local f = findings.new("Narayanan et al. 2021, Table 1")
--   f:check { claim = "GPT 1.7B: 137 TFLOP/s per GPU", published = "137", predicted = "131.2",
--             tolerance = "15%", ok = math.abs(131.2 / 137 - 1) <= 0.15 }
--   return f:finish()   -- prints the tally; 0 if every finding holds, else 1
local M = {}

local format = string.format

local Tally = {}
Tally.__index = Tally

--- A new tally titled `title`, printing with `print_fn` (default print).
function M.new(title, print_fn)
  return setmetatable({ title = title, n = 0, ok = 0, failed = {}, print = print_fn or print }, Tally)
end

--- Check one finding: `claim` (text), `published`, `predicted`, `tolerance`
-- (texts with units), `ok` (boolean), optional `note`. Prints one block.
-- @return ok
function Tally:check(f)
  if type(f) ~= "table" or type(f.claim) ~= "string" or type(f.ok) ~= "boolean" then
    error("findings.check: expected { claim = string, ok = boolean, published, predicted, tolerance }", 2)
  end
  self.n = self.n + 1
  if f.ok then self.ok = self.ok + 1 else self.failed[#self.failed + 1] = f.claim end
  self.print(format("Finding %d: %s", self.n, f.claim))
  self.print(format("  published  %s", f.published or "-"))
  self.print(format("  tilewave   %s", f.predicted or "-"))
  self.print(format("  tolerance  %s", f.tolerance or "-"))
  self.print(format("  Verdict: %s%s", f.ok and "reproduced" or "NOT reproduced", f.note and (". " .. f.note) or ""))
  return f.ok
end

--- Print the tally and return the exit status: 0 when every finding holds, else 1.
function Tally:finish()
  self.print("")
  self.print(format("%s: %d of %d findings reproduced", self.title, self.ok, self.n))
  for _, c in ipairs(self.failed) do self.print("  not reproduced: " .. c) end
  return (self.n > 0 and self.ok == self.n) and 0 or 1
end

--- "+3.2%" for predicted / published - 1.
function M.rel(pred, pub) return format("%+.1f%%", 100 * (pred / pub - 1)) end

return M
