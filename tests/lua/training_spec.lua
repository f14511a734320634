-- busted specs for tilewave.training and tilewave.cluster: Korthikanti's activation
-- formulas, ZeRO memory, collectives, the pipeline bubble and the search's rejections.
local tw = require "tilewave"

-- h 256, a 4 (head dim 64), kv 2, L 2, I 512, v 1000 (untied)
local SMALL = { family = "llama", hidden_size = 256, num_attention_heads = 4, num_key_value_heads = 2,
                num_hidden_layers = 2, intermediate_size = 512, vocab_size = 1000, name = "small" }

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return err
end

describe("tilewave.cost.training", function()
  describe("activation_bytes()", function()
    -- Korthikanti et al. 2022 Table 2 at s = 2048, b = 1, h = 4096, a = 32: sbh = 8,388,608
    local sbh = 2048 * 4096
    it("no parallelism: sbh(34 + 5as/h) = sbh * 114", function()
      assert.equal(sbh * 114, tw.training.activation_bytes(2048, 1, 4096, 32, 1, false, "none", false))
    end)
    it("tensor parallel t = 8: sbh(10 + 24/t + 5as/(ht)) = sbh * 23", function()
      assert.equal(sbh * 23, tw.training.activation_bytes(2048, 1, 4096, 32, 8, false, "none", false))
    end)
    it("tensor + sequence parallel: sbh(34/t + 5as/(ht)) = sbh * 14.25", function()
      assert.equal(sbh * 14.25, tw.training.activation_bytes(2048, 1, 4096, 32, 8, true, "none", false))
    end)
    it("selective recomputation and FlashAttention drop the 5as/h scores term", function()
      assert.equal(sbh * 34 / 8, tw.training.activation_bytes(2048, 1, 4096, 32, 8, true, "selective", false))
      assert.equal(sbh * 13, tw.training.activation_bytes(2048, 1, 4096, 32, 8, false, "none", true))
    end)
    it("full recomputation keeps the layer input: 2sbh", function()
      assert.equal(2 * sbh, tw.training.activation_bytes(2048, 1, 4096, 32, 1, false, "full", false))
    end)
  end)

  describe("step()", function()
    local function step(o)
      local q = { model = SMALL, cluster = "dgx_h100", nodes = 1, global_batch = 64, s = 128 }
      for k, v in pairs(o or {}) do q[k] = v end
      return tw.training.step(q)
    end

    it("shards 16 bytes per parameter by ZeRO stage, worked by hand", function()
      -- parameters of the (only) stage: 2 layers x 590,336 + embeddings 2 x 1000 x 256 = 1,692,672
      -- (all but the final norm); d = 8
      local P = 1692672
      local z = {}
      for stage = 0, 3 do z[stage] = step { zero = stage }.memory end
      assert.equal(2 * P, z[0].weights)
      assert.equal(2 * P, z[0].grads)
      assert.equal(12 * P, z[0].optimizer)
      assert.equal(12 * P / 8, z[1].optimizer)
      assert.equal(2 * P, z[1].grads)
      assert.equal(2 * P / 8, z[2].grads)
      assert.equal(2 * P, z[2].weights)
      assert.equal(2 * P / 8, z[3].weights)
      assert.equal(tw.training.WORKSPACE_BYTES, z[0].workspace)
    end)

    it("charges the pipeline bubble (p - 1) / (m * interleave)", function()
      -- nodes 1: 8 GPUs, p = 2, d = 4, micro-batch 1, 64 sequences: m = 16 micro-batches
      local r = step { p = 2 }
      assert.equal(16, r.config.micro_batches)
      assert.near(1 / 16, r.breakdown.bubble_s / (16 * r.breakdown.stage_s + r.breakdown.pp_s + r.breakdown.accum_s), 1e-12)
      local one = step { p = 1 }
      assert.equal(0, one.breakdown.bubble_s)
    end)

    it("sends v times the point-to-point traffic with v virtual stages (Narayanan et al. 2021 §2.2.2)", function()
      local four = {}
      for k, v in pairs(SMALL) do four[k] = v end
      four.num_hidden_layers = 4 -- p * v = 4 divides the layers
      local plain, inter = step { model = four, p = 2 }, step { model = four, p = 2, interleave = 2 }
      assert.is_true(plain.breakdown.pp_s > 0)
      assert.near(2 * plain.breakdown.pp_s, inter.breakdown.pp_s, 1e-12 * inter.breakdown.pp_s)
      assert.is_true(inter.breakdown.bubble_s < plain.breakdown.bubble_s)
    end)

    it("counts recomputation in hardware FLOPs only", function()
      local none = step { checkpointing = "none" }
      local full = step { checkpointing = "full" }
      assert.near(none.model_tflops_per_gpu * none.step_s, full.model_tflops_per_gpu * full.step_s, 1e-9)
      assert.is_true(full.hfu > full.mfu)
      -- without recomputation, hardware FLOPs exceed model FLOPs only by the fused causal kernel's
      -- diagonal: at s = 128 it computes one whole 128 x 128 block per head where a causal model
      -- needs 128*129/2 scores; 4 heads of dim 64, 2 layers, 64 sequences, 3 passes:
      -- 3 * 64 * 2 * 4 * 4 * 64 * (16384 - 8256) = 3,196,059,648 FLOP
      assert.equal(3196059648, none.hardware_flops - none.model_flops)
      assert.is_true(none.mfu < none.hfu)
      assert.is_true(full.step_s > none.step_s)
      assert.is_true(full.memory.activations < none.memory.activations)
    end)

    it("makes selective recomputation a no-op with fused attention, and prices it with standard", function()
      local none, sel = step { checkpointing = "none" }, step { checkpointing = "selective" }
      assert.equal(none.step_s, sel.step_s)
      assert.equal(none.hfu, sel.hfu)
      assert.equal(none.memory.activations, sel.memory.activations)
      assert.is_true(sel.recompute_noop)
      local snone = step { checkpointing = "none", attention = "standard" }
      local ssel = step { checkpointing = "selective", attention = "standard" }
      assert.is_nil(ssel.recompute_noop)
      assert.is_true(ssel.step_s > snone.step_s)
      assert.is_true(ssel.memory.activations < snone.memory.activations)
      -- the recomputed attention core: 4 heads x 4 * 64 * 128^2 FLOP per layer, 2 layers, 64 sequences
      assert.equal(64 * 2 * 4 * 4 * 64 * 128 * 128, ssel.hardware_flops - snone.hardware_flops)
    end)

    it("prices the data-parallel all-reduce with the alpha-beta ring over NVLink", function()
      -- ring all-reduce of 1 GB over 8 ranks at 450 GB/s, 5 us a step: 14 * 5 us + 2 * 7/8 * 1e9 / 450e9
      local r = tw.core.collective { kind = "allreduce_ring", bytes = 1e9, group = 8, link_bw = 450e9, latency_s = 5e-6 }
      assert.near(14 * 5e-6 + 1.75e9 / 450e9, r.time_s, 1e-12)
      local cl = tw.cluster.resolve("dgx_h100")
      assert.equal(450e9, cl.intra.bw)
      assert.equal("intra", select(2, tw.cluster.link(cl, 8, 1)))
      assert.equal("inter", select(2, tw.cluster.link(cl, 2, 8)))
    end)

    it("trains PyTorch engines' flash attention on FlashAttention-2 (train_flash_kernel)", function()
      local engines = require "tilewave.cost.engines"
      local eager = engines.resolve("eager")
      assert.equal("fa2", engines.for_training(eager).flash_kernel)
      assert.is_nil(eager.flash_kernel) -- inference keeps cuDNN's kernel (the default)
      local fused = engines.resolve("fused")
      assert.equal(fused, engines.for_training(fused)) -- Megatron / TE class: no change
      -- the same step with cuDNN's kernel under autograd is faster: its backward runs at
      -- attention_bwd_frac 0.50 of the peak against FlashAttention-2's 0.28 (hw/arch/hopper.lua)
      local opts = { model = "llama-2-7b", cluster = "dgx_h100", nodes = 1, global_batch = 8, micro_batch = 1,
                     s = 4096, t = 8, p = 1, attention = "flash", engine = "eager" }
      local fa2 = tw.training.step(opts).step_s
      opts.engine = { base = "eager", train_flash_kernel = "cudnn" }
      local cudnn = tw.training.step(opts).step_s
      assert.is_true(fa2 > cudnn)
      assert.has_error(function() engines.resolve({ base = "eager", train_flash_kernel = "fa3" }, "e") end,
        "e.train_flash_kernel: expected one of cudnn, fa2, got string 'fa3'")
    end)

    it("prices collectives at the bus bandwidth NCCL reaches (bus_frac)", function()
      -- A100: nccl-tests all-reduce about 235 of 300 GB/s -> 0.78 * 300e9 = 234e9 byte/s; H100 0.84 * 450e9
      local a100, h100 = tw.cluster.resolve("dgx_a100"), tw.cluster.resolve("dgx_h100")
      assert.equal(234e9, tw.cluster.collective_bw(a100.intra))
      assert.near(378e9, tw.cluster.collective_bw(h100.intra), 1e-3)
      assert.equal(25e9, tw.cluster.collective_bw(a100.inter)) -- no figure for the network: its bw
      -- a tensor-parallel step inside one node: the same step at the full 300 GB/s exposes less
      local full = {}
      for k, v in pairs(a100) do full[k] = v end
      full.intra = { bw = a100.intra.bw, latency_s = a100.intra.latency_s }
      full.spec, full.id = nil, nil
      local opts = { model = "llama-2-7b", nodes = 1, global_batch = 8, micro_batch = 1, s = 2048, t = 8, p = 1 }
      opts.cluster = "dgx_a100"
      local at = tw.training.step(opts).breakdown.comm_exposed_s
      opts.cluster = full
      local ideal = tw.training.step(opts).breakdown.comm_exposed_s
      assert.is_true(at > ideal * 1.2 and at < ideal / 0.78 + 1e-12)
      local ok, err = pcall(tw.cluster.resolve, { name = "x", gpu = "h100_sxm5", gpus_per_node = 8,
        intra = { bw = 450e9, latency_s = 5e-6, bus_frac = 1.5 }, inter = { bw = 50e9, latency_s = 0 },
        sources = { gpu = "a", gpus_per_node = "b", intra = "c", inter = "d" } }, "my.lua")
      assert.is_false(ok)
      assert.equal("my.lua: cluster.intra.bus_frac: expected a fraction in (0, 1], got 1.5", err)
    end)

    it("rejects bad inputs naming the field", function()
      assert.equal("training.t: expected positive integer, got 0", err_of(step, { t = 0 }))
      assert.equal("training.p: expected at most num_hidden_layers 2, got 4", err_of(step, { p = 4 }))
      assert.equal("training.global_batch: expected a multiple of d*micro_batch = 16, got 100",
        err_of(step, { global_batch = 100, micro_batch = 2 }))
      assert.equal("training.t: expected a divisor of num_attention_heads 4, got 8", err_of(step, { t = 8 }))
      assert.equal("training.d: expected nodes*gpus_per_node/(t*p) = 8, got 4", err_of(step, { d = 4 }))
      -- before: a string d, and a micro-batch whose d*micro_batch wrapped past 2^63, raised internal errors
      assert.equal("training.d: expected positive integer, got string 'x'", err_of(step, { d = "x" }))
      assert.equal("training.micro_batch: expected at most global_batch 64, got 4611686018427387904",
        err_of(step, { micro_batch = 1 << 62 }))
      assert.equal("training.micro_batch: expected at most global_batch 64, got 9.2233720368548e+18",
        err_of(step, { micro_batch = 2.0 ^ 63 }))
      assert.truthy(err_of(step, { checkpointing = "some" }):find("training.checkpointing: expected one of full, none, selective", 1, true))
      assert.truthy(err_of(step, { cluster = "dgx_z" }):find("training.cluster: unknown cluster 'dgx_z' (known: "
        .. "dgx_a100, dgx_b200, dgx_b300, dgx_h100, dgx_h200, gb200_nvl72, gb300_nvl72, hgx_h800, mi300x_8, mi325x_8, "
        .. "mi355x_8)", 1, true))
    end)
  end)

  describe("cluster", function()
    it("lists the cluster files and rejects a bad one naming the field", function()
      assert.same({ "dgx_a100", "dgx_b200", "dgx_b300", "dgx_h100", "dgx_h200", "gb200_nvl72", "gb300_nvl72", "hgx_h800",
        "mi300x_8", "mi325x_8", "mi355x_8" }, tw.cluster.list())
      local ok, err = pcall(tw.cluster.resolve, { name = "x", gpu = "h100_sxm5", gpus_per_node = 8,
        intra = { bw = 450e9, latency_s = 5e-6 }, inter = { bw = -1, latency_s = 0 },
        sources = { gpu = "a", gpus_per_node = "b", intra = "c", inter = "d" } }, "my.lua")
      assert.is_false(ok)
      assert.equal("my.lua: cluster.inter.bw: expected positive number, got -1", err)
      ok, err = pcall(tw.cluster.resolve, { name = "x", gpu = "h100_sxm5", gpus_per_node = 8, nic = 1 }, "my.lua")
      assert.equal("my.lua: cluster: unknown field 'nic'", err)
    end)
  end)

  describe("search()", function()
    it("ranks the valid splits and says why the others fail", function()
      local res = tw.training.search { model = SMALL, cluster = "dgx_h100", nodes = 1, global_batch = 64, s = 128,
                                       t = { 1, 2, 8 }, p = { 1, 4 }, micro_batch = { 1 }, checkpointing = { "none" },
                                       zero = { 0 } }
      assert.is_true(#res.ranked >= 2)
      for i = 2, #res.ranked do assert.is_true(res.ranked[i - 1].tokens_per_s >= res.ranked[i].tokens_per_s) end
      local reasons = {}
      for _, x in ipairs(res.rejected) do reasons[#reasons + 1] = x.reason end
      table.sort(reasons)
      assert.same({
        "p: expected at most num_hidden_layers 2, got 4",   -- t = 1, p = 4
        "p: expected at most num_hidden_layers 2, got 4",   -- t = 2, p = 4
        "t: expected a divisor of num_attention_heads 4, got 8", -- t = 8, p = 1
        "t: expected a divisor of num_attention_heads 4, got 8", -- t = 8, p = 4
      }, reasons)
    end)

    it("rejects what does not fit with the memory it needs", function()
      local res = tw.training.search { model = "llama-2-70b", cluster = "dgx_h100", nodes = 1, global_batch = 8,
                                       s = 2048, t = { 1 }, p = { 1 }, micro_batch = { 1 }, checkpointing = { "full" },
                                       zero = { 0 } }
      assert.equal(0, #res.ranked)
      -- against the 81,559 MiB = 85.52 GB an H100 reports to NVML (hw/h100_sxm5.lua usable_memory_bytes)
      assert.truthy(res.rejected[1].reason:find("^does not fit: needs %d+%.%d GB per GPU, has 85%.5 GB"))
    end)

    it("validates the shared options once and rejects every split with their error", function()
      -- 2 t x 2 p splits; t = 16 spans the NVLink domain first, the others meet the bad dropout
      local res = tw.training.search { model = SMALL, cluster = "dgx_h100", nodes = 1, global_batch = 64, s = 128,
                                       t = { 1, 16 }, p = { 1, 2 }, micro_batch = { 1 }, checkpointing = { "none" },
                                       zero = { 0 }, dropout = 1.5 }
      assert.equal(0, #res.ranked)
      local reasons = {}
      for _, x in ipairs(res.rejected) do reasons[#reasons + 1] = x.reason end
      assert.same({ "dropout: expected number in [0, 1), got 1.5", "dropout: expected number in [0, 1), got 1.5",
                    "t = 16 spans NVLink domains (8 GPUs per domain)",
                    "t = 16 spans NVLink domains (8 GPUs per domain)" }, reasons)
      -- a split searched is the step of the same options, to the bit
      local ok = tw.training.search { model = SMALL, cluster = "dgx_h100", nodes = 1, global_batch = 64, s = 128,
                                      t = { 2 }, p = { 2 }, micro_batch = { 2 }, checkpointing = { "selective" },
                                      zero = { 1 } }
      local step = tw.training.step { model = SMALL, cluster = "dgx_h100", nodes = 1, global_batch = 64, s = 128,
                                      t = 2, p = 2, micro_batch = 2, checkpointing = "selective", zero = 1 }
      assert.equal(step.step_s, ok.ranked[1].step_s)
      assert.equal(step.memory.total, ok.ranked[1].memory.total)
    end)
  end)
end)
