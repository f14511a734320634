/* test_serve_mech.c - serving mechanisms pinned by hand (issue 71): a shared prefix is a cache hit only
 * once a request has computed it. Three requests of a 32-token shared prefix and 10 tokens of their
 * own (3 output tokens) at t = 0, two sequences at a time, 16-token blocks (the prefix is two full
 * blocks): the first step admits requests 0 and 1 together - request 0 allocates the prefix's blocks
 * (a miss), request 1 finds them allocated but not computed (vLLM hashes a block once it is full of
 * computed tokens), so it computes the prefix too: no hit. Request 2 is admitted after one of them
 * finishes, with the prefix computed: a hit that skips its 32 tokens. And a finished conversation
 * turn keeps only its full blocks for the next turn (vLLM hashes only full blocks). And the client's
 * time outside the steps (policy frontend_s, issue 69 item 3) moves TTFT and E2E by exactly itself,
 * never TPOT or the schedule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tilewave.h"
#include "tw_test.h"
#include "tw_serve_test.h"


static void test_prefix_hit_only_once_computed(void **state)
{
    tw_serve_workload w;
    tw_serve_policy p;
    tw_serve_costs c;
    tw_serve_result r;
    void *work;
    (void)state;
    memset(&w, 0, sizeof w);
    serve_test_costs(&c);
    serve_test_policy(&p, 2, 16);
    p.prefix_caching = 1;
    w.arrival = TW_ARRIVE_OFFLINE;
    w.requests = 3;
    w.isl.kind = TW_LEN_FIXED;
    w.isl.a = 10;
    w.osl.kind = TW_LEN_FIXED;
    w.osl.a = 3;
    w.prefix_tokens = 32;
    w.prefix_share = 1;
    work = malloc(tw_serve_workspace_bytes(&w, &p, 0));
    assert_non_null(work);
    assert_int_equal(TW_OK, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, tw_serve_workspace_bytes(&w, &p, 0), NULL, 0, &r,
                                         NULL));
    assert_close(r.prefix_lookups, 3, 0);
    assert_close(r.prefix_hits, 1, 0);
    assert_close(r.cached_tokens, 32, 0);
    /* tokens: every prompt computed but request 2's prefix, (42 + 42 + 10) prefill tokens, plus 2
       decode tokens each (3 outputs, the first from the prefill): 94 + 6 */
    assert_close(r.prefill_tokens, 94, 0);
    free(work);
}

/* a conversation of 2 turns, 10 new prompt tokens and 3 output tokens each, 8-token blocks: turn 0
   writes 10 + 3 - 1 = 12 tokens to the cache, one full block (8 tokens) and a partial one; the full
   block stays cached for turn 1, whose prompt is 10 + 3 + 10 = 23 tokens: it skips 8 (16 if the
   partial block were kept) and computes 15 */
/* one 10-token request, 3 output tokens, at t = 0: its first token leaves the prefill step at
   PREFILL, its last one two 2 ms decode steps later; the client adds frontend_s = 50 ms to its TTFT
   and E2E, as to the record's first and last token times, and TPOT stays (CYCLE - PREFILL) / 2 */
static void test_frontend_moves_ttft_and_e2e_only(void **state)
{
    tw_serve_workload w;
    tw_serve_policy p;
    tw_serve_costs c;
    tw_serve_result r0, r;
    tw_serve_record q;
    void *work;
    size_t bytes;
    (void)state;
    memset(&w, 0, sizeof w);
    serve_test_costs(&c);
    serve_test_policy(&p, 2, 16);
    w.arrival = TW_ARRIVE_OFFLINE;
    w.requests = 1;
    w.isl.kind = TW_LEN_FIXED;
    w.isl.a = 10;
    w.osl.kind = TW_LEN_FIXED;
    w.osl.a = 3;
    bytes = tw_serve_workspace_bytes(&w, &p, 0);
    work = malloc(bytes);
    assert_non_null(work);
    assert_int_equal(TW_OK, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, bytes, NULL, 0, &r0, NULL));
    assert_close(r0.ttft_s.mean, PREFILL, 1e-12);
    p.frontend_s = 0.05;
    assert_int_equal(TW_OK, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, bytes, NULL, 0, &r, NULL));
    assert_close(r.ttft_s.mean, PREFILL + 0.05, 1e-12);
    assert_close(r.ttft_s.p99, PREFILL + 0.05, 1e-12);
    assert_close(r.e2e_s.mean, r0.e2e_s.mean + 0.05, 1e-12);
    assert_close(r.tpot_s.mean, r0.tpot_s.mean, 1e-15);
    assert_close(r.tpot_s.mean, (r0.e2e_s.mean - PREFILL) / 2.0, 1e-12);
    assert_close(r.steps, r0.steps, 0);
    assert_int_equal(TW_OK, tw_serve_request(work, 0, &q));
    assert_close(q.first_token_s, PREFILL + 0.05, 1e-12);
    assert_close(q.finish_s, r0.e2e_s.mean + 0.05, 1e-12);
    /* an SLO of 40 ms on TTFT fails on the front end alone; 60 ms holds */
    p.stop_percentile = 99;
    assert_int_equal(TW_OK, tw_serve_run(&w, &p, &c, 0.04, 0.0, work, bytes, NULL, 0, &r, NULL));
    assert_close(r.slo_failed, 1, 0);
    assert_int_equal(TW_OK, tw_serve_run(&w, &p, &c, 0.06, 0.0, work, bytes, NULL, 0, &r, NULL));
    assert_close(r.slo_failed, 0, 0);
    assert_close(r.goodput_rps, r.requests_per_s, 1e-12);
    /* refused out of its range, by name */
    for (int i = 0; i < 3; i++) {
        const char *bad = NULL;
        p.frontend_s = i == 0 ? -1e-3 : i == 1 ? NAN : 61.0;
        assert_int_equal(TW_EINVAL, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, bytes, NULL, 0, &r, &bad));
        assert_string_equal("policy.frontend_s", bad);
    }
    free(work);
}

