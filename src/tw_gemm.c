/* tw_gemm.c - GEMM / batched GEMM time from tile quantization, wave
 * quantization, tensor-core alignment and the DRAM traffic of the tiled kernel.
 * Sources are cited in tw_gemm.h at tw_gemm_estimate(). */
#include <math.h>
#include <stddef.h>

#include "tilewave.h"

/* The first alignment class TMA accepts: 16-byte global strides (CUDA Driver API,
 * cuTensorMapEncodeTiled), also the widest vector load of the other kernels. */
#define TMA_CLASS 4

static int positive(double x) { return isfinite(x) && x > 0.0; }
static int fraction(double x) { return isfinite(x) && x > 0.0 && x <= 1.0; }
static int nonneg(double x) { return isfinite(x) && x >= 0.0; }
static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

int tw_device_validate(const tw_device *d, const char **bad_field)
{
    const char *bad = NULL;
    int i, any_plain = 0;

    if (d->sm_count < 1 || d->sm_count > 100000) bad = "device.sm_count";
    else if (!positive(d->peak_flops)) bad = "device.peak_flops";
    else if (!fraction(d->compute_frac)) bad = "device.compute_frac";
    else if (!positive(d->mem_bw)) bad = "device.mem_bw";
    else if (!fraction(d->mem_frac)) bad = "device.mem_frac";
    else if (!fraction(d->write_frac)) bad = "device.write_frac";
    else if (!(d->write_exposed >= 0.0 && d->write_exposed <= 1.0)) bad = "device.write_exposed";
    else if (!nonneg(d->l2_bytes)) bad = "device.l2_bytes";
    else if (!nonneg(d->call_overhead_s)) bad = "device.call_overhead_s";
    else if (!nonneg(d->reduce_overhead_s)) bad = "device.reduce_overhead_s";
    else if (!nonneg(d->tile_latency_s)) bad = "device.tile_latency_s";
    else if (!nonneg(d->kstep_latency_s)) bad = "device.kstep_latency_s";
    else if (d->max_split_k < 1 || d->max_split_k > 64) bad = "device.max_split_k";
    else if (d->stream_k != 0 && d->stream_k != 1) bad = "device.stream_k";
    else if (!nonneg(d->streamk_fixup_s)) bad = "device.streamk_fixup_s";
    else if (d->n_tiles < 1 || d->n_tiles > TW_MAX_TILES) bad = "device.n_tiles";
    for (i = 0; bad == NULL && i < d->n_tiles; i++) {
        const tw_tile *t = &d->tiles[i];
        if (t->m < 1 || t->m > 4096) bad = "device.tiles.m";
        else if (t->n < 1 || t->n > 4096) bad = "device.tiles.n";
        else if (!fraction(t->eff)) bad = "device.tiles.eff";
        else if (t->ctas_per_sm < 1 || t->ctas_per_sm > 32) bad = "device.tiles.ctas_per_sm";
        else if (t->tma != 0 && t->tma != 1) bad = "device.tiles.tma";
        else if (t->tma == 0) any_plain = 1;
    }
    if (bad == NULL && !any_plain) bad = "device.tiles.tma";
    for (i = 0; bad == NULL && i < TW_ALIGN_CLASSES; i++)
        if (!fraction(d->align_eff[i])) bad = "device.align_eff";
        else if (!fraction(d->align_mem_eff[i])) bad = "device.align_mem_eff";
    if (bad != NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return TW_EINVAL;
    }
    return TW_OK;
}

static int elem_size_ok(int b) { return b == 1 || b == 2 || b == 4 || b == 8; }

static int check_shape(const tw_gemm_shape *s, const char **bad_field)
{
    const char *bad = NULL;
    int status = TW_EINVAL;

    if (s->m < 1) bad = "m";
    else if (s->n < 1) bad = "n";
    else if (s->k < 1) bad = "k";
    else if (s->batch < 1) bad = "batch";
    else if (!elem_size_ok(s->in_bytes)) bad = "in_bytes";
    else if (!elem_size_ok(s->out_bytes)) bad = "out_bytes";
    else {
        status = TW_ERANGE;
        if (s->m > TW_DIM_MAX) bad = "m";
        else if (s->n > TW_DIM_MAX) bad = "n";
        else if (s->k > TW_DIM_MAX) bad = "k";
        else if (s->batch > TW_DIM_MAX) bad = "batch";
        else if ((double)s->m * (double)s->n * (double)s->batch > TW_OUTPUT_MAX) bad = "m*n*batch";
    }
    if (bad != NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return status;
    }
    return TW_OK;
}

