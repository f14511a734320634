-- GEMM kernel parameters of the NVIDIA Hopper (GH100), sm_90 architecture, shared by its devices.
-- Pure data; fields documented in lua/tilewave/data/hw.lua and src/tw_gemm.h (tw_device).
return {
  name = "NVIDIA Hopper (GH100), sm_90",
  gemm = {
    compute_frac = 0.78,
    dtype_compute_frac = { bf16 = 0.78, fp16 = 0.75, tf32 = 0.73, fp32 = 0.79, fp8 = 0.70, int8 = 0.48 },
    mem_frac = 0.83,
    -- C (and split-K partials) are written at their own rate: HBM writes share the bus with reads
    write_frac = 0.735,
    write_exposed = 0,
    -- ... but GEMMs off 16-byte alignment run CUTLASS sm75/sm80 kernels, not persistent: a CTA's
    -- epilogue follows its own main loop
    write_exposed_non_tma = 0.8,
    -- C rows at an odd multiple of 16 bytes: every other row starts mid-way into a 32-byte sector
    write_sector_cost = 0.4,
    -- prediction intervals: 5th and 95th percentiles of measured / predicted (tilewave.cost.price.interval)
    intervals = {
      gemm = { 0.88, 1.35 }, attention = { 0.87, 1.34 }, forward = { 0.86, 1.17 }, decode = { 0.90, 1.15 },
      training = { 0.80, 1.35 },
      -- a GEMM of one dtype (tw.gemm): fitted on the given random half (intervals_gemm_dtype)
      gemm_bf16 = { 0.83, 1.57 }, gemm_fp16 = { 0.76, 1.45 }, gemm_tf32 = { 0.76, 1.42 }, gemm_fp32 = { 0.75, 1.54 },
      gemm_fp8 = { 0.86, 1.26 }, gemm_int8 = { 0.76, 1.64 },
    },
    -- fused (flash) attention MMA, forward and backward: fraction of the dense peak (tilewave.cost.price)
    attention_frac = 0.70,
    attention_bwd_frac = 0.50,
    attention_frac_fa2 = 0.32,
    attention_bwd_frac_fa2 = 0.28,
    -- memory-bound kernels by class (tilewave.cost.kernels): fraction of mem_bw
    kernel_bw_frac = { vector = 0.92, strided = 0.49, transpose = 0.28, softmax = 0.40 },
    -- ... and the non-vectorized classes' SM-side rate, byte per SM per clock (tilewave.cost.price)
    kernel_sm_bytes_per_cycle = { strided = 6.80, transpose = 3.89, softmax = 5.55 },
    call_overhead_s = 39 * us,
    tile_latency_s = 0.002 * us,
    kstep_latency_s = 0.049 * us,
    -- a split-K GEMM of the TMA class (16-byte aligned N and K) costs this much more than its reduce
    splitk_latency_s = 1.0 * us,
    -- bf16 with an odd N or K: small outputs run CUTLASS sm75 s1688gemm_bf16 (fp32 out) + splitKreduce
    dtype_unsplit_reduce = { bf16 = { m = 512, n = 1024 } },
    max_split_k = 16,
    -- cuBLAS's sm90 kernels include stream-K: a partial single wave costs its fraction of a wave
    stream_k = true,
    -- ... but not int8's CUTLASS sm80 IMMA kernels (dtype_max_split_k below)
    dtype_stream_k = { int8 = false },
    streamk_fixup_s = 0.78 * us,
    -- throughput factor when N and K share a power-of-two alignment of 1, 2, 4, 8, 16, 32, 64, 128 bytes.
    -- A cliff at 16 B: cuBLAS's sm90 kernels load tiles with TMA, whose global strides must be multiples
    -- of 16 bytes (CUDA Driver API, cuTensorMapEncodeTiled); below that a non-TMA kernel class runs at
    -- about a third of the rate (2-byte alignment: a fifth, scalar loads)
    align_eff = { 0.20, 0.20, 0.34, 0.33, 0.81, 0.88, 1.00, 1.00 },
    -- the misaligned (non-TMA, no 16-byte vector access) kernels also move DRAM bytes slower
    align_mem_eff = { 0.5, 0.5, 0.5, 0.5, 1.00, 1.00, 1.00, 1.00 },
    -- per dtype, a fixed cost per GEMM kernel beyond the engine's (dtype_latency_s below)
    dtype_latency_s = { tf32 = 1.0 * us, fp8 = 0.5 * us, int8 = 0.6 * us, fp32 = 0.6 * us },
    -- int8 (torch._int_mm): cuBLASLt runs CUTLASS sm80 IMMA kernels, one over all of K (dtype_max_split_k below)
    dtype_max_split_k = { int8 = 1 },
    -- fp32's SIMT sgemm kernels are not persistent and store C without TMA: each CTA's epilogue
    -- follows its own main loop (write_exposed 0 is the TMA kernels'; dtype_write_exposed below)
    dtype_write_exposed = { fp32 = 1 },
    dtype_align = {
      fp32 = { align_eff = { 1, 1, 1, 1, 1, 1, 1, 1 }, align_mem_eff = { 1, 1, 1, 1, 1, 1, 1, 1 } },
      -- int8 (torch._int_mm: N and K multiples of 8): 8-byte rows get cuBLASLt's non-TMA IMMA
      -- kernels (8-byte cp.async), not bf16's 2-byte scalar fallback
      int8 = { align_eff = { 0.20, 0.20, 0.34, 0.80, 0.81, 0.88, 1, 1 } },
      -- tf32's 4-byte elements: off 16 bytes its loads fall to 4- or 8-byte accesses, 2-4x the
      -- bytes per access of bf16's 2-byte case, so its memory penalty is milder (dtype_align)
      tf32 = { align_eff = { 0.20, 0.20, 0.34, 0.33, 0.81, 0.88, 1, 1 }, align_mem_eff = { 0.356, 0.356, 0.8, 0.8, 1, 1, 1, 1 } },
    },
    tiles = {
      { m = 256, n = 128, eff = 1.00, tma = true },
      { m = 128, n = 256, eff = 1.00, tma = true },
      { m = 128, n = 128, eff = 1.00 },
      -- the older CUTLASS kernels misaligned GEMMs get have small tiles, by dtype (misaligned_tiles below)
      { m = 64, n = 64, eff = 0.45, ctas_per_sm = 2, dtypes = { "bf16" } },
      { m = 32, n = 32, eff = 0.45, ctas_per_sm = 4, dtypes = { "fp16" } },
      -- fp32 without tensor cores: cuBLAS's SIMT sgemm kernels, no TMA, smaller tiles too (fp32_tiles)
      { m = 128, n = 64, eff = 0.90, dtypes = { "fp32" } },
      { m = 64, n = 128, eff = 0.90, dtypes = { "fp32" } },
      { m = 64, n = 64, eff = 0.80, ctas_per_sm = 2, dtypes = { "fp32" } },
      { m = 256, n = 64, eff = 0.92, tma = true },
      { m = 64, n = 256, eff = 0.92, tma = true },
      { m = 128, n = 64, eff = 0.92, tma = true },
      { m = 64, n = 128, eff = 0.92, tma = true },
      { m = 64, n = 64, eff = 0.75, ctas_per_sm = 2, tma = true },
    },
    sources = {
      intervals = "5th/95th percentiles of measured/predicted on ../shared/reference/calibration/h100/ and its second_machine/ (tilewave calibrate; explore/accuracy.ratio_quantile): gemm 4688 GEMMs 0.88/1.35; attention 24 cuDNN SDPA rows 0.87/1.34 (0.90/2.3 before the backward's kernels around the main one, 2026-11-26); forward 96 layer rows under their matching engine 0.86/1.17; decode 16 rows 0.92/1.08, rounded out to 0.90/1.15 for so few rows; training not measured: the forward interval widened to 0.80/1.35",
      attention_frac = "fitted to ../shared/reference/calibration/h100/attention.csv, cuDNN SDPA (the backend PyTorch picked in layers.csv), causal, bf16, forward: MAPE 8.1% over 12 rows (s 512-16384, head dim 64 and 128); scripts/fit_attention.lua (its optimum 0.72 gives the same MAPE)",
      attention_frac_fa2 = "engines with flash_kernel = 'fa2' (PyTorch's FlashAttention-2 backend, no wgmma/TMA): fitted by scripts/fit_attention.lua to the same file's flash rows, forward MAPE 9.6% over 12 rows; Shah et al. 2024 (FlashAttention-3, abstract) report FlashAttention-2 at 35% utilization of the H100",
      attention_bwd_frac_fa2 = "same fit, fwd+bwd rows: MAPE 8.4% over 12 rows (0.26 and 17.3% before the backward's kernels around the main one, tilewave.cost.kernels.flash_backward, and the harness's gradient accumulation were priced, 2026-11-26)",
      attention_bwd_frac = "fitted to the same file's fwd+bwd rows by scripts/fit_attention.lua: MAPE 10.0% over 12 rows (0.45 and 22.8% before the backward's kernels around the main one, tilewave.cost.kernels.flash_backward, and the harness's gradient accumulation were priced, 2026-11-26; out of sample the same change takes hw/measured/h100_probe_2026-11-22's fwd+bwd rows from 23.6 to 10.2% (cuDNN) and 21.9 to 12.6% (FA2))",
      kernel_bw_frac = "fitted to ../shared/reference/calibration/h100/kernels.csv: per class, the modeled bytes of every unfused kernel of the 20 profiled layers over their measured device time less 1 us each (scripts/fit_kernel_classes.lua); per-layer spread vector 0.81-1.03, strided 0.41-0.63, transpose 0.19-0.37, softmax 0.35-0.42",
      kernel_sm_bytes_per_cycle = "hw/measured/h200_layers_2026-11-22 and h100_layers_2026-11-22 (the same unfused layers profiled on an H200 and an H100, 132 SMs each): summed over 32 layers, H200/H100 kernel time is 0.74 for vectorized elementwise kernels (bandwidth ratio 0.70) but 0.94 for the strided elementwise_kernel<128,4>, 0.98 for softmax_warp_forward and 0.98-0.99 for non-vectorized cat and direct_copy: these classes are limited on the SM side. The cap is the H100 fit's rate (kernel_bw_frac x 3350 GB/s) over 132 SMs x 1830 MHz, rounded up so that the H100's own predictions do not move (strided 1641 GB/s = 6.80 B/SM/cycle, transpose 938 GB/s = 3.89, softmax 1340 GB/s = 5.55); on the H200 it binds. Not fitted to the H200 rows: they run 2-6% faster than the cap",
      tiles = "NVIDIA Matrix Multiplication Background guide, Typical Tile Dimensions in cuBLAS (256x128/128x256 most efficient ... 64x64 least); relative eff fitted to ../shared/reference/calibration/gemm_calibration.csv: the free fit puts every tile but 64x64 at 1.0 (MAPE 4.2%); 0.92 for the 64-wide tiles keeps the guide's ordering and gives MAPE 4.9%",
      align_eff = "NVIDIA matmul guide, Tensor Core Requirements; CUDA Driver API cuTensorMapEncodeTiled (globalStrides multiples of 16 B). Levels fitted by scripts/fit_hopper_gemm.lua to ../shared/reference/calibration/h100/gemm.csv (align and paper sets: 4095-4160 cubes, logit GEMM over vocabulary sizes, SwiGLU K sweep): align bf16 MAPE 10.7%, paper bf16 11.8%, fp16 8.7%",
      compute_frac = "sustained bf16 rate: fitted by scripts/fit_hopper_gemm.lua to h100/gemm.csv (all 2556 rows, each set weighted equally; GEMM MAPE 9.7% overall, peak bf16 3.1%); big squares sustain ~770 TFLOP/s of 989 (h100/README.md)",
      dtype_compute_frac = "per dtype, same fit: peak squares 4096-16384 of h100/gemm.csv (fp16 3.0%, tf32 9.4%, fp32 1.9% (no tensor cores), fp8 via torch._scaled_mm 2.3%, int8 via torch._int_mm 7.6%: 770-955 TOPS, not 2x bf16); fp32 refitted 0.78 -> 0.79 on the same two squares once its epilogue is exposed (dtype_write_exposed): peak fp32 MAPE 2.3 -> 1.0% (first H100), 1.2 -> 0.6% (second), 2026-11-26",
      mem_frac = "same fit (linears set, M <= 64: weight streaming; MAPE 6-9%)",
      write_exposed = "0: the C writes overlap the main loop as operand reads do. Fitting ../shared/reference/calibration/h100 (tilewave calibrate --base h100_sxm5) keeps 0 (write_frac 0.805); fitting hw/measured/h100_probe_2026-11-22 gives 0.437 (with write_frac 0.704 and bf16 compute_frac 0.845), its held-out random GEMMs 13.1% -> 12.1% bf16 and 10.4% -> 8.1% fp16 MAPE, but adopting only the write terms moves the shared peak rows by +1.5-3.5 points. Unresolved between the two H100s; kept at the shared data's value",
      write_sector_cost = "mechanism: DRAM is written in 32-byte sectors and HBM's ECC covers whole sectors, so a C row that starts or ends inside one is read, merged and written back; with a row pitch N*out_bytes that is an odd multiple of 16 bytes every other row does. Only the TMA class (N and K 16-byte aligned) is charged: below it align_mem_eff prices the kernel class. Evidence: the given random half (../shared/reference/calibration/random_half), write-bound rows (C over 85% of the bytes) of the 16-byte class with C rows at 16 mod 32 bytes ran 26% (both H100s, 6 rows) and 30% (H200) slower than predicted, whole-sector rows 2.5-8.6% (H100) and 11-14% (H200), e.g. 13816x1224x16 bf16 at 1.54 TB/s against 8872x2752x64 at 2.23 TB/s. The value is a three-point grid on the first H100's 612 rows (0.3, 0.4, 0.5: 13.03, 13.01, 13.03% MAPE, from 13.36% at 0); second H100 13.49 -> 13.16%, H200 12.00 -> 11.68% (not fitted to), with dtype_stream_k. No shared h100 set or probe folder moves (their shapes fill whole sectors). 2026-11-26",
      dtype_stream_k = "int8 off: torch._int_mm runs CUTLASS sm80 IMMA kernels on Hopper (cutlass_80_tensorop_i16832gemm_s8_*, hw/measured/h100_kernels_2026-11-22/kernels.csv), which are not persistent and have no stream-K scheduler. The given random half shows the partial wave paid: 256x2112x10752 (66 tiles of 128x64) takes 41.1 us (stream-K predicted 17.2 us, now 19.4 us), 1433x64x15360 33.8 us. Random int8 MAPE 16.7/17.0/15.2 -> 16.1/16.4/14.7% (first H100 / second / H200); the int8 peak squares (full waves) do not move. Not fitted: the mechanism's value. 2026-11-26",
      write_frac = "fitted by tilewave calibrate (explore/fit.lua) to hw/measured/h100_probe_2026-11-22 (scripts/probe on an H100 SXM5, 2026-11-22; 2145 GEMMs, random set held out): 0.735 of mem_bw for C against 0.83 for operands; bmm score shapes (large C) and the short-K align rows carry it. The probe's fill (write) kernel reaches 0.98 of mem_bw alone, so the GEMM's cost is the read/write mix",
      align_mem_eff = "one factor for the 1-8 byte classes. First fitted (0.356) by tilewave calibrate to hw/measured/h100_probe_2026-11-22 with every C write hidden: its align set's memory-bound rows (M=8192, N=4096+d, K=128 and K=128+d) run 2.3-3.8x slower off 16-byte alignment. Refitted to 0.5 with write_exposed_non_tma (the two are one fit: grid 0.45/0.5/0.55/0.6 x 0.5/0.7/0.8/1 on the first H100's given random half, ../shared/reference/calibration/random_half, 612 rows; see write_exposed_non_tma). 2026-11-26",
      write_exposed_non_tma = "mechanism: GEMMs below 16-byte alignment cannot use TMA and run cuBLAS's CUTLASS sm75/sm80 kernels (hw/measured/h100_misalign_2026-11-22/kernels.csv: cutlass_75 tensorop 64x64, cutlass_80 wmma), which are not persistent, so each CTA stores C after its own main loop (1 if nothing hides it; fp32's SIMT kernels, dtype_write_exposed). Fitted with align_mem_eff on the first H100's given random half (612 rows; MAPE at align_mem_eff 0.45/0.5/0.55: exposure 0.5 12.38/-/12.59, 0.7 12.15/-/12.27, 0.8 -/12.12/-, 1 -/12.24/12.18%; 0.8 and 0.5 chosen): all rows 13.01 -> 12.03% (first H100, with tf32's refit), 13.16 -> 12.10% (second H100), 11.68 -> 11.69% (H200; its own write_exposed 0.716 was already close); not fitted to: the misalign probes (hw/measured/h100_misalign_2026-11-22) bf16 15.9 -> 13.3%, fp16 15.8 -> 14.1% (H200 13.9 -> 14.0, 15.3 -> 15.4), the H100 probe's held-out random bf16 11.7 -> 10.2%, fp16 9.0 -> 8.6%. Costs: the shared h100 paper bf16 set 11.0 -> 11.7% and the probe's 10.4 -> 11.1% (many-wave misaligned squares and logit GEMMs that were already predicted slow), align tf32 18.8 -> 19.1%. 2026-11-26",
      call_overhead_s = "fitted to gemm_calibration.csv M=N<=512 rows: PyTorch torch.mm, wall clock with torch.cuda.synchronize() per call (timing T1)",
      kstep_latency_s = "refitted by tilewave calibrate to hw/measured/h100_probe_2026-11-22 once a CTA alone on its SM gets the whole SM (tw_gemm.c, resident CTAs): 0.087 -> 0.049 us per 64 bytes of K; the probe's splitk set (64x64 outputs, K 256-1024: 2.59, 2.97, 3.63 us on the H200) grows ~1.4 ns per K element in one kernel. Shared h100 sets under it: linears 8.8% -> 8.4%, others unchanged to 0.1 point",
      dtype_unsplit_reduce = "which kernels cuBLAS runs, from hw/measured/h100_misalign_2026-11-22/kernels.csv and h200_misalign_2026-11-22/kernels.csv (bf16, nn, N or K odd): every output up to M 444 x N 640 ran cutlass_75_tensorop_s1688gemm_bf16 (fp32 output) followed by cublasLt splitKreduce_kernel, whatever K (18 to 6,307); outputs from M 952 up (or N 2,752 up) ran cutlass_75_tensorop_bf16_s1688gemm_bf16 (bf16 output, one kernel) when K was short; the bounds M <= 512, N <= 1024 separate 55 of the 57 short-K shapes of both files (misses: 361x312x117 direct, 960x119x24 with the reduction). fp16 runs wmma f16 kernels with fp16 output there (no reduction). On the given random half (not used to set them): bf16 nn 14.6 -> 13.5% (first H100), 14.6 -> 13.6% (second), 11.9 -> 10.9% (H200, as its file inherits it); bf16 nt 12.8 -> 13.3% (348x320x17 runs the one kernel); all 612 rows 14.0 -> 13.6% (first H100), 12.5 -> 12.2% (H200); the misalign sets themselves bf16 16.3 -> 15.9% (H100), 14.1 -> 13.9% (H200). 2026-11-26",
      splitk_latency_s = "mechanism from hw/measured/h200_kernels_2026-11-22/kernels.csv (cuBLASLt's TMA-class split-K GEMMs are an nvjet ..._splitK_ kernel, 3.9-6.3 us at outputs up to 256x256 where a one-kernel GEMM of the same output takes 2.2-2.6 us, plus a splitKreduce_kernel of 1.4-2.0 us); the value hw/h200_sxm.lua fits (1.04 us) and the best of a grid (0-2 us, step 0.5) on this project's H100 split-K set (hw/measured/h100_probe_2026-11-22, 'splitk': 0 -> 10.1%, 0.5 -> 9.8, 1.0 -> 10.0, 1.5 -> 11.7, 2.0 -> 14.4% MAPE); 2026-11-26. On the given random half (../shared/reference/calibration/random_half), not fitted on: first H100 612 rows 14.4 -> 14.0% MAPE (bf16 nn 15.1 -> 14.6, fp16 14.8 -> 14.4, tf32 15.6 -> 14.9, fp8 9.7 -> 9.3; fp32 and int8 never split on TMA kernels), second H100 14.6 -> 14.2%; h100 linears 8.0 -> 8.1%",
      tile_latency_s = "same fit: the per-tile cost goes to ~0 once the per-kernel cost (compiled engine kernel_s 2.5 us) is fitted with it; the 128^3 GEMM measures 2.4 us per call",
      max_split_k = "16 is a modeling bound, counted in splits of a K of 2-byte elements: a dtype of e bytes per element gets 16*e/2 (tilewave.data.hw.gemm_device_fields; a main-loop stage holds 64 bytes of K, tw_gemm.c loop_time), so tf32 and fp32 split up to 32 and fp8 up to 8. On the given random half (../shared/reference/calibration/random_half), first H100 / second H100 / H200 MAPE: fp32 15.9/15.7/14.8 -> 13.2/13.2/11.9% (64x16x5144 +34 -> -3%, 64x56x6208 +42 -> 0%), tf32 14.9/15.1/15.1 -> 14.1/14.2/14.4%, fp8 9.3/9.5/10.5 -> 9.0/9.2/10.3%; the h100 sets and the probe folders unchanged. 2026-11-26",
      stream_k = "Osama et al. 2023 (Stream-K, PPoPP) and CUTLASS's sm90 stream-K tile scheduler. Evidence: with data-parallel tiles alone the model was 20-35% slow on GEMMs whose 128x128 tiles fill 60-75% of one wave (e.g. 256x5120x13824 bf16: 61.3 us measured on the H200 probe, 74.6 us predicted with 80 tiles on 132 SMs). Limits stated in tw_gemm.c: TMA tiles only, a tile shared by at most two CTAs, only where one wave is not filled",
      streamk_fixup_s = "fitted by tilewave calibrate to ../shared/reference/calibration/h100 with stream_k on: 0.78 us (the H200 probe fits 1.3 us, the H100 probe 4.4 us). With it, shared h100 sets: paper bf16 11.9 -> 11.0%, linears 8.4 -> 8.0%, second_machine linears 6.4 -> 5.8%; the H100 probe's held-out random GEMMs 13.1 -> 12.4% bf16, 10.4 -> 10.0% fp16 (with the tma tiles below)",
      dtype_align = "fp32 (allow_tf32 = False) runs on the FP32 pipes: SIMT sgemm kernels, neither tensor-core alignment rules nor TMA, so no alignment class loses throughput (its FMA pipe, not its loads, bounds it) and its loads keep their bandwidth. On the given random half (../shared/reference/calibration/random_half, 85 fp32 rows per machine, mostly off 16-byte alignment) the tensor-core classes gave fp32 MAPE 101% (H100) / 105% (H200), predicted 1.9x too slow; without them 21% / 21%",
      dtype_align_tf32 = "tf32's align_mem_eff for the 4- and 8-byte classes: 0.8 since write_exposed_non_tma (grid 0.6/0.7/0.8/0.85 on the first H100's random tf32 rows: 14.7/14.1/13.8/13.9%; second H100 13.9%, H200 14.3 -> 14.6%). Before it, 0.6 against 0.356: a three-point grid (0.45, 0.5, 0.6) on the given random half's tf32 rows of the first H100 (../shared/reference/calibration/random_half, 86 rows): tf32 MAPE 26.3% -> 20.3% there, 26.2% -> 20.0% on the second H100 and 20.4% -> 19.8% on the H200 (not fitted to). Lower align_eff levels for those classes (0.45-0.6) made it worse (21-25%)",
      intervals_gemm_dtype = "gemm_<dtype>: 5th and 95th percentiles of measured / predicted over the first H100's given random half (../shared/reference/calibration/random_half/h100_first_machine_random.csv, 28-318 rows per dtype). Out of sample by device (tilewave calibrate): coverage on the second H100 87-90% and on the H200 86-93% per dtype (int8 refitted after dtype_max_split_k: 0.77-2.88 -> 0.76-1.64) (the arch-wide gemm interval covered 57-90% of random shapes). Model shapes (h100/gemm.csv) keep the class-wide gemm interval when no dtype is given",
      dtype_align_int8 = "int8's 8-byte class at 0.80 of the rate against bf16's 0.33: torch._int_mm runs CUTLASS sm80 IMMA kernels (cutlass_80_tensorop_i16832gemm_s8_*, cp.async, no TMA; hw/measured/h100_kernels_2026-11-22/kernels.csv, even for aligned 4096-16384 cubes), so an 8-byte row loses only the wider vector, not a kernel class. A three-point grid (0.6, 0.7, 0.8, then 0.9) on the first H100's given random int8 rows (61, every one N and K multiples of 8 as torch._int_mm requires), with dtype_max_split_k: MAPE 20.8, 18.0, 16.7, 16.9% (bias +3.5, -0.9, -4.1, -6.6%); second H100 17.0% and H200 15.2% at 0.80 (not fitted to). Tried and rejected: the alignment class of nt layouts from K alone (both operands' strides are K; N only strides C): int8 23.6 -> 26.1%, bf16 nt 13.2 -> 22.3%, so cuBLASLt's choice depends on N too",
      dtype_max_split_k = "int8 at 1: the same CUTLASS sm80 IMMA kernels, one launch over all of K. The given random half (../shared/reference/calibration/random_half, first H100) shows it: 64x48x12160 takes 26.9 us (split-K predicted 7.1 us, one CTA over K 22.5 us), 44x24x5056 28.8 us, 256x448x12728 73.8 us; with splits int8 was predicted 9.7% fast (bias), without them +3.5% at the old 8-byte class. int8 random-half MAPE with both changes 23.6 -> 16.7% (first H100), 23.5 -> 17.0% (second), 22.8 -> 15.2% (H200); no other calibration set moves",      dtype_latency_s = "the per-call floor of each dtype's kernels beyond the engine's kernel_s: on the given random half (../shared/reference/calibration/random_half) the launch-bound GEMMs were predicted 4% (fp16) to 24% (tf32) fast (bf16 11%, fp8 16%, int8 16%, fp32 16%): a fixed prologue per kernel family (tf32 and fp32 operands at 4 bytes, fp8's scale loads, int8's int32 epilogue). Grid fit on the first H100's rows (tf32 0.8-1.2, fp8 0.4-0.6, int8/fp32 0.5-0.8 us): random-half MAPE tf32 20.3 -> 15.6%, fp8 14.4 -> 9.7%, int8 30.5 -> 28.9%, fp32 16.9 -> 15.9%; second H100 and H200 (not fitted to) alike. bf16 and fp16 keep 0: 0.3 / 0.1 us took random bf16 15.1 -> 14.2% but the probes' split-K set 11.6 -> 14.0% (H100) and the shared paper bf16 11.0 -> 11.5%",
      dtype_write_exposed = "fp32 at 1: cuBLAS runs fp32 (allow_tf32 = False) on its SIMT sgemm kernels, which are not persistent and store C from registers, without TMA, so a CTA's epilogue follows its own main loop and nothing of it hides behind the next tile (write_exposed 0 is the persistent TMA kernels'). Not fitted: the mechanism's value; with it fp32's compute_frac was refitted 0.78 -> 0.79 on its peak squares (dtype_compute_frac). On the given random half (../shared/reference/calibration/random_half) fp32 MAPE 13.2/13.2/11.9% -> 12.2/11.9/11.9% (first H100 / second H100 / H200), 5-fold interval coverage 85.7%; 4608x10424x64 (K = 64: the epilogue is most of each tile) -35 -> +5%. int8's sm80 IMMA kernels are not persistent either, but at 1 their peak squares went 7.5 -> 7.7% and 6.6 -> 8.5% (compute_frac was fitted without it) for random int8 16.7 -> 16.6%, so int8 keeps 0. 2026-11-26",
      fp32_tiles = "the SIMT sgemm family's smaller tiles (CUTLASS's SIMT GEMMs, 128x64, 64x128 and 64x64 thread-block tiles); eff by a three-point grid (1.0/1.0/1.0, 0.9/0.9/0.8, 1.0/1.0/0.8) on the given random half's fp32 rows of the first H100: fp32 MAPE 21.4% -> 16.9% (second H100 17.3%)",
      misaligned_tiles = "the non-TMA 64x64 (bf16) and 32x32 (fp16) tiles: hw/measured/h100_misalign_2026-11-22/kernels.csv (scripts/probe's misalign set: 160 shapes off 16-byte alignment in N or K, M, N, K 16-8192, each in bf16 and fp16) shows cuBLAS running cutlass_75 tensorop 64x64 kernels for bf16 (70 of 160, most with a split-K reduction) and cutlass_75 wmma 32x32 kernels for fp16 (76 of 160). eff fitted by grid search on that set (H100, hopper.lua): misalign bf16 20.7 -> 16.3%, fp16 31.2 -> 15.8% MAPE; flat from 0.45 to 0.7 (bf16) and 0.3 to 0.6 (fp16). The H100 probe's held-out random fp16 10.5 -> 9.8%, bf16 12.3 -> 12.4%",
      tma = "tiles marked tma = true exist only in cuBLAS's TMA (nvjet_sm90_*) kernels, which need 16-byte global strides (CUDA Driver API, cuTensorMapEncodeTiled); a GEMM off 16-byte alignment runs the older non-TMA class, modeled with the 128x128 tile alone. Evidence: the probe's random shapes off 16-byte alignment were predicted 11% fast on average (bias) with 64-wide tiles, e.g. 896x64x532 bf16: 10.95 us measured, 5.4 us predicted; with 128x128 alone the bias is +2 to +6%. This choice was made looking at the random set, so that set no longer measures it blind",
    },
  },
  notes = "Fitted to the H100 SXM5 measurements of ../shared/reference/calibration/h100 (tilewave calibrate reports the error per set). Not modeled: cuBLAS's heuristic tile choice (the model takes the fastest tile; e.g. tf32 runs 256-wide tiles and pays waves the model avoids), power/clock throttling of long compute-bound runs (the README's +-10% machine spread), M misalignment of tf32.",
}
