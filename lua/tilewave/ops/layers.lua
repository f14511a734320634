--- tilewave.ops.layers: op constructors and the transformer blocks the families share.
-- One concern past 400 lines: the vocabulary of ops every family builds from (each op's fields
-- and shape rules, the blocks composed of them), so a field means one thing in every family.
--
-- An op is one logical operation of a forward pass; it carries a `role` that
-- says what it is, so pricing never matches names (`name` is for display):
--   embedding, norm, qkv, rotary, attention, attn_out, mlp_up, mlp_gate,
--   mlp_gate_up, activation, glu, mlp_down, residual, head_dense, logits
-- Fields: { role, name, kind = "gemm"|"bmm"|"elementwise"|"attention", scope,
--   m, n, k, batch, count, flops, model_flops, bytes, elems, elem_bytes, ... }
-- FLOP convention (one for the project): `flops` are the FLOP the op's kernels execute per
-- call (the numerator of HFU and of achieved FLOP/s); `model_flops` are the FLOP the model
-- needs per call, whatever runs it (the numerator of MFU): every GEMM's 2*M*N*K, and for
-- attention 4*hd per score a query needs - a causal query attends to itself and the keys
-- before it, so a causal layer needs about half of the s x s scores (the causal count of
-- FlashAttention's benchmarks, Dao 2023 arXiv 2307.08691 §4.1, and of the measured
-- ../shared/reference/calibration/h100/attention.csv; PaLM's 6N + 12LHQT, Chowdhery et al.
-- 2022 App. B, and Megatron's eq. 3, Narayanan et al. 2021, count all s x s). model_flops <=
-- flops always: kernels execute at least what the model needs (padding, whole blocks on
-- the causal diagonal, a materialized score matrix computed in full).
-- GEMM/BMM: C[M x N] = A[M x K] . B[K x N] (K the reduction), `batch`
-- independent products per call; `flops` = `model_flops` = 2*M*N*K*batch FLOP per call;
-- `bytes` = compulsory DRAM traffic per call, (M*K + K*N)*batch*in_bytes +
-- M*N*batch*out_bytes. Elementwise ops (norms, activations, residuals,
-- rotary, embedding gather) carry `bytes` (read + write when run as one
-- kernel), `elems` (elements of the tensor they work on) and `flops` = 0: they
-- are memory-bound; how many kernels they become is the engine's business
-- (tilewave.cost.kernels). `norm` is "rms" or "layer" on norm ops; `inputs` the
-- tensors a residual adds. `count` is how many times the op runs in one
-- forward pass (usually the layer count); `scope` is "layer" for ops inside the
-- transformer layers and "model" for those outside (embedding, final norm, LM head).
--
-- Attention is ONE composite op (role and kind "attention") whose
-- implementation `impl` is chosen when the ops are built (workload
-- `attention`): "standard" materializes the score matrix (score BMM, softmax
-- over it in DRAM, attention-over-value BMM: `parts`), "flash" is one fused
-- kernel (Dao et al. 2022) whose compulsory traffic is Q, K, V read and O
-- written once. `flops` are the two BMMs' over the scores the kernel computes (all of
-- them when materialized, the unmasked blocks when fused and causal: `causal_elems`);
-- `model_flops` over the scores the model needs (`needed_elems`).
--
-- Shapes follow the decomposition of Anthony et al. 2024, "The Case for
-- Co-Designing Model Architectures with Hardware" (arXiv 2401.14489), as run
-- by its benchmark (EleutherAI/cookbook benchmarks/sizing/transformer_flops.py):
--   QKV transform           (b*s) x (a+2kv)*hd/t x h         GEMM
--   attention score         batch b*a/t: s x s_kv x hd      BMM
--   attention over value    batch b*a/t: s x hd x s_kv      BMM
--   post-attention proj.    (b*s) x h x a*hd/t              GEMM
--   MLP up [gate]           (b*s) x I/t x h                 GEMM
--   MLP down                (b*s) x h x I/t                 GEMM
--   logits                  (b*s) x v/t x h                 GEMM
-- with GQA (kv key/value heads, Ainslie et al. 2023) and tensor parallelism
-- over t ranks (Megatron-LM, Shoeybi et al. 2019 §3: heads, FFN columns and
-- vocabulary split over t; per-rank counts rounded up, so the slowest rank
-- sets the pace when t does not divide them). Norms and residuals are
-- replicated on every rank (no sequence parallelism).
local M = {}

