/* tw_gemm.c - the GEMM model: GEMM / batched GEMM time from tile quantization, wave
 * quantization, tensor-core alignment and the DRAM traffic of the tiled kernel, on a prepared
 * device (tw_gemm_plan.c validates and prepares). Sources are cited in tw_gemm.h at
 * tw_gemm_estimate(). */
#include <math.h>
#include <stddef.h>

#include "tilewave.h"
#include "tw_gemm_internal.h"

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* A compute-time bound from reciprocals (or a stream-K quotient) is trusted only this far below
 * the compute time it bounds, which is worked out with divisions: a few units in the last
 * place apart. The other parts of a bound are exact (see choose()). */
#define BOUND_MARGIN (1.0 - 1e-12)
/* least K per split of a split-K spread over several waves (tw_gemm.h): a modeling bound that
 * keeps the search short; 1024 and none choose alike on the given random half to 0.1 point */
#define MULTIWAVE_SPLIT_K 1024

static int64_t ceil_div(int64_t a, int64_t b, int shift)
{
    return shift >= 0 ? (a + b - 1) >> shift : (a + b - 1) / b;
}

/* Alignment class: log2 of the coarsest power of two (in bytes) dividing
 * N and K times the element size, capped at 128 bytes (class 7), at least 0 (FP4 with
 * an odd N or K). N and K are
 * the leading dimensions of row-major A[MxK], B[KxN] and C[MxN]; M is a row
 * count, never a stride, and enters only through tile quantization. */
int tw_gemm__align_class(const tw_gemm_shape *s)
{
    uint64_t bits = (uint64_t)(s->n | s->k);
    /* log2 of the element size: -1 for FP4's half byte (an odd N or K then falls below one
       byte: class 0, the worst there is) */
    int log2_elem = s->in_bytes < 1.0 ? -1 : __builtin_ctz((unsigned)s->in_bytes);
    int cls = __builtin_ctzll(bits) + log2_elem;
    if (cls < 0) cls = 0;
    return cls < TW_ALIGN_CLASSES - 1 ? cls : TW_ALIGN_CLASSES - 1;
}

/* N_OFF_TMA_CLASS where the device's rule takes the shape (tw_gemm.h, n_off_tma_eff): K 16-byte
 * aligned, N not, C's rows 16-byte aligned, M * N within n_off_tma_max_mn; else the alignment class. */
int tw_gemm__shape_class(const tw_device *d, const tw_gemm_shape *s)
{
    int cls = tw_gemm__align_class(s);
    if (d->n_off_tma_eff > 0.0 && cls < TMA_CLASS && s->in_bytes >= 1.0 &&
        ((uint64_t)s->k * (uint64_t)s->in_bytes) % 16u == 0 &&
        ((uint64_t)s->n * (uint64_t)s->out_bytes) % 16u == 0 &&
        (double)s->m * (double)s->n <= d->n_off_tma_max_mn)
        return N_OFF_TMA_CLASS;
    return cls;
}

/* Everything about one shape that its candidates share. */
typedef struct {
    const tw_gemm_plan *p;
    const tw_gemm_shape *s;
    int cls;          /* the shape's class (tw_gemm__shape_class): alignment class or N_OFF_TMA_CLASS */
    double align, loads, bw, bw_w;
    double batch, mn, flops;
    double a, b;      /* bytes of A and of B of one matrix of the batch */
    double wb;        /* bytes per element of B as read (w_bytes, else in_bytes) */
    int fits_l2;      /* A and B of one matrix fit in L2 together */
    double out;       /* bytes of C over the batch */
    double read_s;    /* batch * (A + B) at the read rate: the least operand-read time, s */
    double write_s;   /* out at the write rate, s */
    double hidden_lb, exposed_lb; /* least hidden and exposed memory time: read_s, write_s split
                                     by write_exposed as a candidate's are */
    double t_loop;    /* main-loop latency of a CTA over all of K, s */
    double exposed;   /* write_exposed of the shape's kernel class (write_exposed_non_tma below 16 B) */
    double overhead;  /* per-call cost of the shape's kernel class: call_overhead_s (+ tma_overhead_s
                         at 16 B and above, + n_off_tma_overhead_s in N_OFF_TMA_CLASS), s */
    double partials1, partials1_w, partials1_r; /* split-K partial sums per split factor: bytes
                         (fp32, every output of the batch), their write and read times, s */
    double reduce_fixed; /* the split-K reduction's C write and its fixed costs, s */
} shape_ctx;

