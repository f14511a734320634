/* test_decode.c - tw_decode_step(), tw_splitkv() and tw_memory_fit() on hand-worked examples. */
#include <string.h>

#include "tilewave.h"
#include "tw_test.h"

static tw_decode_input example(void)
{
    /* 1 GB of weights, 5e8 weights multiplied per token, 2 ALU ops each to
       dequantize; L = 2, 2 KV heads, 4 query heads of 64; context 1000, batch 4. */
    tw_decode_input in;
    memset(&in, 0, sizeof in);
    in.weight_bytes = 1e9;
    in.matmul_params = 5e8;
    in.dequant_ops = 2;
    in.layers = 2;
    in.kv_heads = 2;
    in.q_heads = 4;
    in.head_dim = 64;
    in.kv_elem_bytes = 2;
    in.context = 1000;
    in.batch = 4;
    in.act_bytes = 0;
    in.peak_flops = 1e14;
    in.compute_frac = 0.5;
    in.vector_flops = 1e13;
    in.mem_bw = 1e12;
    in.mem_frac = 0.5;
    in.kernels = 100;
    in.launch_s = 3e-6;
    return in;
}

static void test_decode_step_hand_example(void **state)
{
    /* KV = 2*2*2*64*1000*4*2 = 4,096,000 B; bytes = 1,004,096,000; memory_s = bytes / 5e11
       = 2.008192 ms; FLOP = 2*5e8*4 + 4*2*4*64*1000*4 = 4,008,192,000; compute_s = 80.16 us;
       dequant_s = 5e8*2/1e13 = 100 us; overhead = 100*3 us = 300 us;
       TPOT = 0.3 + max(0.0802, 2.008192 + 0.1) ms = 2.408192 ms. */
    tw_decode_input in = example();
    tw_decode_result r;
    assert_int_equal(tw_decode_step(&in, &r, NULL), TW_OK);
    assert_close(r.kv_bytes, 4096000.0, 1e-12);
    assert_close(r.bytes, 1004096000.0, 1e-12);
    assert_close(r.flops, 4008192000.0, 1e-12);
    assert_close(r.memory_s, 2.008192e-3, 1e-12);
    assert_close(r.compute_s, 8.016384e-5, 1e-12);
    assert_close(r.dequant_s, 1e-4, 1e-12);
    assert_close(r.overhead_s, 3e-4, 1e-12);
    assert_close(r.tpot_s, 2.408192e-3, 1e-12);
    assert_close(r.tokens_per_s, 1.0 / 2.408192e-3, 1e-12);
    assert_close(r.aggregate_tokens_per_s, 4.0 / 2.408192e-3, 1e-12);
    assert_close(r.achieved_bw, 1004096000.0 / 2.408192e-3, 1e-12);
    assert_int_equal(r.bound, TW_BOUND_MEMORY);
    /* attn_dim = 0 is 2 * head_dim = 128: the same FLOP. MLA with absorbed projections
       (576 + 512 = 1088): attention FLOP 2*2*4*1088*1000*4 = 69,632,000, KV bytes unchanged */
    in.attn_dim = 128;
    assert_int_equal(tw_decode_step(&in, &r, NULL), TW_OK);
    assert_close(r.flops, 4008192000.0, 1e-12);
    in.attn_dim = 1088;
    assert_int_equal(tw_decode_step(&in, &r, NULL), TW_OK);
    assert_close(r.flops, 4e9 + 69632000.0, 1e-12);
    assert_close(r.kv_bytes, 4096000.0, 1e-12);
}

static void test_decode_step_turns_compute_bound_at_large_batch(void **state)
{
    /* batch 1024: FLOP = 1.024e12 + 4*2*4*64*1000*1024 = 1.026097e12 -> 20.5 ms of compute
       against (1e9 + 1.048576e9) / 5e11 = 4.1 ms of memory */
    tw_decode_input in = example();
    tw_decode_result r;
    in.batch = 1024;
    assert_int_equal(tw_decode_step(&in, &r, NULL), TW_OK);
    assert_int_equal(r.bound, TW_BOUND_COMPUTE);
    assert_close(r.compute_s, (1.024e12 + 4.0 * 2 * 4 * 64 * 1000 * 1024) / 5e13, 1e-12);
}