local ceil = math.ceil

local function idiv_up(x, t) return ceil(x / t) end
M.idiv_up = idiv_up

--- A GEMM op (batch 1) or, with `batch` > 1, a BMM op, of role `role`.
-- @param e element sizes `{ in_bytes=, out_bytes= }` (tilewave.dtype)
function M.gemm(role, name, m, n, k, count, e, batch)
  batch = batch or 1
  return {
    role = role, name = name, kind = batch > 1 and "bmm" or "gemm", scope = "layer", m = m, n = n, k = k, batch = batch, count = count,
    flops = 2.0 * m * n * k * batch, model_flops = 2.0 * m * n * k * batch,
    bytes = ((m * k + k * n) * e.in_bytes + m * n * e.out_bytes) * batch * 1.0,
  }
end

--- A memory-bound op of role `role` over `elems` elements of `elem_bytes`
-- each, moving `bytes` (read + write as one kernel) per call.
function M.elementwise(role, name, bytes, count, elems, elem_bytes)
  return { role = role, name = name, kind = "elementwise", scope = "layer", m = 0, n = 0, k = 0, batch = 1,
           count = count, flops = 0.0, model_flops = 0.0, bytes = bytes * 1.0, elems = elems * 1.0, elem_bytes = elem_bytes }
end

--- Mark an op as outside the layers (scope "model"); returns it.
function M.outside(op)
  op.scope = "model"
  return op
end

--- Per-rank attention geometry of config `c` under workload `w`.
-- @return table `{ hd, a_t, kv_t, batch }`: head dim, query and key/value
--   heads per rank, BMM batch ceil(b*a/t)
-- the last geometry computed and its inputs (a pass asks for it once per attention op with the
-- same values; read-only to callers)
local last_g, last_hd, last_a, last_kv, last_b, last_t

function M.heads(c, w)
  local hd, a, kv, b, t = c.head_dim, c.num_attention_heads, c.num_key_value_heads, w.b, w.t
  if hd == last_hd and a == last_a and kv == last_kv and b == last_b and t == last_t then return last_g end
  last_g = { hd = hd, a_t = idiv_up(a, t), kv_t = idiv_up(kv, t), batch = idiv_up(b * a, t) }
  last_hd, last_a, last_kv, last_b, last_t = hd, a, kv, b, t
  return last_g
end