/* The values of a split factor (2^shift, or any factor when shift is -1) that every tile shares. */
typedef struct {
    int64_t k_split;
    double t_loop, partials, write_s, reduce_s;
    double hidden_lb, exposed_lb; /* as shape_ctx's, with the partial sums written */
} split_ctx;

/* One evaluated kernel configuration. */
typedef struct {
    double time_s, compute_s, memory_s, dram_bytes;
    double hidden_s, exposed_s, reduce_s; /* reads + hidden writes, exposed writes, reduction */
    int64_t tiles, waves;
    int tile, split_k, stream_k;
} candidate;

/* time = overhead + max(compute, reads + hidden writes) + exposed writes + reduction. Every
 * operation is monotone in each part (IEEE rounding is), so parts no larger than a candidate's
 * give a time no larger than its time, bit for bit: the bounds in choose() rest on this. */
static double time_of(const shape_ctx *x, double compute, double hidden, double exposed, double reduce)
{
    return x->overhead + (compute > hidden ? compute : hidden) + exposed + reduce;
}

static double candidate_time(const shape_ctx *x, const candidate *c)
{
    return time_of(x, c->compute_s, c->hidden_s, c->exposed_s, c->reduce_s);
}

/* The main-loop latency of a CTA over k_split of K: one stage per 64 bytes of K. */
static double loop_time(const shape_ctx *x, int64_t k_split)
{
    return ceil((double)k_split * (double)x->s->in_bytes / 64.0) * x->p->dev.kstep_latency_s * x->loads;
}

static void shape_setup(shape_ctx *x, const tw_gemm_plan *p, const tw_gemm_shape *s)
{
    const tw_device *d = &p->dev;
    double in = (double)s->in_bytes, k = (double)s->k;

    x->p = p;
    x->s = s;
    x->cls = tw_gemm__shape_class(d, s);
    x->align = x->cls < TW_ALIGN_CLASSES ? d->align_eff[x->cls] : d->n_off_tma_eff;
    /* below 16-byte alignment a main-loop stage issues 16/alignment loads where one 16-byte
       vector (or one TMA copy) would do */
    x->loads = x->cls < TMA_CLASS ? (double)(16 >> x->cls) : 1.0;
    x->bw = p->bw[x->cls];
    x->bw_w = p->bw_w[x->cls];
    /* a TMA-class C whose row pitch is an odd multiple of 16 bytes: half its rows end in
       partial 32-byte sectors (tw_gemm.h, write_sector_cost) */
    if (x->cls >= TMA_CLASS && (((uint64_t)s->n * (uint64_t)s->out_bytes) & 31u) != 0)
        x->bw_w /= 1.0 + d->write_sector_cost;
    x->batch = (double)s->batch;
    x->mn = (double)s->m * (double)s->n;
    x->flops = 2.0 * (double)s->m * (double)s->n * (double)s->k * (double)s->batch;
    x->a = (double)s->m * k * in;
    x->wb = s->w_bytes > 0.0 ? s->w_bytes : in;
    x->b = k * (double)s->n * x->wb;
    x->fits_l2 = x->a + x->b <= d->l2_bytes;
    x->out = x->batch * x->mn * (double)s->out_bytes;
    x->read_s = x->batch * (x->a + x->b) / x->bw;
    x->write_s = x->out / x->bw_w;
    x->exposed = x->cls < TMA_CLASS ? d->write_exposed_non_tma : d->write_exposed;
    x->overhead = d->call_overhead_s + (x->cls >= TMA_CLASS ? d->tma_overhead_s : 0.0) +
                  (x->cls == N_OFF_TMA_CLASS ? d->n_off_tma_overhead_s : 0.0);
    x->partials1 = x->batch * x->mn * 4.0;
    x->partials1_w = x->partials1 / x->bw_w;
    x->partials1_r = x->partials1 / x->bw;
    x->reduce_fixed = x->write_s + d->reduce_overhead_s + (x->cls >= TMA_CLASS ? d->splitk_tma_latency_s : 0.0);
    x->hidden_lb = x->read_s + (1.0 - x->exposed) * x->write_s;
    x->exposed_lb = x->exposed * x->write_s;
    /* the drain moves writes out of the max (evaluate()): max(C, H - D) + E + D >= max(C, H) + E
       holds exactly, but the two sides round differently */
    if (d->drain_exposed > 0.0) x->hidden_lb *= BOUND_MARGIN, x->exposed_lb *= BOUND_MARGIN;
    x->t_loop = loop_time(x, s->k);
}