/* a paced client's cap on requests in flight (workload concurrency with a rate): three 10-token
   requests (3 output tokens) sent at once (rate 1e9 req/s), at most one in flight: each waits for the
   one before and its clock starts when it is sent, so each takes TTFT = PREFILL and E2E = CYCLE, as
   alone; without the cap they share the steps and the last waits */
static void test_rate_cap_holds_requests(void **state)
{
    tw_serve_workload w;
    tw_serve_policy p;
    tw_serve_costs c;
    tw_serve_result r, free_run;
    tw_serve_record q;
    void *work;
    size_t bytes;
    const char *bad = NULL;
    (void)state;
    memset(&w, 0, sizeof w);
    serve_test_costs(&c);
    serve_test_policy(&p, 2, 16);
    w.arrival = TW_ARRIVE_POISSON;
    w.rate = 1e9;
    w.requests = 3;
    w.isl.kind = TW_LEN_FIXED;
    w.isl.a = 10;
    w.osl.kind = TW_LEN_FIXED;
    w.osl.a = 3;
    w.concurrency = 1;
    bytes = tw_serve_workspace_bytes(&w, &p, 0);
    work = malloc(bytes);
    assert_non_null(work);
    assert_int_equal(TW_OK, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, bytes, NULL, 0, &r, NULL));
    assert_close(r.ttft_s.mean, PREFILL, 1e-9);
    assert_close(r.ttft_s.max, PREFILL, 1e-9);
    assert_close(r.e2e_s.max, CYCLE, 1e-9);
    /* the third is sent when the second finishes: at 2 CYCLE (the arrivals' nanoseconds aside) */
    assert_int_equal(TW_OK, tw_serve_request(work, 2, &q));
    assert_close(q.arrival_s, 2 * CYCLE, 1e-8);
    w.concurrency = 0;
    assert_int_equal(TW_OK, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, bytes, NULL, 0, &free_run, NULL));
    assert_true(free_run.e2e_s.max > CYCLE + 1e-6);
    /* refused with conversations, and out of range */
    w.concurrency = 1;
    w.turns = 2;
    w.requests = 4;
    assert_int_equal(TW_EINVAL, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, bytes, NULL, 0, &r, &bad));
    assert_string_equal("workload.concurrency", bad);
    w.turns = 0;
    w.requests = 3;
    w.concurrency = -1;
    assert_int_equal(TW_EINVAL, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, bytes, NULL, 0, &r, &bad));
    assert_string_equal("workload.concurrency", bad);
    free(work);
}

static void test_turn_keeps_full_blocks_only(void **state)
{
    tw_serve_workload w;
    tw_serve_policy p;
    tw_serve_costs c;
    tw_serve_result r;
    void *work;
    (void)state;
    memset(&w, 0, sizeof w);
    serve_test_costs(&c);
    serve_test_policy(&p, 1, 8);
    p.prefix_caching = 1;
    w.arrival = TW_ARRIVE_OFFLINE;
    w.requests = 2;
    w.turns = 2;
    w.isl.kind = TW_LEN_FIXED;
    w.isl.a = 10;
    w.osl.kind = TW_LEN_FIXED;
    w.osl.a = 3;
    work = malloc(tw_serve_workspace_bytes(&w, &p, 0));
    assert_non_null(work);
    assert_int_equal(TW_OK, tw_serve_run(&w, &p, &c, 0.0, 0.0, work, tw_serve_workspace_bytes(&w, &p, 0), NULL, 0, &r,
                                         NULL));
    assert_close(r.prefix_lookups, 1, 0);
    assert_close(r.prefix_hits, 1, 0);
    assert_close(r.cached_tokens, 8, 0);
    assert_close(r.prefill_tokens, 10 + 15, 0);
    assert_close(r.kv_blocks_end, 0, 0);
    free(work);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix_hit_only_once_computed),
        cmocka_unit_test(test_turn_keeps_full_blocks_only),
        cmocka_unit_test(test_frontend_moves_ttft_and_e2e_only),
        cmocka_unit_test(test_rate_cap_holds_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
