--- tilewave.report.size_text: the text, CSV and JSON of `tilewave serve --search`
-- (tilewave.serve.size): deployments ranked by cost per million output tokens, with how to launch
-- each, those below the confidence, the rejected with their reasons, and the prices used. Formats
-- only. Units: s (SI prefixes in text), req/s, tokens/s, USD.
-- @module tilewave.report.size_text
local si = require "tilewave.util.si"
local json = require "tilewave.util.json"
local table_text = require("tilewave.report.format").table

local M = {}
local format = string.format

--- The device column of deployment `d`: its device, or prefill+decode devices of mixed pools.
function M.hw_of(d)
  return d.decode and d.decode.hw ~= d.hw and d.hw .. "+" .. d.decode.hw or d.hw
end

local HEADER = { "rank", "hw", "mode", "weights", "GPUs", "t/ep/pp", "replicas", "max seqs", "max req/s", "TTFT p99", "TPOT p99", "p_meet", "tok/s/GPU",
                 "tok/s/user", "$/hour", "$/M out tok" }

-- the search as CSV, numbers in SI units: one row per deployment ranked, then those below the
-- confidence (rank empty)
local CSV_HEADER = { "rank", "hw", "mode", "weight_dtype", "gpus", "t", "ep", "pp", "replicas", "max_num_seqs", "max_rate_rps", "ttft_s",
                     "tpot_s", "slo_percentile", "p_meet", "output_tokens_per_s_per_gpu", "tokens_per_s_per_user",
                     "usd_per_hour", "usd_per_million_output_tokens", "launch_command" }