--- Append to `ops` the attention block of one layer class: QKV GEMM,
-- rotary, the composite attention op (implementation w.attention), projection.
-- @tparam table opt `count` (layers of this class), `s_kv` (keys each query
--   attends to: s, or a sliding window), `suffix` (appended to op names),
--   `qkv` (false to omit the QKV and projection GEMMs, which a caller adds
--   itself), `rotary_frac` (fraction of each head rotated; 0 for none)
function M.attention(ops, c, w, opt)
  local e, bs, h = w.e, w.b * w.s, c.hidden_size
  local g = M.heads(c, w)
  local sfx = opt.suffix or ""
  local n = opt.count
  if opt.qkv ~= false then ops[#ops + 1] = M.qkv(c, w, n) end
  if (opt.rotary_frac or 0) > 0 then
    -- RoPE rewrites the rotated part of q and k: read + write
    local rotated = bs * (g.a_t + g.kv_t) * g.hd * opt.rotary_frac
    local op = M.elementwise("rotary", "rotary" .. sfx, 2 * rotated * e.in_bytes, n, rotated, e.in_bytes)
    op.rotary_frac = opt.rotary_frac
    ops[#ops + 1] = op
  end
  ops[#ops + 1] = M.core_attention(c, w, n, opt.s_kv, sfx, opt.causal ~= false)
  if opt.qkv ~= false then ops[#ops + 1] = M.attn_out(c, w, n) end
end

--- The fused QKV projection: (b*s) x (a+2kv)*hd/t x h.
function M.qkv(c, w, count)
  local g = M.heads(c, w)
  local op = M.gemm("qkv", "qkv_transform", w.b * w.s, (g.a_t + 2 * g.kv_t) * g.hd, c.hidden_size, count, w.e)
  op.v_cols = g.kv_t * g.hd -- the V projection's columns (its own quantization in GGUF Q4_K_M)
  return op
end

--- The post-attention projection: (b*s) x h x a*hd/t.
function M.attn_out(c, w, count)
  local g = M.heads(c, w)
  return M.gemm("attn_out", "attention_projection", w.b * w.s, c.hidden_size, g.a_t * g.hd, count, w.e)
end

--- The composite attention op: softmax(Q K^T) V over `s_kv` keys per query,
-- implementation `w.attention` ("standard" default, or "flash"). `causal`
-- (decoders) lets a fused kernel skip the masked half of the scores
-- (`causal_elems`: score elements computed, in whole 128 x 128 blocks, the
-- block size of FlashAttention-2 for head dims 64-128 (Dao 2023, Sec. 3.3);
-- blocks on the diagonal are computed in full); materialized attention
-- computes them all.
local BLOCK = 128
--- Score elements a causal fused kernel computes for s queries (the last s of
-- s_kv keys), in whole BLOCK x BLOCK blocks.
local causal_memo, causal_memo_n = {}, 0

function M.causal_elems(s, s_kv)
  local key = s * 4294967296 + s_kv -- both below 2^31 (workload and window bounds)
  local hit = causal_memo[key]
  if hit then return hit end
  local total = M.causal_elems_uncached(s, s_kv)
  if causal_memo_n >= 4096 then causal_memo, causal_memo_n = {}, 0 end -- bounded
  causal_memo[key], causal_memo_n = total, causal_memo_n + 1
  return total
end

--- causal_elems without the memo (the loop over row blocks).
function M.causal_elems_uncached(s, s_kv)
  local rows, total = -(-s // BLOCK), 0
  if s_kv < s then
    -- a sliding window of s_kv keys (Mistral): row block i sees the window before its
    -- first query and its own block, in whole blocks
    local span = -(-(s_kv + BLOCK) // BLOCK) * BLOCK
    for i = 1, rows do
      local q_n = math.min(i * BLOCK, s) - (i - 1) * BLOCK
      total = total + q_n * math.min(i * BLOCK, span)
    end
    return total * 1.0
  end
  -- the queries are the last s of s_kv keys: row block i sees keys up to its last query
  for i = 1, rows do
    local q_hi = math.min(i * BLOCK, s) + (s_kv - s)
    local q_n = math.min(i * BLOCK, s) - (i - 1) * BLOCK
    total = total + q_n * math.min(s_kv, -(-q_hi // BLOCK) * BLOCK)
  end
  return total * 1.0
end

--- Score elements a model needs for s queries over s_kv keys per head: all s*s_kv when
-- bidirectional; causal, query i (1..s, the last s of s_kv keys) needs the keys up to its own
-- position, s_kv - s + i of them, and with a sliding window (s_kv < s) the last s_kv of them.
function M.needed_elems(s, s_kv, causal)
  if not causal then return s * s_kv * 1.0 end
  if s_kv < s then return (s_kv * (s_kv + 1) / 2 + (s - s_kv) * s_kv) * 1.0 end
  return ((s_kv - s) * s + s * (s + 1) / 2) * 1.0
end

--- An op's FLOP per call under the "full" convention, for reproductions that count every
-- s x s score (PaLM's 6N + 12LHQT, Chowdhery et al. 2022 App. B; Megatron's eq. 3, Narayanan
-- et al. 2021; the co-design paper's benchmark, whose BMMs compute all of them): attention
-- 4*hd per score of the full matrix, every other op its model_flops.
function M.full_flops(op)
  if op.kind == "attention" then return 4.0 * op.head_dim * op.elems end
  return op.model_flops
end

function M.core_attention(c, w, count, s_kv, suffix, causal)
  local e, g = w.e, M.heads(c, w)
  local impl = w.attention or "standard"
  local scores = g.batch * w.s * s_kv -- elements of the score matrix
  -- materialized: the score BMM, the softmax over the scores in DRAM, the BMM over V (a fused
  -- kernel has none of them)
  local score, av, softmax
  if impl == "standard" then
    score = M.gemm("attn_score", "attention_score" .. (suffix or ""), w.s, s_kv, g.hd, count, e, g.batch)
    av = M.gemm("attn_av", "attention_over_value" .. (suffix or ""), w.s, g.hd, s_kv, count, e, g.batch)
    score.kind, av.kind = "bmm", "bmm"
    -- scale, mask, softmax on the score matrix: read + write
    softmax = M.elementwise("softmax", "softmax" .. (suffix or ""), 2 * scores * e.out_bytes, count, scores,
      e.out_bytes)
    softmax.masked = causal and true or false -- a causal mask is added; a bidirectional layer has none to add
  end
  local qkvo = w.b * w.s * (2 * g.a_t + 2 * g.kv_t) * g.hd * e.in_bytes * 1.0
  local computed = causal and impl == "flash" and g.batch * M.causal_elems(w.s, s_kv) or scores * 1.0
  local needed = g.batch * M.needed_elems(w.s, s_kv, causal)
  return {
    role = "attention", kind = "attention", impl = impl, name = (impl == "flash" and "flash_attention" or "attention")
      .. (suffix or ""), scope = "layer", count = count,
    m = w.s, n = s_kv, k = g.hd, batch = g.batch, s_kv = s_kv, head_dim = g.hd,
    flops = 4.0 * g.hd * computed, model_flops = 4.0 * g.hd * needed,
    bytes = impl == "standard" and score.bytes + softmax.bytes + av.bytes or qkvo,
    qkv_bytes = qkvo, -- Q, K, V read and O written once, byte
    parts = impl == "standard" and { score, softmax, av } or nil,
    elems = scores * 1.0, elem_bytes = e.out_bytes, causal = causal and true or false,
    causal_elems = causal and g.batch * M.causal_elems(w.s, s_kv) or scores * 1.0,
    needed_elems = needed,
    q_elems = g.batch * w.s * g.hd * 1.0, kv_elems = w.b * s_kv * g.kv_t * g.hd * 1.0, -- Q (= O) and K (= V) elements
  }
end

--- A norm over (b*s) x h activations: read + write. `kind` is "rms"
-- (RMSNorm, Zhang & Sennrich 2019) or "layer" (LayerNorm).
function M.norm(name, c, w, count, kind)
  local elems = w.b * w.s * c.hidden_size
  local op = M.elementwise("norm", name, 2 * elems * w.e.in_bytes, count, elems, w.e.in_bytes)
  op.norm = kind or "layer"
  return op
end

--- A residual add of `inputs` (b*s) x h tensors into one: read inputs, write 1.
function M.residual(name, c, w, count, inputs)
  local elems = w.b * w.s * c.hidden_size
  local op = M.elementwise("residual", name, (inputs + 1) * elems * w.e.in_bytes, count, elems, w.e.in_bytes)
  op.inputs = inputs
  return op
end

--- Token embedding gather: read b*s rows of h, write them.
function M.embedding(c, w)
  local elems = w.b * w.s * c.hidden_size
  return M.outside(M.elementwise("embedding", "embedding", 2 * elems * w.e.in_bytes, 1, elems, w.e.in_bytes))
end

--- The logit (LM head) GEMM: (b*s) x v/t x h; b x v/t x h when `w.last_logits` (a serving
-- engine computes the logits of each sequence's last position only: the token it samples).
function M.logits(c, w)
  local m = w.last_logits and w.b or w.b * w.s
  return M.outside(M.gemm("logits", "logits", m, idiv_up(c.vocab_size, w.t), c.hidden_size, 1, w.e))
end

--- Append the end of a pre-norm decoder's pass to `ops`: each layer's MLP residual (L of
-- them), the final RMSNorm and the logits; returns ops.
function M.pre_norm_tail(ops, c, w, L)
  ops[#ops + 1] = M.residual("mlp_residual", c, w, L, 2)
  ops[#ops + 1] = M.outside(M.norm("final_rmsnorm", c, w, 1, "rms"))
  ops[#ops + 1] = M.logits(c, w)
  return ops
end

--- The GEMMs of a gated MLP (M.glu_mlp's), in its order, without building ops (searches that
-- price only the MLP's GEMMs at many widths): `{ { role, name, m, n, k }, ... }` (batch 1) and I/t.
function M.glu_gemms(c, w, fused)
  local bs, h = w.b * w.s, c.hidden_size
  local i_t = idiv_up(c.intermediate_size, w.t)
  if fused then return { { "mlp_gate_up", "mlp_up_gate", bs, 2 * i_t, h }, { "mlp_down", "mlp_down", bs, h, i_t } }, i_t end
  return { { "mlp_gate", "mlp_gate", bs, i_t, h }, { "mlp_up", "mlp_up", bs, i_t, h }, { "mlp_down", "mlp_down", bs, h, i_t } },
    i_t
end

--- A gated MLP (SwiGLU / GeGLU): up and gate as two GEMMs of width I/t, or
-- one fused GEMM of width 2I/t (`fused`), the gated activation (read 2, write
-- 1) and the down projection (M.glu_gemms).
function M.glu_mlp(ops, c, w, count, fused)
  local e, bs = w.e, w.b * w.s
  local g, i_t = M.glu_gemms(c, w, fused)
  for j = 1, #g - 1 do
    local x = g[j]
    ops[#ops + 1] = M.gemm(x[1], x[2], x[3], x[4], x[5], count, e)
  end
  -- act(gate) * up: read 2, write 1
  ops[#ops + 1] = M.elementwise("glu", "glu_activation", 3 * bs * i_t * e.in_bytes, count, bs * i_t, e.in_bytes)
  local down = g[#g]
  ops[#ops + 1] = M.gemm(down[1], down[2], down[3], down[4], down[5], count, e)
end

--- A mixture-of-experts SwiGLU MLP (Mixtral; Jiang et al. 2024, arXiv 2401.04088 §2.1):
-- the router, a (b*s) x E x h GEMM, picks `num_experts_per_tok` (k) of the
-- `num_local_experts` (E) experts per token; each expert is a SwiGLU of width I over
-- the tokens routed to it. Under uniform routing an expert sees ceil(b*s*k/E) tokens
-- (times `w.imbalance` for the busiest, default 1), so its GEMMs are a grouped GEMM
-- of E problems with that M: few tokens per expert waste most of a tile's rows.
-- Expert ops carry `experts` = E and `experts_per_token` = k (weights and FLOP per
-- token: tilewave.data.quant.weight_bytes).
-- `opt` overrides the config's fields (DeepSeek): `experts` (E), `per_token` (k), `width`
-- (the expert width), `shared_width` (a dense shared-expert SwiGLU of that width, or nil).
function M.moe_mlp(ops, c, w, count, opt)
  opt = opt or {}
  local e, bs, h = w.e, w.b * w.s, c.hidden_size
  local E, k = opt.experts or c.num_local_experts, opt.per_token or c.num_experts_per_tok
  local i_t = idiv_up(opt.width or c.intermediate_size, w.t)
  -- expert parallelism (w.ep): this rank's E/ep experts take the tokens of ep ranks
  local ep = w.ep or 1
  -- the step's routed copies on this rank (its E/ep experts take the tokens of ep ranks), and the
  -- distinct experts among them it runs: a grouped GEMM has one problem per expert with tokens
  local local_e = E // ep
  local copies = bs * ep * k * local_e / E
  local variants = M.experts_run(E, k, bs * ep, local_e)
  if opt.shared_width then
    local s_t = idiv_up(opt.shared_width, w.t)
    ops[#ops + 1] = M.gemm("mlp_gate", "shared_expert_gate", bs, s_t, h, count, e)
    ops[#ops + 1] = M.gemm("mlp_up", "shared_expert_up", bs, s_t, h, count, e)
    ops[#ops + 1] = M.elementwise("glu", "shared_expert_glu", 3 * bs * s_t * e.in_bytes, count, bs * s_t, e.in_bytes)
    ops[#ops + 1] = M.gemm("mlp_down", "shared_expert_down", bs, h, s_t, count, e)
  end
  local router = M.gemm("moe_router", "moe_router", bs, E, h, count, e)
  -- the routing fields an unfused engine's expert loop needs (tilewave.cost.kernels.moe_loop)
  router.route_experts, router.route_k, router.route_tokens, router.route_local = E, k, bs * ep, E // ep
  ops[#ops + 1] = router
  -- each problem at the busiest expert's rows, `w.imbalance` times the mean (a grouped GEMM waits
  -- for its largest problem)
  local function rows(problems) return math.max(1, math.ceil(copies / problems * (w.imbalance or 1))) end
  local function expert(role, n, kk)
    for _, v in ipairs(variants) do
      local m = rows(v[1])
      local op = M.gemm(role, "expert_" .. role, m, n, kk, count * v[2], e, v[1])
      op.kind = "gemm" -- a grouped GEMM over weights (one problem per expert run), not an attention BMM
      op.experts, op.experts_per_token, op.tokens_per_expert = E, k, m
      -- the model needs the routed tokens' products only: b*s*k rows over the ep ranks' tokens
      op.model_flops = math.min(op.flops, 2.0 * copies * n * kk)
      ops[#ops + 1] = op
    end
  end
  expert("mlp_gate", i_t, h)
  expert("mlp_up", i_t, h)
  -- the GLU over every row the expert GEMMs computed, in expectation over the variants
  local glu_rows = 0
  for _, v in ipairs(variants) do glu_rows = glu_rows + v[2] * rows(v[1]) * v[1] end
  ops[#ops + 1] = M.elementwise("glu", "glu_activation", 3 * glu_rows * i_t * e.in_bytes, count,
    glu_rows * i_t, e.in_bytes)
  expert("mlp_down", h, i_t)
end

--- The experts a MoE layer's grouped GEMM runs on one rank holding `local_e` of the `E` experts,
-- when `tokens` tokens are each routed to `k` of them uniformly: one problem per expert that got a
-- token. Their expected number is local_e (1 - (1 - k/E)^tokens) (tilewave.data.quant.experts_touched,
-- the decode step's weight bytes; model_configs.md §6b); the count of problems is an integer, so the
-- expectation is priced as the two integer counts around it, each with the probability that makes
-- its mean exact (a grouped GEMM's time is linear in its problems wherever its weights' bytes bound
-- it: decode and short chunks). Past local_e - 1e-6 every expert runs.
-- @return a list of `{ problems (integer >= 1), weight }`, weights summing to 1 (or, below one
--   expected expert, `{ { 1, expected } }`)
function M.experts_run(E, k, tokens, local_e)
  local touched = local_e * (1 - (1 - k / E) ^ tokens)
  if local_e - touched < 1e-6 then return { { local_e, 1 } } end
  local lo = math.floor(touched)
  local p = touched - lo
  if p == 0 then return { { lo, 1 } } end
  if lo < 1 then return { { 1, touched } } end -- a step that runs no expert costs nothing
  return { { lo, 1 - p }, { lo + 1, p } }
end

--- Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1; V3 config.json): Q
-- through a low-rank q_lora_rank (or directly when it is nil), K and V decompressed
-- from a kv_lora_rank latent plus a shared qk_rope_head_dim rope key, attention over
-- a heads, output projection from a * v_head_dim. Prefill form (decompressed). The
-- composite attention op uses c.head_dim = (qk_nope + qk_rope + v) / 2, which gives
-- the exact FLOP of Q K^T (qk dims) plus P V (v dims).
function M.mla_attention(ops, c, w, count, s_kv)
  local e, bs, h = w.e, w.b * w.s, c.hidden_size
  local a_t = idiv_up(c.num_attention_heads, w.t)
  local qk = c.qk_nope_head_dim + c.qk_rope_head_dim
  if c.q_lora_rank then
    ops[#ops + 1] = M.gemm("mla_q_down", "mla_q_a_proj", bs, c.q_lora_rank, h, count, e)
    local nq = M.elementwise("norm", "mla_q_a_layernorm", 2 * bs * c.q_lora_rank * e.in_bytes, count,
      bs * c.q_lora_rank, e.in_bytes)
    nq.norm = "rms"
    ops[#ops + 1] = nq
    ops[#ops + 1] = M.gemm("mla_q_up", "mla_q_b_proj", bs, a_t * qk, c.q_lora_rank, count, e)
  else
    ops[#ops + 1] = M.gemm("mla_q_up", "mla_q_proj", bs, a_t * qk, h, count, e)
  end
  ops[#ops + 1] = M.gemm("mla_kv_down", "mla_kv_a_proj_with_mqa", bs, c.kv_lora_rank + c.qk_rope_head_dim, h, count, e)
  local nkv = M.elementwise("norm", "mla_kv_a_layernorm", 2 * bs * c.kv_lora_rank * e.in_bytes, count,
    bs * c.kv_lora_rank, e.in_bytes)
  nkv.norm = "rms"
  ops[#ops + 1] = nkv
  ops[#ops + 1] = M.gemm("mla_kv_up", "mla_kv_b_proj", bs, a_t * (c.qk_nope_head_dim + c.v_head_dim), c.kv_lora_rank,
    count, e)
  ops[#ops + 1] = M.core_attention(c, w, count, s_kv, "", true)
  ops[#ops + 1] = M.gemm("attn_out", "attention_projection", bs, h, a_t * c.v_head_dim, count, e)
end

--- A plain MLP h -> I -> h with an activation in between (read + write).
function M.mlp(ops, c, w, count)
  local e, bs, h = w.e, w.b * w.s, c.hidden_size
  local i_t = idiv_up(c.intermediate_size, w.t)
  ops[#ops + 1] = M.gemm("mlp_up", "mlp_up", bs, i_t, h, count, e)
  ops[#ops + 1] = M.elementwise("activation", "activation", 2 * bs * i_t * e.in_bytes, count, bs * i_t, e.in_bytes)
  ops[#ops + 1] = M.gemm("mlp_down", "mlp_down", bs, h, i_t, count, e)
end

--- Weights of a layer's attention: h*(a+2kv)*hd + a*hd*h, plus the Q, K and V biases
-- (a+2kv)*hd when `attention_bias` (Qwen2: model_configs.md §1, §6).
function M.attention_weights(c)
  local hd, a, kv, h = c.head_dim, c.num_attention_heads, c.num_key_value_heads, c.hidden_size
  return h * (a + 2 * kv) * hd + a * hd * h + (c.attention_bias and (a + 2 * kv) * hd or 0)
end

--- Parameters of one GPT-2-style layer (GPT-3, GPT-NeoX/Pythia): QKV with
-- bias h*(a+2kv)*hd + (a+2kv)*hd, projection with bias a*hd*h + h, MLP with
-- biases 2*h*I + I + h, two LayerNorms with bias 4h (12h^2 + 13h at I = 4h,
-- MHA; ../shared/reference/model_configs.md §0).
function M.gpt_layer_params(c)
  local h, I = c.hidden_size, c.intermediate_size
  local qkv_out = (c.num_attention_heads + 2 * c.num_key_value_heads) * c.head_dim
  return M.attention_weights(c) + qkv_out + h + 2 * h * I + I + h + 4 * h
end

return M
