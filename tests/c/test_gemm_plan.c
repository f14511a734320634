/* test_gemm_plan.c - the prepared device (tw_gemm_prepare, tw_gemm_plan_estimate[_many]):
 * the same results as tw_gemm_estimate, ties to the first tile in list order whichever
 * candidates the lower bounds skip, and errors for an unprepared plan.
 *
 * Device: tw_gemm_test.h bare(), whose numbers (46.460 us per 128x128 tile over K = 4096)
 * the expected values below are worked from; overheads only where a test sets them.
 */
#include <string.h>

#include "tilewave.h"
#include "tw_gemm_test.h"
#include "tw_test.h"

static void add_tile(tw_device *d, int64_t m, int64_t n, double eff, int ctas, int tma)
{
    tw_tile *t = &d->tiles[d->n_tiles++];
    t->m = m;
    t->n = n;
    t->eff = eff;
    t->ctas_per_sm = ctas;
    t->tma = tma;
}

static void same_result(const tw_gemm_result *a, const tw_gemm_result *b)
{
    assert_memory_equal(&a->time_s, &b->time_s, sizeof a->time_s);
    assert_memory_equal(&a->compute_s, &b->compute_s, sizeof a->compute_s);
    assert_memory_equal(&a->memory_s, &b->memory_s, sizeof a->memory_s);
    assert_memory_equal(&a->dram_bytes, &b->dram_bytes, sizeof a->dram_bytes);
    assert_int_equal(a->tile_m, b->tile_m);
    assert_int_equal(a->tile_n, b->tile_n);
    assert_int_equal(a->split_k, b->split_k);
    assert_int_equal(a->stream_k, b->stream_k);
    assert_int_equal(a->tiles, b->tiles);
    assert_int_equal(a->waves, b->waves);
    assert_int_equal(a->bound, b->bound);
}

static void test_plan_gives_the_estimates_of_its_device(void **state)
{
    /* a Hopper-like list: TMA tiles, a plain 128x128, split-K up to 16, stream-K, overheads */
    tw_device d = bare();
    tw_gemm_plan p;
    tw_gemm_shape shapes[6] = {fp16(2304, 1600, 4096), fp16(27648, 64, 4096), fp16(128, 128, 8192),
                               fp16(128, 6912, 4096), fp16(4097, 4095, 4099), fp16(1, 1, 1)};
    double t[6], rate[6];
    size_t i;
    const char *bad = NULL;
    d.n_tiles = 0;
    add_tile(&d, 256, 128, 1.0, 1, 1);
    add_tile(&d, 128, 128, 1.0, 1, 0);
    add_tile(&d, 64, 64, 0.75, 2, 0);
    d.max_split_k = 16;
    d.stream_k = 1;
    d.streamk_fixup_s = 1e-6;
    d.call_overhead_s = 2.5e-6;
    d.reduce_overhead_s = 2.5e-6;
    d.tile_latency_s = 0.5e-6;
    d.kstep_latency_s = 50e-9;
    d.write_exposed = 0.5;
    assert_int_equal(tw_gemm_prepare(&d, &p, &bad), TW_OK);
    assert_int_equal(tw_gemm_plan_estimate_many(&p, shapes, 6, t, rate, NULL, &bad), TW_OK);
    for (i = 0; i < 6; i++) {
        tw_gemm_result a, b;
        assert_int_equal(tw_gemm_estimate(&d, &shapes[i], &a, &bad), TW_OK);
        assert_int_equal(tw_gemm_plan_estimate(&p, &shapes[i], &b, &bad), TW_OK);
        same_result(&a, &b);
        assert_memory_equal(&t[i], &a.time_s, sizeof t[i]);
    }
    (void)state;
}

