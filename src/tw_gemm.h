/*
 * tw_gemm.h - the GEMM part of libtilewave's public API: the device and tile
 * descriptions and the GEMM estimate. Include tilewave.h, not this file; units and
 * sources as there (s, byte, FLOP, FLOP/s).
 */
#ifndef TW_GEMM_H
#define TW_GEMM_H

#ifndef TILEWAVE_H
#error "include tilewave.h, which includes tw_gemm.h"
#endif

/* ------------------------------------------------------------------------ */
/* GEMM / batched GEMM                                                       */
/* ------------------------------------------------------------------------ */

#define TW_MAX_TILES 16
/* largest split-K factor a device may allow (tw_device.max_split_k) */
#define TW_MAX_SPLIT_K 64
/* Alignment classes: 1, 2, 4, 8, 16, 32, 64, 128 bytes (index = log2 bytes). */
#define TW_ALIGN_CLASSES 8

/* One candidate CTA (thread-block) output tile of the GEMM library. */
typedef struct {
    int64_t m;       /* tile rows (of C), elements; 1..4096 */
    int64_t n;       /* tile columns (of C), elements; 1..4096 */
    double eff;      /* steady-state fraction of the SM's achievable rate this
                        tile reaches when the SM holds ctas_per_sm of them; (0, 1] */
    int ctas_per_sm; /* CTAs of this tile resident per SM; 1..32 */
    int tma;         /* 1: only the library's TMA kernels have this tile, so a GEMM whose N or K
                        is not 16-byte aligned cannot use it (TMA needs 16-byte global strides);
                        0: every kernel class has it */
} tw_tile;

/*
 * A device as the GEMM model sees it, for one dtype. Fill it from a hardware
 * spec (the Lua layer does this from hw/<id>.lua) and check it once with
 * tw_device_validate() before a batch of estimates.
 */
