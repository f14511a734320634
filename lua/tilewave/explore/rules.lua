--- tilewave.explore.rules: the co-design paper's sizing rules, checked with fixes whose
-- speedups the model computes.
--
-- Rules of Anthony et al. 2024, arXiv 2401.14489 (the first author's summary
-- in stas00/ml-engineering, "Vector and matrix size divisibility"; Fig. 7
-- caption "up to h/a = 64"; see ../shared/reference/paper_2401_14489.md §2):
--   vocab_64        v divisible by 64
--   tokens_64       b*s divisible by 64 (else by as large a power of two as possible)
--   head_dim_64     h/a divisible by 64 (else by as large a power of two as possible)
--   hidden_per_rank h/t divisible by 64
--   heads_per_rank  (b*a)/t an integer
--   t_small         t as small as possible (here: the smallest t whose weights fit)
--   glu_width       SwiGLU/GeGLU width: search near the configured width (8h/3
--                   for the original rule) for a well-shaped value
--   moe_tokens_per_expert  MoE: b*s*k/E tokens per expert at least one tile of rows
--                   (tilewave's addition: the expert GEMMs' tile quantization)
--   expert_width_64 MoE expert width (moe_intermediate_size, or I) a multiple of 64
--   mla_dims_64     MLA latent and head widths (q/kv_lora_rank, qk_nope/rope, v) multiples
--                   of 64 (tilewave's additions: the same GEMM alignment rule on new dimensions)
-- Each violation carries a concrete fix and its predicted speedup from
-- tilewave.transformer.estimate, but only when the fix is predicted at least M.FIX_MARGIN
-- faster; otherwise the violation stays, without `fix`, and `fix_text` says what was tried and
-- its prediction (`predicted`): a recommendation is never predicted slower than what it
-- replaces. For fixes that keep the work (padding,
-- head count), forward time before / after per token; for fixes that change t,
-- per-GPU throughput (time*t before / after, communication not included); for
-- the GLU width, the MLP GEMMs' FLOP/s after / before (the paper's measure).
-- @module tw.rules
local check = require "tilewave.util.check"
local hw = require "tilewave.data.hw"
local dtype = require "tilewave.data.dtype"
local models = require "tilewave.data.models"
local transformer = require "tilewave.ops.transformer"
local forward = require "tilewave.cost.forward"
local price = require "tilewave.cost.price"
local tables = require "tilewave.util.tables"

local M = {}

local format, ipairs, pairs, floor = string.format, ipairs, pairs, math.floor

--- Largest power of two dividing a positive integer n.
function M.pow2(n)
  local p = 1
  while n % (2 * p) == 0 and p < 2 ^ 30 do p = 2 * p end
  return p
end

local function copy(c, changes)
  local n = tables.copy(c)
  tables.copy(changes, n)
  return models.define(n)
end

-- The rules judge shardings engines refuse ((b*a)/t not an integer), so their
-- pricing takes uneven heads (ceil(a/t) per rank).
local function workload_of(opts)
  return { b = opts.b, s = opts.s, t = opts.t, dtype = opts.dtype, attention = opts.attention, engine = opts.engine,
           uneven_heads = true }
end

-- Forward time per token of config c under workload w.
local function per_token(c, spec, w)
  local r = forward.estimate(c, spec, w)
  return r.time_s / (r.b * r.s), r
end