static void test_decode_step_launch_bound(void **state)
{
    tw_decode_input in = example();
    tw_decode_result r;
    in.kernels = 10000;
    in.launch_s = 1e-5;
    assert_int_equal(tw_decode_step(&in, &r, NULL), TW_OK);
    assert_int_equal(r.bound, TW_BOUND_OVERHEAD);
}

static void test_decode_step_rejects_bad_fields(void **state)
{
    tw_decode_input in;
    tw_decode_result r;
    const char *bad = NULL;
    in = example(); in.context = 0;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "context");
    in = example(); in.batch = 2.5;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "batch");
    in = example(); in.weight_bytes = NAN;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "weight_bytes");
    in = example(); in.mem_frac = 1.5;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "mem_frac");
    in = example(); in.launch_s = -1;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "launch_s");
    in = example(); in.context = 1e12; in.batch = 1e6; /* 2.6e20 KV elements */
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, "context*batch");
    /* the case: q_heads = 1.7e308 is an integer, but the attention FLOP overflow */
    in = example(); in.q_heads = 1.7e308;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, "q_heads*head_dim*context*batch");
    in = example(); in.compute_frac = 4.9e-324;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, "flops/(peak_flops*compute_frac)");
}

static void test_decode_step_kv_occupancy(void **state)
{
    /* kv_eff 0.25 (a quarter of the SMs stream the cache): memory_s = 1e9 / 5e11 + 4,096,000 /
       (5e11 * 0.25) = 2 ms + 32.768 us = 2.032768 ms; kv_eff 1 and 0 give the 2.008192 ms above */
    tw_decode_input in = example();
    tw_decode_result r;
    const char *bad = NULL;
    in.kv_eff = 0.25;
    assert_int_equal(tw_decode_step(&in, &r, NULL), TW_OK);
    assert_close(r.memory_s, 2.032768e-3, 1e-12);
    assert_close(r.tpot_s, 0.3e-3 + 2.032768e-3 + 0.1e-3, 1e-12);
    assert_close(r.bytes, 1004096000.0, 1e-12); /* the same bytes, moved more slowly */
    in.kv_eff = 1.0;
    assert_int_equal(tw_decode_step(&in, &r, NULL), TW_OK);
    assert_close(r.memory_s, 2.008192e-3, 1e-12);
    in.kv_eff = 1.5;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "kv_eff");
    in.kv_eff = -0.5;
    assert_int_equal(tw_decode_step(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "kv_eff");
    (void)state;
}

static tw_splitkv_input h100_llama2(double kv_blocks, double max_splits)
{
    /* Llama-2-7B at batch 1 on an H100: 32 KV heads (no GQA) = 32 blocks, 132 SMs, 264 slots */
    tw_splitkv_input in = {32.0, kv_blocks, 132.0, 264.0, max_splits};
    return in;
}

static void test_splitkv_flash_attn_heuristic(void **state)
{
    tw_splitkv_input in;
    tw_splitkv_result r;
    /* context 512 at head dim 128: 4 blocks of 128 keys. eff(s) = 32 s / 264 for s <= 4, the best
       0.485 at s = 4 and 0.85 x 0.485 = 0.412 > eff(3) = 0.364: 4 splits, 128 blocks on 132 SMs */
    in = h100_llama2(4.0, 128.0);
    assert_int_equal(tw_splitkv(&in, &r, NULL), TW_OK);
    assert_close(r.splits, 4.0, 0);
    assert_close(r.blocks, 128.0, 0);
    assert_close(r.efficiency, 128.0 / 132.0, 1e-15);
    /* context 2048: 16 key blocks; s = 5, 7, 9-15 repeat the blocks per split of s - 1. eff: 6 ->
       0.727, 8 -> 256/264 = 0.970, 16 -> 512/264 = 1.94 of 2 waves = 0.970; 0.85 x 0.970 = 0.824:
       8 splits, 256 blocks, every SM busy */
    in = h100_llama2(16.0, 128.0);
    assert_int_equal(tw_splitkv(&in, &r, NULL), TW_OK);
    assert_close(r.splits, 8.0, 0);
    assert_close(r.efficiency, 1.0, 0);
    /* no split (FlashAttention before 2.2): 32 blocks keep 32 of the 132 SMs streaming */
    in = h100_llama2(64.0, 0.0);
    assert_int_equal(tw_splitkv(&in, &r, NULL), TW_OK);
    assert_close(r.splits, 1.0, 0);
    assert_close(r.efficiency, 32.0 / 132.0, 1e-15);
    /* 212 blocks >= 0.8 x 264 = 211.2: one split. 211 blocks: s = 1-4 give 0.799 (1.60 of 2 waves,
       ...), s = 5 gives 1055/264 = 3.996 of 4 = 0.999 and 0.85 x 0.999 = 0.849: 5 splits */
    in = h100_llama2(64.0, 128.0);
    in.blocks = 212.0;
    assert_int_equal(tw_splitkv(&in, &r, NULL), TW_OK);
    assert_close(r.splits, 1.0, 0);
    assert_close(r.efficiency, 1.0, 0);
    in.blocks = 211.0;
    assert_int_equal(tw_splitkv(&in, &r, NULL), TW_OK);
    assert_close(r.splits, 5.0, 0);
    assert_close(r.blocks, 1055.0, 0);
    (void)state;
}

