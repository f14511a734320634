-- busted specs for tilewave.hw: loading, listing, schema errors, sandboxing.
local tw = require "tilewave"

local FIX = "tests/lua/fixtures/"
local ALL = { "a10", "a100_pcie_80gb", "a100_sxm4_40gb", "a100_sxm4_80gb", "apple_m1", "apple_m1_max",
              "apple_m1_pro", "apple_m1_ultra", "apple_m2", "apple_m2_max", "apple_m2_pro",
              "apple_m2_ultra", "apple_m3", "apple_m3_max", "apple_m3_pro", "apple_m3_ultra",
              "apple_m4", "apple_m4_max", "apple_m4_pro", "b200", "b300", "gb200", "gb300",
              "gh200_480gb", "h100_pcie", "h100_sxm5", "h20", "h200_sxm", "h800", "l20", "l4", "l40",
              "l40s", "mi250x_gcd", "mi300x", "mi325x", "mi350x", "mi355x", "p100_pcie", "rtx3090ti",
              "rtx4090", "rtx5090", "rtx_pro_6000", "t4", "v100_sxm2" }

describe("tilewave.data.hw", function()
  describe("list()", function()
    it("lists the 45 devices of the library, sorted", function()
      assert.same(ALL, tw.hw.list())
    end)
  end)

  describe("load()", function()
    it("loads an Apple chip without clock, cache or memory size, and derives its peak from the M1's", function()
      local s = assert(tw.hw.load("apple_m2_ultra"))
      assert.equal(76, s.sm_count)
      assert.equal(800e9, s.mem_bw)
      assert.is_nil(s.memory_bytes)
      -- 76 cores x 2.6 TFLOPS / 8 cores (M1, Apple) = 24.7 TFLOP/s
      assert.near(24.7e12, s.peak_flops.fp16, 1e9)
    end)

    it("has the M2 to M4 chips at Apple's bandwidths (M3 Pro 150 GB/s, M3 Ultra 819.2 GB/s, M4 Pro 273 GB/s)", function()
      assert.equal(150e9, assert(tw.hw.load("apple_m3_pro")).mem_bw)
      assert.equal(819.2e9, assert(tw.hw.load("apple_m3_ultra")).mem_bw)
      assert.equal(273e9, assert(tw.hw.load("apple_m4_pro")).mem_bw)
      assert.equal(100e9, assert(tw.hw.load("apple_m2")).mem_bw)
      -- 20 cores x 2.6 TFLOPS / 8 cores (M1) = 6.5 TFLOP/s
      assert.near(6.5e12, assert(tw.hw.load("apple_m4_pro")).peak_flops.fp32, 1e9)
    end)

    it("still requires clock, memory and L2 from NVIDIA and AMD specs", function()
      local spec = {}
      for k, v in pairs(assert(tw.hw.load("a10"))) do spec[k] = v end
      spec.memory_bytes = nil
      local ok, err = tw.hw.validate(spec, "x.lua")
      assert.is_nil(ok)
      assert.equal("x.lua: hw.memory_bytes: expected a value, got nil", err)
    end)

    it("names the alignment class that is out of range, in the spec and in the core", function()
      local spec = {}
      for k, v in pairs(assert(tw.hw.load("h100_sxm5"))) do spec[k] = v end
      spec.gemm = { align_mem_eff = { 1, 1, 0, 1, 1, 1, 1, 1 } }
      local ok, err = tw.hw.validate(spec, "x.lua")
      assert.is_nil(ok)
      assert.equal("x.lua: hw.gemm.align_mem_eff[3]: expected fraction from 0.01 to 1, got 0", err)
      local core = require "tilewave.core"
      local dev = { sm_count = 1, peak_flops = 1e12, compute_frac = 1, mem_bw = 1e9, mem_frac = 1,
                    tiles = { { m = 64, n = 64, eff = 1 } }, align_eff = { 1, 1, 1, 1, 1, 1, 1, 1 },
                    align_mem_eff = { 1, 1, 1, 1, 1.5, 1, 1, 1 } }
      assert.has_error(function() core.device(dev) end, "device.align_mem_eff[5]: expected number in (0, 1], got 1.5")
    end)

    it("rejects a per-dtype unsplit-reduction bound that is negative, missing or unknown", function()
      local spec = {}
      for k, v in pairs(assert(tw.hw.load("h100_sxm5"))) do spec[k] = v end
      spec.gemm = { dtype_unsplit_reduce = { bf16 = { m = -1, n = 1024 } } }
      local ok, err = tw.hw.validate(spec, "x.lua")
      assert.is_nil(ok)
      assert.matches("x.lua: hw.gemm.dtype_unsplit_reduce.bf16.m: expected elements", err, 1, true)
      spec.gemm = { dtype_unsplit_reduce = { bf16 = { m = 512 } } }
      ok, err = tw.hw.validate(spec, "x.lua")
      assert.matches("x.lua: hw.gemm.dtype_unsplit_reduce.bf16.n: expected elements", err, 1, true)
      spec.gemm = { dtype_unsplit_reduce = { bf17 = { m = 512, n = 1 } } }
      ok, err = tw.hw.validate(spec, "x.lua")
      assert.matches("x.lua: hw.gemm.dtype_unsplit_reduce: unknown field 'bf17'", err, 1, true)
    end)

    it("rejects a kernel class's SM-side rate out of range, naming the class", function()
      local spec = {}
      for k, v in pairs(assert(tw.hw.load("h100_sxm5"))) do spec[k] = v end
      spec.gemm = { kernel_sm_bytes_per_cycle = { strided = -2 } }
      local ok, err = tw.hw.validate(spec, "x.lua")
      assert.is_nil(ok)
      assert.matches("x.lua: hw.gemm.kernel_sm_bytes_per_cycle.strided: expected byte per SM per cycle", err, 1, true)
      spec.gemm = { kernel_sm_bytes_per_cycle = { scalar = 2 } }
      ok, err = tw.hw.validate(spec, "x.lua")
      assert.is_nil(ok)
      assert.equal("x.lua: hw.gemm.kernel_sm_bytes_per_cycle: unknown field 'scalar'", err)
    end)

    it("offers a tile with a dtypes list to those dtypes only (hw/arch/hopper.lua's misaligned tiles)", function()
      -- 960x119x24 is 2-byte aligned in N and K: no TMA tile. hopper.lua offers the non-TMA 128x128 to every
      -- dtype, 64x64 (2 CTAs per SM) to bf16 and 32x32 (4 per SM) to fp16: 30 and 120 tiles on 132 SMs.
      local H100 = assert(tw.hw.load("h100_sxm5"))
      local f = tw.gemm { m = 960, n = 119, k = 24, dtype = "fp16", hw = H100 }
      local b = tw.gemm { m = 960, n = 119, k = 24, dtype = "bf16", hw = H100 }
      assert.same({ 32, 32, 120 }, { f.tile.m, f.tile.n, f.tiles })
      assert.same({ 64, 64, 30 }, { b.tile.m, b.tile.n, b.tiles })
      local spec = {}
      for k, v in pairs(H100) do spec[k] = v end
      spec.gemm = { tiles = { { m = 64, n = 64, eff = 1, dtypes = { "bf17" } }, { m = 128, n = 128, eff = 1 } } }
      local ok, err = tw.hw.validate(spec, "x.lua")
      assert.is_nil(ok)
      assert.matches("x.lua: hw.gemm.tiles[1].dtypes[1]: expected one of ", err, 1, true)
      spec.gemm = { tiles = { { m = 128, n = 128, eff = 1, dtypes = { "bf16" } }, { m = 64, n = 64, eff = 1, tma = true } } }
      ok, err = tw.hw.validate(spec, "x.lua")
      assert.is_nil(ok)
      assert.matches("expected at least one tile without tma = true or dtypes", err, 1, true)
    end)

    it("loads a device that names a base and states only what differs (A100 40GB and PCIe)", function()
      local hw = require "tilewave.data.hw"
      local b, d40, pcie = hw.load("a100_sxm4_80gb"), hw.load("a100_sxm4_40gb"), hw.load("a100_pcie_80gb")
      -- A100 datasheet: HBM2 40 GB at 1555 GB/s; the PCIe card 1935 GB/s at 300 W; the rest is the SXM4 80GB's
      assert.same({ "NVIDIA A100 SXM4 40GB", 40e9, 1555e9, 400 }, { d40.name, d40.memory_bytes, d40.mem_bw, d40.tdp_w })
      assert.same({ "NVIDIA A100 PCIe 80GB", 80e9, 1935e9, 300 }, { pcie.name, pcie.memory_bytes, pcie.mem_bw, pcie.tdp_w })
      assert.same(b.peak_flops, d40.peak_flops)
      assert.equal(b.sources.peak_flops, pcie.sources.peak_flops)
      assert.truthy(d40.sources.base:find("hw/a100_sxm4_80gb.lua", 1, true))
      -- errors name the file and the field
      local dir = os.tmpname()
      os.remove(dir)
      require("lfs").mkdir(dir)
      local function try(body)
        local f = assert(io.open(dir .. "/x.lua", "w"))
        f:write(body)
        f:close()
        return select(2, hw.load(dir .. "/x.lua"))
      end
      assert.truthy(try('return { base = "no_such_gpu", name = "x" }'):find("x.lua: hw.base: ", 1, true))
      assert.truthy(try('return { base = "a100_sxm4_80gb" }'):find("hw.name: expected string", 1, true))
      assert.truthy(try('return { base = 3, name = "x" }'):find("hw.base: expected a device id", 1, true))
      os.remove(dir .. "/x.lua")
      os.remove(dir)
    end)

    it("scales Ampere's alignment penalty by the SM's tensor rate (hw/arch/ampere.lua align_ref_rate)", function()
      local hw = require "tilewave.data.hw"
      local function eff2(id, dt) return hw.gemm_device_fields(hw.load(id), dt or "bf16").align_eff[2] end
      -- RTX 4090: 165.2 TFLOP/s / (128 SMs x 2520 MHz) = 512.15 per SM per clock, 0.24995 of the A100's 2049;
      -- the A100's 2-byte class 0.27 (slowdown 3.7037) becomes 1 / (1 + 2.7037 x 0.24995) = 0.5967
      assert.near(0.5967, eff2("rtx4090"), 1e-4)
      -- L4: 121 TFLOP/s / (58 x 2040 MHz) = 1022.65, ratio 0.49910: 1 / (1 + 2.7037 x 0.49910) = 0.42564
      assert.near(0.42564, eff2("l4"), 1e-4)
      -- the A100 itself, Hopper (fitted on the H100), AMD and Blackwell (opted out) keep their levels
      assert.near(0.27, eff2("a100_sxm4_80gb"), 1e-3)
      assert.are.equal(0.192, eff2("h100_sxm5"))
      assert.are.equal(0.27, eff2("mi300x"))
      assert.are.equal(0.27, eff2("b200"))
      -- 4-byte dtypes keep the levels: the reference rate is the 2-byte one
      assert.are.equal(0.27, eff2("rtx4090", "tf32"))
      -- levels of 1 stay 1
      assert.are.equal(1, hw.scale_align({ 1 }, 0.25)[1])
    end)

    it("loads a device by id with SI units (A100 datasheet: 108 SMs, 2039 GB/s, 312 TFLOP/s fp16)", function()
      local s = assert(tw.hw.load("a100_sxm4_80gb"))
      assert.equal("a100_sxm4_80gb", s.id)
      assert.equal(108, s.sm_count)
      assert.equal(2039e9, s.mem_bw)
      assert.equal(312e12, s.peak_flops.fp16)
      assert.equal(40e6, s.l2_bytes)
    end)

    it("uses the shipping SM counts of H100 (132 SXM5, 114 PCIe), not the die's 144", function()
      assert.equal(132, tw.hw.load("h100_sxm5").sm_count)
      assert.equal(114, tw.hw.load("h100_pcie").sm_count)
    end)

    it("stores dense peaks, not sparse (H100 SXM5 bf16 989.4, L4 fp16 121)", function()
      assert.equal(989.4e12, tw.hw.load("h100_sxm5").peak_flops.bf16)
      assert.equal(121e12, tw.hw.load("l4").peak_flops.fp16)
    end)

    it("halves the MI250X package figures for one GCD (383 -> 191.5 TFLOP/s)", function()
      assert.equal(191.5e12, tw.hw.load("mi250x_gcd").peak_flops.bf16)
    end)

    for _, id in ipairs(ALL) do
      it("validates " .. id .. " with a source for every figure", function()
        local s, err = tw.hw.load(id)
        assert.is_nil(err)
        for _, k in ipairs { "sm_count", "mem_bw", "l2_bytes", "peak_flops", "memory_bytes", "boost_clock_hz" } do
          if s[k] ~= nil or s.vendor ~= "apple" then assert.is_string(s.sources[k], k) end
        end
      end)
    end

    it("returns nil, the nearest id and the known ids for an unknown device", function()
      local s, err = tw.hw.load("h100x")
      assert.is_nil(s)
      assert.equal("hw: unknown device 'h100x' (did you mean 'h100'?) (known: " .. table.concat(ALL, ", ") .. ")", err)
      s, err = tw.hw.load("h200_sxn")
      assert.equal("hw: unknown device 'h200_sxn' (did you mean 'h200_sxm'?) (known: " .. table.concat(ALL, ", ") .. ")",
        err)
    end)

    it("matches ids case-insensitively and takes the documented aliases", function()
      assert.equal("h100_sxm5", assert(tw.hw.load("H100_SXM5")).id)
      assert.equal("h100_sxm5", assert(tw.hw.load("h100")).id)
      assert.equal("h200_sxm", assert(tw.hw.load("H200")).id)
      assert.equal("a100_sxm4_80gb", assert(tw.hw.load("a100")).id)
      -- an alias is the same spec, priced alike
      assert.equal(tw.gemm { m = 4096, n = 4096, k = 4096, hw = "h100_sxm5" }.time_s,
        tw.gemm { m = 4096, n = 4096, k = 4096, hw = "H100" }.time_s)
    end)

    it("rejects an unknown field, naming the file and the field", function()
      local s, err = tw.hw.load(FIX .. "typo.lua")
      assert.is_nil(s)
      assert.equal(FIX .. "typo.lua: hw: unknown field 'mem_bandwith'", err)
    end)

    it("rejects a bandwidth given as a string", function()
      local _, err = tw.hw.load(FIX .. "string_bw.lua")
      assert.equal(FIX .. "string_bw.lua: hw.mem_bw: expected byte/s from 1e+09 to 1e+15, got string '3.35TB/s'", err)
    end)

    it("rejects a negative SM count", function()
      local _, err = tw.hw.load(FIX .. "negative_sm.lua")
      assert.equal(FIX .. "negative_sm.lua: hw.sm_count: expected positive integer, got -3", err)
    end)

    it("requires a source for every figure", function()
      local _, err = tw.hw.load(FIX .. "missing_source.lua")
      assert.equal(FIX .. "missing_source.lua: hw.sources.l2_bytes: expected the source of hw.l2_bytes, got nil", err)
    end)

    it("fails cleanly when a spec calls os.execute (empty environment)", function()
      os.remove("/tmp/tilewave-pwned")
      local s, err = tw.hw.load(FIX .. "os_execute.lua")
      assert.is_nil(s)
      assert.truthy(err:find("attempt to index a nil value (global 'os')", 1, true))
      assert.is_nil(io.open("/tmp/tilewave-pwned"))
    end)

    it("rejects a file that does not return a table", function()
      local _, err = tw.hw.load(FIX .. "not_table.lua")
      assert.equal(FIX .. "not_table.lua: expected the file to return a table, got number", err)
    end)

    it("rejects an architecture without kernel parameters", function()
      local _, err = tw.hw.load(FIX .. "unknown_arch.lua")
      assert.truthy(err:find(FIX .. "unknown_arch.lua: hw.arch: unknown architecture 'rubin'", 1, true))
    end)

    it("returns nil and a message for a missing file", function()
      local s, err = tw.hw.load(FIX .. "absent.lua")
      assert.is_nil(s)
      assert.truthy(err:find("absent.lua", 1, true))
    end)

    it("rejects a non-string id", function()
      local _, err = tw.hw.load(42)
      assert.equal("hw: expected device id or path, got 42", err)
    end)
  end)

  describe("gemm_params()", function()
    it("takes the architecture's kernel parameters with the spec's overrides", function()
      local base = tw.hw.load("a100_sxm4_80gb")
      local copy = {}
      for k, v in pairs(base) do copy[k] = v end
      copy.gemm = { compute_frac = 0.5 }
      local g = tw.hw.gemm_params(copy)
      assert.equal(0.5, g.compute_frac)
      assert.equal(tw.hw.gemm_params(base).tiles, g.tiles)
    end)
  end)
end)