-- Head counts a' for hidden size h whose head dim has the most factors of two
-- (64 and up counts as full); nearest to `a` first.
local function head_candidates(c, t)
  local h, a, kv = c.hidden_size, c.num_attention_heads, c.num_key_value_heads
  local best, out = 0, {}
  for a2 = 1, h do
    if h % a2 == 0 and a2 >= t and a2 >= a / 2 and a2 <= 2 * a and a2 ~= a then
      local p = math.min(M.pow2(h // a2), 64)
      local kv2 = kv == a and a2 or kv
      if a2 % kv2 == 0 then
        if p > best then best, out = p, {} end
        if p == best then out[#out + 1] = { a = a2, kv = kv2 } end
      end
    end
  end
  return out, best
end

local MLP_GEMM = { mlp_gate = true, mlp_up = true, mlp_gate_up = true, mlp_down = true }

-- Best GLU width near I: every integer in [0.98 I, 1.02 I], ranked by the
-- FLOP/s of the family's MLP GEMMs (ops of role mlp_*) priced by tilewave.cost.price.
local function glu_search(c, spec, w)
  local ww = transformer.workload({ b = w.b, s = w.s, t = w.t, dtype = w.dtype }, "rules")
  local ctx = price.context(spec, ww.dtype, w.engine, "rules")
  local fam = models.families[c.family]
  -- only the MLP depends on I: the family's MLP ops alone where it has them
  local ops_of = fam.mlp_ops or fam.ops
  local cfg = tables.copy(c)
  local function rate(I)
    cfg.intermediate_size = I
    local time, flops = 0, 0
    -- the GEMMs' shapes alone where the family gives them (the same values and order as its ops)
    local gemms = fam.mlp_gemms and fam.mlp_gemms(cfg, ww)
    if gemms then
      for _, g in ipairs(gemms) do
        local m, n, k = g[3], g[4], g[5]
        time, flops = time + price.gemm_time(ctx, m, n, k, 1), flops + 2.0 * m * n * k * 1
      end
      return flops / time
    end
    for _, op in ipairs(ops_of(cfg, ww)) do
      if MLP_GEMM[op.role] then
        -- the op's flops are the core's 2*M*N*K*batch (exact: below 2^53)
        time, flops = time + price.gemm_time(ctx, op.m, op.n, op.k, op.batch), flops + op.flops
      end
    end
    return flops / time
  end
  local I = c.intermediate_size
  local base = rate(I)
  local best_i, best = I, base
  for i = floor(I * 0.98), math.ceil(I * 1.02) do
    local r = rate(i)
    if r > best * (1 + 1e-9) or (r >= best * (1 - 1e-9) and math.abs(i - I) < math.abs(best_i - I)) then
      best_i, best = i, r
    end
  end
  return best_i, best / base, base
end

--- Least predicted gain for a fix to be offered: 0.5% (a fix within rounding of no change is
-- not a recommendation; padding a 175B model's vocabulary, x1.009 forward, still is).
M.FIX_MARGIN = 0.005

-- Attach a fix to violation `x` when its predicted `speedup` clears M.FIX_MARGIN; else say
-- what was tried and that it does not pay (x.predicted keeps the prediction).
local function offer(x, fix, text, speedup)
  if speedup and speedup >= 1 + M.FIX_MARGIN then
    x.fix, x.fix_text, x.speedup = fix, text, speedup
  else
    x.predicted = speedup
    x.fix_text = speedup and format("no fix predicted at least %g%% faster (%s: x%.3f)", 100 * M.FIX_MARGIN, text,
      speedup) or text
  end
  return x
end

-- vocab_64: v a multiple of 64 (arXiv 2401.14489)
local function rule_vocab(r)
  local c, spec, w, opts, base, add = r.c, r.spec, r.w, r.opts, r.base, r.add
  local b, s, t, h, a, v = r.b, r.s, r.t, r.h, r.a, r.v
  if v % 64 ~= 0 then
    local v2 = 64 * ((v + 63) // 64)
    add(offer({ rule = "vocab_64", field = "vocab_size", value = v, expected = "a multiple of 64",
                metric = "forward time per token", severity = "warning" },
              { vocab_size = v2 }, format("pad v %d -> %d", v, v2), base / per_token(copy(c, { vocab_size = v2 }), spec, w)))
  end

end

-- tokens_64: b*s a multiple of 64
local function rule_tokens(r)
  local c, spec, w, opts, base, add = r.c, r.spec, r.w, r.opts, r.base, r.add
  local b, s, t, h, a, v = r.b, r.s, r.t, r.h, r.a, r.v
  if (b * s) % 64 ~= 0 then
    local s2 = s
    repeat s2 = s2 + 1 until (b * s2) % 64 == 0
    local w2 = workload_of(opts)
    w2.s = s2
    add(offer({ rule = "tokens_64", field = "b*s", value = b * s,
                expected = format("a multiple of 64 (now divisible by %d)", M.pow2(b * s)),
                metric = "forward time per token", severity = "warning" },
              { s = s2 }, format("s %d -> %d (b*s = %d)", s, s2, b * s2), base / per_token(c, spec, w2)))
  end

end

-- head_dim_64: h/a a multiple of 64, fixed by the head count that divides h best
local function rule_head_dim(r)
  local c, spec, w, opts, base, add = r.c, r.spec, r.w, r.opts, r.base, r.add
  local b, s, t, h, a, v = r.b, r.s, r.t, r.h, r.a, r.v
  local hd = c.head_dim
  -- latent attention (DeepSeek): head_dim is an effective width, the heads are qk/v wide
  if hd % 64 ~= 0 and not models.families[c.family].latent_attention then
    local cands, p2 = head_candidates(c, t)
    local best, best_sp
    for _, cand in ipairs(cands) do
      local c2 = copy(c, { num_attention_heads = cand.a, num_key_value_heads = cand.kv, head_dim = h // cand.a })
      local sp = base / per_token(c2, spec, w)
      if not best_sp or sp > best_sp + 1e-12 then best, best_sp = cand, sp end
    end
    local x = { rule = "head_dim_64", field = "h/a", value = hd,
                expected = format("a multiple of 64 (now divisible by %d)", M.pow2(hd)), severity = "warning",
                metric = "forward time per token" }
    if best and p2 > M.pow2(hd) then
      offer(x, { num_attention_heads = best.a, num_key_value_heads = best.kv },
        format("a %d -> %d (h/a %d -> %d)", a, best.a, hd, h // best.a), best_sp)
    else
      x.fix_text = "no head count in [a/2, 2a] divides h with a larger power of two in h/a"
    end
    add(x)
  end

end

-- hidden_per_rank, heads_per_rank and t_small: the tensor-parallel size t
local function rule_tensor_parallel(r)
  local c, spec, w, opts, base, add = r.c, r.spec, r.w, r.opts, r.base, r.add
  local b, s, t, h, a, v = r.b, r.s, r.t, r.h, r.a, r.v
  -- fix t by the first t2 of `order` (a list) that satisfies ok_t
  local function t_fix(rule, field, value, expected, order, ok_t, severity)
    local t2
    for _, cand in ipairs(order) do
      if ok_t(cand) then t2 = cand break end
    end
    local x = { rule = rule, field = field, value = value, expected = expected, severity = severity,
                metric = "per-GPU throughput (communication not modeled)" }
    if t2 then
      local w2 = workload_of(opts)
      w2.t = t2
      offer(x, { t = t2 }, format("t %d -> %d", t, t2), (base * t) / (per_token(c, spec, w2) * t2))
    else
      x.fix_text = "no smaller t satisfies the rule"
    end
    add(x)
  end
  local down, up = {}, {}
  for i = t - 1, 1, -1 do down[#down + 1] = i; up[i] = i end

  if t > 1 and (h / t) % 64 ~= 0 then
    t_fix("hidden_per_rank", "h/t", h / t, "a multiple of 64", down,
      function(t2) return (h / t2) % 64 == 0 and (b * a) % t2 == 0 end, "warning")
  end
  if (b * a) % t ~= 0 then
    t_fix("heads_per_rank", "(b*a)/t", b * a / t, "an integer", down,
      function(t2) return (b * a) % t2 == 0 end, "error")
  end
  if t > 1 and hw.memory(spec) then
    local e = dtype.get(opts.dtype or "bf16")
    local weights = models.params(c).total * e.in_bytes
    local function ok(t2) return weights / t2 <= 0.5 * hw.memory(spec) and (b * a) % t2 == 0 end
    local smaller = false
    for _, t2 in ipairs(up) do smaller = smaller or ok(t2) end
    if smaller then
      t_fix("t_small", "t", t,
        format("the smallest t whose weights (%.3g GB) fit in half of %s's memory", weights / 1e9, spec.id),
        up, ok, "warning")
    end
  end

end

-- glu_width: a gated MLP's intermediate_size near the best-shaped width
local function rule_glu(r)
  local c, spec, w, opts, base, add = r.c, r.spec, r.w, r.opts, r.base, r.add
  local b, s, t, h, a, v = r.b, r.s, r.t, r.h, r.a, r.v
  if models.families[c.family].glu then
    local i2, sp = glu_search(c, spec, w)
    if i2 ~= c.intermediate_size and sp >= 1.02 then
      add { rule = "glu_width", field = "intermediate_size", value = c.intermediate_size,
            expected = "a well-shaped width near the configured one (MLP FLOP/s within 2% of the best in +-2%)",
            fix = { intermediate_size = i2 },
            fix_text = format("I %d -> %d", c.intermediate_size, i2), speedup = sp,
            metric = "MLP GEMM FLOP/s", severity = "warning" }
    end
  end

end

-- expert_width_64: a MoE expert's width a multiple of 64
local function rule_expert_width(r)
  local c, spec, w, opts, base, add = r.c, r.spec, r.w, r.opts, r.base, r.add
  local b, s, t, h, a, v = r.b, r.s, r.t, r.h, r.a, r.v
  -- MoE: each expert's GEMM has M = b*s*k/E tokens; below one tile height most of a
  -- tile's rows are padding (tile quantization, NVIDIA matmul guide)
  local E, k = models.experts(c)
  -- MoE: the expert width is each expert GEMM's N (gate, up) and K (down)
  local width_field = c.moe_intermediate_size and "moe_intermediate_size" or "intermediate_size"
  local width = c[width_field]
  if E and width % 64 ~= 0 then
    local w2 = 64 * ((width + 63) // 64)
    add(offer({ rule = "expert_width_64", field = width_field, value = width,
                expected = format("a multiple of 64 (now divisible by %d)", M.pow2(width)),
                metric = "forward time per token", severity = "warning" },
              { [width_field] = w2 }, format("%s %d -> %d", width_field, width, w2),
              base / per_token(copy(c, { [width_field] = w2 }), spec, w)))
  end
end

-- mla_dims_64: the latent and head widths of multi-head latent attention
local function rule_mla(r)
  local c, spec, w, opts, base, add = r.c, r.spec, r.w, r.opts, r.base, r.add
  local b, s, t, h, a, v = r.b, r.s, r.t, r.h, r.a, r.v
  -- MLA: the latent and head widths are GEMM dimensions (N of the down projections, K of the up
  -- ones)
  if c.kv_lora_rank then
    for _, f in ipairs { "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim" } do
      local v = c[f]
      if v and v % 64 ~= 0 then
        local v2 = 64 * ((v + 63) // 64)
        local ok, c2 = pcall(copy, c, { [f] = v2 })
        add(offer({ rule = "mla_dims_64", field = f, value = v,
                    expected = format("a multiple of 64 (now divisible by %d)", M.pow2(v)), severity = "warning",
                    metric = "forward time per token" },
                  { [f] = v2 }, format("%s %d -> %d", f, v, v2), ok and base / per_token(c2, spec, w) or nil))
      end
    end
  end
end

-- moe_tokens_per_expert: at least one tile of rows per expert
local function rule_moe_tokens(r)
  local c, spec, w, opts, base, add = r.c, r.spec, r.w, r.opts, r.base, r.add
  local b, s, t, h, a, v = r.b, r.s, r.t, r.h, r.a, r.v
  local E, k = models.experts(c)
  if E then
    local per_expert = b * s * k / E
    if per_expert < M.MOE_TILE_ROWS then
      local b2 = math.ceil(M.MOE_TILE_ROWS * E / (s * k))
      local w2 = workload_of(opts)
      w2.b = b2
      add(offer({ rule = "moe_tokens_per_expert", field = "b*s*k/E", value = per_expert,
                  expected = format("at least %d tokens per expert (one tile of rows)", M.MOE_TILE_ROWS),
                  metric = "forward time per token", severity = "warning" },
                { b = b2 }, format("b %d -> %d (%d tokens per expert)", b, b2, b2 * s * k // E),
                base / per_token(c, spec, w2)))
    end
  end
end

-- the rules in the order M.check reports them
local RULES = { rule_vocab, rule_tokens, rule_head_dim, rule_tensor_parallel, rule_glu, rule_expert_width, rule_mla,
                rule_moe_tokens }

--- Check `model` against the rules for workload `opts` on device `device`.
-- @param model a preset id, a config.json path or a folder holding one, or a config table
--   (tilewave.data.models)
-- @tparam table opts `b` (default 1), `s` (default 2048), `t` (default 1),
--   `dtype` (default "bf16"), `attention` ("standard" | "flash")
-- @return array of violations `{ rule, field, value, expected, fix = {field=value},
--   fix_text, speedup, metric, severity = "error"|"warning", predicted }`, ordered as the
--   rules above; `fix` and `speedup` only when the fix is predicted at least M.FIX_MARGIN
--   faster (else `predicted` holds its speedup and fix_text says so); empty when clean
-- @param device a device id (hw/<id>.lua), a spec path or a spec table (tilewave.data.hw)
-- @raise as tilewave.transformer.estimate
function M.check(model, opts, device)
  opts = opts or {}
  check.table(opts, "rules.check")
  check.options(opts, { b = true, s = true, t = true, dtype = true, attention = true, engine = true }, "rules.check")
  local c = models.resolve(model, "rules.check.model")
  local spec = hw.resolve(device, "rules.check.hw")
  local w = workload_of(opts)
  local out = require("tilewave.util.json").array() -- [] in JSON when no rule is broken
  local r = { c = c, spec = spec, w = w, opts = opts, b = opts.b or 1, s = opts.s or 2048, t = opts.t or 1,
              h = c.hidden_size, a = c.num_attention_heads, v = c.vocab_size, base = per_token(c, spec, w),
              add = function(x) out[#out + 1] = x end }
  for _, rule in ipairs(RULES) do rule(r) end
  return out
end

--- Tokens per expert below which a MoE layer's expert GEMMs waste most of a tile's
-- rows: 128, the M of cuBLAS's common tiles (NVIDIA matmul guide, tile sizes).
M.MOE_TILE_ROWS = 128

M.glu_search = glu_search

return M
