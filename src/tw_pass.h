/*
 * tw_pass.h - a whole forward pass priced in one call (included by tilewave.h).
 *
 * A pass is a list of ops (each run `count` times), and each op a list of steps
 * that are kernels: GEMMs through the GEMM model of a prepared device
 * (tw_gemm_prepare), memory-bound kernels (bytes at a bandwidth), and fused
 * attention kernels (FlashAttention: Dao et al. 2022, arXiv 2205.14135). The
 * caller (tilewave.cost.price) builds the steps from the ops of a model once per
 * workload and prices them again for every question asked.
 *
 * Per kernel (launch costs as tilewave.cost.price documents them):
 *   GEMM    g = the GEMM model's time (its call_overhead_s included)
 *   KERNEL  g = bytes / bw + kernel_s
 *   FUSED   g = max(work / rate + sfu / sfu_rate, bytes / bw) + kernel_s
 *           (MMA FLOP at their rate, exponentials on the special-function units,
 *           not overlapped: Shah et al. 2024, FlashAttention-3, Sec. 3.1)
 * then g = max(g, host_s) (a host that dispatches each kernel).
 * An op's steps fall in three parts, each summed in order: part 0 (GEMMs and fused
 * kernels), parts 1 and 2 (two runs of memory-bound kernels);
 *   op time   = max(part0 + (part1 + part2), floor_s), s per call (floor_s: the op's
 *               physical floor, tilewave.cost.limits: executed FLOP and DRAM bytes at the
 *               best sustained fractions of the device's peaks)
 *   op gemm_s = part0
 * and over the ops, in order: time_s = sum count * op time; layer_s the same over the
 * ops inside the layers; gemm_s = sum count * op gemm_s. The order of every sum is
 * fixed, so the totals are bit-identical to pricing the ops one by one.
 */
#ifndef TW_PASS_H
#define TW_PASS_H

#ifndef TILEWAVE_H
#error "include tilewave.h, which includes tw_pass.h"
#endif

/* Kinds of step. */
enum { TW_STEP_GEMM = 0, TW_STEP_KERNEL = 1, TW_STEP_FUSED = 2 };

/* Most ops and steps in one pass. */
#define TW_PASS_MAX_OPS 4096
#define TW_PASS_MAX_STEPS 65536

typedef struct {
    double count; /* times the op runs in one pass, 0..2^31-1: an integer, or an expected count
                     (a grouped GEMM over a fractional expected number of MoE experts, priced as
                     the two integer counts around it, each op weighted by its probability) */
    int layer;    /* 1: inside the transformer layers (adds to layer_s); 0: outside */
    int steps;    /* steps of this op, taken in order from the step array; 0..TW_PASS_MAX_STEPS */
    double floor_s; /* least time of one call, s; >= 0, finite (0: none) */
} tw_pass_op;

typedef struct {
    int kind;           /* TW_STEP_* */
    int part;           /* 0, 1 or 2 (see above); a GEMM or FUSED step is in part 0 */
    tw_gemm_shape gemm; /* GEMM: the shape (as tw_gemm_estimate validates it) */
    double bytes;       /* KERNEL, FUSED: DRAM bytes, byte; >= 0, finite */
    double bw;          /* KERNEL, FUSED: bandwidth, byte/s; > 0, finite */
    double work;        /* FUSED: MMA FLOP; >= 0, finite */
    double rate;        /* FUSED: their FLOP/s; > 0, finite */
    double sfu;         /* FUSED: exponentials; >= 0, finite */
    double sfu_rate;    /* FUSED: their rate, 1/s; > 0, finite */
} tw_pass_step;

typedef struct {
    double time_s;  /* the pass, s */
    double layer_s; /* the ops inside the layers, s (all layers together) */
    double gemm_s;  /* time in GEMM and fused attention kernels, s */
} tw_pass_result;

/*
 * Validate a pass: TW_OK, or TW_EINVAL / TW_ERANGE with *bad_index the op (field
 * "ops.count", "ops.layer", "ops.steps", "ops.floor_s") or the step ("steps.kind", "steps.part",
 * "steps.bytes", "steps.bw", "steps.work", "steps.rate", "steps.sfu", "steps.sfu_rate",
 * or a GEMM field as tw_gemm_estimate names it) that is bad. n_steps must equal the
 * sum of the ops' steps ("ops.steps" otherwise, *bad_index = n_ops).
 */
int tw_pass_validate(const tw_pass_op *ops, size_t n_ops, const tw_pass_step *steps, size_t n_steps,
                     size_t *bad_index, const char **bad_field);

/*
 * Price a pass on a prepared device. kernel_s and host_s (>= 0, finite) are the
 * per-kernel cost and the host floor above. op_time_s, when not NULL, receives each op's
 * time per call (n_ops values; scratch when the status is not TW_OK). TW_OK; TW_EINVAL
 * naming "plan", "kernel_s", "host_s" or a field tw_pass_validate names (the pass is
 * validated on every call: a few nanoseconds per step); TW_ERANGE "time_s" when a total
 * is not finite (or "device.figures" from the GEMM model). *out is written only on TW_OK.
 */
int tw_pass_estimate(const tw_gemm_plan *p, const tw_pass_op *ops, size_t n_ops, const tw_pass_step *steps,
                     size_t n_steps, double kernel_s, double host_s, double *op_time_s, tw_pass_result *out,
                     const char **bad_field);

#endif /* TW_PASS_H */
