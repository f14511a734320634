-- Whole-model estimates against the frozen totals of 10^5 random configs
-- (tests/fixtures/estimate_equivalence/README.md): a faster estimate (issue 34) changes no
-- prediction, bit for bit. Each case's time_s is compared as text (%.17g round-trips), and
-- every 100 cases the FNV-1a of their full totals (time_s, flops, model_flops, kernels, layer_s).
local tw = require "tilewave"
local gen = dofile("tests/lua/helpers/random_configs.lua")

describe("estimate equivalence fixture", function()
  it("gives every random config's totals bit for bit", function()
    local f = assert(io.open("tests/fixtures/estimate_equivalence/totals.txt"))
    local header = f:read("l")
    local seed, n = header:match("cases%((%d+), (%d+)%)")
    local cases = gen.cases(math.tointeger(tonumber(seed)), math.tointeger(tonumber(n)))
    local lines, i, blocks, bad = {}, 0, 0, nil
    for want in f:lines() do
      local hash = want:match("^block (%x+)$")
      if hash then
        blocks = blocks + 1
        local got = gen.fnv(lines, i - 99, i)
        if got ~= hash and not bad then bad = string.format("block ending at case %d: totals hash %s, fixture %s", i, got, hash) end
      else
        i = i + 1
        local t, line = gen.totals(tw, cases[i])
        lines[i] = line
        local text = t and string.format("%.17g", t) or line
        if text ~= want and not bad then
          bad = string.format("case %d (%s on %s, %s): got %s, fixture %s", i, cases[i].config.family, cases[i].hw,
            tw.report.json(cases[i].opts), text, want)
        end
      end
    end
    f:close()
    assert.is_nil(bad)
    assert.are.equal(100000, i)
    assert.are.equal(1000, blocks)
  end)
end)
