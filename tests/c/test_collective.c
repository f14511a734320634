/* test_collective.c - tw_collective() against the alpha-beta formulas of Thakur et al. 2005. */
#include "tilewave.h"
#include "tw_test.h"

static tw_collective_result run(int kind, double p)
{
    /* 1 GB message, 100 GB/s per direction, 5 us per step */
    tw_collective_input in = {kind, 1e9, p, 1e11, 5e-6};
    tw_collective_result r;
    assert_int_equal(tw_collective(&in, &r, NULL), TW_OK);
    return r;
}

static void test_collective_ring_allreduce_8(void **state)
{
    /* 2*7*5 us + 2*7/8 * 1e9 / 1e11 = 70 us + 17.5 ms */
    tw_collective_result r = run(TW_ALLREDUCE_RING, 8);
    assert_close(r.time_s, 7e-5 + 0.0175, 1e-12);
    assert_close(r.steps, 14, 0);
    assert_close(r.wire_bytes, 1.75e9, 1e-12);
}

static void test_collective_others_8(void **state)
{
    assert_close(run(TW_ALLGATHER_RING, 8).time_s, 3.5e-5 + 0.00875, 1e-12);
    assert_close(run(TW_REDUCESCATTER_RING, 8).time_s, 3.5e-5 + 0.00875, 1e-12);
    assert_close(run(TW_ALLREDUCE_TREE, 8).time_s, 3e-5 + 0.02, 1e-12);
    assert_close(run(TW_P2P, 8).time_s, 5e-6 + 0.01, 1e-12);
    /* all-to-all, pairwise exchange: 7 rounds of 5 us + 7/8 of 1 GB at 100 GB/s */
    assert_close(run(TW_ALLTOALL, 8).time_s, 3.5e-5 + 0.00875, 1e-12);
    assert_close(run(TW_ALLTOALL, 8).steps, 7, 0);
}

static void test_collective_single_rank_is_free(void **state)
{
    assert_close(run(TW_ALLREDUCE_RING, 1).time_s + 1.0, 1.0, 0);
}

static void test_collective_rejects_bad_fields(void **state)
{
    tw_collective_input in = {7, 1e9, 8, 1e11, 0};
    tw_collective_result r;
    const char *bad = NULL;
    assert_int_equal(tw_collective(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "kind");
    in.kind = TW_P2P;
    in.group = 2.5;
    assert_int_equal(tw_collective(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "group");
    in.group = 2;
    in.link_bw = 0;
    assert_int_equal(tw_collective(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "link_bw");
    /* the case: a subnormal message with no latency takes 0 s, so the bus
       bandwidth would be 0/0; refused, naming the quotient */
    in.link_bw = 1e11;
    in.bytes = 4.9e-324;
    assert_int_equal(tw_collective(&in, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, "bytes/link_bw");
    in.latency_s = 1e-6; /* with latency the same message is fine: 1 us */
    assert_int_equal(tw_collective(&in, &r, &bad), TW_OK);
    assert_close(r.time_s, 1e-6, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collective_ring_allreduce_8),
        cmocka_unit_test(test_collective_others_8),
        cmocka_unit_test(test_collective_single_rank_is_free),
        cmocka_unit_test(test_collective_rejects_bad_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