typedef struct {
    int sm_count;           /* streaming multiprocessors (CUs on AMD); 1..100000 */
    double peak_flops;      /* dense peak for the dtype, FLOP/s; > 0 */
    double compute_frac;    /* achievable fraction of peak_flops by the best
                               tile in steady state; (0, 1] */
    double mem_bw;          /* DRAM bandwidth, byte/s; > 0 */
    double mem_frac;        /* achievable fraction of mem_bw reading a GEMM's operands; (0, 1] */
    double write_frac;      /* achievable fraction of mem_bw writing C (and split-K partials);
                               (0, 1]. HBM writes are slower than reads (bus turnaround):
                               reads and writes share the bus, so their times add */
    double write_exposed;   /* fraction of the C-write time that adds to the main loop instead
                               of hiding under it: a tile writes C in its epilogue, after its
                               main loop; [0, 1] (0: writes overlap like operand reads) */
    double fill_stages;     /* main-loop stages (64 bytes of K each) a kernel loads before its
                               first MMA, which nothing hides: the pipeline's fill; the first
                               min(fill_stages, stages of K) / stages of K of a wave's operand
                               reads add to its time, once per kernel for a persistent TMA-class
                               kernel, on every wave below 16-byte alignment (its CUTLASS CTAs
                               each fill their own pipeline); [0, 64] (0: none) */
    double drain_exposed;   /* fraction of the last wave's C write, of the part write_exposed
                               leaves hidden, that adds to the time instead: the last wave's
                               epilogues follow their main loops with no later tile for them to
                               overlap (a persistent stream-K grid is all last wave); [0, 1]
                               (0: hidden like the other waves') */
    double write_exposed_non_tma; /* write_exposed of the kernel class GEMMs below 16-byte
                               alignment get (N or K): the library's older kernels, which may not
                               be persistent where its TMA kernels are; [0, 1]. A zeroed struct
                               hides those writes too: set it to write_exposed to keep one value */
    double write_sector_cost; /* extra C-write time, as a fraction of it, when the kernel class
                               is TMA (N and K 16-byte aligned) but C's row pitch N*out_bytes
                               is an odd multiple of 16 bytes: every other row then starts
                               mid-way into a 32-byte DRAM sector, and those rows' partial
                               sectors are read, merged and written back (ECC'd HBM writes
                               whole sectors); [0, 16] (0: no cost) */
    double l2_bytes;        /* L2 (last-level) cache size, byte; >= 0 */
    double call_overhead_s; /* fixed cost per call (launch + host sync), s; >= 0 */
    double tma_overhead_s;  /* extra fixed cost per call of the TMA kernel class (N and K 16-byte
                               aligned), s; >= 0 (0: none). E.g. the workspace memset cuBLAS
                               launches before its sm90 tf32 kernels */
    double reduce_overhead_s; /* fixed cost of the split-K reduction, a second kernel
                                 (its gap and fill in the stream), s; >= 0 */
    double splitk_tma_latency_s; /* added to that cost when the split-K GEMM runs the TMA kernel
                                 class (N and K 16-byte aligned): cuBLAS's split-K TMA kernel
                                 takes this much longer than one kernel over the same K, while
                                 its non-TMA (CUTLASS) split-K kernels do not (tilewave.data.hw
                                 fills it from the architecture's splitk_latency_s), s; >= 0 */
    double unsplit_reduce_m; /* a GEMM whose N or K is below 4-byte alignment (odd element
                                 counts of a 2-byte dtype) with M <= unsplit_reduce_m and N <=
                                 unsplit_reduce_n runs the split-K form even unsplit: fp32
                                 partials, then the reduction kernel that sums and converts
                                 them (cuBLAS on Hopper runs bf16 there as CUTLASS sm75
                                 s1688gemm_bf16 kernels with fp32 output and splitKreduce_kernel,
                                 hw/measured/h100_misalign_2026-11-22/kernels.csv); 0: never;
                                 elements, >= 0 */
    double unsplit_reduce_n; /* see unsplit_reduce_m; elements, >= 0 */
    double tile_latency_s;  /* fixed cost per tile (pipeline fill, epilogue), s; >= 0 */
    double kstep_latency_s; /* least time a CTA spends per 64 bytes of K (one main-loop
                               stage: load latency not hidden by math), s; >= 0 */
    int max_split_k;        /* largest split-K factor considered; 1..TW_MAX_SPLIT_K */
    int stream_k;           /* 1: the library also has stream-K kernels (a persistent grid
                               dealing the tiles' K iterations evenly to its CTAs, so a
                               partial wave costs its fraction of a wave); 0: it has not */
    double streamk_fixup_s; /* fixed cost of a stream-K kernel: partial tiles' fp32 sums
                               exchanged through workspace and the CTAs' waits, s; >= 0 */
    int split_k_any;        /* 1: below 16-byte alignment the library's split-K kernels take any
                               factor (CUTLASS's do), so every factor up to max_split_k is tried
                               there; 0: powers of two, as at 16 bytes and above */
    /* The TMA class where only N is off 16 bytes. A GEMM whose K * in_bytes is a multiple of 16
       but N * in_bytes is not, while C's row pitch N * out_bytes is (an 8-bit dtype with 32-bit
       output), can have its A and B (both K-strided in the nt layout of torch._int_mm) and its C
       moved by TMA. Up to n_off_tma_max_mn outputs (M * N per matrix), the library then runs
       one TMA kernel (int8 on Hopper: cuBLASLt's sm90_xmma_gemm_i8i32 256x128 kernel where
       N = 8 mod 16 and K = 0 mod 16, CUTLASS's sm80 IMMA kernels otherwise;
       hw/measured/h100_dtypes_2026-11-26/kernels.csv). Such a GEMM is priced in the TMA class
       with tile n_off_tma_tile only, throughput factor n_off_tma_eff in place of align_eff,
       align_mem_eff of 16 bytes, and n_off_tma_overhead_s added to the call's fixed cost. */
    double n_off_tma_eff;     /* factor on compute_frac; 0: the rule is off, else (0, 1 / compute_frac]
                                 (the class may sustain more than the dtype's other kernels) */
    double n_off_tma_max_mn;  /* largest M * N it applies to, elements; >= 0 */
    double n_off_tma_overhead_s; /* extra fixed cost per call of that kernel, s; >= 0 */
    int n_off_tma_tile;       /* index into tiles of the one tile that kernel runs; 0..n_tiles-1 */
    int n_tiles;            /* candidate tiles in use; 1..TW_MAX_TILES */
    tw_tile tiles[TW_MAX_TILES];
    /* Throughput factor by the byte alignment of the GEMM's dimensions:
       align_eff[i] applies when the coarsest power of two dividing both N and K
       (times the element size) is 2^i bytes (128 bytes or more -> [7]). N and K
       are the leading dimensions of row-major A, B and C; M never is.
       Each in (0, 1]. Source: NVIDIA matmul guide, "Tensor Core Requirements"
       (16 B, or 128 B on A100, for full efficiency). */
    double align_eff[TW_ALIGN_CLASSES];
    /* Bandwidth factor by the same classes: the kernel a misaligned GEMM gets
       cannot use 16-byte vector (or TMA) loads and stores, so its DRAM traffic
       also runs slower. Multiplies mem_frac and write_frac; each in (0, 1]
       (1 where the library's fast kernels apply). */
    double align_mem_eff[TW_ALIGN_CLASSES];
} tw_device;

