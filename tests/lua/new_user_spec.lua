-- busted specs for a new user's path (issue 50): from a folder holding a config.json as Hugging Face
-- transformers 5.17 writes it (save_pretrained: dtype, rope_parameters, layer_types, nested text_config,
-- quantization_config; tests/fixtures/hf_tf5/, one published model per family tilewave reads) to prefill,
-- decode, serve and a sizing answer, through the executable. GPT-3 has no Hugging Face config (its
-- presets stand in); ModernBERT is an encoder, served by none of the three decode commands: each says so.
local run = dofile("tests/lua/helpers/process.lua").run

local DIR = "tests/fixtures/hf_tf5/"
-- folder -> { family, t on one H200 (141 GB) so that the weights fit, the weight format the folder declares }
local MODELS = {
  ["llama-3.2-1b"] = { "llama", 1, "bf16" },
  ["pythia-160m"] = { "gpt_neox", 1, "bf16" },
  ["mistral-7b-v0.1"] = { "mistral", 1, "bf16" },
  ["mixtral-8x7b-fp8"] = { "mistral", 1, "fp8" },
  ["qwen2.5-0.5b"] = { "qwen2", 1, "bf16" },
  ["qwen3-0.6b"] = { "qwen3", 1, "bf16" },
  ["phi-3-mini-4k"] = { "phi3", 1, "bf16" },
  ["gemma-2-2b"] = { "gemma2", 1, "bf16" },
  ["gemma-3-4b-it"] = { "gemma3", 1, "bf16" },
  ["deepseek-v2-lite"] = { "deepseek", 1, "bf16" },
  ["qwen3-30b-a3b-awq"] = { "qwen_moe", 1, "int4" },
  ["gpt-oss-20b"] = { "gpt_oss", 1, "mxfp4" },
  ["llama-4-scout"] = { "llama4", 2, "bf16" },
}

describe("a new user's path from a transformers-written config.json folder", function()
  for name, m in pairs(MODELS) do
    it(name .. " (" .. m[1] .. "): models, prefill, decode, serve and a sizing answer", function()
      local path, t = DIR .. name, " --t " .. m[2]
      local code, out, err = run("models " .. path)
      assert.equal(0, code, err)
      assert.truthy(out:find("\n" .. name:gsub("%p", "%%%0") .. " +" .. m[1] .. " "), out)
      code, out, err = run("prefill " .. path .. " --hw h200 --prompt 512" .. t)
      assert.equal(0, code, err)
      assert.truthy(out:find("\n1 +512 +[0-9.]+ [^ ]*s"), out)
      code, out, err = run("decode " .. path .. " --hw h200 --context 2048" .. t)
      assert.equal(0, code, err)
      assert.truthy(out:find(m[3] .. " weights", 1, true), out)
      assert.truthy(out:find("TPOT        [0-9.]+ [^ ]*s"), out)
      code, out, err = run("serve " .. path .. " --hw h200 --rate 2 --requests 60 --isl 512 --osl 64" .. t)
      assert.equal(0, code, err)
      assert.truthy(out:find("\n2/s "), out)
      code, out, err = run("serve " .. path .. " --search --hw h200 --rate 2 --slo ttft=2s,tpot=200ms --requests 60 "
        .. "--isl 512 --osl 64 --format json")
      assert.equal(0, code, err)
      local r = require("cjson").decode(out)
      assert.is_true(#r.deployments >= 1, out)
      assert.equal("h200_sxm", r.deployments[1].hw)
      -- a bf16 checkpoint is sized with fp8 weights on the H200's FP8 tensor cores (tilewave.serve.size_devices);
      -- a checkpoint with its own format in that format, on at least the GPUs decode needed
      if m[3] == "bf16" then
        assert.equal("fp8", r.deployments[1].weight_dtype)
      else
        assert.equal(m[3], r.deployments[1].weight_dtype)
        assert.is_true(r.deployments[1].gpus >= m[2])
      end
    end)
  end

  -- round 3 (issue 70 items 1, 4, 5 and 8) from the same folders
  it("names a speculative draft, prints no time for what does not fit, says a format's default, drops a dataset's "
    .. "requests past the context", function()
    -- item 1: a folder as the draft; the acceptance rate not given is assumed, and said
    local code, out, err = run("decode " .. DIR .. "llama-3.2-1b --hw h200 --batch 1 --speculative draft="
      .. DIR .. "llama-3.2-1b,k=2")
    assert.equal(0, code, err)
    assert.truthy(out:find("speculative: draft llama-3.2-1b, k = 2, acceptance 0.70 assumed", 1, true), out)
    -- item 4: mistral-7b at batch 512 x 32768 tokens needs 2.2 TB of KV cache on a 141 GB H200: no time
    code, out, err = run("decode " .. DIR .. "mistral-7b-v0.1 --hw h200 --batch 512 --context 32768")
    assert.equal(0, code, err)
    assert.truthy(out:find("not priced: a configuration that does not fit has no time", 1, true), out)
    assert.falsy(out:find("TPOT        [0-9]"), out)
    -- item 5: gpt-oss without quantization_config is bf16, and says the published format
    code, out, err = run("decode tests/fixtures/hf_variants/gpt-oss-20b-no-quantization --hw h200 --batch 1")
    assert.equal(0, code, err)
    assert.truthy(out:find("bf16 weights", 1, true) and out:find("ship mxfp4 (--weight-dtype mxfp4)", 1, true), out)
    -- item 8: phi-3-mini-4k's 4096-token context drops arxiv's longest requests, counted
    code, out, err = run("serve " .. DIR .. "phi-3-mini-4k --hw h200 --dataset arxiv --rate 1 --requests 200 --replay")
    assert.equal(0, code, err)
    assert.truthy(out:find("had isl %+ osl above 4096 tokens and were dropped"), out)
  end)

  it("modernbert-base (encoder): prefill only; decode, serve and sizing say why not", function()
    local path = DIR .. "modernbert-base"
    local code, out = run("prefill " .. path .. " --hw h200 --prompt 512")
    assert.equal(0, code)
    assert.truthy(out:find("\n1 +512 +[0-9.]+ [^ ]*s"), out)
    for _, cmd in ipairs { "decode " .. path .. " --hw h200", "serve " .. path .. " --hw h200 --rate 1",
                           "serve " .. path .. " --search --hw h200 --rate 1 --slo ttft=1s,tpot=50ms" } do
      local c, _, err = run(cmd)
      assert.equal(1, c, cmd)
      assert.truthy(err:find("modernbert-base is an encoder (modernbert)", 1, true), err)
    end
  end)
end)
