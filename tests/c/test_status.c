/* test_status.c - status, bound and field-expectation texts. */
#include "tilewave.h"
#include "tw_test.h"

static void test_strerror_names_every_status(void **state)
{
    assert_string_equal(tw_strerror(TW_OK), "ok");
    assert_string_equal(tw_strerror(TW_EINVAL), "invalid argument");
    assert_string_equal(tw_strerror(TW_ERANGE), "out of range");
    assert_string_equal(tw_strerror(99), "unknown status");
}

static void test_bound_name(void **state)
{
    assert_string_equal(tw_bound_name(TW_BOUND_COMPUTE), "compute");
    assert_string_equal(tw_bound_name(TW_BOUND_MEMORY), "memory");
    assert_string_equal(tw_bound_name(TW_BOUND_OVERHEAD), "overhead");
    assert_string_equal(tw_bound_name(-1), "unknown");
}

static void test_field_expectation(void **state)
{
    assert_string_equal(tw_field_expectation("m"), "expected positive integer");
    assert_string_equal(tw_field_expectation("mem_frac"), "expected number in (0, 1]");
    assert_string_equal(tw_field_expectation("device.tiles.eff"), "expected number in (0, 1]");
    assert_string_equal(tw_field_expectation("nonsense"), "expected a valid value");
    assert_string_equal(tw_field_expectation(NULL), "expected a valid value");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strerror_names_every_status),
        cmocka_unit_test(test_bound_name),
        cmocka_unit_test(test_field_expectation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
