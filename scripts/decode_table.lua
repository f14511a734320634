-- Decode tokens/s and TPOT for Llama-2 7B/13B/70B and Llama-3 8B/70B at bf16, int8 and int4
-- (group 128), batch 1 to 256, on A100 80GB, H100 SXM5, H200, L4 and RTX 4090, with memory fit
-- (one GPU, the compiled engine: fused kernels replayed as CUDA graphs).
-- Usage: build/tilewave run scripts/decode_table.lua [--context N] [--engine NAME] [--format text|csv]
local argparse = require "argparse"
local tw = require "tilewave"

local p = argparse("decode_table.lua", "Decode throughput table.")
p:option("--context", "Tokens in each sequence's KV cache."):default("2048"):convert(math.tointeger)
p:option("--engine", "Engine: compiled, ideal, eager, llama.cpp."):default("compiled")
p:option("--format", "Output format."):choices({ "text", "csv" }):default("text")
local args = p:parse(arg)
local format = string.format

local MODELS = { "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b" }
local DEVICES = { "a100_sxm4_80gb", "h100_sxm5", "h200_sxm", "l4", "rtx4090" }
local FORMATS = { { "bf16" }, { "int8" }, { "int4", 128 } }
local BATCHES = { 1, 8, 32, 128, 256 }

local header = { "hw", "model", "weights", "weights GB", "TPOT b=1", "tok/s b=1" }
for _, b in ipairs(BATCHES) do header[#header + 1] = format("agg tok/s b=%d", b) end
header[#header + 1] = "max batch"

local rows = {}
for _, id in ipairs(DEVICES) do
  for _, m in ipairs(MODELS) do
    for _, f in ipairs(FORMATS) do
      local mem1 = tw.inference.memory { model = m, hw = id, context = args.context, batch = 1, weight_dtype = f[1],
                                         group = f[2] }
      local row = { id, m, f[1] .. (f[2] and ("/g" .. f[2]) or ""), format("%.1f", mem1.weight_bytes / 1e9) }
      if not mem1.fits then
        row[#row + 1] = "does not fit"
        for _ = 1, #BATCHES + 2 do row[#row + 1] = "-" end
        row[#row] = "0"
      else
        local d1 = tw.inference.decode { model = m, hw = id, context = args.context, batch = 1, weight_dtype = f[1],
                                         group = f[2], engine = args.engine }
        row[#row + 1] = format("%.2f ms", d1.tpot_s * 1e3)
        row[#row + 1] = format("%.1f", d1.tokens_per_s)
        for _, b in ipairs(BATCHES) do
          if b <= mem1.max_batch then
            local d = tw.inference.decode { model = m, hw = id, context = args.context, batch = b, weight_dtype = f[1],
                                            group = f[2], engine = args.engine }
            row[#row + 1] = format("%.0f%s", d.aggregate_tokens_per_s, d.bound == "compute" and "*" or "")
          else
            row[#row + 1] = "OOM"
          end
        end
        row[#row + 1] = tostring(mem1.max_batch)
      end
      rows[#rows + 1] = row
    end
  end
end

if args.format == "csv" then
  print(table.concat(header, ","))
  for _, r in ipairs(rows) do print(table.concat(r, ",")) end
else
  print(format("Decode on one GPU, context %d tokens, %s engine, bf16 KV cache, %s workspace allowance",
    args.context, args.engine, tw.report.si(tw.inference.WORKSPACE_BYTES, "B")))
  print(tw.report.table(header, rows))
  print("\n* compute-bound step; OOM: weights + KV cache + workspace exceed the device's memory at that batch.")
  print("Calibration: gpt-fast rows of decode_calibration.csv (scripts/calibrate.lua --decode).")
end
