--- tilewave.report.format: formatting of result tables (text, JSON). Never computes a cost.
--
-- All output is deterministic: fixed number formats and sorted JSON keys, so
-- the same inputs give byte-identical reports.
local json = require "tilewave.util.json"
local csv = require "tilewave.util.csv"

local M = {}

local format, concat, sort, rep = string.format, table.concat, table.sort, string.rep
local type, pairs, ipairs, tostring, math_type = type, pairs, ipairs, tostring, math.type

--- A value with an SI prefix and unit (tilewave.util.si).
M.si = require("tilewave.util.si")

--- JSON text of a value, object keys sorted (tilewave.util.json).
M.json = json.encode

--- " (low-high)" of a prediction interval (tilewave.cost.price.interval), in s
-- with SI prefixes and "borrowed" when carried over from another architecture;
-- "" when `iv` is nil.
function M.interval(iv)
  if not iv then return "" end
  return string.format(" (%s-%s%s%s)", M.si(iv.low, "s"), M.si(iv.high, "s"), iv.borrowed and ", borrowed" or "",
    iv.unmeasured and ", device not measured" or "")
end

--- Aligned text table: headers (array of strings), rows (arrays of strings). Text columns are
-- left-aligned, numeric ones (every cell a number, with or without a unit) right-aligned.
function M.table(headers, rows)
  -- widths in characters (UTF-8: "µs" is two bytes, one column)
  local function len(c) return utf8.len(c) or #c end
  local width, numeric = {}, {}
  for i, h in ipairs(headers) do width[i], numeric[i] = len(h), true end
  for _, r in ipairs(rows) do
    for i, c in ipairs(r) do
      if len(c) > (width[i] or 0) then width[i] = len(c) end
      -- a column is numeric when every cell is a number (units and "-" placeholders allowed)
      if c ~= "-" and c ~= "" and not c:match("^[-+]?%.?%d") then numeric[i] = false end
    end
  end
  local function line(r)
    local out = {}
    for i, c in ipairs(r) do
      local pad = rep(" ", width[i] - len(c))
      out[i] = (numeric[i] and i > 1) and (pad .. c) or (c .. pad)
    end
    return (concat(out, "  "):gsub("%s+$", ""))
  end
  local lines = { line(headers) }
  local rule = {}
  for i = 1, #headers do rule[i] = rep("-", width[i]) end
  lines[2] = concat(rule, "  ")
  for _, r in ipairs(rows) do lines[#lines + 1] = line(r) end
  return concat(lines, "\n")
end

--- A fraction in (0, 1] to 3 decimals, or 3 significant digits below 0.001 ("6.1e-05", never
-- "0.000").
function M.frac(x)
  if x >= 0.0005 then return format("%.3f", x) end
  return format("%.2g", x)
end

--- Text report of one tw.gemm result `r` on spec `spec`; `align` says which of N and K is off
-- ("N 2-byte aligned, K 128-byte aligned"), `fix` the padded shape (tilewave.explore.gemm_fix.pad).
function M.gemm_text(r, spec, align, fix)
  local slots = r.tiles / (r.waves * r.wave_eff)
  local lines = {
    format("GEMM M=%d N=%d K=%d batch=%d, %s on %s (%s)", r.m, r.n, r.k, r.batch, r.dtype, spec.name, spec.id),
    format("  time        %s%s per call (%s timing)", M.si(r.time_s, "s"), M.interval(r.interval), r.timing or "kernel"),
    format("  throughput  %.1f TFLOP/s (%.1f%% of the %.1f TFLOP/s dense peak)", r.tflops,
      100 * r.flop_rate / r.peak_flops, r.peak_flops / 1e12),
    format("  work        %s, %s compulsory traffic, %s modeled DRAM traffic", M.si(r.flops, "FLOP"),
      M.si(r.bytes, "B"), M.si(r.dram_bytes, "B")),
    format("  intensity   %.1f FLOP/B against a ridge point of %.1f FLOP/B (peak ops:byte)", r.intensity,
      r.peak_flops / spec.mem_bw),
    format("  bound       %s (compute %s, memory %s, overhead %s)", r.bound, M.si(r.compute_s, "s"),
      M.si(r.memory_s, "s"), M.si(r.overhead_s, "s")),
    r.stream_k and format("  kernel      tile %dx%d, stream-K: %d tile%s dealt to the %d CTA slots of one wave", r.tile.m,
      r.tile.n, r.tiles, r.tiles == 1 and "" or "s", math.floor(slots + 0.5))
    or format("  kernel      tile %dx%d, split-K %d, %d tile%s in %d wave%s of %d", r.tile.m, r.tile.n, r.split_k,
      r.tiles, r.tiles == 1 and "" or "s", r.waves, r.waves == 1 and "" or "s", math.floor(slots + 0.5)),
    r.align_eff > 1 and format("  efficiency  tile %s, wave %s; N off 16 bytes, K aligned: the library's TMA kernel, "
      .. "%.2fx its other kernels' rate", M.frac(r.tile_eff), M.frac(r.wave_eff), r.align_eff)
    or format("  efficiency  tile %s, wave %s, alignment %s (%s)", M.frac(r.tile_eff),
      M.frac(r.wave_eff), M.frac(r.align_eff), align or format("N and K %d-byte aligned", r.align_bytes)),
  }
  if fix then
    local to = {}
    for _, d in ipairs(fix.padded) do to[#to + 1] = format("%s to %d", d, d == "N" and fix.n or fix.k) end
    lines[#lines + 1] = format("  fix         pad %s with zeros (M=%d N=%d K=%d): %s predicted, %.2fx faster despite "
      .. "the extra work", concat(to, " and "), r.m, fix.n, fix.k, M.si(fix.time_s, "s"), fix.speedup)
  end
  return concat(lines, "\n")
end

--- A count with thousands separators: group(1235814400) -> "1,235,814,400".
function M.group(n)
  local s = format("%d", n)
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end

--- A parameter count in the field's style: 1.236B, 149.0M, 14.07M.
function M.count(n)
  if n >= 1e9 then return format("%.4gB", n / 1e9) end
  if n >= 1e6 then return format("%.4gM", n / 1e6) end
  if n >= 1e3 then return format("%.4gk", n / 1e3) end
  return format("%d", n)
end

--- A ratio as a signed change or a speedup: "x1.183".
local function times(x) return format("x%.3f", x) end

local LIMITS = {
  tile = "tile quantization", wave = "wave quantization", alignment = "alignment",
  ["memory-bound"] = "memory-bound", ["overhead-bound"] = "launch overhead", none = "near achievable peak",
  exponentials = "softmax exponentials on the SFUs", ceiling = "physical ceiling",
}

local function limit_text(p)
  local why = LIMITS[p.loss] or p.loss
  if p.loss == "wave" then
    why = format("%s (%d tiles in %d waves, eff %.2f)", why, p.tiles, p.waves, p.wave_eff)
  elseif p.loss == "tile" then
    why = format("%s (tile %dx%d, eff %.2f)", why, p.tile.m, p.tile.n, p.tile_eff)
  elseif p.loss == "alignment" then
    why = format("%s (N, K %d-byte aligned, eff %.2f)", why, p.align_bytes, p.align_eff)
  elseif p.loss == "exponentials" then
    why = format("%s (MMA %.0f%% of the kernel's compute time)", why, 100 * p.exp_eff)
  end
  return why
end
M.limit_text = limit_text

local CHANGE_ORDER = { "hidden_size", "num_attention_heads", "num_key_value_heads", "intermediate_size", "vocab_size" }
local SYMBOL = { hidden_size = "h", num_attention_heads = "a", num_key_value_heads = "kv",
                 intermediate_size = "I", vocab_size = "v" }

--- "a 32 -> 20, v 50257 -> 50304" for the changes of a nearby shape.
function M.changes_text(config, changes)
  local parts = {}
  for _, k in ipairs(CHANGE_ORDER) do
    if changes[k] and not (k == "num_key_value_heads" and changes.num_attention_heads == changes[k]) then
      parts[#parts + 1] = format("%s %d -> %d", SYMBOL[k], config[k], changes[k])
    end
  end
  return concat(parts, ", ")
end

local function shape_text(p)
  if p.batch > 1 then return format("%dx%dx%d, batch %d", p.m, p.n, p.k, p.batch) end
  return format("%dx%dx%d", p.m, p.n, p.k)
end

local function nearby_text(r)
  if not r.nearby then return "none >= 1% faster" end
  return format("%s: %s", M.changes_text(r.config, r.nearby.changes), times(r.nearby.size_speedup))
end

local function header(res)
  local w, spec = res.workload, res.hw
  return format("Forward pass on %s (%s), %s, b = %d, s = %d (%d tokens), t = %d, %s attention, %s engine "
    .. "(tilewave.cost.engines); dense %s peak %.1f TFLOP/s. tilewave %s.", spec.name, spec.id, w.dtype, w.b, w.s,
    w.b * w.s, w.t, w.attention, w.engine or "compiled", w.dtype, spec.peak_flops[w.dtype] / 1e12, res.version)
end

--- Markdown text of a tilewave.analysis.models result.
function M.models_markdown(res)
  -- 136 lines, one function: the report's Markdown sections in the order they print, a few lines
  -- each
  local L = { "# tilewave report", "", header(res), "",
    "Each GEMM is predicted by the tile/wave/alignment model (calibration error: docs/accuracy.md), elementwise ops "
    .. "by bytes over achievable bandwidth; no op is priced faster than the best sustained fraction of the "
    .. "device's peak for its kernel class (tilewave.data.ceilings). TFLOP/s = FLOP the kernels execute / time; "
    .. "MFU = FLOP the model needs / time / dense peak, counting a causal query's attention over itself and the keys "
    .. "before it (about half of the s x s scores; tilewave.ops.layers states the convention), so MFU <= HFU. "
    .. "Speedups are the model's predictions for the stated fix, offered only when at least 0.5% faster; tensor-"
    .. "parallel communication is not included.", "",
    "## Summary", "",
    "| model | params | forward | tokens/s | TFLOP/s | MFU | GEMM time | rule violations | best nearby shape (speedup at equal size) |",
    "|---|---:|---:|---:|---:|---:|---:|---|---|" }
  for _, r in ipairs(res.models) do
    local e = r.estimate
    local rules = {}
    for _, v in ipairs(r.violations) do rules[#rules + 1] = v.rule end
    L[#L + 1] = format("| %s | %s | %s | %s | %.1f | %.1f%% | %.0f%% | %s | %s |", r.id, M.count(r.params.total),
      M.si(e.time_s, "s") .. M.interval(e.interval), M.si(e.tokens_per_s, ""), e.tflops, 100 * e.mfu, 100 * e.gemm_share,
      #rules == 0 and "none" or concat(rules, ", "), nearby_text(r))
  end
  local any = false
  for _, r in ipairs(res.models) do any = any or r.inference ~= nil end
  if any then
    L[#L + 1] = ""
    L[#L + 1] = "## Inference: decode"
    L[#L + 1] = ""
    L[#L + 1] = format("One decode step per generated token with s = %d tokens of context per sequence, %s engine "
      .. "(fused kernels, CUDA graphs; calibration: docs/accuracy.md); 'compute-bound from' is the first batch of 1, 2, 4 "
      .. "... 4096 at which the step stops being memory-bound (fitting in memory or not: see max batch); with GQA's small KV "
      .. "cache the weights amortize sooner; with a long context the KV cache read per token keeps the step memory-bound.",
      res.workload.s, "compiled")
    L[#L + 1] = ""
    L[#L + 1] = "| model | weights | decode tok/s (b = 1) | TPOT | bound | KV cache per token | max batch (fits) | compute-bound from batch |"
    L[#L + 1] = "|---|---|---:|---:|---|---:|---:|---:|"
    for _, r in ipairs(res.models) do
      local i = r.inference
      if i and i.max_batch == 0 then
        -- the weights alone (or one sequence's KV cache) exceed the memory: no rate to report
        L[#L + 1] = format("| %s | %s | does not fit | - | - | %s | 0 | - |", r.id, i.weight_dtype,
          i.kv_bytes_per_token and M.si(i.kv_bytes_per_token, "B") or "-")
      elseif i then
        L[#L + 1] = format("| %s | %s | %.1f | %s | %s | %s | %s | %s |", r.id, i.weight_dtype, i.tokens_per_s,
          M.si(i.tpot_s, "s"), i.bound, i.kv_bytes_per_token and M.si(i.kv_bytes_per_token, "B") or "-",
          i.max_batch and format("%d", i.max_batch) or "-",
          i.compute_bound_batch and format("%d", i.compute_bound_batch)
            or format("none: tends to %.0f FLOP/B < ridge %.0f", i.intensity_limit, i.ridge))
      end
    end
  end
  if res.cluster then
    local cl = res.cluster
    L[#L + 1] = ""
    L[#L + 1] = "## Training: best configuration"
    L[#L + 1] = ""
    L[#L + 1] = format("On %s (%s), the fewest nodes of 1, 2, 4 ... 64 where a configuration fits, ~2M tokens per step "
      .. "at s = %d, FlashAttention, %s; the fastest (t, p, d, micro-batch, checkpointing, ZeRO) of tw.training.search "
      .. "(communication not overlapped).", cl.name, cl.id or "cluster", res.workload.s,
      res.workload.dtype == "fp16" and "fp16" or "bf16")
    L[#L + 1] = ""
    L[#L + 1] = "| model | nodes (GPUs) | t | p | d | micro-batch | checkpointing | ZeRO | tokens/s | model TFLOP/s/GPU | MFU | memory/GPU |"
    L[#L + 1] = "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"
    for _, r in ipairs(res.models) do
      local tr = r.training
      if tr then
        local k = tr.config
        L[#L + 1] = format("| %s | %d (%d) | %d | %d | %d | %d | %s | %d | %s | %.1f | %.1f%% | %s |", r.id, tr.nodes, tr.gpus,
          k.t, k.p, k.d, k.micro_batch, k.checkpointing, k.zero, M.si(tr.tokens_per_s, ""), tr.model_tflops_per_gpu,
          100 * tr.mfu, M.si(tr.memory, "B"))
      else
        L[#L + 1] = format("| %s | no configuration fits on up to 64 nodes | | | | | | | | | | |", r.id)
      end
    end
  end
  for _, r in ipairs(res.models) do
    local c, e = r.config, r.estimate
    L[#L + 1] = ""
    L[#L + 1] = format("## %s: %s (%s)", r.id, r.name, r.family)
    L[#L + 1] = ""
    local moe = c.num_local_experts and format(", %d experts of width I, %d per token", c.num_local_experts,
      c.num_experts_per_tok) or ""
    local window = c.sliding_window and format(", sliding window %d", c.sliding_window) or ""
    if c.n_routed_experts then
      moe = format(", MLA (q_lora %s, kv_lora %d, qk %d+%d, v %d), first %d layers dense, %d routed experts of %d "
        .. "(%d per token) + %d shared", tostring(c.q_lora_rank), c.kv_lora_rank, c.qk_nope_head_dim,
        c.qk_rope_head_dim, c.v_head_dim, c.first_k_dense_replace, c.n_routed_experts, c.moe_intermediate_size,
        c.num_experts_per_tok, c.n_shared_experts)
    end
    local active = r.params.active and r.params.active < r.params.total
      and format(", %s active per token", M.group(r.params.active)) or ""
    L[#L + 1] = format("h %d, a %d%s, %s, L %d, I %d, v %d%s%s, %s embeddings; %s parameters (%s non-embedding%s).",
      c.hidden_size, c.num_attention_heads,
      c.num_key_value_heads < c.num_attention_heads and format(" (kv %d)", c.num_key_value_heads) or "",
      c.n_routed_experts and format("attention head dim %d (effective, (qk + v) / 2)", c.head_dim)
        or format("h/a %d", c.head_dim), c.num_hidden_layers, c.intermediate_size, c.vocab_size, moe, window,
      c.tie_word_embeddings and "tied" or "untied", M.group(r.params.total), M.group(r.params.non_embedding), active)
    L[#L + 1] = ""
    L[#L + 1] = format("Forward %s%s (%s per layer), %.1f TFLOP/s, MFU %.1f%%, %.0f%% of the time in GEMMs.",
      M.si(e.time_s, "s"), M.interval(e.interval), M.si(e.layer_s, "s"), e.tflops, 100 * e.mfu, 100 * e.gemm_share)
    L[#L + 1] = ""
    L[#L + 1] = "| slowest GEMMs | M x N x K | calls | time | share | TFLOP/s | limited by |"
    L[#L + 1] = "|---|---|---:|---:|---:|---:|---|"
    for _, p in ipairs(r.slowest) do
      L[#L + 1] = format("| %s | %s | %d | %s | %.1f%% | %.1f | %s |", p.name, shape_text(p), p.count,
        M.si(p.total_s, "s"), 100 * p.share, p.tflops, limit_text(p))
    end
    L[#L + 1] = ""
    if #r.violations == 0 then
      L[#L + 1] = "Co-design rules: all met."
    else
      L[#L + 1] = "Co-design rule violations:"
      L[#L + 1] = ""
      for _, v in ipairs(r.violations) do
        local val = math.type(v.value) == "integer" and format("%d", v.value) or format("%.4g", v.value)
        L[#L + 1] = format("- **%s**: %s = %s, expected %s. Fix: %s%s", v.rule, v.field, val, v.expected,
          v.fix_text, v.speedup and format(", predicted %s (%s).", times(v.speedup), v.metric) or ".")
      end
    end
    L[#L + 1] = ""
    if r.nearby then
      local n = r.nearby
      L[#L + 1] = format("Best nearby shape: %s: %s tokens/s, parameters %s, %.1f TFLOP/s (%s at equal size).",
        M.changes_text(c, n.changes), times(n.speedup), times(n.params_ratio), n.tflops, times(n.size_speedup))
    else
      L[#L + 1] = "Best nearby shape: this one (no nearby shape is predicted at least 1% faster at equal size)."
    end
  end
  if res.figures and #res.figures > 0 then
    L[#L + 1] = ""
    L[#L + 1] = "## Figures"
    for _, f in ipairs(res.figures) do
      L[#L + 1] = ""
      L[#L + 1] = format("![%s](%s)", f.title, f.link)
    end
  end
  return concat(L, "\n") .. "\n"
end

local CSV_HEADER = { "model", "family", "hw", "dtype", "b", "s", "t", "attention", "params", "non_embedding",
  "forward_s", "layer_s", "tokens_per_s", "tflops", "mfu", "gemm_share", "violations", "slowest_gemm",
  "slowest_limit", "best_nearby", "best_nearby_speedup", "decode_tokens_per_s", "decode_tpot_s",
  "decode_compute_bound_batch", "train_nodes", "train_t", "train_p", "train_d", "train_micro_batch",
  "train_checkpointing", "train_zero", "train_tokens_per_s", "train_mfu" }

local csv_field = csv.field

--- CSV text (one row per model) of a tilewave.analysis.models result.
function M.models_csv(res)
  local lines = { concat(CSV_HEADER, ",") }
  local w = res.workload
  for _, r in ipairs(res.models) do
    local e = r.estimate
    local rules = {}
    for _, v in ipairs(r.violations) do rules[#rules + 1] = v.rule end
    local s1 = r.slowest[1]
    local row = { r.id, r.family, res.hw.id, w.dtype, w.b, w.s, w.t, w.attention, r.params.total,
      r.params.non_embedding, e.time_s, e.layer_s, e.tokens_per_s, e.tflops, e.mfu, e.gemm_share,
      concat(rules, ";"), s1 and s1.name or "", s1 and s1.loss or "",
      r.nearby and M.changes_text(r.config, r.nearby.changes) or "",
      r.nearby and r.nearby.size_speedup or 1.0,
      r.inference and r.inference.tokens_per_s or "", r.inference and r.inference.tpot_s or "",
      r.inference and r.inference.compute_bound_batch or "" }
    local tr = r.training
    local k = tr and tr.config or {}
    for _, v in ipairs { tr and tr.nodes or "", k.t or "", k.p or "", k.d or "", k.micro_batch or "",
                         k.checkpointing or "", k.zero or "", tr and tr.tokens_per_s or "", tr and tr.mfu or "" } do
      row[#row + 1] = v
    end
    for i, v in ipairs(row) do row[i] = csv_field(v) end
    lines[#lines + 1] = concat(row, ",")
  end
  return concat(lines, "\n") .. "\n"
end

--- JSON text (sorted keys) of a tilewave.analysis.models result.
function M.models_json(res)
  local out = { version = res.version, hw = res.hw.id, workload = res.workload, models = {} }
  for i, r in ipairs(res.models) do
    out.models[i] = { id = r.id, name = r.name, family = r.family, params = r.params, config = r.config,
      estimate = r.estimate, slowest = r.slowest, violations = r.violations, nearby = r.nearby and {
        changes = r.nearby.changes, speedup = r.nearby.speedup, size_speedup = r.nearby.size_speedup,
        params_ratio = r.nearby.params_ratio, tflops = r.nearby.tflops } or json.null,
      inference = r.inference or json.null, training = r.training or json.null }
  end
  return M.json(out) .. "\n"
end

return M
