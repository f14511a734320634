-- Helpers of the serving specs: a run of tw.serve.simulate from defaults with fields replaced (a
-- `workload` table merged field by field), and the message of a call that must fail.
local tw = require "tilewave"

local M = {}

--- tw.serve.simulate of `defaults` with the fields of `o` (its `workload` merged into theirs).
function M.simulate(defaults, o)
  local q = {}
  for k, v in pairs(defaults) do q[k] = v end
  if defaults.workload then
    q.workload = {}
    for k, v in pairs(defaults.workload) do q.workload[k] = v end
  end
  for k, v in pairs(o or {}) do
    if k == "workload" and q.workload then for a, b in pairs(v) do q.workload[a] = b end else q[k] = v end
  end
  return tw.serve.simulate(q)
end

--- The error message of `f()`, asserting that it fails.
function M.err(f)
  local ok, e = pcall(f)
  if ok then error("expected the call to fail, and it succeeded", 2) end
  return e
end

return M
