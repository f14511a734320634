-- busted specs for the devices and systems of issue 72: each new device file checked against a
-- figure worked by hand from its datasheet, and the collectives of a rack-scale NVLink domain
-- against a DGX node's, worked by hand from src/tw_collective.c's ring and tree.
local tw = require "tilewave"
local cluster = require "tilewave.data.cluster"
local price = require "tilewave.cost.price"
local interval = require "tilewave.cost.interval"

local function within(got, want, rel, what)
  assert(math.abs(got / want - 1) <= rel, string.format("%s: %.6g against %.6g (%.2f%% off, %.2f%% allowed)", what,
    got, want, 100 * math.abs(got / want - 1), 100 * rel))
end

local function spec(id) return assert(tw.hw.load(id)) end

describe("issue 72: the new device files against their datasheets", function()
  it("holds at least 45 devices, each loading in the sandbox", function()
    local ids = tw.hw.list()
    assert.is_true(#ids >= 45, #ids)
    for _, id in ipairs(ids) do assert.truthy(tw.hw.load(id), id) end
  end)

  -- peak = SMs (CUs) x dense tensor FLOP per SM per clock x clock, within the datasheet's rounding
  -- (two or three significant figures: 1%)
  it("B300: 148 SMs x 8192 bf16 FLOP/clk (4 Tensor Cores x 2048, scaling-book) x 1.86 GHz = 2.25 PF", function()
    local s = spec("b300")
    within(s.sm_count * 8192 * 1.86e9, s.peak_flops.bf16, 0.01, "b300 bf16")
    -- and the HGX B300 table's 8-GPU sparse totals: 36 PF bf16, 72 PF fp8, 108 PF dense fp4
    within(36e15 / 8 / 2, s.peak_flops.bf16, 1e-12, "b300 bf16 from HGX")
    within(72e15 / 8 / 2, s.peak_flops.fp8, 1e-12, "b300 fp8 from HGX")
    within(108e15 / 8, s.peak_flops.fp4, 1e-12, "b300 fp4 from HGX")
    assert.equal(288e9, s.memory_bytes)
  end)

  it("GB200: the NVL72 rack's 360 PF sparse bf16 and 720 PF sparse fp8 over 72 GPUs", function()
    local s = spec("gb200")
    within(360e15 / 72 / 2, s.peak_flops.bf16, 1e-12, "gb200 bf16")
    within(720e15 / 72 / 2, s.peak_flops.fp8, 1e-12, "gb200 fp8")
    within(13.4e12 / 72, s.memory_bytes, 0.01, "gb200 memory: 13.4 TB / 72")
  end)

  it("GB300: 160 SMs at one clock give both 2.5 PF bf16 (8192/clk) and 15 PF NVFP4 (49152/clk)", function()
    local s = spec("gb300")
    local f = s.peak_flops.fp4 / (160 * 49152)
    within(160 * 8192 * f, s.peak_flops.bf16, 1e-12, "gb300 bf16 at the fp4 clock")
    within(f, s.boost_clock_hz, 0.001, "gb300 clock")
    within(1.1e18 / 72, s.peak_flops.fp4, 0.03, "GB300 NVL72's 1.1 EF dense FP4 / 72")
  end)

  it("MI325X: MI300X's 304 CUs x 2048 bf16 FLOP/clk x 2.1 GHz = 1307.4 TF, with 256 GB at 6 TB/s", function()
    local s = spec("mi325x")
    within(304 * 2048 * 2.1e9, s.peak_flops.bf16, 0.001, "mi325x bf16")
    assert.equal(256e9, s.memory_bytes)
    assert.equal(6000e9, s.mem_bw)
  end)

  it("MI355X: 256 CUs x 4096 bf16 (8192 fp8, ISSCC 2026) FLOP/clk x 2.4 GHz = 2516.6 / 5033 TF", function()
    local s = spec("mi355x")
    within(256 * 4096 * 2.4e9, s.peak_flops.bf16, 0.01, "mi355x bf16")
    within(256 * 8192 * 2.4e9, s.peak_flops.fp8, 0.01, "mi355x fp8")
  end)

  it("MI350X: the same 256 CUs at 2.2 GHz = 2306.9 TF", function()
    local s = spec("mi350x")
    within(256 * 4096 * 2.2e9, s.peak_flops.bf16, 0.01, "mi350x bf16")
    assert.equal(2.2e9, s.boost_clock_hz)
  end)

  it("H20: its tensor rate is capped: 296 TF x 8 bits = 148 x 16 = 2368 < 4800 (ECCN 3A090)", function()
    local s = spec("h20")
    assert.equal(s.peak_flops.fp8 / 1e12 * 8, s.peak_flops.bf16 / 1e12 * 16)
    assert.is_true(s.peak_flops.fp8 / 1e12 * 8 < 4800)
    -- far below what its 78 SMs would give at H100's per-SM rate
    assert.is_true(s.peak_flops.bf16 < 0.3 * s.sm_count * 4096 * s.boost_clock_hz)
  end)

  it("H800: H100 SXM5's 132 SMs x 4096 x 1.83 GHz = 989.4 TF, NVLink cut to 400 GB/s", function()
    local s = spec("h800")
    within(132 * 4096 * 1.83e9, s.peak_flops.bf16, 0.001, "h800 bf16")
    assert.equal(400e9, s.interconnect.nvlink_bw)
    assert.is_nil(s.measured) -- a measurement is the H100's own, never inherited
  end)

  it("RTX 5090: 170 SMs x 512 (half-rate FP32 accumulate) x 2.407 GHz = 209.5 TF; FP4 x 4096 = 1676", function()
    local s = spec("rtx5090")
    within(170 * 512 * 2.407e9, s.peak_flops.bf16, 0.001, "rtx5090 bf16")
    within(170 * 4096 * 2.407e9, s.peak_flops.fp4, 0.001, "rtx5090 fp4")
  end)

  it("RTX PRO 6000: 188 SMs x 1024 (full rate) x 2.617 GHz = 503.8 TF", function()
    local s = spec("rtx_pro_6000")
    within(188 * 1024 * 2.617e9, s.peak_flops.bf16, 0.001, "rtx pro 6000 bf16")
  end)

  it("L40: 142 SMs x 512 x 2.49 GHz = 181.0 TF (half L40S's per-SM rate)", function()
    within(142 * 512 * 2.49e9, spec("l40").peak_flops.bf16, 0.001, "l40 bf16")
    within(2 * spec("l40").peak_flops.bf16, spec("l40s").peak_flops.bf16, 0.001, "l40s = 2 x l40")
  end)

  it("L20: 92 SMs x 512 x 2.52 GHz = 118.7 TF, the 119.5 printed within 1%", function()
    within(92 * 512 * 2.52e9, spec("l20").peak_flops.bf16, 0.01, "l20 bf16")
  end)
end)

describe("issue 72: names as people type them", function()
  it("takes the aliases, any case, and suggests the nearest id or alias", function()
    for typed, id in pairs { b300 = "b300", GB200 = "gb200", MI355X = "mi355x", rtx5090 = "rtx5090", h20 = "h20",
                            rtx_5090 = "rtx5090", RTXPRO6000 = "rtx_pro_6000", mi355 = "mi355x" } do
      assert.equal(id, spec(typed).id, typed)
    end
    local _, err = tw.hw.load("rtx-5090")
    assert.truthy(err:find("did you mean 'rtx5090'?", 1, true), err)
    -- a device naming a node that is no cluster file is refused when it loads, naming the field
    local spec2 = { name = "x", vendor = "nvidia", arch = "hopper", sm_count = 132, boost_clock_hz = 1.83e9,
                    memory_bytes = 80e9, mem_bw = 3.35e12, l2_bytes = 5e7, peak_flops = { bf16 = 989e12 },
                    node = "dgx_h900", sources = { sm_count = "a", boost_clock_hz = "a", memory_bytes = "a", mem_bw = "a",
                    l2_bytes = "a", peak_flops = "a", node = "a" } }
    local ok, verr = tw.hw.validate(spec2, "mine.lua")
    assert.is_nil(ok)
    assert.are.equal("mine.lua: hw.node: expected a cluster id (a file of hw/clusters), got string 'dgx_h900'", verr)
    _, err = tw.hw.load("gb200_nvl72")
    assert.truthy(err:find("'gb200_nvl72' is a cluster (hw/clusters/gb200_nvl72.lua), not a device: give its GPU, 'gb200'",
      1, true), err)
  end)
end)

describe("issue 72: a rack-scale NVLink domain against DGX nodes", function()
  -- 1 GB all-reduced; time = steps x latency + wire / bw (src/tw_collective.c): ring 2(n-1) steps and
  -- 2(n-1)/n B on the wire, tree 2 ceil(log2 n) steps and 2B; the faster is taken (NCCL's tuner)
  local B = 1e9
  local function allreduce(c, n)
    local l, which = cluster.link(c, n)
    return price.collective("allreduce", B, n, cluster.collective_bw(l), l.latency_s), which
  end

  it("on a GB200 NVL72, 16 and 64 GPUs all-reduce over NVLink at 900 GB/s a direction", function()
    local c = cluster.resolve("gb200_nvl72")
    assert.equal(4, c.gpus_per_node)
    assert.equal(72, cluster.domain(c))
    local t16, w16 = allreduce(c, 16)
    assert.equal("intra", w16)
    -- ring: 30 x 5 us + 2 x 15/16 x 1e9 / 900e9 = 150 us + 2083.3 us = 2233.3 us (tree 2262.2 us)
    within(t16, 30 * 5e-6 + 2 * 15 / 16 * B / 900e9, 1e-9, "gb200 nvl72 16")
    local t64, w64 = allreduce(c, 64)
    assert.equal("intra", w64)
    -- tree: 12 x 5 us + 2e9 / 900e9 = 60 us + 2222.2 us = 2282.2 us (ring 126 x 5 us + 2187.5 us = 2817.5 us)
    within(t64, 12 * 5e-6 + 2 * B / 900e9, 1e-9, "gb200 nvl72 64")
    -- past the rack: 144 GPUs cross the scale-out network
    assert.equal("inter", select(2, allreduce(c, 144)))
  end)

  it("on DGX H100 nodes, 16 GPUs cross InfiniBand at 50 GB/s a direction", function()
    local c = cluster.resolve("dgx_h100")
    local t8, w8 = allreduce(c, 8)
    assert.equal("intra", w8)
    local t16, w16 = allreduce(c, 16)
    assert.equal("inter", w16)
    -- ring: 30 x 10 us + 2 x 15/16 x 1e9 / 50e9 = 300 us + 37.5 ms = 37.8 ms (tree 80 us + 40 ms)
    within(t16, 30 * 10e-6 + 2 * 15 / 16 * B / 50e9, 1e-9, "dgx h100 16")
    assert.is_true(t16 > 5 * t8) -- 8 GPUs: 70 us + 2 x 7/8 x 1e9 / (450e9 x 0.84) = 4.70 ms
  end)

  it("training searches t = 16 inside an NVL72's domain and refuses it across DGX nodes", function()
    local model = { family = "llama", hidden_size = 2048, num_attention_heads = 16, num_key_value_heads = 16,
                    num_hidden_layers = 2, intermediate_size = 5504, vocab_size = 32000, max_position_embeddings = 4096 }
    local function reasons(cl, nodes)
      local res = tw.training.search { model = model, cluster = cl, nodes = nodes, global_batch = 64, s = 512,
                                       t = { 16 }, p = { 1 }, micro_batch = { 1 }, checkpointing = { "none" },
                                       zero = { 0 } }
      return #res.ranked, res.rejected[1] and res.rejected[1].reason
    end
    local ranked, why = reasons("gb200_nvl72", 4)
    assert.equal(1, ranked, why)
    ranked, why = reasons("dgx_h100", 2)
    assert.equal(0, ranked)
    assert.equal("t = 16 spans NVLink domains (8 GPUs per domain)", why)
  end)

  it("the sizing search tries tensor parallelism up to the NVLink domain: 64 on a GB200, 8 on an H100", function()
    local t_sizes = require("tilewave.serve.size_candidates").t_sizes
    assert.are.same({ 1, 2, 4, 8, 16, 32, 64 }, t_sizes({ 1, 2, 4, 8 }, spec("gb200"), true, 128))
    assert.are.same({ 1, 2, 4, 8, 16 }, t_sizes({ 1, 2, 4, 8 }, spec("gb200"), true, 16))
    assert.are.same({ 1, 2, 4, 8 }, t_sizes({ 1, 2, 4, 8 }, spec("h100_sxm5"), true, 128))
    -- sizes the user gave are taken as given
    assert.are.same({ 2 }, t_sizes({ 2 }, spec("gb200"), false, 128))
  end)

  it("expert all-to-alls of a GB200 stay on NVLink past 8 GPUs; an H100's cross nodes", function()
    local ep = require "tilewave.cost.expert_parallel"
    local function pair(id, n)
      local domain, inter = ep.node(spec(id))
      return ep.alltoall_pair_s(16e6, n, 900e9, inter, 0, domain)
    end
    -- 16 ranks, 16 MB each: NVLink 2 x 15/16 x 16e6 / 900e9 = 33.3 us; across two DGX nodes the
    -- 8/16 bound off-node cross 50 GB/s: 2 x 8e6 / 50e9 = 320 us
    within(pair("gb200", 16), 2 * 15 / 16 * 16e6 / 900e9, 1e-12, "gb200 ep 16")
    within(pair("h100_sxm5", 16), 2 * 8e6 / 50e9, 1e-12, "h100 ep 16")
  end)
end)

describe("issue 72: what a device without measurements gets", function()
  it("its architecture's interval, widened by UNMEASURED_WIDEN in log space", function()
    local t = 1e-3
    local h100 = interval.of(spec("h100_sxm5"), "gemm", t)
    local h20 = interval.of(spec("h20"), "gemm", t)
    -- Hopper's gemm interval 0.88-1.35 (hw/arch/hopper.lua) for the measured H100
    within(h100.low, 0.88e-3, 1e-12, "h100 low")
    within(h100.high, 1.35e-3, 1e-12, "h100 high")
    -- the H20: 0.88^1.5 = 0.8255, 1.35^1.5 = 1.5685
    within(h20.low, 0.88 ^ 1.5 * t, 1e-12, "h20 low")
    within(h20.high, 1.35 ^ 1.5 * t, 1e-12, "h20 high")
    assert.is_true(h20.unmeasured)
    -- MI355X: CDNA 4 borrows Hopper's (x2) and is unmeasured (x1.5): 1.35^3 = 2.460
    local mi = interval.of(spec("mi355x"), "gemm", t)
    within(mi.high, 1.35 ^ 3 * t, 1e-12, "mi355x high")
    -- B300 has a measured MAMF point: Blackwell's borrowed interval, not widened again
    within(interval.of(spec("b300"), "gemm", t).high, 1.35 ^ 2 * t, 1e-12, "b300 high")
  end)

  it("tilewave hw marks the devices with measurements", function()
    local listing = require("tilewave.report.listing")
    local specs = {}
    for _, id in ipairs { "h100_sxm5", "b300", "mi355x" } do specs[#specs + 1] = spec(id) end
    local text = listing.hw(specs, "text")
    assert.truthy(text:find("h100_sxm5 .* gemm,attention,forward,decode\n"), text)
    assert.truthy(text:find("mi355x .* %-\n"), text)
    assert.truthy(text:find("3 devices, 2 with measurements behind them", 1, true), text)
  end)
end)
