--- tilewave.serve.size_candidates: the deployments the sizing search (tilewave.serve.size) tries,
-- in a fixed order, and the ones it leaves out with their reasons. Per priced device, at its weight
-- format (tilewave.serve.size_devices.choice): with mode "agg", one replica of t GPUs (times pp
-- pipeline stages) for every t and pp, then the expert-parallel groups; with "disagg", prefill and
-- decode pools of every (t_p, t_d) on that device; with "mixed", pools of every (t_p, t_d) on every
-- ordered pair of two priced devices of one weight format (the KV cache crossing nodes between
-- them, tilewave.serve.steps.transfer). Data only: nothing here runs a simulation.
-- @module tilewave.serve.size_candidates
local transformer = require "tilewave.ops.transformer"
local sizedev = require "tilewave.serve.size_devices"

local M = {}

--- The candidates of search options `q` (validated) for model config `c` on devices `specs`.
-- @tparam table modes set of "agg", "disagg", "mixed"
-- @tparam table ts tensor-parallel sizes; `eps`, `pps` expert-parallel and pipeline sizes
-- @return candidates `{ { kind = "agg", spec, q (the options at its weight format), cost_h, t, ep,
--   pp, label } | { kind = "disagg", spec, q, cost_h, tp, td, dspec, dcost_h, label } }`, rejected
--   `{ { hw, t, reason } }`, prices `{ { hw, per_gpu_hour, source } }`
--- The tensor-parallel sizes the search tries on device `spec`: `ts`, and when they are the
-- defaults (`auto`), the powers of two past them up to its node's NVLink domain
-- (tilewave.data.cluster.of_device: 72 on a GB200 NVL72, where tensor parallelism of 16 to 64 GPUs
-- stays on NVLink) and `max_gpus`.
function M.t_sizes(ts, spec, auto, max_gpus)
  if not auto then return ts end
  local cluster = require "tilewave.data.cluster"
  local domain = cluster.domain(cluster.of_device(spec))
  local out, top = {}, 0
  for i, t in ipairs(ts) do out[i] = t; if t > top then top = t end end
  local t = top * 2
  while t <= domain and t <= max_gpus do out[#out + 1] = t; t = t * 2 end
  return out
end

function M.list(q, c, specs, modes, ts, eps, pps, auto)
  local out, rejected, prices, priced = {}, {}, {}, {}
  local function divides(t) return pcall(transformer.check_t, c, t, "t") end
  for _, spec in ipairs(specs) do
    local cost_h, src = sizedev.price_of(spec, q.prices, "size")
    if not cost_h then
      rejected[#rejected + 1] = { hw = spec.id, reason = "no price (give one in prices)" }
    else
      prices[#prices + 1] = { hw = spec.id, per_gpu_hour = cost_h, source = src }
      local wd, left = sizedev.choice(q, spec, c)
      if left then rejected[#rejected + 1] = { hw = spec.id, reason = left } end
      local qd = setmetatable({ weight_dtype = wd }, { __index = q })
      priced[#priced + 1] = { spec = spec, cost_h = cost_h, q = qd, wd = wd }
      for _, t in ipairs(M.t_sizes(ts, spec, auto, q.max_gpus)) do
        if not divides(t) then
          rejected[#rejected + 1] = { hw = spec.id, t = t, reason = "t does not divide the heads" }
        elseif t > q.max_gpus then
          rejected[#rejected + 1] = { hw = spec.id, t = t, reason = "t above max_gpus" }
        elseif modes.agg then
          for _, pp in ipairs(pps) do
            if t * pp <= q.max_gpus then
              out[#out + 1] = { kind = "agg", spec = spec, q = qd, cost_h = cost_h, t = t, pp = pp,
                                label = pp > 1 and t .. "x" .. pp or t }
            end
          end
        end
      end
      for _, ep in ipairs(eps) do
        out[#out + 1] = { kind = "agg", spec = spec, q = qd, cost_h = cost_h, t = 1, ep = ep, label = "ep" .. ep }
      end
    end
  end
  -- disaggregated pools: on one device, then (mixed) on two
  local pairs_of = {}
  for _, a in ipairs(modes.disagg and priced or {}) do pairs_of[#pairs_of + 1] = { a, a } end
  for _, a in ipairs(modes.mixed and priced or {}) do
    for _, b in ipairs(priced) do
      if a ~= b and a.wd == b.wd then pairs_of[#pairs_of + 1] = { a, b }
      elseif a ~= b then
        rejected[#rejected + 1] = { hw = a.spec.id .. "+" .. b.spec.id, reason = "mixed pools of two weight formats" }
      end
    end
  end
  for _, pr in ipairs(pairs_of) do
    local a, b = pr[1], pr[2]
    for _, tp in ipairs(ts) do
      for _, td in ipairs(ts) do
        if tp + td <= q.max_gpus and divides(tp) and divides(td) then
          out[#out + 1] = { kind = "disagg", spec = a.spec, q = a.q, cost_h = a.cost_h, tp = tp, td = td,
                            dspec = b.spec, dcost_h = b.cost_h,
                            hw = a == b and a.spec.id or a.spec.id .. "+" .. b.spec.id, label = tp .. "P/" .. td .. "D" }
        end
      end
    end
  end
  return out, rejected, prices
end

return M
