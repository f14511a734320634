/* test_serve_stop.c - tw_serve_policy.stop_percentile: a run stops exactly when its measured
 * requests decide that the SLO fails at the percentile, and a run it does not stop is the whole run,
 * bit for bit. Worked by hand on one sequence at a time (max_num_seqs 1), so every request's times
 * are known: a prefill step of 10 tokens P = lin(10) + A(10) + lm + host, then two decode steps of
 * D = 2 ms (lin(1) + lm + host = 1.601 ms < D), and the next request starts after: request i's TTFT is
 * i (P + 4 ms) + P and its TPOT 2 ms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tilewave.h"
#include "tw_test.h"
#include "tw_serve_test.h"


typedef struct {
    tw_serve_workload w;
    tw_serve_policy p;
    tw_serve_costs c;
    tw_serve_result r;
    void *work;
} fixture;

/* 10 requests of 10 + 3 tokens at t = 0, one sequence at a time */
static void setup(fixture *f)
{
    memset(f, 0, sizeof *f);
    serve_test_costs(&f->c);
    serve_test_policy(&f->p, 1, 1);
    f->w.arrival = TW_ARRIVE_OFFLINE;
    f->w.requests = 10;
    f->w.isl.kind = TW_LEN_FIXED;
    f->w.isl.a = 10;
    f->w.osl.kind = TW_LEN_FIXED;
    f->w.osl.a = 3;
    f->work = malloc(tw_serve_workspace_bytes(&f->w, &f->p, 0));
    assert_non_null(f->work);
}

static int run(fixture *f, double ttft, double tpot, const char **bad)
{
    return tw_serve_run(&f->w, &f->p, &f->c, ttft, tpot, f->work, tw_serve_workspace_bytes(&f->w, &f->p, 0), NULL, 0,
                        &f->r, bad);
}

static double first_token(const fixture *f, size_t i)
{
    tw_serve_record rec;
    assert_int_equal(TW_OK, tw_serve_request(f->work, i, &rec));
    return rec.first_token_s;
}

static void test_stops_when_ttft_decided(void **state)
{
    fixture f;
    (void)state;
    setup(&f);
    /* the whole run: TTFT p50 at position 4.5 of 10, between requests 4 and 5, both past 10 ms */
    assert_int_equal(TW_OK, run(&f, 10e-3, 0.0, NULL));
    assert_close(f.r.slo_failed, 0, 0);
    assert_close(f.r.ttft_s.p50, 4.5 * CYCLE + PREFILL, 1e-12);
    assert_true(f.r.ttft_s.p50 > 10e-3);
    /* p50 of 10 reads order statistic floor(4.5) = 4: 10 - 4 = 6 TTFTs past 10 ms decide it. Requests 0
       (1.6 ms) and 1 (7.2 ms) meet it, 2..7 do not: the run stops at request 7's first token */
    f.p.stop_percentile = 50;
    assert_int_equal(TW_OK, run(&f, 10e-3, 0.0, NULL));
    assert_close(f.r.slo_failed, 1, 0);
    assert_close(f.r.ttft_s.p50, 0, 0);
    assert_close(f.r.requests, 0, 0);
    assert_close(first_token(&f, 7), 7 * CYCLE + PREFILL, 1e-12);
    assert_true(first_token(&f, 8) < 0.0);
    /* p90 reads order statistic floor(8.1) = 8: 2 of them decide it, requests 2 and 3 */
    f.p.stop_percentile = 90;
    assert_int_equal(TW_OK, run(&f, 10e-3, 0.0, NULL));
    assert_close(f.r.slo_failed, 1, 0);
    assert_close(first_token(&f, 3), 3 * CYCLE + PREFILL, 1e-12);
    assert_true(first_token(&f, 4) < 0.0);
    free(f.work);
}

static void test_stops_when_tpot_decided(void **state)
{
    fixture f;
    (void)state;
    setup(&f);
    /* every TPOT is 2 ms, past 1.9 ms: p99 (order statistic 8) is decided by 2, requests 0 and 1 */
    f.p.stop_percentile = 99;
    assert_int_equal(TW_OK, run(&f, 0.0, 1.9e-3, NULL));
    assert_close(f.r.slo_failed, 1, 0);
    assert_true(first_token(&f, 1) > 0.0);
    assert_true(first_token(&f, 2) < 0.0);
    /* asynchronous output moves first and last tokens, so TPOT stops nothing: a request's first token
       is seen when the next step (its first decode) ends, at P + 2 ms, its last when the next request's
       prefill ends, at P + 4 ms + P: TPOT (2 ms + P) / 2 = 1.81 ms, within 1.9 ms after all (the last
       request's last token, with no next step, keeps its time: 1 ms). A stop on the 2 ms as its own steps
       gave them would have failed a run that meets the limit. */
    f.p.async_output = 1;
    assert_int_equal(TW_OK, run(&f, 0.0, 1.9e-3, NULL));
    assert_close(f.r.slo_failed, 0, 0);
    assert_close(f.r.tpot_s.p99, (2e-3 + PREFILL) / 2, 1e-12);
    assert_close(f.r.tpot_s.mean, (9 * (2e-3 + PREFILL) / 2 + 1e-3) / 10, 1e-12);
    free(f.work);
}

static void test_unstopped_run_is_whole(void **state)
{
    fixture f;
    tw_serve_result whole;
    (void)state;
    setup(&f);
    /* limits that hold: the run with stop_percentile is the run without it, bit for bit */
    assert_int_equal(TW_OK, run(&f, 1.0, 1.0, NULL));
    whole = f.r;
    f.p.stop_percentile = 99;
    assert_int_equal(TW_OK, run(&f, 1.0, 1.0, NULL));
    assert_memory_equal(&whole, &f.r, sizeof whole);
    assert_close(f.r.ttft_s.max, 9 * CYCLE + PREFILL, 1e-12);
    /* no limit given: nothing to decide */
    assert_int_equal(TW_OK, run(&f, 0.0, 0.0, NULL));
    assert_close(f.r.slo_failed, 0, 0);
    free(f.work);
}

static void test_stop_percentile_validated(void **state)
{
    fixture f;
    const char *bad = NULL;
    const double wrong[] = {-1, 100.5, NAN, INFINITY};
    size_t i;
    (void)state;
    setup(&f);
    for (i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        f.p.stop_percentile = wrong[i];
        assert_int_equal(TW_EINVAL, run(&f, 1.0, 0.0, &bad));
        assert_string_equal("policy.stop_percentile", bad);
    }
    free(f.work);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stops_when_ttft_decided),
        cmocka_unit_test(test_stops_when_tpot_decided),
        cmocka_unit_test(test_unstopped_run_is_whole),
        cmocka_unit_test(test_stop_percentile_validated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
