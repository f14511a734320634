-- training.best: search()'s first row and its counts, from pricing tokens/s alone.
local tw = require "tilewave"

describe("training.best", function()
  local cases = {
    { model = "llama-2-7b", cluster = "dgx_h100", nodes = 1, global_batch = 1024, s = 2048, micro_batch = { 1, 2, 4 } },
    { model = "llama-2-70b", cluster = "dgx_h100", nodes = 2, global_batch = 512, s = 4096 },
    { model = "pythia-1b", cluster = "dgx_a100", nodes = 1, global_batch = 256, s = 2048, dtype = "fp16",
      sequence_parallel = true, overlap = { dp = 0.5 } },
    { model = "mixtral-8x7b", cluster = "dgx_h100", nodes = 4, global_batch = 256, s = 4096, ep = 8 },
    -- invalid values in the lists are rejected as search() rejects them
    { model = "llama-3.2-1b", cluster = "dgx_h100", nodes = 1, global_batch = 64, s = 2048, t = { 1, 3, 16 },
      checkpointing = { "none", "some" }, zero = { 1, 5 } },
    -- nothing fits
    { model = "llama-3.1-405b", cluster = "dgx_h100", nodes = 1, global_batch = 64, s = 2048 },
  }
  for _, o in ipairs(cases) do
    it(o.model .. " on " .. o.nodes .. " nodes", function()
      local all = tw.training.search(o)
      local one = tw.training.best(o)
      assert.equal(#all.ranked, one.valid)
      assert.equal(#all.rejected, one.rejected)
      assert.same(all.ranked[1], one.best)
    end)
  end
end)
