-- busted specs for the `tilewave` executable (tilewave.cli), run as a process.
local EXE = os.getenv("TILEWAVE_EXE") or "build/tilewave"

local function run(args)
  local errf = os.tmpname()
  local p = io.popen(EXE .. " " .. args .. " 2>" .. errf)
  local out = p:read("a")
  local _, _, code = p:close()
  local f = io.open(errf)
  local err = f:read("a")
  f:close()
  os.remove(errf)
  return code, out, err
end

-- Run `tilewave run <tmp script> args` with the script's source `src`.
local function run_script(src, args)
  local path = os.tmpname()
  local f = io.open(path, "w")
  f:write(src)
  f:close()
  local code, out, err = run("run " .. path .. (args and " " .. args or ""))
  os.remove(path)
  return code, out, err
end

describe("tilewave CLI", function()
  it("predicts the README's GEMM example with its tile/wave/alignment breakdown", function()
    local code, out = run("gemm 2304 1600 4096 --hw a100_sxm4_80gb --dtype fp16")
    assert.equal(0, code)
    assert.truthy(out:find("GEMM M=2304 N=1600 K=4096 batch=1, fp16 on NVIDIA A100 SXM4 80GB", 1, true))
    assert.truthy(out:find("efficiency  tile ", 1, true))
    assert.truthy(out:find("waves? of 108"))
  end)

  it("writes JSON with the documented fields", function()
    local code, out = run("gemm 4096 4096 4096 --hw h100_sxm5 --dtype bf16 --format json")
    assert.equal(0, code)
    local r = require("cjson").decode(out)
    assert.equal(2 * 4096 ^ 3, r.flops)
    assert.equal("h100_sxm5", r.hw)
    assert.is_number(r.tile_eff)
    assert.is_number(r.tile.m)
  end)

  it("exits 1 with one line naming the field on bad input", function()
    local code, out, err = run("gemm 0 1600 4096")
    assert.equal(1, code)
    assert.equal("", out)
    assert.equal("tilewave: gemm.m: expected positive integer, got 0\n", err)
  end)

  it("exits 1 for an unknown device", function()
    local code, _, err = run("gemm 1 1 1 --hw h100x")
    assert.equal(1, code)
    assert.truthy(err:find("^tilewave: hw: unknown device 'h100x' %(known: a10, "))
  end)

  it("exits 2 with a usage message for a malformed argument", function()
    local code, _, err = run("gemm abc 1 1")
    assert.equal(2, code)
    assert.equal(1, select(2, err:gsub("\n", "")))
  end)

  it("lists devices and shows one with sources", function()
    local code, out = run("hw")
    assert.equal(0, code)
    assert.truthy(out:find("v100_sxm2", 1, true))
    assert.truthy(out:find("138.9", 1, true)) -- V100 ops:byte 125e12/900e9
    code, out = run("hw h100_sxm5")
    assert.equal(0, code)
    assert.truthy(out:find("132", 1, true))
    assert.truthy(out:find("whitepaper", 1, true))
  end)

  it("computes a roofline", function()
    local code, out = run("roofline --flops 17179869184 --bytes 138412032 --hw v100_sxm2")
    assert.equal(0, code)
    assert.truthy(out:find("ridge point 138.89 FLOP/B -> memory-bound", 1, true))
  end)

  it("runs a user script with arg set and its options untouched", function()
    local code, out = run_script('local tw = require "tilewave"\nprint(tw._VERSION, arg[0] ~= nil, arg[1], arg[2])\n',
      "--hw x")
    assert.equal(0, code)
    assert.equal("0.1.0\ttrue\t--hw\tx\n", out)
  end)

  it("exits 1 when a script fails", function()
    local code, _, err = run_script('error("boom", 0)\n')
    assert.equal(1, code)
    assert.equal("tilewave: boom\n", err)
  end)

  it("prints help", function()
    local code, out = run("gemm --help")
    assert.equal(0, code)
    assert.truthy(out:find("Usage: tilewave gemm", 1, true))
  end)
end)
