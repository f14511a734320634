-- Serving runs against their frozen results (tests/fixtures/serve_equivalence/README.md): a
-- change meant to keep the simulator's behaviour changes no byte of any run's JSON.
local tw = require "tilewave"
local json = require "tilewave.util.json"

describe("serve equivalence fixture", function()
  it("gives every fixed-seed run's result byte for byte", function()
    local want = {}
    for line in io.lines("tests/fixtures/serve_equivalence/runs.json") do
      local name, body = line:match("^(%S+) (.*)$")
      want[name] = body
    end
    local runs = dofile("tests/fixtures/serve_equivalence/runs.lua")
    assert.equal(9, #runs)
    for _, r in ipairs(runs) do
      assert.is_string(want[r[1]], r[1])
      assert.equal(want[r[1]], json.encode(tw.serve.simulate(r[2])), r[1])
    end
  end)
end)
