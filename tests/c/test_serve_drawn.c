/* test_serve_drawn.c - tw_serve_draw_lengths and tw_serve_workload.drawn: lengths drawn once for many
 * runs are used only for the workload they were drawn for, and a run that uses them is the run that
 * draws its own, bit for bit. Timings worked by hand as in test_serve_stop.c: one sequence at a time
 * (max_num_seqs 1), a prefill step of 10 tokens P = lin(10) + A(10) + lm + host, then two decode
 * steps of D = 2 ms; request i's first token at i (P + 4 ms) + P. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tilewave.h"
#include "tw_test.h"
#include "tw_serve_test.h"

#define N 10

typedef struct {
    tw_serve_workload w;
    tw_serve_policy p;
    tw_serve_costs c;
    tw_serve_result r;
    void *work;
} fixture;

/* N requests at t = 0, one sequence at a time; prompts lognormal around 50 tokens in [20, 200],
 * outputs in [2, 8] */
static void setup(fixture *f)
{
    memset(f, 0, sizeof *f);
    serve_test_costs(&f->c);
    serve_test_policy(&f->p, 1, 1);
    f->w.arrival = TW_ARRIVE_OFFLINE;
    f->w.requests = N;
    f->w.seed = 7;
    f->w.isl.kind = TW_LEN_LOGNORMAL;
    f->w.isl.a = log(50.0);
    f->w.isl.b = 0.5;
    f->w.isl.lo = 20;
    f->w.isl.hi = 200;
    f->w.osl.kind = TW_LEN_LOGNORMAL;
    f->w.osl.a = log(4.0);
    f->w.osl.b = 0.3;
    f->w.osl.lo = 2;
    f->w.osl.hi = 8;
    f->work = malloc(tw_serve_workspace_bytes(&f->w, &f->p, 0));
    assert_non_null(f->work);
}

static int run(fixture *f)
{
    return tw_serve_run(&f->w, &f->p, &f->c, 0.0, 0.0, f->work, tw_serve_workspace_bytes(&f->w, &f->p, 0), NULL, 0,
                        &f->r, NULL);
}

static tw_serve_record record(const fixture *f, size_t i)
{
    tw_serve_record rec;
    assert_int_equal(TW_OK, tw_serve_request(f->work, i, &rec));
    return rec;
}

/* lengths handed in for this workload are the run's: 10-token prompts and 3-token outputs given
   where the lognormal never draws a 10 (lo = 20), so every request's first token is the hand-worked
   one of 10 + 3 tokens */
static void test_drawn_lengths_are_used(void **state)
{
    fixture f;
    tw_serve_drawn d;
    double isl[N], osl[N];
    size_t i;
    (void)state;
    setup(&f);
    for (i = 0; i < N; i++) isl[i] = 10, osl[i] = 3;
    d.n = N; d.seed = 7; d.isl = f.w.isl; d.osl = f.w.osl; d.isl_v = isl; d.osl_v = osl;
    f.w.drawn = &d;
    assert_int_equal(TW_OK, run(&f));
    for (i = 0; i < N; i++) {
        tw_serve_record r = record(&f, i);
        assert_close(r.input_tokens, 10, 0);
        assert_close(r.output_tokens, 3, 0);
        assert_close(r.first_token_s, (double)i * CYCLE + PREFILL, 1e-12);
    }
    free(f.work);
}

/* lengths drawn for another seed, other parameters or fewer requests are not this run's: it draws
   its own (prompts in [20, 200], never the 10 handed in) */
static void test_other_lengths_ignored(void **state)
{
    fixture f;
    tw_serve_drawn d;
    double isl[N], osl[N];
    size_t i, k;
    (void)state;
    setup(&f);
    for (i = 0; i < N; i++) isl[i] = 10, osl[i] = 3;
    for (k = 0; k < 4; k++) {
        d.n = N; d.seed = 7; d.isl = f.w.isl; d.osl = f.w.osl; d.isl_v = isl; d.osl_v = osl;
        if (k == 0) d.seed = 8;
        if (k == 1) d.isl.b = 0.6;
        if (k == 2) d.osl.hi = 9;
        if (k == 3) d.n = N - 1;
        f.w.drawn = &d;
        assert_int_equal(TW_OK, run(&f));
        for (i = 0; i < N; i++) {
            tw_serve_record r = record(&f, i);
            assert_true(r.input_tokens >= 20 && r.input_tokens <= 200);
            assert_true(r.output_tokens >= 2 && r.output_tokens <= 8);
        }
    }
    free(f.work);
}