/* Alignment class: log2 of the coarsest power of two (in bytes) dividing
 * N and K times the element size, capped at 128 bytes (class 7). N and K are
 * the leading dimensions of row-major A[MxK], B[KxN] and C[MxN]; M is a row
 * count, never a stride, and enters only through tile quantization. */
static int align_class(const tw_gemm_shape *s)
{
    uint64_t bits = (uint64_t)(s->n | s->k);
    int cls = __builtin_ctzll(bits) + __builtin_ctz((unsigned)s->in_bytes);
    return cls < TW_ALIGN_CLASSES - 1 ? cls : TW_ALIGN_CLASSES - 1;
}

/* One evaluated kernel configuration. */
typedef struct {
    double time_s, compute_s, memory_s, dram_bytes;
    double hidden_s, exposed_s, reduce_s; /* reads + hidden writes, exposed writes, reduction */
    int64_t tiles, waves;
    int tile, split_k, stream_k;
} candidate;

/* time = overhead + max(compute, reads + hidden writes) + exposed writes + reduction */
static double candidate_time(const tw_device *d, const candidate *c)
{
    return d->call_overhead_s + (c->compute_s > c->hidden_s ? c->compute_s : c->hidden_s) + c->exposed_s +
           c->reduce_s;
}

/*
 * DRAM bytes read for A and B by one matrix of the batch. Operands that fit in
 * L2 together are read once. Otherwise tiles resident in one wave share their
 * A rows and B columns through L2 (rasterized, roughly square footprint), so
 * every wave reads its own panels: waves_per_matrix * (rows*tm + cols*tn)*K.
 */
static double operand_traffic(const tw_device *d, const tw_gemm_shape *s, int64_t tm, int64_t tn,
                              int64_t grid_m, int64_t grid_n, int64_t slots)
{
    double in = (double)s->in_bytes, k = (double)s->k;
    double a = (double)s->m * k * in, b = k * (double)s->n * in;
    double per_matrix = (double)(grid_m * grid_n);
    double w, rows, cols, waves, panel_a, panel_b, streamed;

    if (a + b <= d->l2_bytes || per_matrix <= (double)slots) return a + b;
    /* a roughly square block of w tiles, in elements; clamp to the grid and
       give what one side cannot use to the other */
    w = (double)slots;
    rows = clampd(floor(sqrt(w * (double)tn / (double)tm)), 1.0, (double)grid_m);
    cols = clampd(floor(w / rows), 1.0, (double)grid_n);
    rows = clampd(floor(w / cols), 1.0, (double)grid_m);
    waves = ceil(per_matrix / (rows * cols));
    panel_a = rows * (double)tm * k * in;
    panel_b = cols * (double)tn * k * in;
    if (panel_a > a) panel_a = a;
    if (panel_b > b) panel_b = b;
    streamed = waves * (panel_a + panel_b);
    return streamed > a + b ? streamed : a + b;
}

/* The data-parallel (or split-K) candidate of tile ti into *c. When sk is not NULL and the tiles
 * leave the one wave partly empty, also the stream-K candidate into *sk, from the same traffic,
 * and returns 1; otherwise returns 0. */
