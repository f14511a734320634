-- Property test (issue 65 item 5): `serve` prices a step through the same functions as `decode` and
-- `prefill`. Over one preset of every decoder family (MoE included) x weight formats x tensor-parallel
-- sizes (x expert parallelism where the model has experts):
--   decode   a serve run of b requests started together (concurrency b, a 64-token prompt, 129
--            output tokens: every step after the first a decode step of b sequences) gives a TPOT
--            p50 within 1% of tilewave.inference.decode at batch b and the run's mean context
--            (64 + 65 tokens: the step is linear in the context), for b in { 1, 8, 64 };
--   prefill  one request with a two-token output gets a TTFT within 1% of
--            tilewave.inference.prefill of its prompt under the same engine, format and t.
-- Same engine, format, t and ep on both sides. A cell whose deployment does not fit, or that an
-- engine refuses, is counted as refused, apart from the passes; the summary prints both.
-- No exception is needed: both price a decode step as the larger of its weight and KV stream (D)
-- and its kernels in sequence (G = lin(b) + lm(b) + KV, tilewave.cost.step_parts, src/tw_serve.h),
-- with an overlapped scheduler's host share hidden the same way. The b = 1, 8, 64 batches are CUDA
-- graph capture sizes of every engine's list, so no padding separates the two.
-- Usage: build/tilewave run tests/properties/step_price.lua
local tw = require "tilewave"

local format = string.format
local TOL = 0.01

-- one preset per decoder family (tilewave models; ModernBERT is an encoder), and the device it is
-- served on
local MODELS = {
  { "llama-3.1-8b", "h100_sxm5" }, { "pythia-1b", "h100_sxm5" }, { "gpt3-1.3b", "h100_sxm5" },
  { "mistral-7b", "h100_sxm5" }, { "mixtral-8x7b", "h200_sxm" }, { "qwen2.5-7b", "h100_sxm5" },
  { "qwen3-8b", "h100_sxm5" }, { "gemma-2-9b", "h100_sxm5" }, { "gemma-3-1b", "h100_sxm5" },
  { "phi-3-mini", "h100_sxm5" }, { "deepseek-v3", "h200_sxm" }, { "gpt-oss-20b", "h100_sxm5" },
  { "llama-4-scout", "h200_sxm" },
  -- FP4 tensor cores: nvfp4 runs W4A4 (tilewave.data.quant tensor_core), fp8 W8A8
  { "llama-3.1-8b", "b200" }, { "gpt-oss-20b", "b200" },
  -- another vendor: ROCm engines (vLLM and SGLang run there; TensorRT-LLM is refused, counted)
  { "qwen3-8b", "mi300x" },
}
local FORMATS = { "bf16", "fp8", "int8", "int4", "mxfp4", "nvfp4" }
local TS = { 1, 2, 8 }
local BATCHES = { 1, 8, 64 }
local ENGINES = { "vllm", "trtllm", "sglang", "compiled" } -- three serving engines, one standalone

local counts = { pass = 0, fail = 0, refused = 0 }
local failures = {}
local function check(label, got, want)
  local err = got / want - 1
  if math.abs(err) <= TOL then counts.pass = counts.pass + 1
  else
    counts.fail = counts.fail + 1
    failures[#failures + 1] = format("%s: serve %.6g s, expected %.6g s (%+.2f%%)", label, got, want, 100 * err)
  end
end

local t0 = os.clock()
local k = 0
for _, mh in ipairs(MODELS) do
  local m, h = mh[1], mh[2]
  local E = tw.models.experts and tw.models.experts(tw.models.resolve(m)) or nil
  for _, w in ipairs(FORMATS) do
    for _, t in ipairs(TS) do
      local eps = { 1 }
      if E and t == 1 then eps = { 1, 2 } end
      for _, ep in ipairs(eps) do
        k = k + 1
        local e = ENGINES[k % #ENGINES + 1]
        local base = { model = m, hw = h, engine = e, t = t, weight_dtype = w, ep = ep > 1 and ep or nil }
        for _, b in ipairs(BATCHES) do
          b = math.max(b, ep) -- attention data-parallel: b / ep sequences per rank
          local label = format("%s %s %s %s t=%d ep=%d b=%d", m, h, e, w, t, ep, b)
          local o = {}
          for key, v in pairs(base) do o[key] = v end
          o.workload = { concurrency = b, isl = 64, osl = 129, requests = b }
          local ok, r = pcall(tw.serve.simulate, o)
          if not ok then counts.refused = counts.refused + 1
          else
            -- the run's 128 decode steps, at contexts 65 .. 192: their mean TPOT (the mean of each
            -- 4-context block's midpoint pair: decode is linear in the context within a block of
            -- split-KV's efficiency)
            local d = {}
            for key, v in pairs(base) do d[key] = v end
            d.batch = b
            local sum = 0
            for cx = 65, 192, 4 do
              d.context = cx + 1
              local a = tw.inference.decode(d).tpot_s
              d.context = cx + 2
              sum = sum + a + tw.inference.decode(d).tpot_s
            end
            check(label .. " TPOT", r.tpot_s.p50, sum / 64)
          end
        end
        -- one request: its TTFT is the prefill of its prompt
        local o = {}
        for key, v in pairs(base) do o[key] = v end
        o.workload = { concurrency = 1, isl = 512, osl = 2, requests = 1 }
        local ok, r = pcall(tw.serve.simulate, o)
        if not ok then counts.refused = counts.refused + 1
        elseif ep == 1 then
          local p = tw.inference.prefill { model = m, hw = h, engine = e, t = t, weight_dtype = w, prompt = 512 }
          check(format("%s %s %s %s t=%d TTFT", m, h, e, w, t), r.ttft_s.p50, p.ttft_s)
        end
      end
    end
  end
end
for _, f in ipairs(failures) do print("FAIL " .. f) end
print(format("step price: %d checks passed, %d failed, %d cells refused (do not fit or not runnable) in %.1f s",
  counts.pass, counts.fail, counts.refused, os.clock() - t0))
os.exit(counts.fail == 0 and 0 or 1)
