/* test_serve_emit.c - tw_serve_policy.emit_max: the log of each chunk a request receives after its
 * first. Worked by hand on one sequence at a time (tw_serve_test.h): request i's prompt step ends at
 * i CYCLE + PREFILL (its first token), its two decode steps of 2 ms at + 2 ms and + 4 ms, so the log
 * holds, in order, (i CYCLE + PREFILL + 2 ms, i), (i CYCLE + PREFILL + 4 ms, i) for i = 0..9. A run
 * that logs is the same run as one that does not, and a log too short keeps its first entries and
 * counts the rest. */
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

/* 10 requests of 10 + 3 tokens at t = 0, one sequence at a time, `seqs` at a time */
static void setup(fixture *f, double seqs, double emit_max)
{
    memset(f, 0, sizeof *f);
    serve_test_costs(&f->c);
    serve_test_policy(&f->p, seqs, 1);
    f->p.emit_max = emit_max;
    f->w.arrival = TW_ARRIVE_OFFLINE;
    f->w.requests = 10;
    f->w.isl.kind = TW_LEN_FIXED;
    f->w.isl.a = 10;
    f->w.osl.kind = TW_LEN_FIXED;
    f->w.osl.a = 3;
    f->work = malloc(tw_serve_workspace_bytes(&f->w, &f->p, 0));
    assert_non_null(f->work);
    assert_int_equal(TW_OK, tw_serve_run(&f->w, &f->p, &f->c, 0.0, 0.0, f->work,
                                         tw_serve_workspace_bytes(&f->w, &f->p, 0), NULL, 0, &f->r, NULL));
}

static void test_log_worked_by_hand(void **state)
{
    fixture f;
    size_t lost = 99, i;
    tw_serve_chunk e;
    (void)state;
    setup(&f, 1, 20);
    assert_int_equal(20, tw_serve_emission_count(f.work, &lost));
    assert_int_equal(0, lost);
    for (i = 0; i < 10; i++) {
        assert_int_equal(TW_OK, tw_serve_emission(f.work, 2 * i, &e));
        assert_close(e.request, (double)i, 0);
        assert_close(e.time_s, (double)i * CYCLE + PREFILL + 2e-3, 1e-12);
        assert_int_equal(TW_OK, tw_serve_emission(f.work, 2 * i + 1, &e));
        assert_close(e.request, (double)i, 0);
        assert_close(e.time_s, (double)i * CYCLE + PREFILL + 4e-3, 1e-12);
    }
    assert_int_equal(TW_EINVAL, tw_serve_emission(f.work, 20, &e));
    free(f.work);
}

static void test_short_log_counts_the_rest(void **state)
{
    fixture f;
    size_t lost = 0;
    tw_serve_chunk e;
    (void)state;
    setup(&f, 1, 3);
    assert_int_equal(3, tw_serve_emission_count(f.work, &lost));
    assert_int_equal(17, lost);
    assert_int_equal(TW_OK, tw_serve_emission(f.work, 2, &e));
    assert_close(e.request, 1, 0);
    assert_close(e.time_s, CYCLE + PREFILL + 2e-3, 1e-12);
    free(f.work);
}

/* 64 sequences at a time: the decode group forms without the log and not with it; the figures agree
   (the group is exact: src/tw_serve_group.c) and each request's chunks end at its finish */
static void test_logging_run_is_the_same_run(void **state)
{
    fixture a, b;
    size_t i, n;
    double last[10];
    (void)state;
    setup(&a, 64, 0);
    setup(&b, 64, 1000);
    assert_int_equal(0, tw_serve_emission_count(a.work, NULL));
    assert_true(a.r.group_ticks > 0);
    assert_close(b.r.group_ticks, 0, 0);
    assert_close(a.r.ttft_s.p99, b.r.ttft_s.p99, 0);
    assert_close(a.r.tpot_s.mean, b.r.tpot_s.mean, 1e-15);
    assert_close(a.r.e2e_s.max, b.r.e2e_s.max, 0);
    assert_close(a.r.duration_s, b.r.duration_s, 0);
    n = tw_serve_emission_count(b.work, NULL);
    assert_int_equal(20, n);
    for (i = 0; i < 10; i++) last[i] = -1.0;
    for (i = 0; i < n; i++) {
        tw_serve_chunk e;
        assert_int_equal(TW_OK, tw_serve_emission(b.work, i, &e));
        assert_true(e.time_s >= last[(size_t)e.request]);
        last[(size_t)e.request] = e.time_s;
    }
    for (i = 0; i < 10; i++) {
        tw_serve_record rec;
        assert_int_equal(TW_OK, tw_serve_request(b.work, i, &rec));
        assert_close(last[i], rec.finish_s, 0);
    }
    free(a.work);
    free(b.work);
}

static void test_emit_max_validated(void **state)
{
    fixture f;
    const char *bad = NULL;
    (void)state;
    setup(&f, 1, 0);
    f.p.emit_max = -1;
    assert_int_equal(TW_EINVAL, tw_serve_run(&f.w, &f.p, &f.c, 0.0, 0.0, f.work, 1u << 30, NULL, 0, &f.r, &bad));
    assert_string_equal("policy.emit_max", bad);
    f.p.emit_max = 2.5;
    assert_int_equal(TW_EINVAL, tw_serve_run(&f.w, &f.p, &f.c, 0.0, 0.0, f.work, 1u << 30, NULL, 0, &f.r, &bad));
    assert_string_equal("policy.emit_max", bad);
    free(f.work);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_worked_by_hand),
        cmocka_unit_test(test_short_log_counts_the_rest),
        cmocka_unit_test(test_logging_run_is_the_same_run),
        cmocka_unit_test(test_emit_max_validated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
