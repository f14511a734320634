/* test_roofline.c - tw_roofline() against the NVIDIA guides' worked examples. */
#include <string.h>

#include "tilewave.h"
#include "tw_test.h"

/* V100 fp16 tensor cores: 125 TFLOP/s, 900 GB/s (NVIDIA GPU Performance Background guide). */
static tw_roofline_input v100(double flops, double bytes)
{
    tw_roofline_input in = {flops, bytes, 125e12, 1.0, 900e9, 1.0};
    return in;
}

static void test_roofline_ridge_v100(void **state)
{
    /* ops:byte = 125e12 / 900e9 = 138.89 (matmul guide: "138.9") */
    tw_roofline_input in = v100(1e12, 1e9);
    tw_roofline_result r;
    assert_int_equal(tw_roofline(&in, &r, NULL), TW_OK);
    assert_close(r.ridge, 138.8888889, 1e-9);
}

static void test_roofline_gemm_8192x128x8192_memory_bound(void **state)
{
    /* FLOP = 2*8192*128*8192 = 17,179,869,184; bytes = 2*(8192*8192 + 8192*128 + 128*8192)
       = 138,412,032; intensity = 124.12 FLOP/B < 138.9 -> memory-bound (matmul guide).
       memory_s = 138412032 / 900e9 = 153.79 us; compute_s = 17179869184 / 125e12 = 137.44 us. */
    tw_roofline_input in = v100(17179869184.0, 138412032.0);
    tw_roofline_result r;
    assert_int_equal(tw_roofline(&in, &r, NULL), TW_OK);
    assert_close(r.intensity, 124.1212, 1e-5);
    assert_int_equal(r.bound, TW_BOUND_MEMORY);
    assert_close(r.memory_s, 153.7911e-6, 1e-5);
    assert_close(r.compute_s, 137.4390e-6, 1e-5);
    assert_close(r.time_s, r.memory_s, 0);
}

static void test_roofline_gemm_8192_cubed_compute_bound(void **state)
{
    /* 8192^3: intensity = 8192/3 = 2730.7 FLOP/B > 138.9 -> compute-bound. */
    double n = 8192.0;
    tw_roofline_input in = v100(2 * n * n * n, 2 * 3 * n * n);
    tw_roofline_result r;
    assert_int_equal(tw_roofline(&in, &r, NULL), TW_OK);
    assert_close(r.intensity, 2730.6667, 1e-6);
    assert_int_equal(r.bound, TW_BOUND_COMPUTE);
    assert_close(r.time_s, 2 * n * n * n / 125e12, 1e-12);
}

static void test_roofline_fractions_scale_roofs(void **state)
{
    /* half the compute and 80% of the bandwidth: ridge = 62.5e12 / 720e9 = 86.81 */
    tw_roofline_input in = {1e12, 1e9, 125e12, 0.5, 900e9, 0.8};
    tw_roofline_result r;
    assert_int_equal(tw_roofline(&in, &r, NULL), TW_OK);
    assert_close(r.ridge, 86.805556, 1e-6);
    assert_close(r.compute_s, 1e12 / 62.5e12, 1e-12);
    assert_close(r.memory_s, 1e9 / 720e9, 1e-12);
}

static void expect_bad(tw_roofline_input in, const char *field)
{
    tw_roofline_result r;
    const char *bad = NULL;
    memset(&r, 0x5a, sizeof r);
    assert_int_equal(tw_roofline(&in, &r, &bad), TW_EINVAL);
    assert_non_null(bad);
    assert_string_equal(bad, field);
    assert_int_equal(r.bound, 0x5a5a5a5a); /* outputs untouched on error */
}

static void test_roofline_rejects_bad_fields(void **state)
{
    tw_roofline_input ok = v100(1e12, 1e9), in;
    in = ok; in.flops = 0; expect_bad(in, "flops");
    in = ok; in.flops = -1; expect_bad(in, "flops");
    in = ok; in.flops = NAN; expect_bad(in, "flops");
    in = ok; in.bytes = INFINITY; expect_bad(in, "bytes");
    in = ok; in.peak_flops = 0; expect_bad(in, "peak_flops");
    in = ok; in.compute_frac = 1.5; expect_bad(in, "compute_frac");
    in = ok; in.compute_frac = 0; expect_bad(in, "compute_frac");
    in = ok; in.mem_bw = -900e9; expect_bad(in, "mem_bw");
    in = ok; in.mem_frac = NAN; expect_bad(in, "mem_frac");
}

static void expect_range(tw_roofline_input in, const char *field)
{
    tw_roofline_result r;
    const char *bad = NULL;
    assert_int_equal(tw_roofline(&in, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, field);
}

static void test_roofline_refuses_non_finite_results(void **state)
{
    /* each input valid alone; the case: compute_frac = 4.9e-324 (subnormal)
       makes the roof 125e12 * 4.9e-324 = 6e-310 and the time 1e12 / 6e-310 = inf */
    tw_roofline_input ok = v100(1e12, 1e9), in;
    in = ok; in.compute_frac = 4.9e-324; expect_range(in, "flops/(peak_flops*compute_frac)");
    in = ok; in.flops = 1e300; in.bytes = 1e-300; expect_range(in, "flops/bytes");
    in = ok; in.flops = 1e-320; expect_range(in, "flops/(peak_flops*compute_frac)"); /* 0 s */
    in = ok; in.peak_flops = 1e-300; in.compute_frac = 1e-300; expect_range(in, "peak_flops*compute_frac");
    (void)state;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roofline_ridge_v100),
        cmocka_unit_test(test_roofline_gemm_8192x128x8192_memory_bound),
        cmocka_unit_test(test_roofline_gemm_8192_cubed_compute_bound),
        cmocka_unit_test(test_roofline_fractions_scale_roofs),
        cmocka_unit_test(test_roofline_rejects_bad_fields),
        cmocka_unit_test(test_roofline_refuses_non_finite_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
