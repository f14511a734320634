/* test_serve.c - tw_serve_run() and tw_serve_step_time() on hand-worked examples. */
#include <stdlib.h>
#include <string.h>

#include "tilewave.h"
#include "tw_test.h"

/* Tables: lin(n) = 1 ms + 1 us per token (points 1 and 1001), A(S) = 1 ns * S^2 at S = 1, 100,
 * 10000 (linear in between), lm = 0.1 ms, D(b, c) = 2 ms flat. */
static const double tok[] = {1, 1001}, lin[] = {1.001e-3, 2.001e-3};
static const double ctxg[] = {1, 100, 10000}, attn[] = {1e-9, 1e-5, 1e-1};
static const double seq[] = {1, 64}, lm[] = {1e-4, 1e-4};
static const double dctx[] = {1, 10000}, dec[] = {2e-3, 2e-3, 2e-3, 2e-3};

static tw_serve_costs costs(void)
{
    tw_serve_costs c;
    memset(&c, 0, sizeof c);
    c.tok_grid = tok; c.n_tok = 2; c.lin_s = lin;
    c.ctx_grid = ctxg; c.n_ctx = 3; c.attn_s = attn;
    c.seq_grid = seq; c.n_seq = 2; c.logits_s = lm;
    c.dctx_grid = dctx; c.n_dctx = 2; c.decode_s = dec;
    c.host_s = 5e-4;
    c.scale = 1.0;
    return c;
}

static tw_serve_policy policy(void)
{
    tw_serve_policy p;
    memset(&p, 0, sizeof p);
    p.policy = TW_SERVE_CONTINUOUS;
    p.mix = 1;
    p.chunked = 1;
    p.max_num_seqs = 64;
    p.max_num_batched_tokens = 1000;
    p.block_size = 1;
    p.kv_capacity_tokens = 100000;
    p.replicas = 1;
    p.multi_step = 1;
    return p;
}

static tw_serve_workload offline(double n, double isl, double osl)
{
    tw_serve_workload w;
    memset(&w, 0, sizeof w);
    w.arrival = TW_ARRIVE_OFFLINE;
    w.requests = n;
    w.isl.kind = TW_LEN_FIXED;
    w.isl.a = isl;
    w.osl.kind = TW_LEN_FIXED;
    w.osl.a = osl;
    return w;
}

static int run(const tw_serve_workload *w, const tw_serve_policy *p, const tw_serve_costs *c, tw_serve_result *r,
               const char **bad)
{
    size_t bytes = tw_serve_workspace_bytes(w, p, 0);
    void *work = bytes ? malloc(bytes) : NULL;
    int st = tw_serve_run(w, p, c, 0.0, 0.0, work, bytes, NULL, 0, r, bad);
    free(work);
    return st;
}

static void test_step_time_hand_example(void **state)
{
    tw_serve_costs c = costs();
    double n = 100, p = 0, t;
    (void)state;
    /* one whole prefill of 100 tokens: lin(100) = 1.1 ms, A(100) = 10 us, lm = 0.1 ms, host 0.5 ms */
    assert_int_equal(TW_OK, tw_serve_step_time(&c, &n, &p, 1, 0, 1, 1, &t, NULL));
    assert_close(t, 1.1e-3 + 1e-5 + 1e-4 + 5e-4, 1e-12);
    /* a chunk of 100 after 100 cached: A(200) - A(100) = (1e-5 + 100/9900 * (0.1 - 1e-5)) - 1e-5 */
    p = 100;
    assert_int_equal(TW_OK, tw_serve_step_time(&c, &n, &p, 1, 0, 1, 1, &t, NULL));
    assert_close(t, 1.1e-3 + 100.0 / 9900.0 * (0.1 - 1e-5) + 1e-4 + 5e-4, 1e-12);
    /* 8 decodes alone: lin(8) + lm + host = 1.008 + 0.1 + 0.5 ms < D = 2 ms */
    assert_int_equal(TW_OK, tw_serve_step_time(&c, NULL, NULL, 0, 8, 50, 8, &t, NULL));
    assert_close(t, 2e-3, 1e-12);
}