static inline int evaluate(const tw_device *d, const tw_gemm_shape *s, int ti, int split, double align,
                    double align_mem, double loads, candidate *c, candidate *sk)
{
    const tw_tile *t = &d->tiles[ti];
    int64_t grid_m = (s->m + t->m - 1) / t->m;
    int64_t grid_n = (s->n + t->n - 1) / t->n;
    int64_t slots = (int64_t)d->sm_count * t->ctas_per_sm;
    int64_t k_split = (s->k + split - 1) / split;
    int64_t tiles = grid_m * grid_n * s->batch * split;
    int64_t resident = (tiles + d->sm_count - 1) / d->sm_count;
    double batch = (double)s->batch, mn = (double)s->m * (double)s->n;
    double tile_flops = 2.0 * (double)t->m * (double)t->n * (double)k_split;
    double sm_rate = d->peak_flops * d->compute_frac * t->eff * align; /* over all SMs */
    double t_math, t_loop, t_tile;
    double bw = d->mem_bw * d->mem_frac * align_mem, bw_w = d->mem_bw * d->write_frac * align_mem;
    double kernel_bytes, reduce_bytes = 0.0, kernel_s, write_s;

    if (resident > t->ctas_per_sm) resident = t->ctas_per_sm;
    t_math = tile_flops / (sm_rate / ((double)d->sm_count * (double)resident));
    t_loop = ceil((double)k_split * (double)s->in_bytes / 64.0) * d->kstep_latency_s * loads;
    t_tile = (t_math > t_loop ? t_math : t_loop) + d->tile_latency_s;
    c->tiles = tiles;
    c->waves = (c->tiles + slots - 1) / slots;
    c->compute_s = (double)c->waves * t_tile;
    kernel_bytes = batch * operand_traffic(d, s, t->m, t->n, grid_m, grid_n, slots);
    kernel_s = kernel_bytes / bw;
    c->reduce_s = 0.0;
    if (split > 1) {
        /* fp32 partial sums written by the GEMM, read back by the reduction, which writes C */
        double partials = batch * (double)split * mn * 4.0, out = batch * mn * (double)s->out_bytes;
        kernel_bytes += partials;
        write_s = partials / bw_w;
        reduce_bytes = partials + out;
        c->reduce_s = partials / bw + out / bw_w + d->reduce_overhead_s;
    } else {
        double out = batch * mn * (double)s->out_bytes;
        kernel_bytes += out;
        write_s = out / bw_w;
    }
    c->dram_bytes = kernel_bytes + reduce_bytes;
    /* operand reads stream under the main loop; C leaves in each tile's epilogue, after its main
       loop, and write_exposed of that time is not hidden */
    c->memory_s = kernel_s + write_s + c->reduce_s;
    c->hidden_s = kernel_s + (1.0 - d->write_exposed) * write_s;
    c->exposed_s = d->write_exposed * write_s;
    c->time_s = candidate_time(d, c);
    c->tile = ti;
    c->split_k = split;
    c->stream_k = 0;
    if (sk == NULL || tiles >= slots) return 0;
    {
        /* stream-K: a persistent grid of at most `slots` CTAs, each tile dealt to at most two of
           them, every CTA at full residency: each runs an even share of all tiles' main loops,
           then the partial tiles are fixed up (Osama et al. 2023, Stream-K, Sec. 4) */
        int64_t grid = slots < 2 * tiles ? slots : 2 * tiles;
        double t_math_sk = tile_flops / (sm_rate / ((double)d->sm_count * (double)t->ctas_per_sm));
        double t_tile_sk = (t_math_sk > t_loop ? t_math_sk : t_loop) + d->tile_latency_s;
        *sk = *c;
        sk->compute_s = (double)tiles * t_tile_sk / (double)grid + d->streamk_fixup_s;
        sk->time_s = candidate_time(d, sk);
        sk->stream_k = 1;
        return 1;
    }
}

/* A usable estimate: positive, finite time and rate (absurd device figures, e.g. a bandwidth of
 * 1e-300 byte/s or a latency near DBL_MAX, give infinite or zero times). */
static int finite_time(const candidate *c, const tw_gemm_shape *s)
{
    double rate = 2.0 * (double)s->m * (double)s->n * (double)s->k * (double)s->batch / c->time_s;
    return isfinite(c->time_s) && c->time_s > 0.0 && isfinite(rate) && rate > 0.0 &&
           isfinite(c->compute_s) && isfinite(c->memory_s);
}

/* Fastest candidate over the tiles the alignment allows and, where one wave is not filled,
 * split-K and stream-K. */
