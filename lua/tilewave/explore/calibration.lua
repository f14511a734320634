--- tilewave.explore.calibration: the GEMM calibration set and the model's error on it.
--
-- Reads `calibration/gemm_calibration.csv` of the shared reference
-- (columns gpu, dtype, m, n, k, batch, tflops_measured, timing, what, source),
-- maps each GPU name to a device id, and compares predictions with
-- measurements. Timing "T1" (PyTorch wall clock with a synchronize per call)
-- is compared with the "isolated" timing of tw.gemm; the MAMF rows (best-shape
-- brute-force search, kernel time) with the kernel's time less its per-kernel cost.
-- Rows for devices without a spec in hw/ are reported as skipped.
local tw_gemm = require "tilewave.cost.gemm"
local csv = require "tilewave.util.csv"

local M = {}

local format, tonumber, ipairs = string.format, tonumber, ipairs

--- GPU names of the CSV -> device ids. The co-design paper's "A100" is taken
-- to be the A100 SXM4 40GB (its DRAM-bound points imply ~1.3 TB/s, 85% of
-- 1555 GB/s but only 65% of the 80GB part's 2039 GB/s); see README.
M.devices = {
  ["A100"] = "a100_sxm4_40gb",
  ["A100 (inferred)"] = "a100_sxm4_40gb",
  ["A100 SXM"] = "a100_sxm4_80gb",
  ["A100 PCIe"] = "a100_pcie_80gb",
  ["H100 SXM"] = "h100_sxm5",
  ["H200 SXM"] = "h200_sxm",
  ["B200 SXM"] = "b200",
  ["B300 SXM"] = "b300",
  ["GB200 SXM"] = "gb200",
}

M.dtypes = { fp16 = "fp16", bf16 = "bf16", fp8_e4m3fn = "fp8" }

--- Default location of the CSV: ../shared/reference/calibration/ beside the repository.
function M.default_path()
  return csv.shared_dir() .. "/calibration/gemm_calibration.csv"
end

--- Rows of a CSV file as tables keyed by the header's names (tilewave.util.csv).
M.read_csv = csv.read

--- Rows of the GEMM CSV at `path` as tables; `nil, msg` if it cannot be read.
function M.load(path)
  local rows, err = M.read_csv(path or M.default_path())
  if not rows then return nil, err end
  for _, r in ipairs(rows) do
    r.m, r.n, r.k, r.batch = tonumber(r.m), tonumber(r.n), tonumber(r.k), tonumber(r.batch)
    r.tflops_measured = tonumber(r.tflops_measured)
    r.hw, r.dt = M.devices[r.gpu], M.dtypes[r.dtype]
  end
  return rows
end

--- Summary of signed relative errors `errs`: `{ n, skipped, mape, max_abs }`.
-- (Shared with tilewave.decode_calibration.)
function M.summary(errs, skipped)
  local sum, maxe = 0, 0
  for _, e in ipairs(errs) do
    sum = sum + math.abs(e)
    if math.abs(e) > maxe then maxe = math.abs(e) end
  end
  return { n = #errs, skipped = skipped, mape = #errs > 0 and sum / #errs or 0, max_abs = maxe }
end

--- Predict every row that has a device; returns `results, summary` with
-- results[i] = { row, predicted_tflops, error (signed relative) } and
-- summary = { n, skipped, mape, max_abs }.
function M.evaluate(rows, hw_override)
  local results, errs, skipped = {}, {}, 0
  for _, r in ipairs(rows) do
    local hw = hw_override and hw_override(r) or r.hw
    if hw and r.dt then
      -- T1: one synchronized torch.mm call timed by wall clock; the rest: kernel time
      local timing = r.timing == "T1" and "isolated" or "kernel"
      local p = tw_gemm.gemm { m = r.m, n = r.n, k = r.k, batch = r.batch, dtype = r.dt, hw = hw, timing = timing }
      local t = p.time_s
      if timing == "kernel" then t = t - p.overhead_s end
      local pred = p.flops / t / 1e12
      local e = (pred - r.tflops_measured) / r.tflops_measured
      results[#results + 1] = { row = r, predicted_tflops = pred, error = e, estimate = p }
      errs[#errs + 1] = e
    else
      skipped = skipped + 1
    end
  end
  return results, M.summary(errs, skipped)
end

return M
