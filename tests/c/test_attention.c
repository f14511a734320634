/* test_attention.c - tw_attention_io() against Dao et al. 2022 Algorithms 0 and 1, by hand. */
#include "tilewave.h"
#include "tw_test.h"

static void test_attention_io_n1024_d64(void **state)
{
    /* N = 1024, d = 64, fp16, SRAM 32 KiB = 16384 elements: Bc = ceil(16384 / 256) = 64,
       Br = min(64, 64) = 64, Tc = 1024 / 64 = 16.
       standard: 4Nd + 4N^2 = 262,144 + 4,194,304 = 4,456,448 elements = 8,912,896 B
       flash: 2Nd + Tc*3Nd = 131,072 + 3,145,728 = 3,276,800 elements = 6,553,600 B,
              + l, m: Tc*4N*4 B = 262,144 B -> 6,815,744 B
       memory: standard (4Nd + 2N^2)*2 = 4,718,592 B; flash 4Nd*2 + 2N*4 = 532,480 B
       backward: standard 8Nd + 7N^2 = 524,288 + 7,340,032 = 7,864,320 elements = 15,728,640 B;
       flash 4Nd + Tc*5Nd = 262,144 + 5,242,880 = 5,505,024 elements = 11,010,048 B,
              + l, m: Tc*2N*4 B = 131,072 B -> 11,141,120 B */
    tw_attention_input in = {1024, 64, 1, 2, 32768};
    tw_attention_result r;
    assert_int_equal(tw_attention_io(&in, &r, NULL), TW_OK);
    assert_close(r.block_cols, 64, 0);
    assert_close(r.block_rows, 64, 0);
    assert_close(r.passes, 16, 0);
    assert_close(r.standard_bytes, 8912896.0, 1e-12);
    assert_close(r.flash_bytes, 6815744.0, 1e-12);
    assert_close(r.standard_mem_bytes, 4718592.0, 1e-12);
    assert_close(r.flash_mem_bytes, 532480.0, 1e-12);
    assert_close(r.standard_bwd_bytes, 15728640.0, 1e-12);
    assert_close(r.flash_bwd_bytes, 11141120.0, 1e-12);
}

static void test_attention_io_grows_quadratically_for_standard_only(void **state)
{
    /* 192 KiB SRAM = 98304 elements, d = 128: Bc = ceil(98304 / 512) = 192, Tc = ceil(8192 / 192)
       = 43; flash = 32 heads * ((2Nd + 43*3Nd) * 2 B + 43*4N*4 B). Doubling N quadruples the
       N^2 term of the standard traffic; FlashAttention's Tc*N*d term also grows as N^2 (Tc ~ N),
       at 12 N^2 d^2 / M elements against 4 N^2: half of it here. */
    tw_attention_input a = {8192, 128, 32, 2, 196608}, b = {16384, 128, 32, 2, 196608};
    tw_attention_result ra, rb;
    assert_int_equal(tw_attention_io(&a, &ra, NULL), TW_OK);
    assert_int_equal(tw_attention_io(&b, &rb, NULL), TW_OK);
    assert_true(rb.standard_bytes / ra.standard_bytes > 3.9);
    assert_close(ra.passes, 43, 0);
    assert_close(ra.flash_bytes, 32.0 * ((2.0 * 8192 * 128 + 43.0 * 3 * 8192 * 128) * 2 + 43.0 * 4 * 8192 * 4), 1e-12);
    assert_true(ra.flash_bytes < 0.55 * ra.standard_bytes);
    assert_close(rb.standard_mem_bytes / rb.flash_mem_bytes, (4.0 * 16384 * 128 + 2.0 * 16384 * 16384) * 2 /
                 (4.0 * 16384 * 128 * 2 + 2.0 * 16384 * 4), 1e-12);
}

static void test_attention_io_rejects_bad_fields(void **state)
{
    tw_attention_input in = {1024, 64, 1, 2, 100}; /* 50 elements < 4d */
    tw_attention_result r;
    const char *bad = NULL;
    assert_int_equal(tw_attention_io(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "sram_bytes");
    in.sram_bytes = 32768;
    in.seq_len = 0;
    assert_int_equal(tw_attention_io(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "seq_len");
    /* SRAM over a subnormal element size is infinite elements: Bc would be inf */
    in.seq_len = 1024;
    in.elem_bytes = 4.9e-324;
    assert_int_equal(tw_attention_io(&in, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, "sram_bytes/elem_bytes");
    /* 2^53 tokens of 1e280-byte elements: 4 N^2 e = 3.2e312 bytes overflows */
    in.elem_bytes = 1e280;
    in.seq_len = 9007199254740992.0;
    in.sram_bytes = 1e308;
    assert_int_equal(tw_attention_io(&in, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, "heads*seq_len*seq_len*elem_bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_io_n1024_d64),
        cmocka_unit_test(test_attention_io_grows_quadratically_for_standard_only),
        cmocka_unit_test(test_attention_io_rejects_bad_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