static void choose(const tw_device *d, const tw_gemm_shape *s, int cls, candidate *best)
{
    candidate c;
    int ti, split, have = 0;
    double align = d->align_eff[cls], align_mem = d->align_mem_eff[cls];
    /* below 16-byte alignment a main-loop stage issues 16/alignment loads where one 16-byte
       vector (or one TMA copy) would do */
    double loads = cls < TMA_CLASS ? (double)(16 >> cls) : 1.0;

    best->time_s = INFINITY;
    for (ti = 0; ti < d->n_tiles; ti++) {
        const tw_tile *t = &d->tiles[ti];
        int64_t slots = (int64_t)d->sm_count * t->ctas_per_sm;
        candidate sk;
        int has_sk;
        /* below 16 bytes only the non-TMA kernels run (tw_device_validate keeps one such tile) */
        if (t->tma && cls < TMA_CLASS) continue;
        /* stream-K: the TMA kernels' */
        has_sk = evaluate(d, s, ti, 1, align, align_mem, loads, &c, d->stream_k && t->tma ? &sk : NULL);
        /* the first candidate is always kept, so best->tile is valid even when every time is
         * infinite (absurd device figures); the caller rejects a non-finite best */
        if (!have || c.time_s < best->time_s) *best = c;
        have = 1;
        if (has_sk && sk.time_s < best->time_s) *best = sk;
        /* split-K only fills an unfilled wave; keep >= 64 of K per split */
        for (split = 2; split <= d->max_split_k && c.tiles * split <= slots && s->k / split >= 64;
             split *= 2) {
            candidate cs;
            evaluate(d, s, ti, split, align, align_mem, loads, &cs, NULL);
            if (cs.time_s < best->time_s) *best = cs;
        }
    }
}

int tw_gemm_estimate(const tw_device *d, const tw_gemm_shape *s, tw_gemm_result *out,
                     const char **bad_field)
{
    int status = tw_device_validate(d, bad_field);
    candidate best;
    const tw_tile *t;
    int cls;
    double padded;

    if (status != TW_OK) return status;
    status = check_shape(s, bad_field);
    if (status != TW_OK) return status;

    cls = align_class(s);
    choose(d, s, cls, &best);
    if (!finite_time(&best, s)) {
        if (bad_field != NULL) *bad_field = "device.figures";
        return TW_ERANGE;
    }
    t = &d->tiles[best.tile];

    out->time_s = best.time_s;
    out->flops = 2.0 * (double)s->m * (double)s->n * (double)s->k * (double)s->batch;
    out->flop_rate = out->flops / best.time_s;
    out->bytes = (double)s->batch * (((double)s->m * (double)s->k + (double)s->k * (double)s->n) *
                                         (double)s->in_bytes +
                                     (double)s->m * (double)s->n * (double)s->out_bytes);
    out->dram_bytes = best.dram_bytes;
    out->intensity = out->flops / out->bytes;
    out->compute_s = best.compute_s;
    out->memory_s = best.memory_s;
    out->overhead_s = d->call_overhead_s;
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
    out->align_eff = d->align_eff[cls];
    out->align_bytes = 1 << cls;
    return TW_OK;
}

int tw_gemm_estimate_many(const tw_device *d, const tw_gemm_shape *shapes, size_t count,
                          double *time_s, double *flop_rate, size_t *bad_index,
                          const char **bad_field)
{
    size_t i;
    int status = tw_device_validate(d, bad_field);

    if (status != TW_OK) return status;
    for (i = 0; i < count; i++) {
        const tw_gemm_shape *s = &shapes[i];
        candidate best;
        status = check_shape(s, bad_field);
        if (status != TW_OK) {
            if (bad_index != NULL) *bad_index = i;
            return status;
        }
        choose(d, s, align_class(s), &best);
        if (!finite_time(&best, s)) {
            if (bad_index != NULL) *bad_index = i;
            if (bad_field != NULL) *bad_field = "device.figures";
            return TW_ERANGE;
        }
        time_s[i] = best.time_s;
        if (flop_rate != NULL)
            flop_rate[i] =
                2.0 * (double)s->m * (double)s->n * (double)s->k * (double)s->batch / best.time_s;
    }
    return TW_OK;
}
