-- A measurement folder's CSV files checked before they are priced (tilewave.explore.measured_csv):
-- a bad value names the file, row and column; before, tilewave calibrate DIR raised internal
-- errors on a short row, printed inf% on a zero time, and named no file for an unknown model.
local accuracy = require "tilewave.explore.accuracy"
local fit_folder = require "tilewave.explore.fit_folder"

local HEADER = "gpu,set,label,m,n,k,batch,dtype,layout,cold,nrot,iters,time_s,time_min_s,tflops"
local GOOD = "NVIDIA H100 80GB HBM3,peak,square4096,4096,4096,4096,1,bf16,nn,1,2,18,0.000177487996,0.000177,774.4"

local function folder(files)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir))
  for name, text in pairs(files) do
    local f = assert(io.open(dir .. "/" .. name, "w"))
    f:write(text)
    f:close()
  end
  return dir
end

local function err_of(dir)
  local ok, e = pcall(accuracy.measured, dir, "h100_sxm5", "x")
  os.execute("rm -rf " .. dir)
  assert.is_false(ok)
  return e
end

describe("a measurement folder's rows", function()
  it("prices a well-formed row as tw.gemm prices its shape, against the time the row measured", function()
    local dir = folder { ["gemm.csv"] = HEADER .. "\n" .. GOOD .. "\n" }
    local rows = accuracy.measured(dir, "h100_sxm5", "x")
    os.execute("rm -rf " .. dir)
    assert.equal(1, #rows)
    assert.equal("x: gemm peak bf16", rows[1].set)
    assert.near(0.000177487996, rows[1].measured, 1e-15)
    -- the row's own shape through the GEMM model, not a figure copied from its output
    local g = require("tilewave").gemm { m = 4096, n = 4096, k = 4096, batch = 1, dtype = "bf16", hw = "h100_sxm5" }
    assert.equal(g.time_s, rows[1].predicted)
  end)

  it("reads m, n and k from their own columns: a 256 x 4096 x 16384 row is priced as that shape", function()
    -- a skinny GEMM: 256 rows, 4096 columns, a K = 16384 reduction
    local row = GOOD:gsub(",4096,4096,4096,", ",256,4096,16384,")
    local dir = folder { ["gemm.csv"] = HEADER .. "\n" .. row .. "\n" }
    local rows = accuracy.measured(dir, "h100_sxm5", "x")
    os.execute("rm -rf " .. dir)
    local tw = require "tilewave"
    local function t(m, n, k) return tw.gemm { m = m, n = n, k = k, batch = 1, dtype = "bf16", hw = "h100_sxm5" }.time_s end
    assert.equal(t(256, 4096, 16384), rows[1].predicted)
    -- K swapped with M or N moves the time (M and N swapped need not: the tiles come in both
    -- orientations, 128 x 256 and 256 x 128)
    for _, other in ipairs { t(256, 16384, 4096), t(16384, 4096, 256) } do
      assert.are_not.equal(other, rows[1].predicted)
    end
  end)

  it("names the file, the row and the column of a bad value", function()
    local dir = folder { ["gemm.csv"] = HEADER .. "\n" .. GOOD .. "\n" .. GOOD:gsub(",4096,4096,4096,", ",abc,4096,4096,") .. "\n" }
    assert.equal(string.format("calibrate: %s/gemm.csv row 3: m: expected a positive integer up to 2^31-1, got 'abc'", dir),
      err_of(dir))
    -- a zero time (was an inf% error), hex, a time past 1e6 s, a count past 2^31 - 1
    for _, case in ipairs {
      { GOOD:gsub("0%.000177487996", "0"), "time_s: expected a number of seconds from 1e-9 to 1e6, got '0'" },
      { GOOD:gsub(",1,bf16,", ",0x10,bf16,"), "batch: expected a positive integer up to 2^31-1, got '0x10'" },
      { GOOD:gsub("0%.000177487996", "1e7"), "time_s: expected a number of seconds from 1e-9 to 1e6, got '1e7'" },
      { GOOD:gsub(",4096,4096,4096,", ",4096,4096,2147483648,"), "k: expected a positive integer up to 2^31-1, got '2147483648'" },
      { "NVIDIA H100 80GB HBM3,peak,square", "batch: expected a value, got nothing (a short row?)" },
    } do
      local d = folder { ["gemm.csv"] = HEADER .. "\n" .. case[1] .. "\n" }
      assert.equal(string.format("calibrate: %s/gemm.csv row 2: %s", d, case[2]), err_of(d))
    end
  end)

  it("prefixes the model's own error for a row with its file and row", function()
    local dir = folder { ["decode.csv"] = "gpu,id,batch,context,timing,step_s\nH100,nosuch-7b,1,512,graph,0.008\n" }
    local e = err_of(dir)
    assert.truthy(e:find(string.format("^calibrate: %s/decode%%.csv row 2: decode%%.model: unknown model 'nosuch%%-7b'", dir)), e)
    dir = folder { ["layers.csv"] = "gpu,id,b,s,attention,timing,time_s\nH100,nosuch,4,2048,flash,graph,0.002\n" }
    assert.equal(string.format("calibrate: %s/layers.csv row 2: id: expected a preset id (tilewave models), got 'nosuch'", dir),
      err_of(dir))
    dir = folder { ["layers.csv"] = "gpu,id,b,s,attention,timing,time_s\nH100,pythia-70m,4,2048,flash,warp,0.002\n" }
    assert.equal(string.format("calibrate: %s/layers.csv row 2: timing: expected one of eager, graph, got 'warp'", dir),
      err_of(dir))
  end)

  it("refuses a file it cannot parse, naming it", function()
    local dir = folder { ["gemm.csv"] = HEADER .. '\n"unterminated,1\n' }
    assert.equal(string.format('calibrate: %s/gemm.csv: unterminated quote in: "unterminated,1', dir), err_of(dir))
  end)

  it("checks a fit's whole folder before fitting", function()
    local dir = folder { ["gemm.csv"] = HEADER .. "\n" .. GOOD .. "\n",
                         ["attention.csv"] = "gpu,impl,b,heads,s,hd,causal,pass,time_s\nH100,flash,1,1,512,64,1,backward,0.001\n" }
    local ok, e = pcall(fit_folder.read, dir)
    os.execute("rm -rf " .. dir)
    assert.is_false(ok)
    assert.equal(string.format("calibrate: %s/attention.csv row 2: pass: expected one of fwd, fwd+bwd, got 'backward'", dir), e)
  end)
end)