static void split_setup(split_ctx *c, const shape_ctx *x, int split, int shift)
{
    const tw_device *d = &x->p->dev;
    c->k_split = ceil_div(x->s->k, split, shift);
    c->t_loop = loop_time(x, c->k_split);
    /* fp32 partial sums written by the GEMM, read back by the reduction, which writes C */
    c->partials = (double)split * x->partials1;
    c->write_s = (double)split * x->partials1_w;
    c->reduce_s = (double)split * x->partials1_r + x->reduce_fixed;
    c->hidden_lb = x->read_s + (1.0 - x->exposed) * c->write_s;
    c->exposed_lb = x->exposed * c->write_s;
    if (d->drain_exposed > 0.0) c->hidden_lb *= BOUND_MARGIN, c->exposed_lb *= BOUND_MARGIN;
}

/*
 * DRAM bytes read for A and B by one matrix of the batch. Operands that fit in
 * L2 together are read once. Otherwise tiles resident in one wave share their
 * A rows and B columns through L2 (rasterized, roughly square footprint), so
 * every wave reads its own panels: waves_per_matrix * (rows*tm + cols*tn)*K.
 */
static double operand_traffic(const shape_ctx *x, int ti, int64_t grid_m, int64_t grid_n)
{
    const tw_tile *t = &x->p->dev.tiles[ti];
    const tw_tile_plan *q = &x->p->tiles[ti];
    double in = (double)x->s->in_bytes, k = (double)x->s->k;
    double per_matrix = (double)(grid_m * grid_n);
    double w, rows, cols, waves, panel_a, panel_b, streamed;

    if (x->fits_l2 || per_matrix <= (double)q->slots) return x->a + x->b;
    /* a roughly square block of w tiles, in elements; clamp to the grid and
       give what one side cannot use to the other */
    w = (double)q->slots;
    rows = clampd(q->rows0, 1.0, (double)grid_m);
    cols = clampd(floor(w / rows), 1.0, (double)grid_n);
    rows = clampd(floor(w / cols), 1.0, (double)grid_m);
    waves = ceil(per_matrix / (rows * cols));
    panel_a = rows * (double)t->m * k * in;
    panel_b = cols * (double)t->n * k * x->wb;
    if (panel_a > x->a) panel_a = x->a;
    if (panel_b > x->b) panel_b = x->b;
    streamed = waves * (panel_a + panel_b);
    return streamed > x->a + x->b ? streamed : x->a + x->b;
}