/* Per-tile constants of a prepared device; private to tw_gemm.c (see tw_gemm_plan). */
typedef struct {
    int64_t slots;        /* sm_count * ctas_per_sm */
    int shift_m, shift_n; /* log2 of the tile's m and n when powers of two, else -1 */
    double flops_mn;      /* 2 * m * n: FLOP per element of K */
    double rate;          /* peak_flops * compute_frac * eff, FLOP/s over all SMs */
    double inv_rate;      /* 1 / rate, s/FLOP (lower bounds only) */
    double rows0;         /* floor(sqrt(slots * n / m)): rows of the wave's square footprint */
    double cta_rate[TW_ALIGN_CLASSES + 1]; /* rate * align_eff[c] / (sm_count * ctas_per_sm): one
                                          CTA's FLOP/s at full residency, by alignment class
                                          (the last: the TMA class where only N is off 16 bytes) */
} tw_tile_plan;

/*
 * A device prepared for many estimates: validated once, with the constants every
 * estimate needs precomputed (tw_gemm_prepare). Fill it only with tw_gemm_prepare();
 * the fields are private and may change. A plan is plain data: copy it freely, no
 * cleanup. The estimates through a plan equal those of tw_gemm_estimate() on its device.
 */
typedef struct {
    unsigned magic;                            /* set by tw_gemm_prepare */
    tw_device dev;                             /* the validated device, copied */
    tw_tile_plan tiles[TW_MAX_TILES];
    double bw[TW_ALIGN_CLASSES + 1];           /* operand read rate by alignment class, byte/s */
    double bw_w[TW_ALIGN_CLASSES + 1];         /* C write rate by alignment class, byte/s */
    double inv_align[TW_ALIGN_CLASSES + 1];    /* 1 / align_eff (the last: 1 / n_off_tma_eff) */
} tw_gemm_plan;

/* A GEMM problem: batch independent products C[MxN] = A[MxK] . B[KxN]. */
typedef struct {
    int64_t m, n, k;   /* 1..TW_DIM_MAX each; M*N*batch <= TW_OUTPUT_MAX */
    int64_t batch;     /* batch count (1 for a plain GEMM); 1..TW_DIM_MAX */
    double in_bytes;   /* bytes per element of A and B: 0.5 (FP4), 1, 2, 4 or 8 */
    int out_bytes;     /* bytes per element of C: 1, 2, 4 or 8 */
    double w_bytes;    /* bytes per element of B as stored, when B is a weight in a weight-only format
                          that the kernel dequantizes to A's dtype in registers (W4A16, W8A16:
                          Marlin, TensorRT-LLM's weight-only GEMMs): its bits / 8 with its scales
                          (int4 with group 128: (4 + 32/128) / 8); B's DRAM traffic is at w_bytes,
                          everything else (math, alignment, main-loop stages) at in_bytes.
                          0: B as A, in_bytes (a zero-initialized shape). (0, 8] otherwise */
} tw_gemm_shape;