local function csv_of(r, a)
  local csv = require "tilewave.util.csv"
  local out = { table.concat(CSV_HEADER, ",") }
  for _, part in ipairs { { r.deployments, true }, { r.below_confidence, false } } do
    for i, d in ipairs(part[1]) do
      if i > a.top then break end
      local q = "p" .. tostring(math.tointeger(d.slo.percentile) or d.slo.percentile)
      local dis = d.mode == "disagg"
      local row = { part[2] and i or "", M.hw_of(d), d.mode, d.weight_dtype, d.gpus, dis and format("%d/%d", d.prefill.t, d.decode.t) or d.t, d.ep or 1, d.pp or 1,
        dis and format("%dP%dD", d.prefill.replicas, d.decode.replicas) or d.replicas, d.max_num_seqs, d.max_rate_rps,
        d.ttft_s[q], d.tpot_s[q], d.slo.percentile, d.p_meet, d.output_tokens_per_s_per_gpu, d.tokens_per_s_per_user,
        d.cost_per_hour, d.cost_per_million_output_tokens }
      -- one replica's command; disaggregated pools as "prefill: ...; decode: ..."
      local l = d.launch or {}
      row[#row + 1] = l.command or (l.pools and format("prefill: %s; decode: %s", l.pools.prefill.command,
        l.pools.decode.command)) or ""
      for j, c in ipairs(row) do row[j] = csv.field(c) end
      out[#out + 1] = table.concat(row, ",")
    end
  end
  return table.concat(out, "\n") .. "\n"
end

local function rows_of(list, top, start)
  local rows = {}
  for i, d in ipairs(list) do
    if i > top then break end
    local q = "p" .. tostring(math.tointeger(d.slo.percentile) or d.slo.percentile)
    local dis = d.mode == "disagg"
    rows[#rows + 1] = { start and tostring(i) or "-", M.hw_of(d), d.mode, d.weight_dtype, tostring(d.gpus),
      dis and format("%d/%d", d.prefill.t, d.decode.t) or (d.ep or 1) > 1 and "ep " .. d.ep
        or (d.pp or 1) > 1 and format("%dx%dpp", d.t, d.pp) or tostring(d.t),
      dis and format("%dP%dD", d.prefill.replicas, d.decode.replicas) or tostring(d.replicas), tostring(d.max_num_seqs),
      format("%.1f", d.max_rate_rps), si(d.ttft_s[q], "s"), si(d.tpot_s[q], "s"), format("%.2f", d.p_meet),
      format("%.0f", d.output_tokens_per_s_per_gpu), format("%.1f", d.tokens_per_s_per_user),
      format("%.2f", d.cost_per_hour), format("%.3f", d.cost_per_million_output_tokens) }
  end
  return rows
end

--- A tilewave.serve.size result `r` as `a.format` ("json", "csv", else a text table), its first
-- `a.top` rows of each list; `a.model` and `a.engine` name the search in the text's header.
-- @return the text, newline-terminated
function M.render(r, a)
  if a.format == "json" then return json.encode(r) .. "\n" end
  if a.format == "csv" then return csv_of(r, a) end
  local slo = r.slo
  -- a conversation workload's rate starts conversations (tilewave.serve.workload.conversation)
  local unit = a.turns and format("conversations/s of %d turns (the max rate column too)", a.turns) or "req/s"
  local limits = {} -- an SLO may give TTFT, TPOT or both
  if slo.ttft_s then limits[#limits + 1] = "TTFT <= " .. si(slo.ttft_s, "s") end
  if slo.tpot_s then limits[#limits + 1] = "TPOT <= " .. si(slo.tpot_s, "s") end
  local lines = { format("size %s: %g %s within %s at p%s (%s), cheapest first; p_meet over %d step-cost draws, "
    .. "ranked at >= %.2f", a.model, r.rate, unit, table.concat(limits, ", "),
    tostring(slo.percentile or 99), a.engine, r.samples, r.confidence) }
  if a.speculative then -- every deployment runs the draft: the header names it, and an assumed acceptance
    local spm = require "tilewave.cost.speculative"
    local sd = spm.resolve(a.speculative, "size.speculative")
    lines[1] = lines[1] .. require("tilewave.report.text").speculative { draft = type(sd.draft) == "table"
      and (sd.draft.id or sd.draft.name) or sd.draft, k = sd.k, acceptance = sd.acceptance,
      acceptance_assumed = sd.acceptance_assumed, tokens_per_step = spm.tokens_per_step(sd.k, sd.acceptance) }
  end
  if #r.deployments > 0 then
    lines[#lines + 1] = table_text(HEADER, rows_of(r.deployments, a.top, true))
  else
    lines[#lines + 1] = "no deployment meets the SLO with that confidence"
  end
  if #r.deployments > 0 then
    -- how to start each ranked deployment, in its engine's own flags (tilewave.serve.launch)
    local placeholder = false
    for i, d in ipairs(r.deployments) do
      if i > a.top then break end
      local l = d.launch or {}
      for _, cmd in ipairs { l.command or "", l.pools and l.pools.prefill.command or "" } do
        placeholder = placeholder or cmd:find("<checkpoint of ", 1, true) ~= nil
      end
    end
    lines[#lines + 1] = placeholder and "\nlaunch (replace '<checkpoint of ...>' with the model's Hugging Face repo or path):"
      or "\nlaunch:"
    for i, d in ipairs(r.deployments) do
      if i > a.top then break end
      local l = d.launch or {}
      if l.pools then
        local mixed = d.decode.hw ~= d.hw -- each pool named by its device
        lines[#lines + 1] = format("  %d  prefill x%d%s: %s", i, l.pools.prefill.copies, mixed and " on " .. d.hw or "",
          l.pools.prefill.command)
        lines[#lines + 1] = format("     decode x%d%s: %s", l.pools.decode.copies, mixed and " on " .. d.decode.hw or "",
          l.pools.decode.command)
      elseif l.command then
        lines[#lines + 1] = format("  %d  %s%s", i, l.command, l.copies > 1 and format("  (x%d)", l.copies) or "")
      end
      if l.note then lines[#lines + 1] = "     " .. l.note end
    end
  end
  if #r.below_confidence > 0 then
    lines[#lines + 1] = format("\nmeeting the SLO at the point estimate, below p_meet %.2f:", r.confidence)
    lines[#lines + 1] = table_text(HEADER, rows_of(r.below_confidence, a.top, false))
  end
  if #r.rejected > 0 then
    lines[#lines + 1] = "\nleft out:"
    for _, x in ipairs(r.rejected) do
      lines[#lines + 1] = format("  %s%s: %s", x.hw, x.t and (" t = " .. x.t) or "", x.reason)
    end
  end
  if #r.prices > 0 then
    local parts = {}
    for _, p in ipairs(r.prices) do
      parts[#parts + 1] = format("%s $%.3f (%s)", p.hw, p.per_gpu_hour, p.source == "given" and "--price" or p.source)
    end
    lines[#lines + 1] = "\nprices, USD per GPU-hour (each hw file's price: provider, date; --price overrides): "
      .. table.concat(parts, "; ")
  end
  if #r.unpriced > 0 then
    lines[#lines + 1] = "\nno price (name them with --hw and --price to include): " .. table.concat(r.unpriced, ", ")
  end
  return table.concat(lines, "\n") .. "\n"
end

return M
