-- GEMM kernel parameters of the NVIDIA Blackwell (GB100), sm_100 architecture, shared by its devices: Ampere's
-- (hw/arch/ampere.lua) but for what is set here. Pure data; fields documented in
-- lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Blackwell (GB100), sm_100",
  base = "ampere",
  gemm = {
    align_ref_rate = 0,
    compute_frac = 0.80,
    dtype_compute_frac = { fp4 = 0.40 },
    sources = {
      align_ref_rate = "0, alignment levels not scaled by the tensor rate (hw/arch/ampere.lua align_ref_rate): Blackwell's cuBLAS kernels load with TMA, like Hopper's: not the A100's load-issue mechanism",
      compute_frac = "fitted to the MAMF rows of gemm_calibration.csv (B200 bf16/fp8)",
      dtype_compute_frac = "fp4 (NVFP4 W4A4) fitted to the 40 dense FP4 rows (Llama 3.3 70B, 3.1 405B; B200 and GB200) of TensorRT-LLM's perf-overview v1.0 in ../shared/reference/serving/published_given_2.csv (scripts/serving_published.lua): MAPE 35.4% (+35.4% bias) at 0.80 -> 5.1% (-0.5%) at 0.40 (0.35: 9.6%, 0.45: 6.5%); checked on its 28 MoE FP4 rows (Llama 4 Scout, Maverick), not fitted: 45.7% -> 32.8%. No FP4 GEMM timing is in the calibration data, and no FP8 row on these devices in that source: what holds the FP4 path to the FP8 rate's 3.6 PFLOP/s (0.40 x 9000 = 0.80 x 4500 TFLOP/s) - the GEMMs, the activations' quantization or the rest of the step - is not separated here",
    },
  },
  notes = "compute_frac fitted to the MAMF rows of gemm_calibration.csv (B200 bf16/fp8); fp4's to TensorRT-LLM 1.0's FP4 serving rows.",
}