static void test_plan_ties_go_to_the_first_tile(void **state)
{
    /* 128x64 and 64x128 on a 4096^3 GEMM: 32*64 = 2048 tiles either way, 19 waves of 108,
       each tile half a 128x128 one (23.230 us): the same time, bit for bit. The first in the
       list wins in both orders, though the second's bound equals the best time. */
    tw_device d = bare();
    tw_gemm_plan p;
    tw_gemm_shape s = fp16(4096, 4096, 4096);
    tw_gemm_result r;
    d.n_tiles = 0;
    add_tile(&d, 128, 64, 1.0, 1, 0);
    add_tile(&d, 64, 128, 1.0, 1, 0);
    assert_int_equal(tw_gemm_prepare(&d, &p, NULL), TW_OK);
    assert_int_equal(tw_gemm_plan_estimate(&p, &s, &r, NULL), TW_OK);
    assert_int_equal(r.tile_m, 128);
    assert_int_equal(r.waves, 19);
    assert_close(r.compute_s, 19 * 0.5 * TILE_128_K4096_S, 1e-12);
    d.tiles[0].m = 64;
    d.tiles[0].n = 128;
    d.tiles[1].m = 128;
    d.tiles[1].n = 64;
    assert_int_equal(tw_gemm_prepare(&d, &p, NULL), TW_OK);
    assert_int_equal(tw_gemm_plan_estimate(&p, &s, &r, NULL), TW_OK);
    assert_int_equal(r.tile_m, 64);
    (void)state;
}

static void test_plan_skips_only_slower_candidates(void **state)
{
    /* a slow first tile (eff 0.25: 4 * 46.460 us per 128x128 tile of K 4096) and a full-rate
       second one: 1024x1024x4096 is 64 tiles, one wave. The second must win though the first
       was evaluated first: 46.460 us, not 185.84 us. With split-K allowed (up to 4; 64*2 =
       128 > 108 CTAs, so no split fits) nothing changes. */
    tw_device d = bare();
    tw_gemm_plan p;
    tw_gemm_shape s = fp16(1024, 1024, 4096);
    tw_gemm_result r;
    d.n_tiles = 0;
    add_tile(&d, 128, 128, 0.25, 1, 0);
    add_tile(&d, 128, 128, 1.0, 1, 0);
    d.max_split_k = 4;
    assert_int_equal(tw_gemm_prepare(&d, &p, NULL), TW_OK);
    assert_int_equal(tw_gemm_plan_estimate(&p, &s, &r, NULL), TW_OK);
    assert_close(r.compute_s, TILE_128_K4096_S, 1e-12);
    assert_int_equal(r.split_k, 1);
    (void)state;
}

static void test_plan_rejects_what_prepare_did_not_fill(void **state)
{
    tw_device d = bare();
    tw_gemm_plan p;
    tw_gemm_shape s = fp16(64, 64, 64);
    tw_gemm_result r;
    double t;
    size_t bad_index = 99;
    const char *bad = NULL;
    memset(&p, 0, sizeof p);
    assert_int_equal(tw_gemm_plan_estimate(&p, &s, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "plan");
    assert_string_equal(tw_field_expectation(bad), "expected a plan filled by tw_gemm_prepare and not changed since");
    bad = NULL;
    assert_int_equal(tw_gemm_plan_estimate_many(NULL, &s, 1, &t, NULL, &bad_index, &bad), TW_EINVAL);
    assert_string_equal(bad, "plan");
    /* a failed prepare names the device field and leaves the plan unusable */
    d.mem_frac = 0;
    assert_int_equal(tw_gemm_prepare(&d, &p, &bad), TW_EINVAL);
    assert_string_equal(bad, "device.mem_frac");
    assert_int_equal(tw_gemm_plan_estimate(&p, &s, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "plan");
    /* bad shapes: the same statuses and fields as tw_gemm_estimate */
    d = bare();
    assert_int_equal(tw_gemm_prepare(&d, &p, &bad), TW_OK);
    s.k = 0;
    assert_int_equal(tw_gemm_plan_estimate(&p, &s, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "k");
    s.k = INT64_C(4294967296);
    assert_int_equal(tw_gemm_plan_estimate_many(&p, &s, 1, &t, NULL, &bad_index, &bad), TW_ERANGE);
    assert_int_equal(bad_index, 0);
    assert_string_equal(bad, "k");
    (void)state;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_gives_the_estimates_of_its_device),
        cmocka_unit_test(test_plan_ties_go_to_the_first_tile),
        cmocka_unit_test(test_plan_skips_only_slower_candidates),
        cmocka_unit_test(test_plan_rejects_what_prepare_did_not_fill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
