-- busted specs for tilewave.explore.decode_calibration: device-name mapping and prediction.
local dc = require "tilewave.explore.decode_calibration"

local HEADER = "source,hardware,mem_bw_GBps_spec,model,params_B,weight_dtype,batch,prompt_len,gen_len,metric,value,unit,notes"

local function fixture(lines)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(HEADER, "\r\n", table.concat(lines, "\r\n"), "\r\n")
  f:close()
  return path
end

describe("tilewave.explore.decode_calibration", function()
  it("maps Apple chip names of any bin to one hardware file per chip, and NVIDIA names by pattern", function()
    local path = fixture {
      "llama.cpp x,Apple M3 Pro (14-core GPU),150,LLaMA-2 7B,6.74,Q4_0,1,0,128,decode_tok_s,30,tok/s,n",
      "llama.cpp x,Apple M2 (10-core GPU),100,LLaMA-2 7B,6.74,Q8_0,1,0,128,decode_tok_s,12,tok/s,n",
      "llama.cpp x,Apple M4 Max (40-core GPU),546,LLaMA-2 7B,6.74,F16,1,0,128,decode_tok_s,30,tok/s,n",
      "llama.cpp x,NVIDIA H100 PCIe,2000,LLaMA-2 7B,6.74,Q4_0,1,0,128,decode_tok_s,150,tok/s,n",
    }
    local rows = assert(dc.load(path))
    os.remove(path)
    assert.same({ "apple_m3_pro", "apple_m2", "apple_m4_max", "h100_pcie" },
                { rows[1].hw, rows[2].hw, rows[3].hw, rows[4].hw })
    assert.equal("llama.cpp", rows[1].engine)
    assert.equal(64, rows[1].context)
  end)

  it("predicts M3 Pro Q4_0 decode below its bandwidth bound (150 GB/s / 3.56 GiB = 39.2 token/s)", function()
    local path = fixture { "llama.cpp x,Apple M3 Pro (18-core GPU),150,LLaMA-2 7B,6.74,Q4_0,1,0,128,decode_tok_s,30,tok/s,n" }
    local rows = assert(dc.load(path))
    os.remove(path)
    local results, summary = dc.evaluate(rows)
    assert.equal(1, summary.n)
    local bound = 150e9 / (3.56 * 2 ^ 30)
    assert.is_true(results[1].predicted < bound)
    assert.is_true(results[1].predicted > 0.6 * bound)
  end)
end)
