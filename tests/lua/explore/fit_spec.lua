-- busted specs for tilewave.explore.fit and `tilewave calibrate DIR --base HW --out FILE`:
-- a fit on the committed fixture (rows of the shared H100 measurements, tests/fixtures/calibrate).
local tw = require "tilewave"
local fit = require "tilewave.explore.fit"
local accuracy = require "tilewave.explore.accuracy"
local literal = require "tilewave.util.literal"

local FIX = "tests/fixtures/calibrate/"
local UNTUNED = FIX .. "h100_untuned.lua"
local EXE = os.getenv("TILEWAVE_EXE") or "build/tilewave"

-- Pooled MAPE of the GEMM rows of folder `dir` under device `spec`.
local function gemm_mape(dir, spec)
  local sum, n = 0, 0
  for _, r in ipairs(accuracy.measured(dir, spec, "x", { "gemm" })) do
    sum, n = sum + math.abs(r.predicted - r.measured) / r.measured, n + 1
  end
  return sum / n, n
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

describe("tilewave.explore.fit", function()
  local r = fit.run(FIX .. "fit", UNTUNED, { rounds = 4 })

  it("fits the GEMM parameters from flat guesses to Hopper's measured behaviour", function()
    -- no held-out set in this folder: every 5th row checks the fit instead (190 rows, 38 held back)
    assert.equal(152, r.rows)
    assert.equal("every 5th row", r.check_rows)
    assert.is_true(r.check_after < 0.5 * r.check_before)
    assert.is_false(r.worse)
    -- every parameter with its prior, identified or kept at it, and its range where identified
    local by = {}
    for _, p in ipairs(r.params) do by[p.name] = p end
    assert.is_false(by["align_eff[1..2]"].identified) -- no 1-2 byte row left in the fit: kept at its prior
    assert.equal(by["align_eff[1..2]"].prior, by["align_eff[1..2]"].value)
    local b = by["dtype_compute_frac.bf16"]
    assert.is_true(b.identified and b.low <= b.value and b.value <= b.high and b.low < b.high)
    assert.is_true(r.gemm_before > 0.25)   -- 0.6 of peak, no alignment cliff: ~28% off
    assert.is_true(r.gemm_after < 0.10)
    local g = r.spec.gemm
    -- big bf16 squares sustain ~770 of 989 TFLOP/s (h100/README.md): 0.78; the main loop runs a
    -- little faster when part of C's write is exposed after it (write_exposed): 0.74-0.88
    assert.is_true(g.dtype_compute_frac.bf16 > 0.74 and g.dtype_compute_frac.bf16 < 0.88)
    -- the TMA cliff (hw/arch/hopper.lua): 2-byte alignment far below 16-byte
    assert.is_true(g.align_eff[2] < 0.4 and g.align_eff[5] > 0.6)
    -- bw.csv: 3014.7 GB/s copy of 3350 -> 0.9
    assert.equal(0.9, g.kernel_bw_frac.vector)
    assert.truthy(g.sources.dtype_compute_frac:find("NVIDIA H100 80GB HBM3, measured Sun Nov 22 10:46:04 2026", 1, true))
  end)

  it("writes a spec that loads, survives a round trip and lowers the error on held-back rows", function()
    local path = os.tmpname() .. ".lua"
    write(path, "return " .. literal.encode(r.spec) .. "\n")
    local spec = assert(tw.hw.load(path))
    assert.same(r.spec.gemm, spec.gemm)
    assert.equal(r.spec.mem_bw, spec.mem_bw)
    local before, n = gemm_mape(FIX .. "holdout", assert(tw.hw.load(UNTUNED)))
    local after = gemm_mape(FIX .. "holdout", spec)
    assert.equal(172, n)
    assert.is_true(after < 0.6 * before)
    assert.is_true(after < 0.17)
    os.remove(path)
  end)

  it("is deterministic", function()
    local again = fit.run(FIX .. "fit", UNTUNED, { rounds = 4 })
    assert.equal(literal.encode(r.spec), literal.encode(again.spec))
  end)

  it("prices with the figures of the GPU the folder names, under the base's architecture", function()
    -- the fixture was measured on an H100 (device.txt): h100_sxm5's figures, the untuned base's arch
    assert.equal("h100_sxm5", r.figures)
    local h200 = fit.figures(assert(tw.hw.load(UNTUNED)), "h200_sxm")
    assert.same({ 4800e9, "hopper", nil }, { h200.mem_bw, h200.arch, h200.gemm })
    -- no device: the base itself
    local base = assert(tw.hw.load(UNTUNED))
    assert.equal(base, fit.figures(base, nil))
    assert.equal("h200_sxm", fit.run(FIX .. "fit", UNTUNED, { rounds = 1, device = "h200_sxm" }).figures)
    assert.has_error(function() fit.run(FIX .. "fit", UNTUNED, { rounds = 1, device = "h900" }) end)
  end)

  it("fits a folder of gemm.csv alone, keeping the base's attention fractions", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(require("lfs").mkdir(dir))
    for _, f in ipairs { "gemm.csv", "device.txt" } do
      local src = assert(io.open(FIX .. "fit/" .. f, "rb"))
      write(dir .. "/" .. f, src:read("a"))
      src:close()
    end
    local only = fit.run(dir, UNTUNED, { rounds = 1 })
    local base = tw.hw.gemm_params(assert(tw.hw.load(UNTUNED)))
    assert.same({}, only.attention)
    assert.equal(base.attention_frac, only.spec.gemm.attention_frac)
    assert.equal(152, only.rows)
    for _, f in ipairs { "gemm.csv", "device.txt" } do os.remove(dir .. "/" .. f) end
    os.remove(dir)
  end)

  it("says what is missing", function()
    assert.has_error(function() fit.run(FIX, UNTUNED) end,
      "calibrate: tests/fixtures/calibrate/gemm.csv: no such file (scripts/probe writes it)")
  end)
end)

describe("tilewave calibrate --base --out", function()
  it("writes a loadable spec and reports the error before and after", function()
    local out = os.tmpname() .. ".lua"
    local p = io.popen(EXE .. " calibrate " .. FIX .. "fit --base " .. UNTUNED .. " --rounds 2 --out " .. out .. " 2>/dev/null")
    local text = p:read("a")
    local ok = p:close()
    assert.is_true(ok)
    local before, after = text:match("GEMM mean group MAPE: ([%d.]+)%% with the base's parameters, ([%d.]+)%% fitted")
    assert.is_true(tonumber(before) > 20 and tonumber(before) < 40) -- the deliberately flat, wrong base
    assert.is_true(tonumber(after) < 0.6 * tonumber(before))
    assert.truthy(text:find("wrote " .. out, 1, true))
    assert.truthy(tw.hw.load(out))
    os.remove(out)
  end)

  it("refuses fit mode without --out", function()
    local p = io.popen(EXE .. " calibrate " .. FIX .. "fit --base h100_sxm5 2>&1")
    local text = p:read("a")
    assert.is_nil(p:close())
    assert.truthy(text:find("calibrate: fit mode needs both --base HW and --out FILE.lua", 1, true))
  end)
end)

describe("tilewave.util.literal", function()
  it("writes sorted keys, inline arrays and exact integers, and refuses non-finite numbers", function()
    assert.equal('{\n  a = { 1, 2.5 },\n  b = "x",\n  ["c d"] = true,\n}', literal.encode { b = "x", a = { 1, 2.5 }, ["c d"] = true })
    assert.equal("1830000000", literal.encode(1.83e9))
    assert.has_error(function() literal.encode(0 / 0) end, "literal: expected a finite number, got nan")
  end)
end)
