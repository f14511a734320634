--- tilewave.report.calibration_text: the text of `tilewave calibrate`: the error per calibration
-- set and engine (MAPE, bias, worst, interval coverage), the rows, the GEMM intervals out of
-- sample, and a fit's parameters and before/after errors. Formats only: every figure comes from
-- tilewave.explore.accuracy and tilewave.explore.fit. Units: s; errors in percent of the measured.
-- @module tilewave.report.calibration_text
local json = require "tilewave.util.json"
local table_text = require("tilewave.report.format").table

local M = {}
local format = string.format

local function pct(x) return format("%.1f%%", 100 * x) end

--- The accuracy of sets `sums` (tilewave.explore.accuracy.summarize), with every row of `rows` when
-- given and the out-of-sample interval coverage `cv` (tilewave.explore.accuracy.interval_cv, may be
-- empty), as `fmt` "json" (`sets`, `rows`) or text tables.
-- @return the text, newline-terminated
function M.accuracy(sums, rows, cv, fmt)
  if fmt == "json" then return json.encode({ sets = sums, rows = rows }) .. "\n" end
  local parts = {}
  if rows then
    local t = {}
    for _, r in ipairs(rows) do
      t[#t + 1] = { r.set, r.engine, r.label or "", format("%.4g", r.measured), format("%.4g", r.predicted),
                    format("%+.1f%%", 100 * (r.predicted - r.measured) / r.measured),
                    format("%.4g-%.4g", r.low, r.high) }
    end
    parts[#parts + 1] = table_text({ "set", "engine", "row", "measured s", "predicted s", "error", "interval s" }, t)
      .. "\n\n"
  end
  local t = {}
  for _, s in ipairs(sums) do
    t[#t + 1] = { s.set, s.engine, tostring(s.n), pct(s.mape), format("%+.1f%%", 100 * s.bias),
                  format("%+.1f%%", 100 * s.worst), pct(s.coverage) }
  end
  parts[#parts + 1] = table_text({ "set", "engine", "rows", "MAPE", "bias", "worst", "in interval" }, t) .. "\n"
  if #cv > 0 then
    -- the intervals out of sample: refit on 4/5 of the first H100's shapes, and on other devices
    local ct, head = {}, { "dtype", "rows", "in sample", "5-fold by shape" }
    for _, d in ipairs(cv[1].devices) do head[#head + 1] = "on " .. d.name end
    for _, c in ipairs(cv) do
      local line = { c.dtype, tostring(c.n), pct(c.in_sample), pct(c.kfold) }
      for _, d in ipairs(c.devices) do line[#line + 1] = pct(d.coverage) end
      ct[#ct + 1] = line
    end
    parts[#parts + 1] = "\nGEMM intervals out of sample (5th-95th percentile of measured / predicted on the first "
      .. "H100's random half, nominal 90%):\n" .. table_text(head, ct) .. "\n"
  end
  return table.concat(parts)
end

--- A fit `r` (tilewave.explore.fit.run) of `how.base` to folder `how.dir` (with the sets held out,
-- `how.holdout`): its parameters, the GEMM and attention errors before and after, and the
-- folder's sets under the base (`before`) and the fitted spec (`after`).
-- @return the text, newline-terminated
function M.fit(r, how, before, after)
  local lines = {}
  local t = {}
  for _, p in ipairs(r.params) do
    local range = p.low and format("%.4g-%.4g", p.low, p.high) or (p.identified == false and "not identified" or "")
    t[#t + 1] = { p.name, format("%.4g", p.value), p.prior and format("%.4g", p.prior) or "", range }
  end
  lines[#lines + 1] = format("fitted %s to %s (%s, measured %s): %d GEMMs in %d groups; device figures (peaks, "
    .. "bandwidth, SMs) of %s\n\n", how.base, how.dir, r.info.device, r.info.date, r.rows, r.groups, r.figures)
  lines[#lines + 1] = table_text({ "parameter", "value", "base (prior)", "range (loss within 1%)" }, t) .. "\n"
  lines[#lines + 1] = "A parameter 'not identified' moves no fitted row: it keeps the base's value.\n\n"
  lines[#lines + 1] = format("GEMM mean group MAPE: %.1f%% with the base's parameters, %.1f%% fitted\n",
    100 * r.gemm_before, 100 * r.gemm_after)
  if r.check_after then
    lines[#lines + 1] = format("on the rows the fit did not see (%s): %.1f%% with the base's, %.1f%% fitted\n",
      r.check_rows, 100 * r.check_before, 100 * r.check_after)
  end
  for _, a in ipairs(r.attention) do
    lines[#lines + 1] = format("%s (%d rows): %.1f%% -> %.1f%%\n", a.set, a.n, 100 * a.before, 100 * a.after)
  end
  local rows, held = {}, {}
  for _, set in ipairs(how.holdout) do held[set] = true end
  for i, s in ipairs(after) do
    local b, name = before[i], s.set:gsub("^fitted: ", "")
    local gset = name:match("^gemm (%S+) ")
    rows[#rows + 1] = { name, s.engine, tostring(s.n), b and pct(b.mape) or "", pct(s.mape), pct(s.coverage),
                        gset and held[gset] and "held out" or "" }
  end
  lines[#lines + 1] = "\n" .. table_text({ "set", "engine", "rows", "MAPE base", "MAPE fitted", "in interval", "" },
    rows) .. "\n"
  return table.concat(lines)
end

-- "-" for a figure the file does not hold (tilewave.explore.serving_fit.errors: nil)
local function spct(x) return x == nil and "-" or format("%+.1f%%", 100 * x) end

--- A serving fit `f` (tilewave.explore.serving_fit) to the benchmark results `list`
-- (tilewave.data.serving_results) for `args` ({ model, hw, t, dir }): what was fitted, and the
-- errors of the base and of the fit on the held-back requests (or the summaries' statistics).
-- @return the text, newline-terminated
function M.serving(f, list, args)
  local tbl, parts = table_text, {}
  local rows = {}
  for _, r in ipairs { { "base " .. f.base, f.before }, { "fitted", f.after } } do
    local e = r[2].held
    rows[#rows + 1] = { r[1], e.ttft_mape and pct(e.ttft_mape) or "-", spct(e.ttft_bias),
                        e.tpot_mape and pct(e.tpot_mape) or "-", spct(e.tpot_bias), spct(e.itl_p99),
                        spct(e.throughput), format("%.3f", r[2].fit.loss), format("%.3f", e.loss) }
  end
  parts[#parts + 1] = format("calibrate --serving: %s on %s, t = %d, engine %s\n", args.model, args.hw, args.t,
    f.base)
  local notes = {}
  for _, res in ipairs(list) do
    parts[#parts + 1] = format("  %s: %s %s, %d requests, %s\n", res.path, res.format,
      res.aggregate and "summary" or "per request", res.completed, res.load or (res.rate < math.huge
        and format("paced at %g req/s", res.rate) or "unpaced"))
    if res.count_assumed then notes[#notes + 1] = res.count_assumed end
  end
  -- each fitted value with its bounds, flagged where it sits on one (the data pull it past)
  local function value(name, v, base, lo, hi, unit, k)
    -- on a bound the search moved it to (a base value of 0 kept at 0 is the base, not a bound hit)
    local at = v <= lo and base > lo and " AT ITS LOWER BOUND" or v >= hi and " AT ITS UPPER BOUND" or ""
    if at ~= "" then
      notes[#notes + 1] = format("%s sits on its bound: the data pull it past what the search allows, so "
        .. "the errors left are not this term's to fix", name)
    end
    return format("%s %.4g %s (base %.4g %s, bounds %g-%g %s)%s", name, v * k, unit, base * k, unit, lo * k, hi * k,
      unit, at)
  end
  parts[#parts + 1] = format("fitted %s,\n       %s,\n       %s; %d replays\n",
    value("token_host_s", f.token_host_s, f.base_token_host_s, 0, f.bounds.token_host_s, "ms", 1e3),
    value("seq_host_s", f.seq_host_s, f.base_seq_host_s, 0, f.bounds.seq_host_s, "µs", 1e6),
    value("frontend_s", f.frontend_s, f.base_frontend_s, 0, f.bounds.frontend_s, "ms", 1e3), f.evaluations)
  local agg = false
  for _, res in ipairs(list) do agg = agg or res.aggregate end
  parts[#parts + 1] = agg and "errors on the summaries' statistics (a summary holds no requests to hold back); TTFT "
    .. "and TPOT over their mean, p50 and p90 (p99 where a file has no p90):\n" or "errors on the held-back "
    .. "(odd-numbered) requests; TTFT and TPOT over their mean, p50 and p90:\n"
  parts[#parts + 1] = tbl({ "engine", "TTFT MAPE", "TTFT bias", "TPOT MAPE", "TPOT bias", "ITL p99", "throughput",
    "fit loss", "held loss" }, rows) .. "\n"
  for _, n in ipairs(notes) do parts[#parts + 1] = "note: " .. n .. "\n" end
  return table.concat(parts)
end

return M