/* The data-parallel (sp == NULL) or split-K (split factor 2^shift, values *sp) candidate of
 * tile ti into *c and, when sk is not NULL and the tiles leave the one wave partly empty, the
 * stream-K candidate into *sk, from the same traffic. Returns -1 when neither can take less
 * than `bound` (s; their compute time and least memory time already reach it: the traffic is
 * then not worked out and *c, *sk are not set), 1 when *sk is set, else 0. */
static inline int evaluate(const shape_ctx *x, int ti, int64_t grid_m, int64_t grid_n, int split,
                           const split_ctx *sp, double bound, candidate *c, candidate *sk)
{
    const tw_device *d = &x->p->dev;
    const tw_tile *t = &d->tiles[ti];
    const tw_tile_plan *q = &x->p->tiles[ti];
    const tw_gemm_shape *s = x->s;
    int64_t slots = q->slots;
    int64_t k_split = sp != NULL ? sp->k_split : s->k;
    int64_t tiles = grid_m * grid_n * s->batch * split;
    int64_t resident;
    int has_sk = sk != NULL && tiles < slots;
    double tile_flops = q->flops_mn * (double)k_split;
    double t_loop = sp != NULL ? sp->t_loop : x->t_loop;
    double t_math, t_tile, kernel_bytes, kernel_s, write_s, fastest, fill, drain;
    double compute_sk = INFINITY;

    /* CTAs sharing one SM: min(ctas_per_sm, ceil(tiles / SMs)) */
    if (t->ctas_per_sm == 1 || tiles >= slots) resident = t->ctas_per_sm;
    else {
        resident = (tiles + d->sm_count - 1) / d->sm_count;
        if (resident > t->ctas_per_sm) resident = t->ctas_per_sm;
    }
    if (resident == t->ctas_per_sm) t_math = tile_flops / q->cta_rate[x->cls];
    else t_math = tile_flops / (q->rate * x->align / ((double)d->sm_count * (double)resident));
    t_tile = (t_math > t_loop ? t_math : t_loop) + d->tile_latency_s;
    c->tiles = tiles;
    c->waves = tiles <= slots ? 1 : (tiles + slots - 1) / slots;
    c->compute_s = (double)c->waves * t_tile;
    if (has_sk) {
        /* stream-K: a persistent grid of at most `slots` CTAs, each tile dealt to at most two of
           them, every CTA at full residency: each runs an even share of all tiles' main loops,
           then the partial tiles are fixed up (Osama et al. 2023, Stream-K, Sec. 4) */
        int64_t grid = slots < 2 * tiles ? slots : 2 * tiles;
        double t_math_sk = tile_flops / q->cta_rate[x->cls];
        double t_tile_sk = (t_math_sk > t_loop ? t_math_sk : t_loop) + d->tile_latency_s;
        compute_sk = (double)tiles * t_tile_sk / (double)grid + d->streamk_fixup_s;
    }
    /* neither can beat `bound`: each takes at least its compute time and the least memory time
       (operands read once), bit for bit (time_of) */
    fastest = compute_sk < c->compute_s ? compute_sk : c->compute_s;
    if ((sp != NULL ? time_of(x, fastest, sp->hidden_lb, sp->exposed_lb, sp->reduce_s)
                    : time_of(x, fastest, x->hidden_lb, x->exposed_lb, 0.0)) >= bound)
        return -1;

    if (x->fits_l2 || grid_m * grid_n <= slots) {
        /* operands read once: the shape's own read time */
        kernel_bytes = x->batch * (x->a + x->b);
        kernel_s = x->read_s;
    } else {
        kernel_bytes = x->batch * operand_traffic(x, ti, grid_m, grid_n);
        kernel_s = kernel_bytes / x->bw;
    }
    if (sp != NULL) {
        kernel_bytes += sp->partials;
        write_s = sp->write_s;
        c->reduce_s = sp->reduce_s;
        c->dram_bytes = kernel_bytes + (sp->partials + x->out);
    } else {
        kernel_bytes += x->out;
        write_s = x->write_s;
        c->reduce_s = 0.0;
        c->dram_bytes = kernel_bytes + 0.0;
    }
    /* operand reads stream under the main loop; C leaves in each tile's epilogue, after its main
       loop, and write_exposed of that time is not hidden */
    c->memory_s = kernel_s + write_s + c->reduce_s;
    c->hidden_s = kernel_s + (1.0 - x->exposed) * write_s;
    /* pipeline fill: the first fill_stages stages of K a wave's CTAs load before their first
       MMA stream under nothing; a persistent (TMA) kernel fills once, on its first wave, the
       non-TMA kernels' CTAs on every wave (fill is then their share over all waves) */
    fill = 0.0;
    if (d->fill_stages > 0.0) {
        double stages = ceil((double)k_split * s->in_bytes / 64.0);
        fill = kernel_s * (d->fill_stages < stages ? d->fill_stages / stages : 1.0);
        if (x->cls < TMA_CLASS) fill *= (double)c->waves;
    }
    /* pipeline drain: the last wave's epilogues have no later main loop to hide under, so
       drain_exposed of its C writes (the hidden part) leave the max and add to the time */
    drain = 0.0;
    if (d->drain_exposed > 0.0) {
        double last = (double)(tiles - (c->waves - 1) * slots) / (double)tiles;
        drain = d->drain_exposed * (1.0 - x->exposed) * write_s * last;
        c->hidden_s -= drain;
    }
    c->exposed_s = x->exposed * write_s + fill / (double)c->waves + drain;
    c->time_s = candidate_time(x, c);
    c->tile = ti;
    c->split_k = split;
    c->stream_k = 0;
    if (!has_sk) return 0;
    *sk = *c;
    sk->exposed_s = x->exposed * write_s + fill + drain; /* one persistent wave (drain: all of C) */
    sk->compute_s = compute_sk;
    sk->time_s = candidate_time(x, sk);
    sk->stream_k = 1;
    return 1;
}

