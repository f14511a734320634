/* tw_gemm_plan.c - the GEMM model's entry points: device and shape validation, the prepared
 * device (tw_gemm_prepare) and the public estimates, which call the model in tw_gemm.c.
 * Sources are cited in tw_gemm.h. */
#include <math.h>
#include <stddef.h>

#include "tilewave.h"
#include "tw_gemm_internal.h"

static int positive(double x) { return isfinite(x) && x > 0.0; }
static int fraction(double x) { return isfinite(x) && x > 0.0 && x <= 1.0; }
static int nonneg(double x) { return isfinite(x) && x >= 0.0; }

int tw_device_validate(const tw_device *d, const char **bad_field)
{
    /* 61 lines, one function: one check per field, in struct order */
    const char *bad = NULL;
    int i, any_plain = 0;

    if (d == NULL) bad = "device";
    else if (d->sm_count < 1 || d->sm_count > 100000) bad = "device.sm_count";
    else if (!positive(d->peak_flops)) bad = "device.peak_flops";
    else if (!fraction(d->compute_frac)) bad = "device.compute_frac";
    else if (!positive(d->mem_bw)) bad = "device.mem_bw";
    else if (!fraction(d->mem_frac)) bad = "device.mem_frac";
    else if (!fraction(d->write_frac)) bad = "device.write_frac";
    else if (!(d->write_exposed >= 0.0 && d->write_exposed <= 1.0)) bad = "device.write_exposed";
    else if (!(d->write_exposed_non_tma >= 0.0 && d->write_exposed_non_tma <= 1.0))
        bad = "device.write_exposed_non_tma";
    else if (!(d->fill_stages >= 0.0 && d->fill_stages <= 64.0)) bad = "device.fill_stages";
    else if (!(d->drain_exposed >= 0.0 && d->drain_exposed <= 1.0)) bad = "device.drain_exposed";
    else if (!(d->write_sector_cost >= 0.0 && d->write_sector_cost <= 16.0)) bad = "device.write_sector_cost";
    else if (!nonneg(d->l2_bytes)) bad = "device.l2_bytes";
    else if (!nonneg(d->call_overhead_s)) bad = "device.call_overhead_s";
    else if (!nonneg(d->tma_overhead_s)) bad = "device.tma_overhead_s";
    else if (!nonneg(d->reduce_overhead_s)) bad = "device.reduce_overhead_s";
    else if (!nonneg(d->splitk_tma_latency_s)) bad = "device.splitk_tma_latency_s";
    else if (!nonneg(d->unsplit_reduce_m)) bad = "device.unsplit_reduce_m";
    else if (!nonneg(d->unsplit_reduce_n)) bad = "device.unsplit_reduce_n";
    else if (!nonneg(d->tile_latency_s)) bad = "device.tile_latency_s";
    else if (!nonneg(d->kstep_latency_s)) bad = "device.kstep_latency_s";
    else if (d->max_split_k < 1 || d->max_split_k > TW_MAX_SPLIT_K) bad = "device.max_split_k";
    else if (d->stream_k != 0 && d->stream_k != 1) bad = "device.stream_k";
    else if (d->split_k_any != 0 && d->split_k_any != 1) bad = "device.split_k_any";
    else if (!nonneg(d->streamk_fixup_s)) bad = "device.streamk_fixup_s";
    else if (d->n_tiles < 1 || d->n_tiles > TW_MAX_TILES) bad = "device.n_tiles";
    /* the TMA class where only N is off 16 bytes: its rate stays within the dtype's peak */
    else if (!(nonneg(d->n_off_tma_eff) && d->n_off_tma_eff * d->compute_frac <= 1.0))
        bad = "device.n_off_tma_eff";
    else if (!nonneg(d->n_off_tma_max_mn)) bad = "device.n_off_tma_max_mn";
    else if (!nonneg(d->n_off_tma_overhead_s)) bad = "device.n_off_tma_overhead_s";
    else if (d->n_off_tma_tile < 0 || d->n_off_tma_tile >= d->n_tiles) bad = "device.n_off_tma_tile";
    for (i = 0; bad == NULL && d != NULL && i < d->n_tiles; i++) {
        const tw_tile *t = &d->tiles[i];
        if (t->m < 1 || t->m > 4096) bad = "device.tiles.m";
        else if (t->n < 1 || t->n > 4096) bad = "device.tiles.n";
        else if (!fraction(t->eff)) bad = "device.tiles.eff";
        else if (t->ctas_per_sm < 1 || t->ctas_per_sm > 32) bad = "device.tiles.ctas_per_sm";
        else if (t->tma != 0 && t->tma != 1) bad = "device.tiles.tma";
        else if (t->tma == 0) any_plain = 1;
    }
    if (bad == NULL && !any_plain) bad = "device.tiles.tma";
    if (d == NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return TW_EINVAL;
    }
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
/* A and B: FP4's half byte too (Blackwell's FP4 tensor cores) */
static int in_size_ok(double b) { return b == 0.5 || b == 1.0 || b == 2.0 || b == 4.0 || b == 8.0; }

int tw_gemm__check_shape(const tw_gemm_shape *s, const char **bad_field)
{
    const char *bad = NULL;
    int status = TW_EINVAL;

    if (s == NULL) bad = "shape";
    else if (s->m < 1) bad = "m";
    else if (s->n < 1) bad = "n";
    else if (s->k < 1) bad = "k";
    else if (s->batch < 1) bad = "batch";
    else if (!in_size_ok(s->in_bytes)) bad = "in_bytes";
    else if (!elem_size_ok(s->out_bytes)) bad = "out_bytes";
    else if (!(s->w_bytes == 0.0 || (s->w_bytes > 0.0 && s->w_bytes <= 8.0))) bad = "w_bytes";
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

static int log2_exact(int64_t x)
{
    return x > 0 && (x & (x - 1)) == 0 ? __builtin_ctzll((unsigned long long)x) : -1;
}

/* The per-tile constants of a valid device (no alignment class yet). */
void tw_gemm__prepare_tiles(tw_gemm_plan *p, const tw_device *d)
{
    int i;
    p->dev = *d;
    for (i = 0; i < d->n_tiles; i++) {
        const tw_tile *t = &d->tiles[i];
        tw_tile_plan *q = &p->tiles[i];
        q->slots = (int64_t)d->sm_count * t->ctas_per_sm;
        q->shift_m = log2_exact(t->m);
        q->shift_n = log2_exact(t->n);
        q->flops_mn = 2.0 * (double)t->m * (double)t->n;
        q->rate = d->peak_flops * d->compute_frac * t->eff;
        q->inv_rate = 1.0 / q->rate;
        q->rows0 = floor(sqrt((double)q->slots * (double)t->n / (double)t->m));
    }
}

/* The constants of alignment class c (after tw_gemm__prepare_tiles). */
void tw_gemm__prepare_class(tw_gemm_plan *p, int c)
{
    const tw_device *d = &p->dev;
    int i;
    /* N_OFF_TMA_CLASS: n_off_tma_eff (1 where the rule is off: never used then) at 16 bytes' bandwidth */
    double eff = c < TW_ALIGN_CLASSES ? d->align_eff[c] : d->n_off_tma_eff > 0.0 ? d->n_off_tma_eff : 1.0;
    double mem = d->align_mem_eff[c < TW_ALIGN_CLASSES ? c : TMA_CLASS];
    for (i = 0; i < d->n_tiles; i++)
        p->tiles[i].cta_rate[c] =
            p->tiles[i].rate * eff / ((double)d->sm_count * (double)d->tiles[i].ctas_per_sm);
    p->bw[c] = d->mem_bw * d->mem_frac * mem;
    p->bw_w[c] = d->mem_bw * d->write_frac * mem;
    p->inv_align[c] = 1.0 / eff;
}

int tw_gemm_prepare(const tw_device *d, tw_gemm_plan *p, const char **bad_field)
{
    int status, c;

    if (p == NULL) {
        if (bad_field != NULL) *bad_field = "plan";
        return TW_EINVAL;
    }
    p->magic = 0;
    status = tw_device_validate(d, bad_field);
    if (status != TW_OK) return status;
    tw_gemm__prepare_tiles(p, d);
    for (c = 0; c <= N_OFF_TMA_CLASS; c++) tw_gemm__prepare_class(p, c);
    p->magic = PLAN_MAGIC;
    return TW_OK;
}

/* A plan tw_gemm_prepare filled and nobody changed where it matters: the magic, a device
 * that validates, and the per-tile integers the model shifts, divides and indexes by
 * (slots, shifts) consistent with it. A tampered figure elsewhere gives the estimate of
 * those figures, still checked finite. About as costly as validating a device. */
int tw_gemm__plan_ok(const tw_gemm_plan *p, const char **bad_field)
{
    int i;
    if (p == NULL || p->magic != PLAN_MAGIC || tw_device_validate(&p->dev, NULL) != TW_OK) goto bad;
    for (i = 0; i < p->dev.n_tiles; i++) {
        const tw_tile *t = &p->dev.tiles[i];
        const tw_tile_plan *q = &p->tiles[i];
        if (q->slots != (int64_t)p->dev.sm_count * t->ctas_per_sm || q->shift_m != log2_exact(t->m) ||
            q->shift_n != log2_exact(t->n))
            goto bad;
    }
    return 1;
bad:
    if (bad_field != NULL) *bad_field = "plan";
    return 0;
}
#define plan_ok tw_gemm__plan_ok

int tw_gemm_plan_estimate(const tw_gemm_plan *p, const tw_gemm_shape *s, tw_gemm_result *out,
                          const char **bad_field)
{
    int status;
    if (!plan_ok(p, bad_field)) return TW_EINVAL;
    status = tw_gemm__check_shape(s, bad_field);
    if (status == TW_OK && out == NULL) {
        if (bad_field != NULL) *bad_field = "out";
        return TW_EINVAL;
    }
    return status != TW_OK ? status : tw_gemm__estimate_checked(p, s, out, bad_field);
}

int tw_gemm_plan_estimate_many(const tw_gemm_plan *p, const tw_gemm_shape *shapes, size_t count,
                               double *time_s, double *flop_rate, size_t *bad_index,
                               const char **bad_field)
{
    size_t i;

    if (!plan_ok(p, bad_field)) return TW_EINVAL;
    if (count > 0 && (shapes == NULL || time_s == NULL)) {
        if (bad_field != NULL) *bad_field = shapes == NULL ? "shapes" : "time_s pointer";
        return TW_EINVAL;
    }
    for (i = 0; i < count; i++) {
        int status = tw_gemm__check_shape(&shapes[i], bad_field);
        if (status == TW_OK)
            status = tw_gemm__time_checked(p, &shapes[i], &time_s[i], flop_rate != NULL ? &flop_rate[i] : NULL,
                                           bad_field);
        if (status != TW_OK) {
            if (bad_index != NULL) *bad_index = i;
            return status;
        }
    }
    return TW_OK;
}

int tw_gemm_estimate(const tw_device *d, const tw_gemm_shape *s, tw_gemm_result *out,
                     const char **bad_field)
{
    /* one shape: prepare only its alignment class */
    tw_gemm_plan p;
    int status = tw_device_validate(d, bad_field);
    if (status != TW_OK) return status;
    status = tw_gemm__check_shape(s, bad_field);
    if (status != TW_OK) return status;
    if (out == NULL) {
        if (bad_field != NULL) *bad_field = "out";
        return TW_EINVAL;
    }
    tw_gemm__prepare_tiles(&p, d);
    tw_gemm__prepare_class(&p, tw_gemm__shape_class(d, s));
    return tw_gemm__estimate_checked(&p, s, out, bad_field);
}

int tw_gemm_estimate_many(const tw_device *d, const tw_gemm_shape *shapes, size_t count,
                          double *time_s, double *flop_rate, size_t *bad_index,
                          const char **bad_field)
{
    tw_gemm_plan p;
    int status = tw_gemm_prepare(d, &p, bad_field);
    return status != TW_OK ? status
                           : tw_gemm_plan_estimate_many(&p, shapes, count, time_s, flop_rate, bad_index, bad_field);
}