typedef struct {
    double time_s;       /* predicted wall time per call, s */
    double flop_rate;    /* flops / time_s, FLOP/s */
    double flops;        /* 2*M*N*K*batch, FLOP */
    double bytes;        /* compulsory traffic (M*K + K*N)*in + M*N*out, per batch, byte */
    double dram_bytes;   /* modeled DRAM traffic of the chosen tiled kernel, byte */
    double intensity;    /* flops / bytes, FLOP/byte (NVIDIA matmul guide's definition) */
    double compute_s;    /* tile/wave-quantized math time of the chosen kernel, s */
    double memory_s;     /* dram_bytes at the achievable bandwidth (+ split-K reduction), s */
    double overhead_s;   /* call_overhead_s (+ tma_overhead_s in the TMA class, + n_off_tma_overhead_s
                            where only N is off 16 bytes), s */
    int bound;           /* TW_BOUND_* of the largest of the three parts */
    int64_t tile_m;      /* chosen CTA tile rows */
    int64_t tile_n;      /* chosen CTA tile columns */
    int split_k;         /* chosen split-K factor (1 = none) */
    int stream_k;        /* 1 when the chosen kernel is stream-K (split_k is then 1) */
    int64_t tiles;       /* CTAs launched: ceil(M/tm)*ceil(N/tn)*batch*split_k */
    int64_t waves;       /* ceil(tiles / (sm_count * ctas_per_sm)) */
    double tile_eff;     /* useful fraction of tiled output: M*N / (ceil(M/tm)tm*ceil(N/tn)tn); (0,1] */
    double wave_eff;     /* tiles / (waves * sm_count * ctas_per_sm), 1 under stream-K; (0,1] */
    double align_eff;    /* alignment throughput factor applied: align_eff of the class, (0,1], or
                            n_off_tma_eff in the TMA class where only N is off 16 bytes */
    int align_bytes;     /* alignment of N and K, bytes (1..128) */
} tw_gemm_result;

/*
 * Check a device description. Returns TW_OK or TW_EINVAL / TW_ERANGE and the
 * field ("device.sm_count", "device.tiles[2].eff", ...).
 */
int tw_device_validate(const tw_device *dev, const char **bad_field);

