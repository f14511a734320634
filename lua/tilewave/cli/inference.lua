--- tilewave.cli.inference: the `decode` and `prefill` commands. A numeric option may be a
-- comma-separated list (`--batch 1,8,32`, `--context 2048,8192`; tilewave.cli.parser.int_list): one
-- answer per combination,
-- in the order the lists give (batch outermost), as a table, CSV or JSON (`runs`). Formats only;
-- every figure comes from tilewave.inference.
local tw = require "tilewave"
local text = require "tilewave.report.text"
local si = require "tilewave.util.si"
local interval = require("tilewave.report.format").interval

local M = {}
local format = string.format

-- the decode step's bounds, in words
local BOUND_TEXT = {
  memory = "weights and KV cache streamed from HBM",
  compute = "the FLOP at the dtype's sustained rate",
  overhead = "kernel launches (the engine's per-kernel cost) outlast the work",
  host = "the host's work per step (dispatch, scheduling, sampling) outlasts the GPU",
  communication = "the tensor-parallel all-reduces outlast the work",
  ceiling = "held to the device's datasheet limits",
}

-- every (a, b) pair of two lists, a outermost
local function pairs_of(as, bs)
  local out = {}
  for _, a in ipairs(as) do for _, b in ipairs(bs) do out[#out + 1] = { a, b } end end
  return out
end

local function write_rows(out, fmt, header, rows, runs)
  if fmt == "json" then
    out:write(tw.report.json { runs = runs }, "\n")
  elseif fmt == "csv" then
    local csv = require "tilewave.util.csv"
    out:write(table.concat(header, ","), "\n")
    for _, r in ipairs(rows) do
      local cells = {}
      for i, c in ipairs(r) do cells[i] = csv.field(c) end
      out:write(table.concat(cells, ","), "\n")
    end
  else
    out:write(tw.report.table(header, rows), "\n")
  end
end

--- `tilewave decode MODEL [--batch B[,B...]] [--context C[,C...]] ...`: a decode step (TPOT) and
-- the memory fit, per (batch, context).
function M.decode(args, out)
  local spec = tw.hw.resolve(args.hw, "decode.hw")
  local combos, runs, rows = pairs_of(args.batch, args.context), {}, {}
  local engine = args.engine
  if args.decode_attention then engine = { base = args.engine, decode_attention = args.decode_attention } end
  for _, bc in ipairs(combos) do
    local o = { model = args.model, hw = args.hw, context = bc[2], batch = bc[1], weight_dtype = args.weight_dtype,
                group = args.group, kv_dtype = args.kv_dtype, t = args.t, engine = engine,
                allow_long_context = args.allow_long_context or nil, ep = args.ep, speculative = args.speculative }
    local d = tw.inference.decode(o)
    local m
    if tw.hw.memory(spec) then
      -- a draft's weights and cache count too (tilewave.cost.speculative.memory)
      local sp = o.speculative
      o.engine, o.speculative = nil, sp
      m = sp and require("tilewave.cost.speculative").memory(o) or tw.inference.memory(o)
    end
    if m and not m.fits then
      -- no time for what does not fit: the shortfall and what would fit instead
      local near = require("tilewave.explore.memory_fit").nearest(o, m)
      runs[#runs + 1] = { fits = false, memory = m, would_fit = near, header = d }
      rows[#rows + 1] = { tostring(bc[1]), tostring(bc[2]), "does not fit", "-", "-", "-",
        format("short by %s", si(m.total_bytes - m.memory_bytes, "B")), si(m.total_bytes, "B") }
    else
      runs[#runs + 1] = { decode = d, memory = m or false }
      rows[#rows + 1] = { tostring(bc[1]), tostring(bc[2]), si(d.tpot_s, "s") .. interval(d.interval),
        format("%.1f", d.tokens_per_s), format("%.1f", d.aggregate_tokens_per_s), d.bound,
        m and "fits" or "-", m and si(m.total_bytes, "B") or "-" }
    end
  end
  -- JSON: a configuration that does not fit carries fits = false, its memory and would_fit, no decode
  local function json_run(r)
    if r.fits ~= false then return r end
    local h = r.header
    return { fits = false, memory = r.memory, would_fit = r.would_fit, model = h.model, hw = h.hw, batch = h.batch,
             context = h.context, weight_dtype = h.weight_dtype, kv_dtype = h.kv_dtype, t = h.t, engine = h.engine }
  end
  if #combos == 1 and args.format ~= "csv" then
    local r = runs[1]
    if args.format == "json" then out:write(tw.report.json(json_run(r)), "\n")
    elseif r.fits == false then out:write(text.decode_unfit(r.header, r.memory, r.would_fit), "\n")
    else out:write(text.decode(r.decode, r.memory or nil), "\n") end
    return 0
  end
  for i, r in ipairs(runs) do runs[i] = json_run(r) end
  local first = runs[1].decode or runs[1]
  if args.format == "text" then
    local d = first
    out:write(format("decode %s on %s: %s weights, %s KV cache, t = %d, %s engine\n", d.model, d.hw, d.weight_dtype,
      d.kv_dtype, d.t, d.engine))
  end
  write_rows(out, args.format, { "batch", "context", "TPOT", "tokens/s/seq", "tokens/s", "bound", "memory", "bytes" },
    rows, runs)
  if args.format == "text" then
    -- what each bound in the table means (tilewave.cost.inference.decode)
    local seen, parts = {}, {}
    for _, r in ipairs(runs) do
      local b = r.decode and r.decode.bound
      if BOUND_TEXT[b] and not seen[b] then seen[b], parts[#parts + 1] = true, b .. " = " .. BOUND_TEXT[b] end
    end
    if #parts > 0 then out:write("bound: ", table.concat(parts, "; "), "\n") end
    -- rows that do not fit: no time, and the nearest configuration that does (explore.memory_fit)
    for i, r in ipairs(runs) do
      if r.fits == false then
        local alts = {}
        for _, n in ipairs(r.would_fit) do alts[#alts + 1] = n.text end
        out:write(format("batch %d, context %d %s; would fit: %s\n", combos[i][1], combos[i][2],
          require("tilewave.explore.memory_fit").shortfall(r.memory), #alts > 0 and table.concat(alts, "; or ")
          or "nothing near"))
      end
    end
    -- rows whose decode attention leaves SMs idle (tilewave.cost.price.decode_kv_eff)
    local idle = {}
    for i, r in ipairs(runs) do
      if r.decode and r.decode.kv_eff < 1 then idle[#idle + 1] = format("batch %d, context %d: %.0f%%", combos[i][1], combos[i][2],
        100 * r.decode.kv_eff) end
    end
    if #idle > 0 then
      out:write("attention: the KV cache streams from too few SMs (", table.concat(idle, "; "), " of the rate)\n")
    end
  end
  return 0
end

--- `tilewave prefill MODEL --prompt N[,N...] [--batch B[,B...]] ...`: time to first token, the
-- forward pass over the prompt (tilewave.inference.prefill), per (batch, prompt).
function M.prefill(args, out)
  if args.prompt == nil then error("prefill.prompt: expected positive integer (--prompt N), got nil", 0) end
  local combos, runs, rows = pairs_of(args.batch, args.prompt), {}, {}
  local spec, unfit = tw.hw.resolve(args.hw, "prefill.hw"), {}
  for _, bp in ipairs(combos) do
    -- named as the user typed them before the memory check reads them
    require("tilewave.util.check").positive_int(bp[1], "prefill.batch")
    require("tilewave.util.check").positive_int(bp[2], "prefill.prompt")
    -- weights (in the compute dtype when it is 8-bit: fp8 checkpoints) and the prompt's KV cache must fit
    local mo = { model = args.model, hw = args.hw, batch = bp[1], context = bp[2], t = args.t,
                 weight_dtype = (args.dtype == "fp8" or args.dtype == "int8") and args.dtype or nil,
                 allow_long_context = args.allow_long_context or nil }
    local m = tw.hw.memory(spec) and tw.inference.memory(mo)
    if m and not m.fits then
      local near = require("tilewave.explore.memory_fit").nearest(mo, m)
      runs[#runs + 1] = { model = m.model, hw = m.hw, batch = bp[1], prompt = bp[2], fits = false, memory = m,
                          would_fit = near }
      rows[#rows + 1] = { tostring(bp[1]), tostring(bp[2]), "does not fit", "-", "-", "-" }
      unfit[#unfit + 1] = #runs
      goto continue
    end
    local r = tw.inference.prefill { model = args.model, hw = args.hw, batch = bp[1], prompt = bp[2], t = args.t,
                                     dtype = args.dtype, attention = args.attention, engine = args.engine,
                                     allow_long_context = args.allow_long_context or nil }
    runs[#runs + 1] = { model = r.model, hw = r.hw, batch = r.batch, prompt = r.prompt, ttft_s = r.ttft_s,
                        interval = r.interval, tflops = r.tflops, mfu = r.mfu, flops = r.flops,
                        tokens_per_s = r.batch * r.prompt / r.ttft_s, engine = r.engine }
    rows[#rows + 1] = { tostring(bp[1]), tostring(bp[2]), si(r.ttft_s, "s") .. interval(r.interval),
      si(r.batch * r.prompt / r.ttft_s, ""), format("%.1f", r.tflops), format("%.1f%%", 100 * r.mfu) }
    ::continue::
  end
  if args.format == "text" then
    local r = runs[1]
    out:write(format("prefill %s on %s: %s, %s attention, t = %d, %s engine (TTFT: the forward over the prompt)\n",
      r.model, r.hw, args.dtype, args.attention, args.t, tw.engines.resolve(args.engine, "prefill.engine").name))
  end
  write_rows(out, args.format, { "batch", "prompt", "TTFT", "tokens/s", "TFLOP/s", "MFU" }, rows, runs)
  if args.format == "text" then
    local mf = require "tilewave.explore.memory_fit"
    for _, i in ipairs(unfit) do
      local r, alts = runs[i], {}
      for _, n in ipairs(r.would_fit) do alts[#alts + 1] = n.text end
      out:write(format("batch %d, prompt %d %s; would fit: %s\n", r.batch, r.prompt, mf.shortfall(r.memory),
        #alts > 0 and table.concat(alts, "; or ") or "nothing near"))
    end
  end
  return 0
end

return M
