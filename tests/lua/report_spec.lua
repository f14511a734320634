-- busted specs for tilewave.report's model-report formatters, on made-up
-- result tables (formatting only: nothing here is computed by the model).
local report = require "tilewave.report.format"

local function fake()
  local op = { name = "mlp_up", kind = "gemm", m = 8192, n = 10240, k = 2560, batch = 1, count = 32,
               total_s = 0.018, share = 0.16, tflops = 758.9, loss = "wave", tiles = 2560, waves = 20,
               wave_eff = 0.97, tile_eff = 1, align_eff = 1, align_bytes = 128, tile = { m = 256, n = 128 } }
  local config = { hidden_size = 2560, num_attention_heads = 32, num_key_value_heads = 32, head_dim = 80,
                   num_hidden_layers = 32, intermediate_size = 10240, vocab_size = 50304, tie_word_embeddings = false }
  return {
    version = "9.9.9",
    hw = { id = "gpu_x", name = "GPU X", peak_flops = { bf16 = 1e15 } },
    workload = { b = 4, s = 2048, t = 1, dtype = "bf16", attention = "standard", engine = "eager" },
    models = { {
      id = "m-1", name = "Model, One", family = "fam", config = config,
      params = { total = 2775208960, non_embedding = 2517652480 },
      estimate = { time_s = 0.1, layer_s = 0.003, tokens_per_s = 81920, tflops = 500, mfu = 0.5, gemm_share = 0.75 },
      slowest = { op },
      violations = { { rule = "head_dim_64", field = "h/a", value = 80, expected = "a multiple of 64",
                       fix_text = "a 32 -> 20 (h/a 80 -> 128)", speedup = 1.25, metric = "forward time per token" } },
      nearby = { changes = { num_attention_heads = 20, num_key_value_heads = 20 }, speedup = 1.2, params_ratio = 1,
                 size_speedup = 1.2, tflops = 600 },
    } },
  }
end

describe("tilewave.report.format", function()
  it("groups digits and writes parameter counts in the field's style", function()
    assert.equal("2,775,208,960", report.group(2775208960))
    assert.equal("999", report.group(999))
    assert.equal("2.775B", report.count(2775208960))
    assert.equal("149M", report.count(149014272))
  end)

  it("writes a Markdown report with the summary row, the slowest GEMM and the fix", function()
    local md = report.models_markdown(fake())
    assert.truthy(md:find("Forward pass on GPU X (gpu_x), bf16, b = 4, s = 2048 (8192 tokens), t = 1, standard attention, eager engine (tilewave.cost.engines); dense bf16 peak 1000.0 TFLOP/s. tilewave 9.9.9.", 1, true))
    assert.truthy(md:find("| m-1 | 2.775B | 100 ms | 81.92 k | 500.0 | 50.0% | 75% | head_dim_64 | a 32 -> 20: x1.200 |", 1, true))
    assert.truthy(md:find("| mlp_up | 8192x10240x2560 | 32 | 18 ms | 16.0% | 758.9 | wave quantization (2560 tiles in 20 waves, eff 0.97) |", 1, true))
    assert.truthy(md:find("- **head_dim_64**: h/a = 80, expected a multiple of 64. Fix: a 32 -> 20 (h/a 80 -> 128), predicted x1.250 (forward time per token).", 1, true))
  end)

  it("writes CSV with quoted fields where needed", function()
    local csv = report.models_csv(fake())
    local lines = {}
    for l in csv:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.equal(2, #lines)
    assert.equal("m-1,fam,gpu_x,bf16,4,2048,1,standard,2775208960,2517652480,0.1,0.003,81920,500,0.5,0.75,"
      .. "head_dim_64,mlp_up,wave,a 32 -> 20,1.2,,,,,,,,,,,,", lines[2])
  end)

  it("writes JSON with sorted keys", function()
    local j = report.models_json(fake())
    assert.truthy(j:find('^{"hw":"gpu_x","models":%['))
    assert.truthy(j:find('"version":"9.9.9","workload":{"attention":"standard","b":4', 1, true))
  end)
end)
