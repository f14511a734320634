-- busted specs for tw.gemm / tw.gemm_many: results, and errors pinned exactly.
local tw = require "tilewave"

local A100 = "a100_sxm4_80gb"

-- a copy of device `id` whose GEMM parameters (tilewave.data.hw.gemm_params: the arch's, merged
-- with the device's own) have `field` set to `value`
-- spec `id` with its GEMM parameters `fields` ({ name = value }) replaced
local function with_gemm_fields(id, fields)
  local base = tw.hw.load(id)
  local s, g = {}, {}
  for k, v in pairs(base) do s[k] = v end
  for k, v in pairs(tw.hw.gemm_params(base)) do g[k] = v end
  for k, v in pairs(fields) do g[k] = v end
  s.gemm = g
  return s
end

local function with_gemm(id, field, value) return with_gemm_fields(id, { [field] = value }) end

-- tw.gemm of shape `q` (m, n, k, dtype) on that copy of device `id`
local function gemm_with(id, field, value, q)
  return tw.gemm { m = q.m, n = q.n, k = q.k, dtype = q.dtype, hw = with_gemm(id, field, value) }
end

describe("tilewave.cost.gemm", function()
  describe("gemm()", function()
    it("reports the work of 2304x1600x4096 fp16 worked out by hand", function()
      -- FLOP = 2*2304*1600*4096 = 30,198,988,800; compulsory bytes =
      -- 2*(2304*4096 + 4096*1600 + 2304*1600) = 39,354,368; intensity = 767.36 FLOP/B
      local r = tw.gemm { m = 2304, n = 1600, k = 4096, dtype = "fp16", hw = A100 }
      assert.equal(30198988800, r.flops)
      assert.equal(39354368, r.bytes)
      assert.near(767.36, r.intensity, 0.01)
      assert.equal(128, r.align_bytes)
      assert.equal("compute", r.bound)
      assert.near(r.flops / r.time_s / 1e12, r.tflops, 1e-9)
      for _, k in ipairs { "tile_eff", "wave_eff", "align_eff" } do
        assert.is_true(r[k] > 0 and r[k] <= 1, k)
      end
      -- tiles and waves agree with the chosen tile on A100's 108 SMs
      local tm, tn = r.tile.m, r.tile.n
      assert.equal(math.ceil(2304 / tm) * math.ceil(1600 / tn), r.tiles)
    end)

    it("predicts below the dense peak and above zero for every device and dtype", function()
      for _, id in ipairs(tw.hw.list()) do
        local spec = tw.hw.load(id)
        for dt, peak in pairs(spec.peak_flops) do
          local r = tw.gemm { m = 8192, n = 8192, k = 8192, dtype = dt, hw = id }
          assert.is_true(r.flop_rate > 0 and r.flop_rate < peak, id .. " " .. dt)
        end
      end
    end)

    it("makes odd dimensions slower than 64-multiples (NVIDIA matmul guide, tensor-core alignment)", function()
      local odd = tw.gemm { m = 8192, n = 14273, k = 51200, hw = A100 }
      local even = tw.gemm { m = 8192, n = 14336, k = 51200, hw = A100 }
      assert.equal(2, odd.align_bytes)
      assert.is_true(odd.tflops < 0.5 * even.tflops)
    end)

    it("is memory-bound for a GEMV-like shape (intensity < 1 FLOP/B)", function()
      local r = tw.gemm { m = 1, n = 8192, k = 8192, hw = A100 }
      assert.is_true(r.intensity < 1)
      assert.is_not.equal("compute", r.bound)
    end)

    it("adds splitk_latency_s once to a TMA-class split-K GEMM, never to a one-kernel or misaligned one", function()
      -- hw/h200_sxm.lua fits 1.038 us (cuBLASLt's splitK kernel + splitKreduce_kernel, kernels.csv)
      local function h200(lat) return with_gemm("h200_sxm", "splitk_latency_s", lat) end
      local none, fitted = h200(0), h200(1.038e-6)
      -- 64x64x16384: one 64x64 tile, split 16 ways either way
      local a = tw.gemm { m = 64, n = 64, k = 16384, dtype = "bf16", hw = none }
      local b = tw.gemm { m = 64, n = 64, k = 16384, dtype = "bf16", hw = fitted }
      assert.equal(16, a.split_k)
      assert.equal(16, b.split_k)
      assert.near(1.038e-6, b.time_s - a.time_s, 1e-15)
      -- 4096^3 fills every SM several times over: one kernel, no split-K, no change
      local c = tw.gemm { m = 4096, n = 4096, k = 4096, dtype = "bf16", hw = none }
      local d = tw.gemm { m = 4096, n = 4096, k = 4096, dtype = "bf16", hw = fitted }
      assert.equal(1, d.split_k)
      assert.equal(c.time_s, d.time_s)
      -- 64x64x16383: K * 2 bytes is 2-byte aligned, so the CUTLASS (non-TMA) class runs it:
      -- still split (128x128 tile, 16 ways), but its split-K kernel is not charged the latency
      local e = tw.gemm { m = 64, n = 64, k = 16383, dtype = "bf16", hw = none }
      local f = tw.gemm { m = 64, n = 64, k = 16383, dtype = "bf16", hw = fitted }
      assert.is_true(f.split_k > 1)
      assert.equal(e.time_s, f.time_s)
      assert.has_error(function() tw.gemm { m = 1, n = 1, k = 1, hw = h200(-1) } end,
        "gemm.hw: hw.gemm.splitk_latency_s: expected s from 0 to 0.001, got -1")
    end)

    it("caps split-K in bytes of K: 16 for 2-byte dtypes, 32 for 4-byte, 8 for fp8 (hw/arch/hopper.lua)", function()
      local h100, cap = tw.hw.load("h100_sxm5"), {}
      for _, dt in ipairs { "bf16", "fp16", "tf32", "fp32", "fp8", "int8" } do
        cap[dt] = tw.hw.gemm_device_fields(h100, dt).max_split_k
      end
      assert.same({ bf16 = 16, fp16 = 16, tf32 = 32, fp32 = 32, fp8 = 8, int8 = 1 }, cap)
      -- 64x64x16384 is one output tile: bf16 takes its cap, fp32 splits past it (up to 32)
      assert.equal(16, tw.gemm({ m = 64, n = 64, k = 16384, dtype = "bf16", hw = "h100_sxm5" }).split_k)
      assert.is_true(tw.gemm({ m = 64, n = 64, k = 16384, dtype = "fp32", hw = "h100_sxm5" }).split_k > 16)
      assert.equal(32, tw.hw.gemm_device_fields(tw.hw.load("a100_sxm4_80gb"), "fp32").max_split_k)
      assert.equal(4, tw.hw.gemm_device_fields(tw.hw.load("b200"), "fp4").max_split_k)
    end)

    it("exposes fp32's epilogue on Hopper: its SIMT kernels store C after their main loop", function()
      -- (without the last wave's drain, which exposes part of the writes the hidden case hides)
      local function h100(exposed)
        return with_gemm_fields("h100_sxm5", { dtype_write_exposed = exposed, write_exposed = 0, drain_exposed = 0 })
      end
      -- 4096x4096x64 fp32: one kernel, compute (~41 us) above reads (2 MB) + C writes, so exposing
      -- the writes adds them whole: 4096*4096*4 B / (3350e9 B/s * write_frac 0.796) = 25.1665 us
      local hidden = tw.gemm { m = 4096, n = 4096, k = 64, dtype = "fp32", hw = h100({}) }
      local exposed = tw.gemm { m = 4096, n = 4096, k = 64, dtype = "fp32", hw = h100({ fp32 = 1 }) }
      assert.equal(1, exposed.split_k)
      assert.near(25.1665e-6, exposed.time_s - hidden.time_s, 1e-10)
      -- the shipped Hopper spec carries it; bf16 keeps the TMA kernels' 0.481
      assert.equal(1, tw.hw.gemm_device_fields(tw.hw.load("h100_sxm5"), "fp32").write_exposed)
      assert.equal(0.481, tw.hw.gemm_device_fields(tw.hw.load("h100_sxm5"), "bf16").write_exposed)
      assert.has_error(function() tw.gemm { m = 1, n = 1, k = 1, hw = h100({ fp32 = 2 }) } end,
        "gemm.hw: hw.gemm.dtype_write_exposed.fp32: expected fraction from 0 to 1, got 2")
    end)

    it("charges partial 32-byte sectors to C rows at an odd multiple of 16 bytes (write_sector_cost)", function()
      local function bf16(n, cost) return gemm_with("h100_sxm5", "write_sector_cost", cost, { m = 8192, n = n, k = 64, dtype = "bf16" }) end
      -- 8192x8200x64 bf16: N*2 = 16400 B = 16 x 1025, so the TMA class (16-byte N and K) with C rows
      -- off the 32-byte sector; memory-bound on its 134.3 MB of C, so the cost adds
      -- 0.4 x 8192*8200*2 B / (3350e9 B/s * write_frac 0.796) = 20.1529 us
      local paid = bf16(8200, 0.4)
      assert.equal("memory", paid.bound)
      assert.near(20.1529e-6, paid.time_s - bf16(8200, 0).time_s, 1e-10)
      -- 8208 (N*2 = 16416 = 32 x 513) fills whole sectors, and below 16 bytes (8201) align_mem_eff
      -- prices the kernel class instead: no cost
      for _, n in ipairs { 8208, 8201 } do assert.equal(bf16(n, 0).time_s, bf16(n, 0.4).time_s) end
      assert.equal(0.4, tw.hw.gemm_device_fields(tw.hw.load("h100_sxm5"), "bf16").write_sector_cost)
      assert.has_error(function() gemm_with("h100_sxm5", "write_sector_cost", -1, { m = 1, n = 1, k = 1 }) end,
        "gemm.hw: hw.gemm.write_sector_cost: expected number from 0 to 16, got -1")
    end)

    it("exposes the C writes of Hopper's non-TMA kernel class (write_exposed_non_tma)", function()
      -- (without the last wave's drain, as above)
      local function bf16(k, e)
        local hw = with_gemm_fields("h100_sxm5", { write_exposed_non_tma = e, drain_exposed = 0 })
        return tw.gemm { m = 8192, n = 8192, k = k, dtype = "bf16", hw = hw }
      end
      -- 8192x8192x129 bf16 (K odd: the 2-byte class, CUTLASS sm75/sm80 kernels): compute above the
      -- reads and C writes, so exposing 0.8 of the writes adds 0.8 x 8192*8192*2 B /
      -- (3350e9 B/s * write_frac 0.796 * align_mem_eff 0.5) = 80.5327 us
      local hidden = bf16(129, 0)
      assert.equal("compute", hidden.bound)
      assert.near(80.5327e-6, bf16(129, 0.8).time_s - hidden.time_s, 1e-10)
      -- the TMA class (K = 128) keeps write_exposed (0)
      assert.equal(bf16(128, 0).time_s, bf16(128, 0.8).time_s)
      local f = tw.hw.gemm_device_fields(tw.hw.load("h100_sxm5"), "bf16")
      assert.same({ 0.481, 0.8 }, { f.write_exposed, f.write_exposed_non_tma })
      -- fp32's own exposure (dtype_write_exposed) rules both classes; an architecture without the
      -- field keeps write_exposed for both
      assert.equal(1, tw.hw.gemm_device_fields(tw.hw.load("h100_sxm5"), "fp32").write_exposed_non_tma)
      assert.equal(0, tw.hw.gemm_device_fields(tw.hw.load("a100_sxm4_80gb"), "bf16").write_exposed_non_tma)
      assert.has_error(function() gemm_with("h100_sxm5", "write_exposed_non_tma", 2, { m = 1, n = 1, k = 1 }) end,
        "gemm.hw: hw.gemm.write_exposed_non_tma: expected fraction from 0 to 1, got 2")
    end)

    it("exposes the TMA pipeline's fill once per wave (fill_stages)", function()
      local function bf16(fs) return gemm_with("h100_sxm5", "fill_stages", fs, { m = 16384, n = 128, k = 64, dtype = "bf16" }) end
      -- 16384x128x64 bf16: K = 64 is 2 stages of 64 bytes, so 2 fill stages expose all of a wave's
      -- reads, (16384*64 + 64*128)*2 B / (3350e9 B/s * mem_frac 0.83) = 0.760128 us in one wave
      -- (the 256x128 tile it takes unfilled); filled, two waves of 64x64 tiles halve it: 0.380064 us
      local free, filled = bf16(0), bf16(2)
      assert.same({ 1, 256, 2, 64 }, { free.waves, free.tile.m, filled.waves, filled.tile.m })
      assert.near(0.380064e-6, filled.time_s - free.time_s, 1e-11)
      local h100 = tw.hw.load("h100_sxm5")
      assert.same({ 2, 0, 0 }, { tw.hw.gemm_device_fields(h100, "bf16").fill_stages,
                                 tw.hw.gemm_device_fields(h100, "fp32").fill_stages,
                                 tw.hw.gemm_device_fields(h100, "int8").fill_stages })
      assert.has_error(function() gemm_with("h100_sxm5", "fill_stages", 65, { m = 1, n = 1, k = 1 }) end,
        "gemm.hw: hw.gemm.fill_stages: expected stages from 0 to 64, got 65")
    end)

    it("splits K by any factor below 16-byte alignment unless the dtype says not (split_k_any)", function()
      local h100 = tw.hw.load("h100_sxm5")
      -- on by default (CUTLASS's split-K kernels); Hopper's fp32 runs cuBLAS's xmma SIMT kernels
      assert.same({ 1, 1, 0 }, { tw.hw.gemm_device_fields(h100, "bf16").split_k_any,
                                 tw.hw.gemm_device_fields(h100, "tf32").split_k_any,
                                 tw.hw.gemm_device_fields(h100, "fp32").split_k_any })
      assert.equal(1, tw.hw.gemm_device_fields(tw.hw.load("a100_sxm4_80gb"), "fp32").split_k_any)
      -- 218x3125x4897 bf16 (N odd): off, the factor is a power of two; on, it may be any
      local q = { m = 218, n = 3125, k = 4897, dtype = "bf16" }
      local off = gemm_with("h100_sxm5", "split_k_any", false, q)
      local on = gemm_with("h100_sxm5", "split_k_any", true, q)
      assert.equal(0, off.split_k & (off.split_k - 1))
      assert.is_true(on.time_s <= off.time_s)
      assert.has_error(function() gemm_with("h100_sxm5", "split_k_any", 2, { m = 1, n = 1, k = 1 }) end,
        "gemm.hw: hw.gemm.split_k_any: expected boolean, got 2")
    end)

    it("runs int8 with only N off 16 bytes on the TMA kernel, up to max_mn outputs (dtype_n_off_tma)", function()
      local function int8(m, n, k) return tw.gemm { m = m, n = n, k = k, dtype = "int8", hw = "h100_sxm5" } end
      -- 44x24x5056 (N = 8 mod 16, K = 0 mod 16): one 256x128 tile, 2*256*128*5056 = 331,350,016
      -- FLOP at 1978.9e12 * 0.87 / 132 SMs = 13.0427e12 FLOP/s: 25.405 us, + the tile's
      -- 0.002 us latency; 3 us more fixed
      -- cost than the 8-byte class of 44x24x5064 (K = 8 mod 16), which keeps CUTLASS's tiles
      local on, k8 = int8(44, 24, 5056), int8(44, 24, 5064)
      assert.same({ 256, 128, 8 }, { on.tile.m, on.tile.n, on.align_bytes })
      assert.near(0.87 / 0.495, on.align_eff, 1e-12)
      assert.near(25.407e-6, on.compute_s, 1e-9)
      assert.near(3.0e-6, on.overhead_s - k8.overhead_s, 1e-12)
      assert.same({ 128, 0.8 }, { k8.tile.m, k8.align_eff })
      -- past 1e7 outputs (2525x5608) cuBLASLt keeps its sm80 kernels: the 8-byte class
      assert.equal(0.8, int8(2525, 5608, 2496).align_eff)
      local f = tw.hw.gemm_device_fields(tw.hw.load("h100_sxm5"), "int8")
      local t = f.tiles[f.n_off_tma_tile]
      assert.same({ 256, 128, 1e7 }, { t.m, t.n, f.n_off_tma_max_mn })
      assert.equal(0, tw.hw.gemm_device_fields(tw.hw.load("h100_sxm5"), "bf16").n_off_tma_eff)
      assert.has_error(function()
        gemm_with("h100_sxm5", "dtype_n_off_tma", { int8 = { frac = 0.8, max_mn = 1e7, overhead_s = 0, tile = { m = 96, n = 96 } } },
          { m = 1, n = 8, k = 16, dtype = "int8" })
      end, "gemm.hw: hw.gemm (int8): dtype_n_off_tma.int8.tile: expected one of the tiles int8 kernels have, got 96x96")
      -- its rate, like every kernel's, stays within the matmul ceiling (tilewave.data.ceilings, 0.87)
      assert.has_error(function()
        gemm_with("h100_sxm5", "dtype_n_off_tma", { int8 = { frac = 0.95, max_mn = 1e7, overhead_s = 0, tile = { m = 256, n = 128 } } },
          { m = 1, n = 8, k = 16, dtype = "int8" })
      end, "hw/arch/hopper.lua gemm.dtype_n_off_tma.int8.frac: expected at most 0.87 (tilewave.data.ceilings), got 0.95")
    end)

    it("exposes the last wave's C stores, which no later main loop hides (drain_exposed)", function()
      local function bf16(dr) return gemm_with("h100_sxm5", "drain_exposed", dr, { m = 4096, n = 4096, k = 4096, dtype = "bf16" }) end
      -- 4096^3 bf16: 1024 tiles of 128x128 in 8 waves of 132, the last with 1024 - 7*132 = 100, all
      -- compute-bound, so 100/1024 of the part of C's writes write_exposed (0.481) leaves hidden
      -- add: 4096*4096*2 B / (3350e9 B/s * write_frac 0.796) * (1 - 0.481) * 100/1024 =
      -- 12.5832 us * 0.519 * 0.097656 = 0.637763 us
      local hidden, drained = bf16(0), bf16(1)
      assert.same({ 8, 128, "compute" }, { drained.waves, drained.tile.m, drained.bound })
      assert.near(0.637763e-6, drained.time_s - hidden.time_s, 1e-11)
      assert.equal(1, tw.hw.gemm_device_fields(tw.hw.load("h100_sxm5"), "bf16").drain_exposed)
      assert.equal(0, tw.hw.gemm_device_fields(tw.hw.load("a100_sxm4_80gb"), "bf16").drain_exposed)
      assert.has_error(function() gemm_with("h100_sxm5", "drain_exposed", 2, { m = 1, n = 1, k = 1 }) end,
        "gemm.hw: hw.gemm.drain_exposed: expected fraction from 0 to 1, got 2")
    end)

    it("charges tf32's extra launch to its TMA kernel class alone (dtype_tma_latency_s)", function()
      local h100 = tw.hw.load("h100_sxm5")
      -- cuBLAS's sm90 xmma tf32 kernels come with a memset, its CUTLASS sm80 kernels without: 1 us on
      -- top of the compiled engine's 2.5 us for N and K multiples of 4 elements, not for N = 257
      local f = tw.hw.gemm_device_fields(h100, "tf32")
      assert.same({ 1e-6, 0 }, { f.tma_overhead_s, tw.hw.gemm_device_fields(h100, "bf16").tma_overhead_s })
      local aligned = tw.gemm { m = 64, n = 256, k = 64, dtype = "tf32", hw = h100 }
      local odd = tw.gemm { m = 64, n = 257, k = 64, dtype = "tf32", hw = h100 }
      assert.near(3.5e-6, aligned.overhead_s, 1e-15)
      assert.near(2.5e-6, odd.overhead_s, 1e-15)
      assert.has_error(function() gemm_with("h100_sxm5", "dtype_tma_latency_s", { tf32 = -1 }, { m = 1, n = 1, k = 1 }) end,
        "gemm.hw: hw.gemm.dtype_tma_latency_s.tf32: expected s from 0 to 0.001, got -1")
    end)

    it("runs int8 without stream-K on Hopper: its CUTLASS sm80 IMMA kernels are not persistent", function()
      local h100 = tw.hw.load("h100_sxm5")
      assert.equal(0, tw.hw.gemm_device_fields(h100, "int8").stream_k)
      assert.equal(1, tw.hw.gemm_device_fields(h100, "bf16").stream_k)
      -- 256x2112x10752: 66 tiles of 128x64 on 132 SMs; int8 pays the half-empty wave
      assert.is_false(tw.gemm({ m = 256, n = 2112, k = 10752, dtype = "int8", hw = h100 }).stream_k)
      assert.is_true(tw.gemm({ m = 256, n = 2112, k = 10752, dtype = "fp8", hw = h100 }).stream_k)
      assert.has_error(function()
        tw.gemm { m = 1, n = 1, k = 1, hw = with_gemm("h100_sxm5", "dtype_stream_k", { int8 = 1 }) }
      end, "gemm.hw: hw.gemm.dtype_stream_k.int8: expected boolean, got 1")
    end)

    it("accepts a spec table as hw", function()
      local r = tw.gemm { m = 1024, n = 1024, k = 1024, hw = tw.hw.load("v100_sxm2") }
      assert.equal("v100_sxm2", r.hw)
    end)

    it("gives byte-identical results for the same inputs", function()
      local a = tw.report.json(tw.gemm { m = 2304, n = 1600, k = 4096, hw = A100 })
      local b = tw.report.json(tw.gemm { m = 2304, n = 1600, k = 4096, hw = A100 })
      assert.equal(a, b)
    end)

    local errors = {
      { { m = -3, n = 1, k = 1 }, "gemm.m: expected positive integer, got -3" },
      { { m = 0, n = 1, k = 1 }, "gemm.m: expected positive integer, got 0" },
      { { m = 2.5, n = 1, k = 1 }, "gemm.m: expected positive integer, got 2.5" },
      { { m = "80", n = 1, k = 1 }, "gemm.m: expected positive integer, got string '80'" },
      { { n = 1, k = 1 }, "gemm.m: expected positive integer, got nil" },
      { { m = 1, n = -1, k = 1 }, "gemm.n: expected positive integer, got -1" },
      { { m = 1, n = 1, k = math.huge }, "gemm.k: expected positive integer, got inf" },
      { { m = 1e12, n = 1, k = 1 }, "gemm.m: out of range (max 2147483647), got 1000000000000.0" },
      { { m = 1, n = 1, k = 1, batch = 0 }, "gemm.batch: expected positive integer, got 0" },
      { { m = 2147483647, n = 2147483647, k = 1, batch = 4 },
        "gemm.m*n*batch: expected M*N*batch <= 2^53, got 1.844674405653e+19" },
      { { m = 1, n = 1, k = 1, mm = 3 }, "gemm: unknown option 'mm' (did you mean 'm'?) (known: batch, dtype, engine, hw, k, m, n, timing)" },
      { { m = 1, n = 1, k = 1, dtype = "fp8" },
        "gemm.dtype: 'fp8' not supported by a100_sxm4_80gb (supported: bf16, fp16, fp32, fp64, int8, tf32)" },
      { { m = 1, n = 1, k = 1, dtype = "fp12" },
        "gemm.dtype: expected one of bf16, fp16, fp32, fp4, fp64, fp8, int8, tf32, got string 'fp12'" },
    }
    it("prices FP4 on Blackwell: half-byte operands, the 9000 TFLOP/s dense peak, faster than fp8", function()
      -- B200 FP4 9000 TFLOP/s dense (../shared/reference/hardware_specs.md); operands at half a byte,
      -- bf16 output: 4096^3 moves 2 x 4096^2 x 0.5 + 4096^2 x 2 = 50,331,648 B
      local r4 = tw.gemm { m = 4096, n = 4096, k = 4096, hw = "b200", dtype = "fp4" }
      local r8 = tw.gemm { m = 4096, n = 4096, k = 4096, hw = "b200", dtype = "fp8" }
      assert.equal(9000e12, r4.peak_flops)
      assert.equal(50331648, r4.bytes)
      assert.is_true(r4.time_s < r8.time_s and r4.tflops * 1e12 <= r4.peak_flops)
      -- half a byte: K = 4094 is 1-byte aligned (class 0), K = 4096 128-byte aligned
      assert.equal(1, tw.gemm { m = 4096, n = 4096, k = 4094, hw = "b200", dtype = "fp4" }.align_bytes)
      assert.equal(128, r4.align_bytes)
      assert.has_error(function() tw.gemm { m = 64, n = 64, k = 64, hw = "h100_sxm5", dtype = "fp4" } end,
        "gemm.dtype: 'fp4' not supported by h100_sxm5 (supported: bf16, fp16, fp32, fp64, fp8, int8, tf32)")
    end)

    for _, case in ipairs(errors) do
      it("raises '" .. case[2] .. "'", function()
        local opts = case[1]
        if opts.hw == nil then opts.hw = A100 end
        assert.has_error(function() tw.gemm(opts) end, case[2])
      end)
    end

    it("raises for an unknown device, listing the known ones", function()
      assert.has_error(function() tw.gemm { m = 1, n = 1, k = 1, hw = "h100x" } end,
        "gemm.hw: unknown device 'h100x' (did you mean 'h100'?) (known: " .. table.concat(tw.hw.list(), ", ") .. ")")
    end)

    it("raises for a missing device", function()
      assert.has_error(function() tw.gemm { m = 1, n = 1, k = 1 } end,
        "gemm.hw: expected device id or spec table, got nil")
    end)

    it("raises for NaN without crashing", function()
      assert.has_error(function() tw.gemm { m = 0 / 0, n = 1, k = 1, hw = A100 } end)
    end)

    it("raises for a spec table with a bad field", function()
      local bad = {}
      for k, v in pairs(tw.hw.load(A100)) do bad[k] = v end
      bad.mem_bw = -1
      assert.has_error(function() tw.gemm { m = 1, n = 1, k = 1, hw = bad } end,
        "gemm.hw: hw.mem_bw: expected byte/s from 1e+09 to 1e+15, got -1")
      -- finite but absurd figures are refused by name, not priced into 1e+282 s
      bad.mem_bw = 1e-300
      assert.has_error(function() tw.gemm { m = 1, n = 1, k = 1, hw = bad } end,
        "gemm.hw: hw.mem_bw: expected byte/s from 1e+09 to 1e+15, got 1e-300")
      bad.mem_bw = 2.039e12
      bad.gemm = { compute_frac = 1e-300 }
      assert.has_error(function() tw.gemm { m = 1, n = 1, k = 1, hw = bad } end,
        "gemm.hw: hw.gemm.compute_frac: expected fraction from 0.01 to 1, got 1e-300")
    end)
  end)

  it("runs Hopper's bf16 GEMMs with an odd N or K and a small output as fp32 partials plus the reduction", function()
    -- hw/arch/hopper.lua dtype_unsplit_reduce: bf16 up to M 512 x N 1024 (kernel traces of
    -- hw/measured/h100_misalign_2026-11-22); 208x640x21 (K odd) pays the reduction's kernel and
    -- traffic; fp16 (wmma kernels with fp16 output) and M = 2304 do not
    local bf = tw.gemm { m = 208, n = 640, k = 21, dtype = "bf16", hw = "h100_sxm5" }
    local fp = tw.gemm { m = 208, n = 640, k = 21, dtype = "fp16", hw = "h100_sxm5" }
    assert.equal(1, bf.split_k)
    -- partials 208*640*4 written and read, C 208*640*2 written: 1,331,200 B more than fp16's C
    assert.is_true(bf.dram_bytes - fp.dram_bytes == 208 * 640 * 4 * 2)
    assert.is_true(bf.time_s > fp.time_s + 1e-6) -- a second kernel: at least the engine's kernel cost
    local big = tw.gemm { m = 2304, n = 64, k = 19, dtype = "bf16", hw = "h100_sxm5" }
    local big16 = tw.gemm { m = 2304, n = 64, k = 19, dtype = "fp16", hw = "h100_sxm5" }
    assert.equal(big16.dram_bytes, big.dram_bytes)
  end)

  it("splits K over several waves below 16-byte alignment only while each split keeps 1024 of K", function()
    -- tw_gemm.c MULTIWAVE_SPLIT_K: bf16 1280x1001 (N odd: 2-byte class, CUTLASS split-K, no
    -- stream-K) on an H100's 132 SMs in 128x128 tiles: 10 x 8 = 80 tiles, one unfilled wave. A split of
    -- f runs 80 f tiles in ceil(80 f / 132) waves of K / f each: f = 2 gives 2 waves x K/2 (no gain),
    -- f = 3 gives 2 x K/3, two thirds of the main loop. f = 3 needs floor(K / 1024) >= 3: K = 3072
    -- takes it, K = 3071 cannot and stays whole.
    local below = tw.gemm { m = 1280, n = 1001, k = 3071, dtype = "bf16", hw = "h100_sxm5" }
    local at = tw.gemm { m = 1280, n = 1001, k = 3072, dtype = "bf16", hw = "h100_sxm5" }
    assert.equal(1, below.split_k)
    assert.equal(80, below.tiles)
    assert.equal(3, at.split_k)
    assert.equal(240, at.tiles)
    assert.equal(2, at.waves)
    assert.is_true(at.time_s < 0.97 * below.time_s)
  end)

  describe("gemm_many()", function()
    it("matches single calls", function()
      local shapes = { 2304, 1600, 4096, 27648, 64, 4096, 32, 32, 4096 }
      local times, rates = tw.gemm_many(shapes, { hw = A100, dtype = "fp16" })
      assert.equal(3, #times)
      for i = 1, 3 do
        local r = tw.gemm { m = shapes[3 * i - 2], n = shapes[3 * i - 1], k = shapes[3 * i], hw = A100 }
        assert.equal(r.time_s, times[i])
        assert.near(r.flop_rate, rates[i], r.flop_rate * 1e-12)
      end
    end)

    it("names the first bad value", function()
      assert.has_error(function() tw.gemm_many({ 1, 1, 1, 2, -2, 2 }, { hw = A100 }) end,
        "gemm_many.shapes[2].n: expected positive integer")
      assert.has_error(function() tw.gemm_many({ 1, 1 }, { hw = A100 }) end,
        "gemm_many.shapes: expected a flat list of M, N, K triples, got 2 values")
      assert.has_error(function() tw.gemm_many({ 1, "x", 1 }, { hw = A100 }) end,
        "gemm_many.shapes[2]: expected positive integer, got string 'x'")
      -- the first bad value of a triple is named by its flat index: the second triple's M
      -- (value 4), then its K (value 6)
      assert.has_error(function() tw.gemm_many({ 8, 8, 8, 2.5, 8, {} }, { hw = A100 }) end,
        "gemm_many.shapes[4]: expected positive integer, got 2.5")
      assert.has_error(function() tw.gemm_many({ 8, 8, 8, 8, 8, {} }, { hw = A100 }) end,
        "gemm_many.shapes[6]: expected positive integer, got table")
    end)
  end)
end)
