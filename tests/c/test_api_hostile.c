/* test_api_hostile.c - every public function of the core on NULL pointers, sizes beyond
 * their limits and tampered plans: a status and the argument's name, never a crash
 * (issue 32). Run under ASan/UBSan by scripts/sanitize. */
#include "tw_gemm_test.h"
#include "tw_test.h"

#define EXPECT(call, status, field)                                                                  \
    do {                                                                                             \
        bad = NULL;                                                                                  \
        assert_int_equal((call), (status));                                                          \
        assert_non_null(bad);                                                                        \
        assert_string_equal(bad, (field));                                                           \
        assert_string_not_equal(tw_field_expectation(bad), "expected a valid value");                \
    } while (0)

static void test_null_inputs_and_outputs(void **state)
{
    const char *bad;
    tw_roofline_input ri;
    tw_roofline_result rr;
    tw_decode_input di;
    tw_decode_result dr;
    tw_memory_input mi;
    tw_memory_result mr;
    tw_splitkv_input si;
    tw_splitkv_result sr;
    tw_attention_input ai;
    tw_attention_result ar;
    tw_collective_input ci;
    tw_collective_result cr;
    memset(&ri, 0, sizeof ri);
    memset(&di, 0, sizeof di);
    memset(&mi, 0, sizeof mi);
    memset(&si, 0, sizeof si);
    memset(&ai, 0, sizeof ai);
    memset(&ci, 0, sizeof ci);
    EXPECT(tw_roofline(NULL, &rr, &bad), TW_EINVAL, "in");
    EXPECT(tw_roofline(&ri, NULL, &bad), TW_EINVAL, "out");
    EXPECT(tw_decode_step(NULL, &dr, &bad), TW_EINVAL, "in");
    EXPECT(tw_decode_step(&di, NULL, &bad), TW_EINVAL, "out");
    EXPECT(tw_splitkv(NULL, &sr, &bad), TW_EINVAL, "in");
    EXPECT(tw_splitkv(&si, NULL, &bad), TW_EINVAL, "out");
    EXPECT(tw_memory_fit(NULL, &mr, &bad), TW_EINVAL, "in");
    EXPECT(tw_memory_fit(&mi, NULL, &bad), TW_EINVAL, "out");
    EXPECT(tw_attention_io(NULL, &ar, &bad), TW_EINVAL, "in");
    EXPECT(tw_attention_io(&ai, NULL, &bad), TW_EINVAL, "out");
    EXPECT(tw_collective(NULL, &cr, &bad), TW_EINVAL, "in");
    EXPECT(tw_collective(&ci, NULL, &bad), TW_EINVAL, "out");
    /* bad_field itself may be NULL */
    assert_int_equal(tw_roofline(NULL, NULL, NULL), TW_EINVAL);
    assert_int_equal(tw_decode_step(NULL, NULL, NULL), TW_EINVAL);
    (void)state;
}

static void test_null_gemm_arguments(void **state)
{
    const char *bad;
    tw_device d = bare();
    tw_gemm_plan p;
    tw_gemm_shape s = fp16(64, 64, 64);
    tw_gemm_result r;
    double t;
    size_t at;
    EXPECT(tw_device_validate(NULL, &bad), TW_EINVAL, "device");
    EXPECT(tw_gemm_prepare(NULL, &p, &bad), TW_EINVAL, "device");
    EXPECT(tw_gemm_prepare(&d, NULL, &bad), TW_EINVAL, "plan");
    EXPECT(tw_gemm_estimate(NULL, &s, &r, &bad), TW_EINVAL, "device");
    EXPECT(tw_gemm_estimate(&d, NULL, &r, &bad), TW_EINVAL, "shape");
    EXPECT(tw_gemm_estimate(&d, &s, NULL, &bad), TW_EINVAL, "out");
    EXPECT(tw_gemm_estimate_many(NULL, &s, 1, &t, NULL, &at, &bad), TW_EINVAL, "device");
    EXPECT(tw_gemm_estimate_many(&d, NULL, 1, &t, NULL, &at, &bad), TW_EINVAL, "shapes");
    EXPECT(tw_gemm_estimate_many(&d, &s, 1, NULL, NULL, &at, &bad), TW_EINVAL, "time_s pointer");
    /* no shapes: nothing to read or write, TW_OK whatever the pointers */
    assert_int_equal(tw_gemm_estimate_many(&d, NULL, 0, NULL, NULL, NULL, NULL), TW_OK);
    assert_int_equal(tw_gemm_prepare(&d, &p, NULL), TW_OK);
    EXPECT(tw_gemm_plan_estimate(NULL, &s, &r, &bad), TW_EINVAL, "plan");
    EXPECT(tw_gemm_plan_estimate(&p, NULL, &r, &bad), TW_EINVAL, "shape");
    EXPECT(tw_gemm_plan_estimate(&p, &s, NULL, &bad), TW_EINVAL, "out");
    EXPECT(tw_gemm_plan_estimate_many(&p, NULL, 3, &t, NULL, &at, &bad), TW_EINVAL, "shapes");
    EXPECT(tw_gemm_plan_estimate_many(&p, &s, 1, NULL, NULL, &at, &bad), TW_EINVAL, "time_s pointer");
    (void)state;
}