/* A usable estimate: positive, finite time and rate (absurd device figures, e.g. a bandwidth of
 * 1e-300 byte/s or a latency near DBL_MAX, give infinite or zero times). */
static int finite_time(const candidate *c, const shape_ctx *x)
{
    double rate = x->flops / c->time_s;
    return isfinite(c->time_s) && c->time_s > 0.0 && isfinite(rate) && rate > 0.0 &&
           isfinite(c->compute_s) && isfinite(c->memory_s);
}

/*
 * Fastest candidate over the tiles the alignment allows and, where one wave is not filled,
 * split-K and stream-K. A candidate is skipped when a lower bound of its time is not below the
 * best so far (it could not replace it: a later candidate must be strictly faster). Every
 * candidate of tile ti takes at least overhead + max(C, L, R) (+ reduction for split-K):
 *   C = tiles * 2*tm*tn*K / (rate_ti * align_eff): its padded tiles at no more than the tile's rate;
 *   L = main-loop latency over K/s + tile latency (halved, plus fixup, for stream-K: a tile is
 *       dealt to at most two CTAs);
 *   R = batch*(A + B) at the read rate + C (or split-K partials) at the write rate.
 */
static void choose(const shape_ctx *x, candidate *out)
{
    /* 75 lines, one function: the candidate loop is every estimate's hot path, and its bounds,
     * swaps and split-K set-ups share the buffers above (split out, they would be passed around) */
    const tw_gemm_plan *p = x->p;
    const tw_device *d = &p->dev;
    const tw_gemm_shape *s = x->s;
    split_ctx splits[TW_MAX_SPLIT_K + 1]; /* by split factor; splits[1]: the unsplit split-K form */
    uint64_t have_split = 0;              /* bit f-1: splits[f] is set up */
    candidate buf[3]; /* the best so far and two to evaluate into: swapped, not copied */
    candidate *best = &buf[0], *c = &buf[1], *sk = &buf[2], *tmp;
    int ti, have = 0;
    /* split factors: powers of two for the TMA kernels (cuBLASLt's nvjet split-K), any integer
       below 16 bytes where split_k_any says so (CUTLASS's split-K takes any count: cuBLAS fills
       the wave with it) */
    int any_split = x->cls < TMA_CLASS && d->split_k_any;
    double flop_lb = (double)s->k * p->inv_align[x->cls] * BOUND_MARGIN; /* x 2*tm*tn*tiles / rate */
    double loop_lb = x->t_loop + d->tile_latency_s;
    double loop_lb_sk = (0.5 * loop_lb + d->streamk_fixup_s) * BOUND_MARGIN;

    int unsplit_reduce = x->cls <= 1 && (double)s->m <= d->unsplit_reduce_m && (double)s->n <= d->unsplit_reduce_n;
    /* split-K only fills an unfilled wave (below) and keeps >= 64 of K per split (floor(K/f) >= 64
       exactly when f <= floor(K/64)); over several waves each split keeps >= MULTIWAVE_SPLIT_K */
    int64_t k64 = s->k / 64, k_multi = s->k / MULTIWAVE_SPLIT_K;
    int max_split = k64 < d->max_split_k ? (int)k64 : d->max_split_k;
    best->time_s = INFINITY;
    for (ti = 0; ti < d->n_tiles; ti++) {
        const tw_tile *t = &d->tiles[ti];
        const tw_tile_plan *q = &p->tiles[ti];
        int f, can_sk;
        int64_t grid_m, grid_n, tiles;
        double compute_lb, lb;
        /* below 16 bytes only the non-TMA kernels run (tw_device_validate keeps one such tile) */
        if (t->tma && x->cls < TMA_CLASS) continue;
        /* the TMA kernel where only N is off 16 bytes has one tile */
        if (x->cls == N_OFF_TMA_CLASS && ti != d->n_off_tma_tile) continue;
        grid_m = ceil_div(s->m, t->m, q->shift_m);
        grid_n = ceil_div(s->n, t->n, q->shift_n);
        tiles = grid_m * grid_n * s->batch;
        compute_lb = (double)tiles * q->flops_mn * flop_lb * q->inv_rate;
        /* stream-K: the TMA kernels' */
        can_sk = d->stream_k && t->tma && tiles < q->slots;
        lb = can_sk && loop_lb_sk < loop_lb ? loop_lb_sk : loop_lb;
        if (compute_lb > lb) lb = compute_lb;
        /* the first candidate is always kept (NAN bounds nothing), so the best tile is valid
         * even when every time is infinite (absurd device figures); the caller rejects that */
        if (!have || time_of(x, lb, x->hidden_lb, x->exposed_lb, 0.0) < best->time_s) {
            /* below 4-byte alignment, small outputs run the split-K form unsplit (tw_gemm.h) */
            int has_sk;
            if (unsplit_reduce && !(have_split & 1u)) split_setup(&splits[1], x, 1, 0), have_split |= 1u;
            has_sk = evaluate(x, ti, grid_m, grid_n, 1, unsplit_reduce ? &splits[1] : NULL,
                              have ? best->time_s : NAN, c, can_sk ? sk : NULL);
            if (has_sk >= 0 && (!have || c->time_s < best->time_s)) tmp = best, best = c, c = tmp;
            if (has_sk >= 0) have = 1;
            if (has_sk > 0 && sk->time_s < best->time_s) tmp = best, best = sk, sk = tmp;
        }
        /* split-K fills an unfilled wave. Below 16 bytes no stream-K kernel runs, and cuBLAS's
           CUTLASS kernels split K instead, also over several waves: there a split may spread an
           unfilled wave's tiles over more (each split keeping >= MULTIWAVE_SPLIT_K of K) */
        for (f = 2; f <= max_split && (tiles * f <= q->slots ||
                                       (x->cls < TMA_CLASS && tiles < q->slots && f <= k_multi));
             f = any_split ? f + 1 : 2 * f) {
            const split_ctx *sp = &splits[f];
            if (!(have_split & ((uint64_t)1 << (f - 1)))) {
                split_setup(&splits[f], x, f, (f & (f - 1)) == 0 ? __builtin_ctz((unsigned)f) : -1);
                have_split |= (uint64_t)1 << (f - 1);
            }
            lb = sp->t_loop + d->tile_latency_s;
            if (compute_lb > lb) lb = compute_lb;
            if (time_of(x, lb, sp->hidden_lb, sp->exposed_lb, sp->reduce_s) >= best->time_s) continue;
            if (evaluate(x, ti, grid_m, grid_n, f, sp, best->time_s, c, NULL) >= 0 &&
                c->time_s < best->time_s)
                tmp = best, best = c, c = tmp;
        }
    }
    *out = *best;
}