/* tw_serve_draw_lengths draws what the run draws: a run given them is the run without, bit for bit;
   fixed lengths are their value */
static void test_draw_matches_run(void **state)
{
    fixture f;
    tw_serve_drawn d;
    tw_serve_result own;
    double isl[2 * N], osl[2 * N];
    size_t i;
    (void)state;
    setup(&f);
    assert_int_equal(TW_OK, run(&f));
    own = f.r;
    assert_int_equal(TW_OK, tw_serve_draw_lengths(&f.w, 2 * N, isl, osl, &d, NULL));
    for (i = 0; i < N; i++) {
        tw_serve_record r = record(&f, i);
        assert_close(isl[i], r.input_tokens, 0);
        assert_close(osl[i], r.output_tokens, 0);
    }
    f.w.drawn = &d;
    assert_int_equal(TW_OK, run(&f));
    assert_memory_equal(&own, &f.r, sizeof own);
    f.w.isl.kind = TW_LEN_FIXED;
    f.w.isl.a = 37;
    assert_int_equal(TW_OK, tw_serve_draw_lengths(&f.w, 3, isl, osl, &d, NULL));
    assert_close(isl[0], 37, 0);
    assert_close(isl[2], 37, 0);
    free(f.work);
}

static void test_draw_lengths_validated(void **state)
{
    fixture f;
    tw_serve_drawn d;
    double isl[4], osl[4];
    const char *bad = NULL;
    (void)state;
    setup(&f);
    assert_int_equal(TW_EINVAL, tw_serve_draw_lengths(&f.w, 0, isl, osl, &d, &bad));
    assert_string_equal("n", bad);
    f.w.osl.kind = TW_LEN_TRACE; /* a trace is given, not drawn */
    assert_int_equal(TW_EINVAL, tw_serve_draw_lengths(&f.w, 4, isl, osl, &d, &bad));
    assert_string_equal("workload.osl", bad);
    f.w.osl.kind = TW_LEN_LOGNORMAL;
    f.w.isl.b = -1; /* a negative sigma */
    assert_int_equal(TW_EINVAL, tw_serve_draw_lengths(&f.w, 4, isl, osl, &d, &bad));
    assert_string_equal("workload.isl", bad);
    free(f.work);
}

/* workload.max_total: a request drawn past it is dropped and another drawn (a sampler's filter).
   Fixed 10 + 3 tokens: a limit of 13 drops none; 12 leaves nothing to draw (TW_ERANGE after 1000
   tries); lognormal prompts around 50 in [20, 200] under a limit of 60 tokens: every request at most
   60, and the ones past it counted */
static void test_max_total_drops_long_requests(void **state)
{
    fixture f;
    const char *bad = NULL;
    size_t i;
    (void)state;
    setup(&f);
    f.w.isl.kind = TW_LEN_FIXED; f.w.isl.a = 10;
    f.w.osl.kind = TW_LEN_FIXED; f.w.osl.a = 3;
    f.w.max_total = 13;
    assert_int_equal(TW_OK, run(&f));
    assert_close(f.r.dropped, 0, 0);
    assert_close(record(&f, 0).first_token_s, PREFILL, 1e-12);
    f.w.max_total = 12;
    assert_int_equal(TW_ERANGE, tw_serve_run(&f.w, &f.p, &f.c, 0.0, 0.0, f.work,
                                             tw_serve_workspace_bytes(&f.w, &f.p, 0), NULL, 0, &f.r, &bad));
    assert_string_equal("workload.max_total", bad);
    free(f.work);
    setup(&f); /* lognormal again */
    f.w.max_total = 60;
    assert_int_equal(TW_OK, run(&f));
    for (i = 0; i < N; i++) {
        tw_serve_record r = record(&f, i);
        assert_true(r.input_tokens + r.output_tokens <= 60);
    }
    /* exp(ln 50 + 0.5 z) + about 4 passes 60 for z above about 0.2: some of N = 10 draws with seed 7 */
    assert_true(f.r.dropped >= 1.0);
    /* out of range */
    f.w.max_total = 1;
    assert_int_equal(TW_EINVAL, tw_serve_run(&f.w, &f.p, &f.c, 0.0, 0.0, f.work,
                                             tw_serve_workspace_bytes(&f.w, &f.p, 0), NULL, 0, &f.r, &bad));
    assert_string_equal("workload.max_total", bad);
    free(f.work);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drawn_lengths_are_used),
        cmocka_unit_test(test_other_lengths_ignored),
        cmocka_unit_test(test_draw_matches_run),
        cmocka_unit_test(test_draw_lengths_validated),
        cmocka_unit_test(test_max_total_drops_long_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