/*
 * Predict the time of one (batched) GEMM call as cuBLAS-class libraries run it.
 *
 * For each candidate tile (tm x tn) and split-K factor s (up to max_split_k, keeping >= 64 of
 * K per split: a power of two at 16-byte alignment, where cuBLASLt's TMA kernels split; any
 * integer below it where split_k_any is set, as CUTLASS's split-K kernels take any count;
 * s > 1 only when one wave is not filled by the output tiles, as cuBLAS's heuristic does:
 * within that wave, or, below 16-byte alignment where no stream-K kernel runs, over several
 * waves when each split keeps >= 1024 of K):
 *   tiles   = ceil(M/tm) * ceil(N/tn) * batch * s        (tile quantization)
 *   waves   = ceil(tiles / (SMs * ctas_per_sm))           (wave quantization)
 *   resident = min(ctas_per_sm, ceil(tiles / SMs))        (CTAs sharing one SM)
 *   t_tile  = max(2*tm*tn*ceil(K/s) / (peak/SMs * compute_frac * tile.eff
 *             * align_eff / resident),  ceil(ceil(K/s)*in_bytes/64) * kstep_latency_s
 *             * loads) + tile_latency_s      (math-bound or latency-bound main loop;
 *             a CTA alone on its SM gets the SM's whole tensor-core rate; loads =
 *             16 / alignment bytes below 16-byte alignment, else 1: a stage then
 *             issues that many narrower loads where one 16-byte vector would do)
 *   compute = waves * t_tile
 *             or, for stream-K (device.stream_k, TMA tiles, tiles < SMs*ctas_per_sm):
 *             tiles * t_tile / min(SMs*ctas_per_sm, 2*tiles) + streamk_fixup_s
 *             with resident = ctas_per_sm (a persistent grid deals every tile's K
 *             iterations evenly to its CTAs, a tile to at most two of them; Osama
 *             et al. 2023, "Stream-K", PPoPP, Sec. 4)
 *   reads   = operand bytes / (mem_bw * mem_frac * align_mem_eff):
 *             operands once if A+B fit in L2, else each wave's A and B panels
 *   writes  = C bytes (or split-K partials) / (mem_bw * write_frac * align_mem_eff)
 *             * (1 + write_sector_cost where N and K are 16-byte aligned and N*out_bytes
 *             is not a multiple of 32)
 *   memory  = reads + writes
 *   time    = call_overhead_s (+ tma_overhead_s where N and K are 16-byte aligned)
 *             + max(compute, reads + (1 - e) * writes)
 *             + e * writes   (epilogue stores after each tile's main loop), where
 *             e = write_exposed, or write_exposed_non_tma below 16-byte alignment
 *             + reads * min(fill_stages, K stages) / K stages / waves (16-byte aligned: a
 *               persistent TMA kernel fills once; below, the CUTLASS kernels' CTAs fill on
 *               every wave: without the / waves)
 *             + drain_exposed * (1 - e) * writes * (tiles of the last wave / tiles), moved out
 *             of the max (pipeline drain; stream-K and one wave: all of the writes)
 *             (pipeline fill; K stages = ceil(K_split * in_bytes / 64); stream-K: waves = 1)
 *             + (s > 1: reduce_overhead_s (+ splitk_tma_latency_s where N and K are 16-byte
                aligned) + the reduction's reads and writes at the same rates)
 *             (s = 1 takes that split-K form too where N or K is below 4-byte alignment and
 *             M <= unsplit_reduce_m, N <= unsplit_reduce_n)
 * and the fastest candidate is kept (first in list order on ties; a candidate is skipped
 * only where a lower bound shows it cannot be faster, so the result is that of trying all). When N or K is not
 * 16-byte aligned only tiles with tma = 0 are candidates: TMA needs 16-byte global
 * strides (CUDA Driver API, cuTensorMapEncodeTiled), so those GEMMs run the
 * library's older kernel class.
 * Sources: NVIDIA Matrix Multiplication Background guide ("Dimension
 * Quantization Effects", "Tensor Core Requirements"); GPU Performance
 * Background guide (waves, tail effect); Anthony et al. 2024 (arXiv
 * 2401.14489) Sec. on GEMM tiling and wave quantization.
 *
 * Returns TW_OK, TW_EINVAL (a field not positive / not allowed) or TW_ERANGE
 * (a dimension above TW_DIM_MAX or M*N*batch above TW_OUTPUT_MAX), with the
 * field name ("m", "n", "k", "batch", "in_bytes", "out_bytes", "m*n*batch",
 * or a "device.*" field).
 */
int tw_gemm_estimate(const tw_device *dev, const tw_gemm_shape *shape, tw_gemm_result *out,
                     const char **bad_field);

/*
 * The same estimate for `count` shapes, writing only the time (s) of each to
 * time_s[i] and, when flop_rate is not NULL, FLOP/s to flop_rate[i]. The
 * device is validated once. On an invalid shape returns its status, sets
 * *bad_index (if not NULL) to its index and *bad_field; earlier outputs are
 * written, later ones are not.
 */
int tw_gemm_estimate_many(const tw_device *dev, const tw_gemm_shape *shapes, size_t count,
                          double *time_s, double *flop_rate, size_t *bad_index,
                          const char **bad_field);

/*
 * Validate `dev` and precompute what every estimate on it needs into *plan, so a batch
 * of estimates pays neither (use it for more than a handful of shapes). Returns TW_OK,
 * or the status and field of tw_device_validate(); *plan is then not usable.
 */
int tw_gemm_prepare(const tw_device *dev, tw_gemm_plan *plan, const char **bad_field);

/*
 * tw_gemm_estimate() and tw_gemm_estimate_many() on a prepared device: the same results
 * (bit for bit), the same statuses and fields for bad shapes, and TW_EINVAL with field
 * "plan" when *plan did not come from a successful tw_gemm_prepare().
 */
int tw_gemm_plan_estimate(const tw_gemm_plan *plan, const tw_gemm_shape *shape, tw_gemm_result *out,
                          const char **bad_field);
int tw_gemm_plan_estimate_many(const tw_gemm_plan *plan, const tw_gemm_shape *shapes, size_t count,
                               double *time_s, double *flop_rate, size_t *bad_index,
                               const char **bad_field);

#endif /* TW_GEMM_H */
