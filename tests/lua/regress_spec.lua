-- busted specs for tilewave.regress and `tilewave check`: baseline round trip, a perturbed
-- hardware figure, the tolerance edge, JUnit XML and TAP, and bad check files.
local tw = require "tilewave"
local regress = require "tilewave.explore.regress"
local EXE = os.getenv("TILEWAVE_EXE") or "build/tilewave"

local function run(args)
  local p = io.popen(EXE .. " " .. args .. " 2>&1")
  local out = p:read("a")
  local _, _, code = p:close()
  return code, out
end

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(require("lfs").mkdir(d))
  return d
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function read(path)
  local f = assert(io.open(path))
  local t = f:read("a")
  f:close()
  return t
end

local CHECK = [[
return {
  name = "tiny",
  models = { "pythia-70m", "llama-3.2-1b" },
  hw = { %q },
  workload = { b = 1, s = 512 },
  expect = { mfu = { min = 0.01 }, baseline = "base.json", tolerance = 0.02 },
}
]]

describe("tilewave check", function()
  it("round-trips a baseline, then fails naming a perturbed hardware figure", function()
    local d = tmpdir()
    -- a private copy of the H100 spec, so that the test can change one of its figures
    local spec_src = read(tw.hw.dir .. "/h100_sxm5.lua")
    write(d .. "/gpu.lua", spec_src)
    write(d .. "/c.lua", CHECK:format(d .. "/gpu.lua"))
    local code, out = run("check --update-baseline " .. d .. "/c.lua")
    assert.equal(0, code, out)
    assert.truthy(out:find("wrote " .. d .. "/base.json (2 entries)", 1, true))
    local base = require("cjson").decode(read(d .. "/base.json"))
    assert.equal(tw._VERSION, base.tilewave_version)
    assert.is_string(base.entries["pythia-70m@gpu"].definition_hash)
    code, out = run("check " .. d .. "/c.lua")
    assert.equal(0, code, out)
    assert.truthy(out:find("2 passed, 0 failed", 1, true))
    -- bandwidth 3350 -> 1675 GB/s: a stale baseline, reported as such
    write(d .. "/gpu.lua", (spec_src:gsub("mem_bw = 3350 %* GB", "mem_bw = 1675 * GB")))
    code, out = run("check " .. d .. "/c.lua")
    assert.equal(1, code)
    assert.truthy(out:find("FAIL tiny pythia-70m@gpu: stale baseline: model or hardware definition changed since the baseline", 1, true), out)
    assert.truthy(out:find("0 passed, 2 failed", 1, true))
    -- the default output is deterministic: one line per pair and the summary
    local _, again = run("check " .. d .. "/c.lua")
    assert.equal(out, again)
  end)

  it("passes exactly at the tolerance and fails just beyond it", function()
    local d = tmpdir()
    write(d .. "/c.lua", CHECK:format("h100_sxm5"))
    local c = regress.load(d .. "/c.lua")
    local function baseline(scale)
      local entries = {}
      for p in regress.pairs(c) do
        local e = tw.transformer.estimate(p.config, p.spec, { b = 1, s = 512 })
        entries[p.label] = { time_s = e.time_s * scale, tflops = e.tflops * scale,
                             definition_hash = regress.definition_hash(p.config, p.spec) }
      end
      write(d .. "/base.json", require("cjson").encode { tilewave_version = tw._VERSION, entries = entries })
    end
    baseline(1 / 1.02) -- new / old - 1 = exactly the 2 % tolerance
    for _, r in ipairs(regress.evaluate(c)) do assert.is_true(r.ok, table.concat(r.reasons, "; ")) end
    baseline(1 / 1.0201)
    for _, r in ipairs(regress.evaluate(c)) do
      assert.is_false(r.ok)
      assert.truthy(r.reasons[1]:find("^regression: time_s "))
    end
  end)

  it("writes well-formed JUnit XML and TAP", function()
    local d = tmpdir()
    write(d .. "/c.lua", [[
return { name = "x & <y>", models = { "pythia-70m" }, hw = { "h100_sxm5", "l4" },
         workload = { b = 1, s = 512 }, expect = { mfu = { min = 0.5 } } }
]])
    local code, out = run("check --tap --junit " .. d .. "/j.xml " .. d .. "/c.lua")
    assert.equal(1, code)
    assert.truthy(out:find("^TAP version 13\n1..2\n"))
    assert.truthy(out:find("not ok 1 - x & <y>: pythia-70m@h100_sxm5\n  # mfu ", 1, true))
    local xml = read(d .. "/j.xml")
    local lxp = require "lxp"
    local cases, failures = 0, 0
    local parser = lxp.new { StartElement = function(_, name)
      if name == "testcase" then cases = cases + 1 end
      if name == "failure" then failures = failures + 1 end
    end }
    assert.truthy(parser:parse(xml))
    assert.truthy(parser:parse())
    parser:close()
    assert.equal(2, cases)
    assert.equal(2, failures)
  end)

  it("names the file and the field of a bad check file", function()
    local d = tmpdir()
    write(d .. "/a.lua", 'return { name = "a", models = { "pythia-70m" }, expect = { mfu_min = 0.4 } }')
    local code, out = run("check " .. d .. "/a.lua")
    assert.equal(1, code)
    assert.truthy(out:find(d .. "/a.lua: expect.mfu_min: unknown expectation (known: ", 1, true), out)
    write(d .. "/b.lua", 'return { name = "b", models = { "pythia-70m", "pythia-3b" } }')
    code, out = run("check " .. d .. "/b.lua")
    assert.truthy(out:find(d .. "/b.lua: models[2]: unknown model 'pythia-3b'", 1, true), out)
    write(d .. "/c.lua", 'return { name = "c", models = { "pythia-70m" }, expect = { baseline = "nope.json" } }')
    code, out = run("check " .. d .. "/c.lua")
    assert.equal(1, code)
    assert.truthy(out:find(d .. "/c.lua: expect.baseline: cannot read '" .. d .. "/nope.json'", 1, true), out)
  end)

  it("overwrites only a baseline: a check file cannot aim --update-baseline at another file", function()
    local d = tmpdir()
    -- not a .json path: refused when the check file loads
    write(d .. "/a.lua", 'return { name = "a", models = { "pythia-70m" }, expect = { baseline = "passwd" } }')
    local code, out = run("check --update-baseline " .. d .. "/a.lua")
    assert.equal(1, code)
    assert.equal(d .. "/a.lua: expect.baseline: expected a path ending in .json, got string 'passwd'",
      out:match("tilewave: (.-)\n"))
    -- a .json file that is not a baseline: left as it was
    write(d .. "/other.json", '["not", "a", "baseline"]')
    write(d .. "/b.lua", 'return { name = "b", models = { "pythia-70m" }, expect = { baseline = "other.json" } }')
    code, out = run("check --update-baseline " .. d .. "/b.lua")
    assert.equal(1, code)
    assert.truthy(out:find("expect.baseline: '" .. d .. "/other.json' is not a tilewave baseline (entries: expected an "
      .. "object of (model, hw) entries): not overwritten", 1, true), out)
    assert.equal('["not", "a", "baseline"]', read(d .. "/other.json"))
    -- a baseline is refreshed
    write(d .. "/c.lua", 'return { name = "c", models = { "pythia-70m" }, expect = { baseline = "c.json" } }')
    assert.equal(0, (run("check --update-baseline " .. d .. "/c.lua")))
    code, out = run("check --update-baseline " .. d .. "/c.lua")
    assert.equal(0, code, out)
  end)
end)
