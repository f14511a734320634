/* test_pass.c - tw_pass_estimate(): a pass priced in one call, worked out by hand from the
 * formulas of tw_pass.h on the bare device of tw_gemm_test.h. */
#include "tw_gemm_test.h"
#include "tw_test.h"

static tw_gemm_plan plan(void)
{
    tw_device d = bare();
    tw_gemm_plan p;
    assert_int_equal(tw_gemm_prepare(&d, &p, NULL), TW_OK);
    return p;
}

static tw_pass_step kernel(int part, double bytes, double bw)
{
    tw_pass_step s;
    memset(&s, 0, sizeof s);
    s.kind = TW_STEP_KERNEL;
    s.part = part;
    s.bytes = bytes;
    s.bw = bw;
    return s;
}

static void test_pass_sums_by_hand(void **state)
{
    tw_gemm_plan p = plan();
    tw_pass_step steps[5];
    /* op 1 (layer, 32 runs): one GEMM, 108 tiles of 128x128 over K = 4096: one wave, 46.460 us */
    tw_pass_op ops[3] = { {32, 1, 1, 0.0}, {32, 1, 3, 0.0}, {1, 0, 1, 0.0} };
    tw_pass_result r;
    double op_s[3], g = TILE_128_K4096_S;
    memset(steps, 0, sizeof steps);
    steps[0].kind = TW_STEP_GEMM;
    steps[0].gemm = fp16(1152, 1536, 4096); /* 9 x 12 = 108 tiles */
    /* op 2: a fused kernel (4e12 FLOP at 1e15 = 4 ms, 1e9 exponentials at 1e12/s = 1 ms;
       2e9 bytes at 1e12 = 2 ms: compute-bound, 5 ms + 10 us) and two kernel runs:
       1e9 B at 1e12 B/s + 10 us = 1.01 ms in part 1, 2e9 B at 2e12 + 10 us = 1.01 ms in part 2 */
    steps[1].kind = TW_STEP_FUSED;
    steps[1].bytes = 2e9;
    steps[1].bw = 1e12;
    steps[1].work = 4e12;
    steps[1].rate = 1e15;
    steps[1].sfu = 1e9;
    steps[1].sfu_rate = 1e12;
    steps[2] = kernel(1, 1e9, 1e12);
    steps[3] = kernel(2, 2e9, 2e12);
    /* op 3 (outside the layers, once): 1 byte: 1e-12 s + 10 us */
    steps[4] = kernel(1, 1.0, 1e12);
    assert_int_equal(tw_pass_estimate(&p, ops, 3, steps, 5, 1e-5, 0.0, op_s, &r, NULL), TW_OK);
    assert_close(op_s[0], g, 1e-12);
    assert_close(op_s[1], 5.01e-3 + 2.02e-3, 1e-12);
    assert_close(op_s[2], 1e-5 + 1e-12, 1e-12);
    assert_close(r.layer_s, 32 * g + 32 * 7.03e-3, 1e-12);
    assert_close(r.time_s, r.layer_s + 1e-5 + 1e-12, 1e-12);
    assert_close(r.gemm_s, 32 * g + 32 * 5.01e-3, 1e-12);
    /* a host floor of 2 ms lifts every kernel shorter than it: the GEMM, both runs, op 3 */
    assert_int_equal(tw_pass_estimate(&p, ops, 3, steps, 5, 1e-5, 2e-3, op_s, &r, NULL), TW_OK);
    assert_close(op_s[0], 2e-3, 1e-12);
    assert_close(op_s[1], 5.01e-3 + 4e-3, 1e-12);
    assert_close(op_s[2], 2e-3, 1e-12);
    /* a floor of 8 ms on op 2 (its physical least time) lifts its 7.03 ms; op 1's floor of 1 us
       is below its time and changes nothing; gemm_s keeps the kernels' own 5.01 ms */
    ops[0].floor_s = 1e-6;
    ops[1].floor_s = 8e-3;
    assert_int_equal(tw_pass_estimate(&p, ops, 3, steps, 5, 1e-5, 0.0, op_s, &r, NULL), TW_OK);
    assert_close(op_s[0], g, 1e-12);
    assert_close(op_s[1], 8e-3, 1e-12);
    assert_close(r.layer_s, 32 * g + 32 * 8e-3, 1e-12);
    assert_close(r.gemm_s, 32 * g + 32 * 5.01e-3, 1e-12);
}

static void test_pass_rejects_bad_fields(void **state)
{
    tw_gemm_plan p = plan();
    tw_pass_step steps[2] = { kernel(1, 1e6, 1e12), kernel(1, 1e6, 1e12) };
    tw_pass_op ops[1] = { {4, 1, 2, 0.0} };
    tw_pass_result r;
    const char *bad = NULL;
    size_t at = 9;
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_OK);
    steps[1].bw = 0;
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "steps.bw");
    assert_int_equal((int)at, 1);
    assert_int_equal(tw_pass_estimate(&p, ops, 1, steps, 2, 0, 0, NULL, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "steps.bw");
    steps[1].bw = 1e12;
    steps[0].part = 3;
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "steps.part");
    steps[0].part = 1;
    steps[0].bytes = NAN;
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "steps.bytes");
    steps[0].bytes = 1e6;
    ops[0].count = -2.5;
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "ops.count");
    ops[0].count = 4;
    ops[0].floor_s = -1e-3;
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "ops.floor_s");
    ops[0].floor_s = INFINITY;
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "ops.floor_s");
    ops[0].floor_s = 0;
    ops[0].steps = 1; /* one step left over */
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "ops.steps");
    ops[0].steps = 2;
    steps[0].kind = TW_STEP_GEMM; /* still in part 1: a GEMM is in part 0 */
    steps[0].gemm = fp16(0, 1, 1);
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "steps.part");
    steps[0].part = 0;
    assert_int_equal(tw_pass_validate(ops, 1, steps, 2, &at, &bad), TW_EINVAL);
    assert_string_equal(bad, "m");
    steps[0] = kernel(1, 1e6, 1e12);
    assert_int_equal(tw_pass_estimate(&p, ops, 1, steps, 2, -1, 0, NULL, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "kernel_s");
    assert_int_equal(tw_pass_estimate(NULL, ops, 1, steps, 2, 0, 0, NULL, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "plan");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass_sums_by_hand),
        cmocka_unit_test(test_pass_rejects_bad_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
