--- tilewave.report.sweep_rows: the rows `tilewave sweep` streams, as CSV or JSON lines. One row per
-- configuration: its index, device id, the grid's fields, params, time_s (s), tflops (TFLOP/s),
-- mfu and tokens_per_s, each number as tilewave.util.csv.field prints it ("%.6g", integers whole).
-- @module tilewave.report.sweep_rows
local num_text = require("tilewave.util.csv").field
local json = require "tilewave.util.json"

local M = {}
local format, floor, concat, mtype = string.format, math.floor, table.concat, math.type

--- A row writer for `fmt` ("csv" or "jsonl") and the grid's varying `fields` (names, in column
-- order): a function (out, cfg, hw_id, est) that writes one row to `out`. The writer keeps
-- state (the text of a field while its value repeats), so use one per stream.
function M.writer(fmt, fields)
  if fmt ~= "csv" then
    return function(out, cfg, hw_id, est)
      local obj = { index = est.index, hw = hw_id, params = est.params, time_s = tonumber(num_text(est.time_s)),
                    tflops = tonumber(num_text(est.tflops)), mfu = tonumber(num_text(est.mfu)),
                    tokens_per_s = tonumber(num_text(est.tokens_per_s)) }
      for _, f in ipairs(fields) do obj[f] = cfg[f] end
      out:write(json.encode(obj), "\n")
    end
  end
  local row = {}
  -- a config field's text is kept while its value repeats (most rows change one field)
  local last_v, last_t = {}, {}
  return function(out, cfg, hw_id, est)
    row[1], row[2] = format("%d", est.index), hw_id
    for i, f in ipairs(fields) do
      local v = cfg[f]
      if v ~= last_v[i] or mtype(v) ~= mtype(last_v[i]) then last_v[i], last_t[i] = v, num_text(v) end
      row[2 + i] = last_t[i]
    end
    local n = 2 + #fields
    row[n + 1] = num_text(est.params)
    local t, tf, mfu, tps = est.time_s, est.tflops, est.mfu, est.tokens_per_s
    if t ~= floor(t) and tf ~= floor(tf) and mfu ~= floor(mfu) and tps ~= floor(tps) then
      -- not integral: each is csv.field's "%.6g", here in one call (formatting is most of a row's
      -- time)
      out:write(concat(row, ",", 1, n + 1), ",", format("%.6g,%.6g,%.6g,%.6g", t, tf, mfu, tps), "\n")
    else
      row[n + 2], row[n + 3], row[n + 4], row[n + 5] = num_text(t), num_text(tf), num_text(mfu), num_text(tps)
      out:write(concat(row, ",", 1, n + 5), "\n")
    end
  end
end

return M