static void test_tampered_plan(void **state)
{
    const char *bad;
    tw_device d = bare();
    tw_gemm_plan p, q;
    tw_gemm_shape s = fp16(4096, 4096, 4096);
    tw_gemm_result r;
    assert_int_equal(tw_gemm_prepare(&d, &p, NULL), TW_OK);
    assert_int_equal(tw_gemm_plan_estimate(&p, &s, &r, NULL), TW_OK);
    /* a tile count past the array: refused, not read past the end */
    q = p;
    q.dev.n_tiles = 100000;
    EXPECT(tw_gemm_plan_estimate(&q, &s, &r, &bad), TW_EINVAL, "plan");
    /* a tile shift past the width of its type */
    q = p;
    q.tiles[0].shift_m = 100;
    EXPECT(tw_gemm_plan_estimate(&q, &s, &r, &bad), TW_EINVAL, "plan");
    /* zero slots: a division by zero */
    q = p;
    q.tiles[0].slots = 0;
    EXPECT(tw_gemm_plan_estimate(&q, &s, &r, &bad), TW_EINVAL, "plan");
    /* a split-K search of a billion factors */
    q = p;
    q.dev.max_split_k = 1000000000;
    EXPECT(tw_gemm_plan_estimate(&q, &s, &r, &bad), TW_EINVAL, "plan");
    /* a zero tile: a division by zero */
    q = p;
    q.dev.tiles[0].m = 0;
    EXPECT(tw_gemm_plan_estimate(&q, &s, &r, &bad), TW_EINVAL, "plan");
    /* the magic */
    q = p;
    q.magic ^= 1u;
    EXPECT(tw_gemm_plan_estimate(&q, &s, &r, &bad), TW_EINVAL, "plan");
    (void)state;
}

static void test_pass_null_and_limits(void **state)
{
    const char *bad;
    tw_device d = bare();
    tw_gemm_plan p;
    tw_pass_op op = { 1, 1, 1, 0.0 };
    tw_pass_step step;
    tw_pass_result r;
    size_t at;
    memset(&step, 0, sizeof step);
    step.kind = TW_STEP_KERNEL;
    step.part = 1;
    step.bytes = 1e6;
    step.bw = 1e12;
    assert_int_equal(tw_gemm_prepare(&d, &p, NULL), TW_OK);
    EXPECT(tw_pass_validate(NULL, 1, &step, 1, &at, &bad), TW_EINVAL, "ops pointer");
    EXPECT(tw_pass_validate(&op, 1, NULL, 1, &at, &bad), TW_EINVAL, "steps pointer");
    EXPECT(tw_pass_validate(&op, (size_t)TW_PASS_MAX_OPS + 1, &step, 1, &at, &bad), TW_ERANGE, "ops");
    EXPECT(tw_pass_validate(&op, 1, &step, (size_t)TW_PASS_MAX_STEPS + 1, &at, &bad), TW_ERANGE, "steps");
    EXPECT(tw_pass_estimate(NULL, &op, 1, &step, 1, 0, 0, NULL, &r, &bad), TW_EINVAL, "plan");
    EXPECT(tw_pass_estimate(&p, &op, 1, &step, 1, 0, 0, NULL, NULL, &bad), TW_EINVAL, "out");
    EXPECT(tw_pass_estimate(&p, NULL, 1, &step, 1, 0, 0, NULL, &r, &bad), TW_EINVAL, "ops pointer");
    assert_int_equal(tw_pass_estimate(&p, &op, 1, &step, 1, 0, 0, NULL, &r, NULL), TW_OK);
    /* an empty pass costs nothing */
    assert_int_equal(tw_pass_estimate(&p, NULL, 0, NULL, 0, 0, 0, NULL, &r, NULL), TW_OK);
    assert_true(r.time_s == 0.0);
    (void)state;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_inputs_and_outputs),
        cmocka_unit_test(test_null_gemm_arguments),
        cmocka_unit_test(test_tampered_plan),
        cmocka_unit_test(test_pass_null_and_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