static void test_offline_hand_example(void **state)
{
    /* 4 requests of 10 + 3 tokens at t = 0: step 1 prefills all 40 tokens (lin(40) = 1.04 ms +
       4 A(10) + lm + host = 1.04 ms + 4 * (1e-9 + 9/99 * (1e-5 - 1e-9)) + 0.6 ms), each emits its first
       token; two decode steps of 4 (D = 2 ms each) finish them. */
    tw_serve_workload w = offline(4, 10, 3);
    tw_serve_policy p = policy();
    tw_serve_costs c = costs();
    tw_serve_result r;
    double a10 = 1e-9 + 9.0 / 99.0 * (1e-5 - 1e-9), first = 1.04e-3 + 4 * a10 + 1e-4 + 5e-4;
    (void)state;
    assert_int_equal(TW_OK, run(&w, &p, &c, &r, NULL));
    assert_close(r.ttft_s.p50, first, 1e-12);
    assert_close(r.ttft_s.max, first, 1e-12);
    assert_close(r.e2e_s.mean, first + 4e-3, 1e-12);
    assert_close(r.tpot_s.p99, 2e-3, 1e-12);
    assert_close(r.itl_s.mean, 2e-3, 1e-12);
    assert_close(r.duration_s, first + 4e-3, 1e-12);
    assert_close(r.requests_per_s, 4 / (first + 4e-3), 1e-12);
    assert_close(r.output_tokens, 12, 0);
    assert_close(r.steps, 3, 0);
    assert_close(r.mean_in_system, 4, 1e-12); /* Little: 4 requests for the whole run */
    assert_close(r.preemptions, 0, 0);
}

static void test_preemption_conserves(void **state)
{
    /* a cache of 25 tokens and two requests of 10 + 10: both start, the newest is preempted
       when they grow past it, and recomputed after the first finishes */
    tw_serve_workload w = offline(2, 10, 10);
    tw_serve_policy p = policy();
    tw_serve_costs c = costs();
    tw_serve_result r;
    (void)state;
    p.kv_capacity_tokens = 25;
    assert_int_equal(TW_OK, run(&w, &p, &c, &r, NULL));
    assert_true(r.preemptions >= 1);
    assert_true(r.recomputed_tokens > 0);
    assert_true(r.kv_peak_fraction <= 1.0);
    assert_close(r.output_tokens, 20, 0);
    /* reserved at admission: never preempted, the second waits */
    p.reserve = 1;
    assert_int_equal(TW_OK, run(&w, &p, &c, &r, NULL));
    assert_close(r.preemptions, 0, 0);
    assert_true(r.ttft_s.max > 10 * 2e-3);
}

static void test_deterministic_and_seeded(void **state)
{
    tw_serve_workload w = offline(500, 0, 0);
    tw_serve_policy p = policy();
    tw_serve_costs c = costs();
    tw_serve_result a, b;
    (void)state;
    w.arrival = TW_ARRIVE_POISSON;
    w.rate = 50;
    w.isl.kind = TW_LEN_LOGNORMAL;
    w.isl.a = 5; w.isl.b = 0.8; w.isl.lo = 4; w.isl.hi = 1000;
    w.osl.kind = TW_LEN_UNIFORM;
    w.osl.a = 10; w.osl.b = 50;
    w.seed = 3;
    assert_int_equal(TW_OK, run(&w, &p, &c, &a, NULL));
    assert_int_equal(TW_OK, run(&w, &p, &c, &b, NULL));
    assert_memory_equal(&a, &b, sizeof a);
    w.seed = 4;
    assert_int_equal(TW_OK, run(&w, &p, &c, &b, NULL));
    assert_true(a.duration_s != b.duration_s);
    /* uniform 10..50 output: mean 30 within sampling error */
    assert_close(a.output_tokens / 500, 30, 0.1);
    assert_close(a.mean_in_system, a.requests_per_s * a.e2e_s.mean, 1e-9);
}

static void test_validation_names_the_field(void **state)
{
    tw_serve_workload w = offline(2, 10, 10);
    tw_serve_policy p = policy();
    tw_serve_costs c = costs();
    tw_serve_result r;
    const char *bad = NULL;
    (void)state;
    w.requests = 0;
    assert_int_equal(TW_EINVAL, run(&w, &p, &c, &r, &bad));
    assert_string_equal("workload.requests", bad);
    w = offline(2, 10, 10);
    p.block_size = 0;
    assert_int_equal(TW_EINVAL, run(&w, &p, &c, &r, &bad));
    assert_string_equal("policy.block_size", bad);
    p = policy();
    c.scale = -1;
    assert_int_equal(TW_EINVAL, run(&w, &p, &c, &r, &bad));
    assert_string_equal("costs.scale", bad);
    c = costs();
    p.kv_capacity_tokens = 19;
    assert_int_equal(TW_ERANGE, run(&w, &p, &c, &r, &bad));
    assert_string_equal("workload.isl+osl", bad);
    p = policy();
    w.arrival = TW_ARRIVE_GAMMA;
    w.rate = 1;
    w.cv = 0;
    assert_int_equal(TW_EINVAL, run(&w, &p, &c, &r, &bad));
    assert_string_equal("workload.cv", bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_time_hand_example),
        cmocka_unit_test(test_offline_hand_example),
        cmocka_unit_test(test_preemption_conserves),
        cmocka_unit_test(test_deterministic_and_seeded),
        cmocka_unit_test(test_validation_names_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