describe("architecture files with a base", function()
  local hw = require "tilewave.data.hw"
  it("take the base's parameters but for their own", function()
    local amp, volta, ada = hw.arch_params("ampere"), hw.arch_params("volta"), hw.arch_params("ada")
    assert.equal(0.78, volta.compute_frac)          -- Volta's own
    assert.equal(amp.mem_frac, volta.mem_frac)      -- Ampere's
    assert.same(amp.tiles, volta.tiles)
    assert.equal(1.0, volta.align_eff[5])           -- full rate from 16 bytes (Ampere: 0.88)
    assert.equal(0.88, amp.align_eff[5])
    assert.same(amp.align_eff, ada.align_eff)       -- Ada states nothing of its own
    assert.truthy(ada.sources.base:find("hw/arch/ampere.lua", 1, true))
    assert.is_nil(amp.sources.base)
  end)
end)

describe("the GH200 480GB (its Hopper GPU)", function()
  it("is an H100 with 96 GB of HBM3 at 4 TB/s, and refuses t > 1 for want of a stated GPU link", function()
    local g, h = assert(tw.hw.load("gh200_480gb")), assert(tw.hw.load("h100_sxm5"))
    assert.equal(96e9, g.memory_bytes)
    assert.equal(4000e9, g.mem_bw)
    assert.equal(h.sm_count, g.sm_count)
    assert.equal(1979e12, g.peak_flops.fp8)
    -- one GPU's decode: weights and KV cache over 4.0 TB/s, faster than the H100's 3.35 TB/s
    local dg = tw.inference.decode { model = "llama-3.1-8b", hw = "gh200_480gb", batch = 8, context = 2048 }
    local dh = tw.inference.decode { model = "llama-3.1-8b", hw = "h100_sxm5", batch = 8, context = 2048 }
    assert.is_true(dg.tpot_s < dh.tpot_s)
    local ok, err = pcall(tw.inference.decode, { model = "llama-3.1-70b", hw = "gh200_480gb", batch = 1, context = 2048,
                                                  t = 2 })
    assert.is_false(ok)
    assert.truthy(err:find("decode.t: gh200_480gb has no interconnect bandwidth for t = 2", 1, true))
  end)
end)
