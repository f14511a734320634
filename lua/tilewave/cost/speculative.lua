--- tilewave.cost.speculative: speculative decoding (Leviathan, Kalman & Matias 2023, "Fast
-- Inference from Transformers via Speculative Decoding", arXiv 2211.17192).
--
--   tw.inference.decode{ model = "llama-3.1-8b", hw = "h100_sxm5", context = 1024,
--                        speculative = { draft = "llama-3.2-1b", k = 4, acceptance = 0.7 } }
--
-- A draft model proposes k tokens (k decode steps of the draft), the target verifies them in one
-- step over k + 1 tokens per sequence, and each draft is accepted with probability alpha until the
-- first rejection: (1 - alpha^(k+1)) / (1 - alpha) tokens per target step in expectation (the
-- paper's i.i.d. assumption; k + 1 at alpha = 1). The verification is priced as a decode step of
-- b (k + 1) sequences at context / (k + 1) each: the GEMMs see b (k + 1) tokens, the KV bytes read
-- stay those of b caches of `context`. Units: s, token/s.
-- @module tilewave.cost.speculative
local check = require "tilewave.util.check"
local tables = require "tilewave.util.tables"

local M = {}

--- Validate a `speculative` option: `{ draft (model id, config.json, folder or config; "mtp" or
-- "eagle": one layer of the target, M.draft_of), k (draft tokens, 1..16), acceptance (alpha in [0,
-- 1]) }`; returns it resolved.
-- @raise `<path>.<field>: ...`
function M.resolve(s, path)
  check.table(s, path)
  check.options(s, { draft = true, k = true, acceptance = true }, path)
  if s.draft == nil then check.fail(path .. ".draft", "expected a draft model (id, config.json or config)", nil) end
  local k = check.positive_int(s.k or 4, path .. ".k")
  if k > 16 then check.fail(path .. ".k", "expected at most 16 draft tokens", k) end
  local a = check.within(s.acceptance == nil and 0.7 or s.acceptance, 0, 1, "a probability", path .. ".acceptance")
  -- an acceptance rate not given is an assumption: results say so (acceptance_assumed)
  return { draft = s.draft, k = k, acceptance = a, acceptance_assumed = s.acceptance == nil or nil }
end

--- The draft model of `spec` for target config `c`: the draft named, or with `draft = "mtp"` (or
-- "eagle") one decoder layer of the target's own shape with its embedding and LM head -
-- DeepSeek-V3's multi-token-prediction module (arXiv 2412.19437, Sec. 2.2) and EAGLE's draft head
-- (Li et al. 2024, arXiv 2401.15077) are one transformer layer over the target's hidden states.
function M.draft_of(spec, c)
  if spec.draft ~= "mtp" and spec.draft ~= "eagle" then return spec.draft end
  local models = require "tilewave.data.models"
  local target = models.resolve(c, "speculative.target")
  local d = tables.copy(target)
  d.id, d.num_hidden_layers = nil, 1
  d.name = (target.id or target.name or "model") .. " " .. spec.draft .. " head"
  return models.define(d, "speculative.draft")
end

--- The draft config of `spec` for target `c`, checked: a named draft must share the target's
-- tokenizer, which tilewave sees as its vocabulary size (a draft's tokens are the target's).
-- @raise `<path>.draft: <draft>'s vocabulary (V) differs from <target>'s (W): ...`
function M.check_draft(spec, c, path)
  local models = require "tilewave.data.models"
  local target = models.resolve(c, path .. ".target")
  local d = models.resolve(M.draft_of(spec, target), path .. ".draft")
  if d.vocab_size ~= target.vocab_size then
    error(string.format("%s.draft: %s's vocabulary (%d) differs from %s's (%d): a draft must share the target's "
      .. "tokenizer", path, d.id or d.name, d.vocab_size, target.id or target.name, target.vocab_size), 0)
  end
  return d
end

--- tilewave.inference.memory with `speculative`: the draft's weights and its KV cache for the same
-- sequences count too (a draft runs beside the target on the same GPUs, with a cache of its own).
-- The draft's KV is counted at `batch` x `context`, so `max_batch` and `max_context` take the
-- target's growth and the draft's at this point.
-- @return memory()'s result, with `draft_bytes` (weights + KV cache of the draft, byte)
-- @raise memory()'s errors; `memory.speculative.*` as M.resolve and M.check_draft
function M.memory(o)
  local inference = require "tilewave.cost.inference"
  local sd = M.resolve(o.speculative, "memory.speculative")
  local draft = M.check_draft(sd, o.model, "memory.speculative")
  local base = tables.copy(o)
  base.speculative = nil
  local d = inference.memory { model = draft, hw = o.hw, t = o.t, batch = o.batch, context = o.context,
                               kv_dtype = o.kv_dtype, workspace_bytes = 0, memory_bytes = 1e18, allow_long_context = true }
  local extra = d.weight_bytes + d.kv_bytes
  base.workspace_bytes = (o.workspace_bytes or inference.WORKSPACE_BYTES) + extra
  local r = inference.memory(base)
  r.workspace_bytes, r.draft_bytes = r.workspace_bytes - extra, extra
  return r
end

--- Expected tokens per target step: (1 - alpha^(k+1)) / (1 - alpha), k + 1 at alpha = 1.
function M.tokens_per_step(k, alpha)
  if alpha >= 1 then return k + 1 end
  return (1 - alpha ^ (k + 1)) / (1 - alpha)
end

--- tilewave.inference.decode with `speculative`: the target step, the draft's k steps and the
-- tokens per step; `tpot_s` = (k x draft step + verification) / tokens per step.
-- @return decode()'s result of the verification, with `tpot_s`, `tokens_per_s`,
--   `aggregate_tokens_per_s` per output token and `speculative = { draft, k, acceptance,
--   acceptance_assumed (true when the caller gave none: the default 0.7), tokens_per_step,
--   draft_step_s, verify_step_s, plain_tpot_s }`
function M.decode(decode, o)
  local spec = M.resolve(o.speculative, "decode.speculative")
  local q = tables.copy(o)
  q.speculative = nil
  local plain = decode(q)
  local b, c = plain.batch, plain.context
  local v = tables.copy(q)
  v.batch, v.context = b * (spec.k + 1), -(-c // (spec.k + 1))
  local verify = decode(v)
  local d = tables.copy(q)
  d.model, d.weight_dtype, d.group = M.check_draft(spec, o.model, "decode.speculative"), nil, nil
  local draft = decode(d)
  local per = M.tokens_per_step(spec.k, spec.acceptance)
  local step = spec.k * draft.tpot_s + verify.tpot_s
  local r, plain_tpot, plain_iv = plain, plain.tpot_s, plain.interval
  r.tpot_s = step / per
  r.tokens_per_s = 1 / r.tpot_s
  r.aggregate_tokens_per_s = b / r.tpot_s
  r.interval = { low = plain_iv.low * r.tpot_s / plain_tpot, high = plain_iv.high * r.tpot_s / plain_tpot,
                 borrowed = plain_iv.borrowed, unmeasured = plain_iv.unmeasured }
  r.speculative = { draft = draft.model, k = spec.k, acceptance = spec.acceptance, tokens_per_step = per,
                    acceptance_assumed = spec.acceptance_assumed,
                    draft_step_s = draft.tpot_s, verify_step_s = verify.tpot_s, plain_tpot_s = plain_tpot }
  return r
end

return M
