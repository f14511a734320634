--- tilewave.data.ceilings: the best sustained fraction of a device's peak that any
-- measured kernel of a class has reached. The pricing layer (tilewave.cost.price) never
-- prices a kernel faster than these allow: an op takes at least
--   max(executed FLOP / (dtype peak x matmul or attention ceiling), DRAM bytes / (mem_bw x memory
--     ceiling))
-- and a collective at least the bytes each rank must send over its link (link ceiling 1).
-- Each figure is the largest measured / datasheet ratio in the sets named in `sources`,
-- rounded up to the next hundredth; they bound the model, they are not fitted to it.
local M = {}

--- Fractions of the dense peak of the op's dtype (matmul, attention) or of mem_bw (memory)
-- or of the link's one-direction bandwidth (link).
M.matmul = 0.87
M.attention = 0.75
M.memory = 0.99
M.link = 1.0

M.sources = {
  matmul = "../shared/reference/calibration/gemm_calibration.csv: A100 SXM bf16 1024x10240x5120 at 271.2 "
    .. "TFLOP/s of 312 (0.869), the highest fraction of any row of any device there; the H100/H200 sets "
    .. "(calibration/h100, random_half, hw/measured) reach at most 835.1 of 989.4 bf16 (0.844, "
    .. "hw/measured/h200_layout_2026-11-22), tf32 416.8 of 494.7 (0.843), fp8 1485.5 of 1978.9 (0.751)",
  attention = "FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608, abstract): 740 TFLOP/s fp16 forward "
    .. "on an H100 SXM5, 75% of its 989; FlashAttention-2 (Dao 2023, arXiv 2307.08691, abstract): 50-73% "
    .. "on an A100. The calibration set's best (calibration/h100/attention.csv, cuDNN causal forward) is "
    .. "561.7 TFLOP/s (0.568)",
  memory = "hw/measured/h100_probe_2026-11-22/bw.csv: fill (write) 3289.7 GB/s of 3350 (0.982), the "
    .. "highest of every bw.csv in calibration/h100 and hw/measured (H200 read: 4312.1 of 4800, 0.898)",
  link = "physical: no byte crosses a link faster than its bandwidth (src/tilewave.h, tw_collective's beta)",
}

return M
