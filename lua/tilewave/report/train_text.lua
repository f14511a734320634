--- tilewave.report.train_text: the text of `tilewave train --search` - every split that fits,
-- fastest first (tilewave.training.search), and the reasons when none does. Formats only.
-- @module tilewave.report.train_text
local text = require "tilewave.report.text"
local si = require "tilewave.util.si"
local tables = require "tilewave.util.tables"

local M = {}
local format = string.format

--- The three most common reasons of `rejected` ({ reason }) as "N: reason; ...", numbers of GB
-- per GPU merged, most common first.
function M.reasons(rejected)
  local count, order = {}, {}
  for _, r in ipairs(rejected) do
    local why = r.reason:gsub("[%d.]+ GB per GPU", "N GB per GPU")
    if not count[why] then order[#order + 1] = why end
    count[why] = (count[why] or 0) + 1
  end
  table.sort(order, function(x, y) return count[x] > count[y] or (count[x] == count[y] and x < y) end)
  local parts = {}
  for i = 1, math.min(3, #order) do parts[i] = format("%d: %s", count[order[i]], order[i]) end
  return table.concat(parts, "; ")
end

-- rows equal but for checkpointing, with the same step time and memory, merged (with
-- FlashAttention, selective recomputation has nothing to recompute: it recomputes the attention
-- scores, Korthikanti et al. 2022 Sec. 5, which a fused kernel never stores)
local function merge_ties(ranked)
  local shown, tied = {}, false
  for _, r in ipairs(ranked) do
    local c, last = r.config, shown[#shown]
    local lc = last and last.r.config
    if last and lc.t == c.t and lc.p == c.p and lc.d == c.d and lc.micro_batch == c.micro_batch and lc.zero == c.zero
       and last.r.step_s == r.step_s and last.r.memory_bytes == r.memory_bytes then
      last.ckpt[#last.ckpt + 1] = c.checkpointing
      tied = true
    else
      shown[#shown + 1] = { r = r, ckpt = { c.checkpointing } }
    end
  end
  return shown, tied
end

--- The text of a search `res` ({ ranked, rejected }, ranked not empty): a header, the first `top`
-- rows (ties in checkpointing on one row, "a=b"), and the counts.
-- @return the text, newline-terminated
function M.ranked(res, top)
  local k = res.ranked[1].config
  local lines = { format("train %s on %d x %s (%d GPUs): global batch %d sequences x s = %d tokens (%s tokens per "
    .. "step), %s, %s attention, %s engine; every t, p, d, micro-batch, checkpointing and ZeRO stage that fits, "
    .. "fastest first", k.model, k.nodes, k.cluster, k.gpus, k.global_batch, k.s,
    si(k.global_batch * k.s, ""), k.dtype, k.attention, k.engine) }
  local shown, tied = merge_ties(res.ranked)
  for i = 1, math.min(top, #shown) do
    local e, r = shown[i], shown[i].r
    if #e.ckpt > 1 then
      local cfg = tables.copy(r.config)
      cfg.checkpointing = table.concat(e.ckpt, "=")
      r = tables.copy(r)
      r.config = cfg
    end
    lines[#lines + 1] = format("%3d. %s", i, text.train_line(r))
  end
  if tied then
    lines[#lines + 1] = "a=b: checkpointing a and b tie in step time and memory, one row (with flash attention "
      .. "selective recomputation has nothing to recompute: the attention scores it would redo are never stored)"
  end
  lines[#lines + 1] = format("%d valid, %d rejected", #res.ranked, #res.rejected)
  return table.concat(lines, "\n") .. "\n"
end

return M