/* The estimate of a checked shape on a plan prepared at least for the shape's class. */
int tw_gemm__estimate_checked(const tw_gemm_plan *p, const tw_gemm_shape *s, tw_gemm_result *out,
                              const char **bad_field)
{
    const tw_device *d = &p->dev;
    shape_ctx x;
    candidate best;
    const tw_tile *t;
    double padded;

    shape_setup(&x, p, s);
    choose(&x, &best);
    if (!finite_time(&best, &x)) {
        if (bad_field != NULL) *bad_field = "device.figures";
        return TW_ERANGE;
    }
    t = &d->tiles[best.tile];

    out->time_s = best.time_s;
    out->flops = x.flops;
    out->flop_rate = out->flops / best.time_s;
    out->bytes = (double)s->batch * ((double)s->m * (double)s->k * (double)s->in_bytes +
                                     (double)s->k * (double)s->n * x.wb +
                                     (double)s->m * (double)s->n * (double)s->out_bytes);
    out->dram_bytes = best.dram_bytes;
    out->intensity = out->flops / out->bytes;
    out->compute_s = best.compute_s;
    out->memory_s = best.memory_s;
    out->overhead_s = x.overhead;
    if (out->overhead_s > out->compute_s && out->overhead_s > out->memory_s)
        out->bound = TW_BOUND_OVERHEAD;
    else
        out->bound = out->compute_s >= out->memory_s ? TW_BOUND_COMPUTE : TW_BOUND_MEMORY;
    out->tile_m = t->m;
    out->tile_n = t->n;
    out->split_k = best.split_k;
    out->stream_k = best.stream_k;
    out->tiles = best.tiles;
    out->waves = best.waves;
    padded = (double)((s->m + t->m - 1) / t->m * t->m) * (double)((s->n + t->n - 1) / t->n * t->n);
    out->tile_eff = (double)s->m * (double)s->n / padded;
    /* stream-K spreads the work evenly: no wave quantization left */
    out->wave_eff = best.stream_k ? 1.0
                                  : (double)best.tiles / ((double)best.waves * (double)d->sm_count *
                                                          (double)t->ctas_per_sm);
    out->align_eff = x.align;
    out->align_bytes = 1 << tw_gemm__align_class(s);
    return TW_OK;
}

/* The time (s) and rate (FLOP/s) of a checked shape: tw_gemm__estimate_checked without the
 * result's other fields. */
int tw_gemm__time_checked(const tw_gemm_plan *p, const tw_gemm_shape *s, double *time_s, double *flop_rate,
                          const char **bad_field)
{
    shape_ctx x;
    candidate best;
    shape_setup(&x, p, s);
    choose(&x, &best);
    if (!finite_time(&best, &x)) {
        if (bad_field != NULL) *bad_field = "device.figures";
        return TW_ERANGE;
    }
    *time_s = best.time_s;
    if (flop_rate != NULL) *flop_rate = x.flops / best.time_s;
    return TW_OK;
}