static void test_splitkv_rejects_bad_fields(void **state)
{
    tw_splitkv_input in;
    tw_splitkv_result r;
    const char *bad = NULL;
    in = h100_llama2(4.0, 128.0); in.blocks = 0.0;
    assert_int_equal(tw_splitkv(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "blocks");
    in = h100_llama2(4.5, 128.0);
    assert_int_equal(tw_splitkv(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "kv_blocks");
    in = h100_llama2(4.0, 128.0); in.sms = NAN;
    assert_int_equal(tw_splitkv(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "sms");
    in = h100_llama2(4.0, 128.0); in.slots = 2097152.0;
    assert_int_equal(tw_splitkv(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "slots");
    in = h100_llama2(4.0, 4097.0);
    assert_int_equal(tw_splitkv(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "max_splits");
    (void)state;
}

static tw_memory_input mem(double memory)
{
    /* 10 B of weights, 1 B of KV per token, context 5, batch 2: total 20 B */
    tw_memory_input in = {10.0, 1.0, 5.0, 2.0, 0.0, memory};
    return in;
}

static void test_memory_fit_exactly_and_one_byte_over(void **state)
{
    tw_memory_input in = mem(20.0);
    tw_memory_result r;
    assert_int_equal(tw_memory_fit(&in, &r, NULL), TW_OK);
    assert_true(r.fits);
    assert_close(r.total_bytes, 20.0, 0);
    assert_close(r.free_bytes + 1.0, 1.0, 0);
    assert_close(r.max_batch, 2.0, 0);   /* floor(10 / 5) */
    assert_close(r.max_context, 5.0, 0); /* floor(10 / 2) */
    in = mem(19.0);
    assert_int_equal(tw_memory_fit(&in, &r, NULL), TW_OK);
    assert_false(r.fits);
    assert_close(r.free_bytes, -1.0, 0);
    assert_close(r.max_batch, 1.0, 0);
}

static void test_memory_fit_weights_alone_too_big(void **state)
{
    tw_memory_input in = mem(9.0);
    tw_memory_result r;
    assert_int_equal(tw_memory_fit(&in, &r, NULL), TW_OK);
    assert_false(r.fits);
    assert_close(r.max_batch + 1.0, 1.0, 0);
    assert_close(r.max_context + 1.0, 1.0, 0);
}

static void test_memory_fit_rejects_bad_fields(void **state)
{
    tw_memory_input in = mem(20.0);
    tw_memory_result r;
    const char *bad = NULL;
    in.memory_bytes = 0;
    assert_int_equal(tw_memory_fit(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "memory_bytes");
    in = mem(20.0);
    in.context = -1;
    assert_int_equal(tw_memory_fit(&in, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "context");
    /* a subnormal per-token size: max_batch = 10 / 5e-324 would be inf */
    in = mem(20.0);
    in.kv_bytes_per_token = 4.9e-324;
    assert_int_equal(tw_memory_fit(&in, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, "memory_bytes/kv_bytes_per_token");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_step_hand_example),
        cmocka_unit_test(test_decode_step_turns_compute_bound_at_large_batch),
        cmocka_unit_test(test_decode_step_launch_bound),
        cmocka_unit_test(test_decode_step_rejects_bad_fields),
        cmocka_unit_test(test_decode_step_kv_occupancy),
        cmocka_unit_test(test_splitkv_flash_attn_heuristic),
        cmocka_unit_test(test_splitkv_rejects_bad_fields),
        cmocka_unit_test(test_memory_fit_exactly_and_one_byte_over),
        cmocka_unit_test(test_memory_fit_weights_alone_too_big),
        cmocka_unit_test(test_memory_fit_rejects_bad_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
