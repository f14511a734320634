/* fuzz_pass.c - libFuzzer target: the prepared device and the whole-pass entry points
 * (tw_gemm_prepare, tw_gemm_plan_estimate, tw_gemm_plan_estimate_many, tw_pass_validate,
 * tw_pass_estimate) on arbitrary ops and steps, and on plans tampered with after
 * tw_gemm_prepare (bytes flipped at arbitrary offsets). TW_OK must come with finite outputs;
 * nothing may read past an array, shift past a width or divide by zero (ASan, UBSan). */
#include "fuzz_input.h"

#define MAX_OPS 8
#define MAX_STEPS 16

/* an A100-like device with three tiles, as tests/c/tw_gemm_test.h's bare() plus a TMA tile */
static void device(tw_device *d)
{
    int i;
    memset(d, 0, sizeof *d);
    d->sm_count = 108;
    d->peak_flops = 312e12;
    d->compute_frac = 0.8;
    d->mem_bw = 1555e9;
    d->mem_frac = 0.9;
    d->write_frac = 0.9;
    d->l2_bytes = 40e6;
    d->max_split_k = 8;
    d->stream_k = 1;
    d->n_tiles = 3;
    d->tiles[0].m = 128, d->tiles[0].n = 128, d->tiles[0].eff = 1.0, d->tiles[0].ctas_per_sm = 1;
    d->tiles[1].m = 256, d->tiles[1].n = 128, d->tiles[1].eff = 0.95, d->tiles[1].ctas_per_sm = 1;
    d->tiles[1].tma = 1;
    d->tiles[2].m = 64, d->tiles[2].n = 64, d->tiles[2].eff = 0.7, d->tiles[2].ctas_per_sm = 4;
    for (i = 0; i < TW_ALIGN_CLASSES; i++) d->align_eff[i] = d->align_mem_eff[i] = i < 4 ? 0.5 : 1.0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    tw_device d;
    tw_gemm_plan plan;
    tw_pass_op ops[MAX_OPS];
    tw_pass_step steps[MAX_STEPS];
    tw_pass_result r;
    tw_gemm_result g;
    tw_gemm_shape shape;
    double op_s[MAX_OPS], t, rate;
    size_t n_ops, n_steps = 0, i, bad_index;
    const char *bad = NULL;
    int st, flips, f;

    device(&d);
    if (tw_gemm_prepare(&d, &plan, NULL) != TW_OK) abort();
    /* tamper: up to 3 bytes of the plan flipped */
    flips = fuzz_byte(&in) % 4;
    for (f = 0; f < flips; f++) {
        int hi = fuzz_byte(&in), lo = fuzz_byte(&in), x = fuzz_byte(&in);
        size_t at = ((size_t)(hi < 0 ? 0 : hi) << 8 | (size_t)(lo < 0 ? 0 : lo)) % sizeof plan;
        ((unsigned char *)&plan)[at] ^= (unsigned char)(x <= 0 ? 1 : x);
    }
    n_ops = (size_t)(fuzz_byte(&in) & 7) + 1;
    memset(ops, 0, sizeof ops);
    memset(steps, 0, sizeof steps);
    for (i = 0; i < n_ops; i++) {
        ops[i].count = fuzz_double(&in);
        ops[i].layer = (int)fuzz_int(&in);
        ops[i].steps = (int)(fuzz_byte(&in) & 3);
        ops[i].floor_s = fuzz_double(&in);
        if (n_steps + (size_t)ops[i].steps > MAX_STEPS) ops[i].steps = 0;
        n_steps += (size_t)ops[i].steps;
    }
    for (i = 0; i < n_steps; i++) {
        tw_pass_step *s = &steps[i];
        s->kind = (int)fuzz_int(&in);
        s->part = (int)fuzz_int(&in);
        s->gemm.m = fuzz_int(&in);
        s->gemm.n = fuzz_int(&in);
        s->gemm.k = fuzz_int(&in);
        s->gemm.batch = fuzz_int(&in);
        s->gemm.in_bytes = fuzz_elem_bytes(fuzz_int(&in));
        s->gemm.out_bytes = (int)fuzz_int(&in);
        s->gemm.w_bytes = (fuzz_byte(&in) & 1) ? fuzz_double(&in) : 0.0;
        s->bytes = fuzz_double(&in);
        s->bw = fuzz_double(&in);
        s->work = fuzz_double(&in);
        s->rate = fuzz_double(&in);
        s->sfu = fuzz_double(&in);
        s->sfu_rate = fuzz_double(&in);
    }
    st = tw_pass_validate(ops, n_ops, steps, n_steps, &bad_index, &bad);
    check_status(st, bad);
    bad = NULL;
    st = tw_pass_estimate(&plan, ops, n_ops, steps, n_steps, fuzz_double(&in), fuzz_double(&in), op_s, &r, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(finite_ge0(r.time_s) && finite_ge0(r.layer_s) && finite_ge0(r.gemm_s), "a non-finite pass total");
        check(r.layer_s <= r.time_s && r.gemm_s <= r.time_s * (1 + 1e-12), "a part above the pass total");
        for (i = 0; i < n_ops; i++) check(finite_ge0(op_s[i]) && op_s[i] >= ops[i].floor_s, "an op below its floor");
    }
    shape = steps[0].gemm;
    if (n_steps == 0) shape.m = shape.n = shape.k = shape.batch = 64, shape.in_bytes = shape.out_bytes = 2, shape.w_bytes = 0;
    bad = NULL;
    st = tw_gemm_plan_estimate(&plan, &shape, &g, &bad);
    check_status(st, bad);
    if (st == TW_OK) check(finite_gt0(g.time_s) && finite_gt0(g.flop_rate), "a non-finite prepared estimate");
    bad = NULL;
    st = tw_gemm_plan_estimate_many(&plan, &shape, 1, &t, &rate, &bad_index, &bad);
    check_status(st, bad);
    if (st == TW_OK) check(finite_gt0(t) && finite_gt0(rate), "a non-finite batched prepared estimate");
    return 0;
}
