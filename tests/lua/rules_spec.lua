-- busted specs for tilewave.rules: the co-design paper's rules (arXiv
-- 2401.14489) on real shapes, with fixes whose speedups come from the model.
local tw = require "tilewave"

local A100 = "a100_sxm4_80gb"
local W = { b = 4, s = 2048 }

local function by_rule(list)
  local t = {}
  for _, v in ipairs(list) do t[v.rule] = v end
  return t
end

local function per_token(model, w)
  local r = tw.transformer.estimate(model, A100, w)
  return r.time_s / (r.b * r.s)
end

describe("tilewave.explore.rules", function()
  it("flags Pythia-2.8B's h/a = 80 and fixes it with a head count giving a multiple of 64", function()
    local v = by_rule(tw.rules.check("pythia-2.8b", W, A100))
    local x = assert(v.head_dim_64)
    assert.equal(80, x.value)
    assert.truthy(x.expected:find("now divisible by 16", 1, true))
    local a = x.fix.num_attention_heads
    assert.is_true(a == 20 or a == 40)          -- 2560/20 = 128, 2560/40 = 64
    assert.equal(0, (2560 // a) % 64)
    -- the speedup is the model's: per-token forward time before / after
    local fixed = tw.models.load("pythia-2.8b")
    fixed.num_attention_heads, fixed.num_key_value_heads, fixed.head_dim = a, a, 2560 // a
    assert.near(per_token("pythia-2.8b", W) / per_token(fixed, W), x.speedup, 1e-12)
    assert.is_true(x.speedup > 1)
    assert.is_nil(v.vocab_64) -- 50304 = 64 * 786
  end)

  it("pads a 50277-token vocabulary to 50304 and predicts the gain", function()
    local c = tw.models.load("pythia-2.8b")
    c.vocab_size = 50277
    local x = assert(by_rule(tw.rules.check(c, W, A100)).vocab_64)
    assert.same({ vocab_size = 50304 }, x.fix)
    assert.equal("pad v 50277 -> 50304", x.fix_text)
    assert.near(per_token(c, W) / per_token("pythia-2.8b", W), x.speedup, 1e-12)
    assert.is_true(x.speedup > 1.01)
  end)

  it("flags b*s, h/t, (b*a)/t and t on a badly sharded workload", function()
    local v = by_rule(tw.rules.check("gpt3-2.7b", { b = 1, s = 2047, t = 3 }, A100))
    assert.equal("s 2047 -> 2048 (b*s = 2048)", v.tokens_64.fix_text)
    assert.is_true(v.tokens_64.speedup > 1)
    assert.equal("error", v.heads_per_rank.severity) -- 32/3 heads per rank
    assert.same({ t = 2 }, v.heads_per_rank.fix)
    assert.same({ t = 2 }, v.hidden_per_rank.fix)  -- 2560/3 is not an integer; 2560/2 = 1280 = 64*20
    assert.same({ t = 1 }, v.t_small.fix)          -- 5.3 GB of weights fit one 80 GB GPU
  end)

  it("finds nothing wrong with Llama-3.1-8B at b*s = 8192", function()
    assert.same({}, tw.rules.check("llama-3.1-8b", W, "h100_sxm5"))
  end)

  it("searches SwiGLU widths near 8h/3 and prefers a 64-multiple over int(8h/3)", function()
    -- h = 4096: int(8*4096/3) = 10922 = 2 * 5461 (2-byte aligned)
    local c = tw.models.define { family = "llama", hidden_size = 4096, num_attention_heads = 32,
      num_hidden_layers = 2, intermediate_size = 10922, vocab_size = 32000 }
    local x = assert(by_rule(tw.rules.check(c, W, "h100_sxm5")).glu_width)
    local best = x.fix.intermediate_size
    assert.is_true(math.abs(best - 10922) <= 0.02 * 10922)
    assert.is_true(tw.rules.pow2(best) >= 64)
    assert.is_true(x.speedup > 1.1)
  end)

  it("prices the GLU scan from the family's GEMM shapes exactly as from its ops", function()
    -- llama-2-7b at b*s = 8192: gate and up 8192 x 11008 x 4096, down 8192 x 4096 x 11008
    local models = require "tilewave.data.models"
    local c = tw.models.load("llama-2-7b")
    local fam = models.families.llama
    local w = tw.transformer.workload({ b = 4, s = 2048 }, "test")
    assert.same({ { "mlp_gate", "mlp_gate", 8192, 11008, 4096 }, { "mlp_up", "mlp_up", 8192, 11008, 4096 },
                  { "mlp_down", "mlp_down", 8192, 4096, 11008 } }, fam.mlp_gemms(c, w))
    -- every MLP GEMM op of mlp_ops, in order, has the shape mlp_gemms lists
    local shapes = {}
    for _, op in ipairs(fam.mlp_ops(c, w)) do
      if op.kind == "gemm" then shapes[#shapes + 1] = { op.role, op.name, op.m, op.n, op.k } end
    end
    assert.same(shapes, fam.mlp_gemms(c, w))
    -- the rule's answer with the shapes and with the ops (mlp_gemms hidden) is the same, bit for bit
    local odd = tw.models.define { family = "llama", hidden_size = 4096, num_attention_heads = 32,
      num_hidden_layers = 2, intermediate_size = 10922, vocab_size = 32000 }
    local fast = by_rule(tw.rules.check(odd, W, "h100_sxm5")).glu_width
    assert.is_table(fast)
    local saved = fam.mlp_gemms
    fam.mlp_gemms = nil
    local ok, slow = pcall(tw.rules.check, odd, W, "h100_sxm5")
    fam.mlp_gemms = saved
    assert.is_true(ok, slow)
    assert.same(by_rule(slow).glu_width, fast)
    assert.is_nil(fam.mlp_gemms(tw.models.load("mixtral-8x7b"), w)) -- routed experts: the ops path
  end)

  it("computes the largest power of two dividing n", function()
    assert.same({ 1, 16, 64, 2 }, { tw.rules.pow2(2047), tw.rules.pow2(80), tw.rules.pow2(4096 // 64), tw.rules.pow2(10922) })
  end)

  it("rejects unknown options", function()
    local ok, err = pcall(tw.rules.check, "pythia-2.8b", { bs = 8192 }, A100)
    assert.is_false(ok)
    assert.truthy(err:find("rules.check: unknown option 'bs'", 1, true))
  end)

  it("flags a MoE layer with fewer tokens per expert than a tile has rows (Mixtral, b*s*k/E)", function()
    -- Mixtral-8x7B: E = 8 experts, k = 2 per token; b = 1, s = 256: 1 * 256 * 2 / 8 = 64 tokens per
    -- expert, below M.MOE_TILE_ROWS = 128; b = ceil(128 * 8 / (256 * 2)) = 2 gives 128
    local found
    for _, v in ipairs(tw.rules.check("mixtral-8x7b", { b = 1, s = 256 }, "h100_sxm5")) do
      if v.rule == "moe_tokens_per_expert" then found = v end
    end
    assert.is_table(found)
    assert.equal(64, found.value)
    assert.equal("b 1 -> 2 (128 tokens per expert)", found.fix_text)
    for _, v in ipairs(tw.rules.check("mixtral-8x7b", { b = 2, s = 256 }, "h100_sxm5")) do
      assert.are_not.equal("moe_tokens_per_expert", v.rule)
    end
  end)
end)
