-- busted specs: the reproduction scripts end with `N of M findings reproduced` and exit
-- non-zero unless every finding holds (tilewave.report.findings).
local process = dofile("tests/lua/helpers/process.lua")
local findings = require "tilewave.report.findings"

describe("reproductions", function()
  it("tallies findings and fails unless all hold", function()
    local lines = {}
    local f = findings.new("test", function(s) lines[#lines + 1] = s end)
    assert.is_true(f:check { claim = "A10 ops:byte is 208", published = "208", predicted = "208.3", tolerance = "1%",
                             ok = true })
    assert.is_false(f:check { claim = "a finding that must fail", ok = false })
    assert.equal(1, f:finish())
    assert.equal("test: 1 of 2 findings reproduced", lines[#lines - 1])
    assert.equal("  not reproduced: a finding that must fail", lines[#lines])
    local all = findings.new("ok", function() end)
    all:check { claim = "x", ok = true }
    assert.equal(0, all:finish())
    assert.equal(1, findings.new("none", function() end):finish()) -- nothing checked is not a pass
  end)

  it("exit 0 where every finding holds", function()
    for _, s in ipairs { "ops_byte_table", "llm_roofline", "flash_attention" } do
      local code, out = process.run("run scripts/" .. s .. ".lua")
      assert.equal(0, code, s)
      assert.truthy(out:match("(%d+) of %1 findings reproduced\n"), s)
    end
  end)

  it("exit 1 where a finding fails, naming it", function()
    local code, out = process.run("run scripts/megatron_table.lua --tolerance 0.0001") -- every row must fail
    assert.equal(1, code)
    assert.truthy(out:find("Table 1: 0 of 10 findings reproduced", 1, true))
    assert.truthy(out:find("not reproduced: GPT 1.7B achieves 137 TFLOP/s per GPU", 1, true))
  end)

  it("draws each script's figures with --plots DIR", function()
    local dir = os.tmpname()
    os.remove(dir)
    local expect = { paper_2401_14489 = { "paper_tile.svg", "paper_wave.svg", "paper_logit.svg" },
                     megatron_table = { "megatron_table1.svg" }, flash_attention = { "flash_attention_traffic.svg" },
                     ops_byte_table = { "ops_byte.svg" }, llm_roofline = { "llm_roofline.svg" } }
    for script, files in pairs(expect) do
      local _, out = process.run("run scripts/" .. script .. ".lua --plots " .. dir)
      for _, name in ipairs(files) do
        assert.truthy(out:find("wrote " .. dir .. "/" .. name, 1, true), script)
        local f = assert(io.open(dir .. "/" .. name))
        local svg = f:read("a")
        f:close()
        assert.truthy(svg:find("</svg>", 1, true), name)
        local n = 0
        for _ in svg:gmatch('id="gnuplot_plot_%d+"') do n = n + 1 end
        assert.is_true(n >= 3, name .. ": " .. n .. " series")
      end
    end
  end)
end)

