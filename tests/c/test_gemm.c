/* test_gemm.c - tw_gemm_estimate() and friends, with values worked out by hand.
 *
 * Most tests use a bare "A100-like" device so the arithmetic is easy to follow:
 * 108 SMs, 312e12 FLOP/s, 1555e9 byte/s, 40e6 byte L2, every fraction 1, no
 * overheads, one 128x128 tile (1 CTA/SM), no split-K, alignment factor 1.
 * Per-SM rate = 312e12 / 108 = 2.8889e12 FLOP/s; a 128x128 tile over K = 4096
 * is 2*128*128*4096 = 134,217,728 FLOP -> 46.460 us.
 */
#include <math.h>
#include <string.h>

#include "tilewave.h"
#include "tw_gemm_test.h"
#include "tw_test.h"

static tw_gemm_result run(const tw_device *d, tw_gemm_shape s)
{
    tw_gemm_result r;
    const char *bad = NULL;
    int st = tw_gemm_estimate(d, &s, &r, &bad);
    if (st != TW_OK) print_error("status %d field %s\n", st, bad ? bad : "(none)");
    assert_int_equal(st, TW_OK);
    return r;
}

/* d is refused (TW_EINVAL) with `field` named */
static void assert_bad_device(const tw_device *d, const char *field)
{
    tw_gemm_shape s = fp16(64, 64, 64);
    tw_gemm_result r;
    const char *bad = NULL;
    assert_int_equal(tw_gemm_estimate(d, &s, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, field);
}

static void test_gemm_tile_and_wave_counts_2304x1600(void **state)
{
    /* M=2304 -> 18 tile rows; N=1600 -> 13 cols (12.5 rounded up); 234 tiles ->
       ceil(234/108) = 3 waves; wave_eff = 234/324 = 0.72222;
       tile_eff = 2304*1600 / (2304*1664) = 0.96154; time = 3 * 46.460 us. */
    tw_device d = bare();
    tw_gemm_result r = run(&d, fp16(2304, 1600, 4096));
    assert_int_equal(r.tile_m, 128);
    assert_int_equal(r.tile_n, 128);
    assert_int_equal(r.tiles, 234);
    assert_int_equal(r.waves, 3);
    assert_close(r.wave_eff, 234.0 / 324.0, 1e-12);
    assert_close(r.tile_eff, 1600.0 / 1664.0, 1e-12);
    assert_close(r.compute_s, 3 * TILE_128_K4096_S, 1e-12);
    assert_close(r.time_s, 139.38e-6, 1e-4);
    /* FLOP = 2*2304*1600*4096 = 30,198,988,800; compulsory bytes =
       2*(2304*4096 + 4096*1600) + 2*2304*1600 = 39,354,368 (fits L2: no re-reads) */
    assert_close(r.flops, 30198988800.0, 1e-15);
    assert_close(r.bytes, 39354368.0, 1e-15);
    assert_close(r.dram_bytes, 39354368.0, 1e-15);
    assert_close(r.memory_s, 39354368.0 / 1555e9, 1e-12);
    assert_int_equal(r.bound, TW_BOUND_COMPUTE);
    assert_close(r.flop_rate, 30198988800.0 / r.time_s, 1e-12);
}

static void test_gemm_full_wave_2304x1536(void **state)
{
    /* N=1536 -> 12 cols; 18*12 = 216 tiles = exactly 2 waves of 108: wave_eff 1. */
    tw_device d = bare();
    tw_gemm_result r = run(&d, fp16(2304, 1536, 4096));
    assert_int_equal(r.tiles, 216);
    assert_int_equal(r.waves, 2);
    assert_close(r.wave_eff, 1.0, 1e-15);
    assert_close(r.tile_eff, 1.0, 1e-15);
    assert_close(r.time_s, 2 * TILE_128_K4096_S, 1e-12);
}

static void test_gemm_tile_quantization_27648x130(void **state)
{
    /* N=130 needs 2 tile columns (256 padded): 216*2 = 432 tiles -> 4 waves;
       tile_eff = 130/256 = 0.50781; the same time as N=256. */
    tw_device d = bare();
    tw_gemm_result r130 = run(&d, fp16(27648, 130, 4096));
    tw_gemm_result r256 = run(&d, fp16(27648, 256, 4096));
    assert_int_equal(r130.tiles, 432);
    assert_int_equal(r130.waves, 4);
    assert_close(r130.tile_eff, 130.0 / 256.0, 1e-12);
    assert_close(r130.compute_s, r256.compute_s, 1e-12);
}

static void test_gemm_memory_bound_skinny_27648x64(void **state)
{
    /* A = 27648*4096*2 = 226,492,416 B does not fit the 40 MB L2. 216 tiles in
       2 waves; a wave covers 108 tile rows x 1 column: panel A = 108*128*4096*2 =
       113,246,208 B, panel B = min(128*4096*2, 4096*64*2) = 524,288 B. DRAM =
       2*(113,246,208 + 524,288) + C 27648*64*2 (3,538,944) = 231,079,936 B ->
       148.60 us at 1555e9 B/s > compute 2*46.46 = 92.92 us -> memory-bound. */
    tw_device d = bare();
    tw_gemm_result r = run(&d, fp16(27648, 64, 4096));
    assert_int_equal(r.tiles, 216);
    assert_close(r.dram_bytes, 231079936.0, 1e-12);
    assert_close(r.memory_s, 231079936.0 / 1555e9, 1e-12);
    assert_close(r.time_s, 148.604e-6, 1e-4);
    assert_int_equal(r.bound, TW_BOUND_MEMORY);
}

static void test_gemm_writes_and_misaligned_bandwidth(void **state)
{
    /* The same skinny GEMM with C written at write_frac = 0.5: operands
       227,540,992 B at 1555e9 B/s (146.328 us) + C 3,538,944 B at 777.5e9 B/s
       (4.5517 us) = 150.880 us; DRAM bytes unchanged. */
    tw_device d = bare();
    tw_gemm_result r;
    d.write_frac = 0.5;
    r = run(&d, fp16(27648, 64, 4096));
    assert_close(r.dram_bytes, 231079936.0, 1e-12);
    assert_close(r.memory_s, 227540992.0 / 1555e9 + 3538944.0 / 777.5e9, 1e-12);
    assert_close(r.time_s, 150.880e-6, 1e-4);
    /* N = 65 (130 B: class 2 B) with align_mem_eff[1] = 0.25: every byte at a
       quarter of the rate. Two waves of 108 tile rows: panels 2*(113,246,208 +
       B 4096*65*2 = 532,480) = 227,557,376 B, C = 27648*65*2 = 3,594,240 B:
       231,151,616 B / (1555e9 * 0.25) = 594.60 us > compute 2*46.46 = 92.9 us. */
    d = bare();
    d.align_mem_eff[1] = 0.25;
    r = run(&d, fp16(27648, 65, 4096));
    assert_int_equal(r.align_bytes, 2);
    assert_int_equal(r.bound, TW_BOUND_MEMORY);
    assert_close(r.memory_s, r.dram_bytes / (1555e9 * 0.25), 1e-12);
    assert_close(r.dram_bytes, 231151616.0, 1e-12);
    assert_close(r.time_s, 594.602e-6, 1e-4);
}

static void test_gemm_exposed_writes_add_to_the_main_loop(void **state)
{
    /* 4096^3 on the bare device: 32 x 32 = 1024 tiles = 10 waves of 108 (9.48 rounded up),
       compute 10 * 46.460 us = 464.60 us; the operands (67 MB) exceed L2, so each wave reads
       its panels: 230,686,720 B = 148.35 us of reads (below the compute); C 33,554,432 B is
       written in 21.578 us. Overlapped (write_exposed 0): max(464.60, 148.35 + 21.58) = 464.60
       us. Fully exposed: 464.60 + 21.578 = 486.18 us. Half: max(464.60, 148.35 + 10.79) +
       10.79 = 475.39 us. */
    tw_device d = bare();
    tw_gemm_result r;
    const double compute = 10 * TILE_128_K4096_S, write = 33554432.0 / 1555e9;
    r = run(&d, fp16(4096, 4096, 4096));
    assert_int_equal(r.waves, 10);
    assert_close(r.time_s, compute, 1e-12);
    d.write_exposed = 1.0;
    r = run(&d, fp16(4096, 4096, 4096));
    assert_close(r.time_s, compute + write, 1e-12);
    assert_close(r.dram_bytes, 230686720.0 + 33554432.0, 1e-12);
    assert_close(r.memory_s, 230686720.0 / 1555e9 + write, 1e-12);
    d.write_exposed = 0.5;
    r = run(&d, fp16(4096, 4096, 4096));
    assert_close(r.time_s, compute + 0.5 * write, 1e-12);
    d.write_exposed = 1.5;
    assert_bad_device(&d, "device.write_exposed");
    (void)state;
}

static void test_gemm_partial_sector_rows_cost_c_writes(void **state)
{
    /* 16384x4104x16 fp16: N*2 = 8208 B = 16 x 513 and K*2 = 32 B, so the 16-byte class, with C
       rows at an odd multiple of 16 bytes. C = 16384*4104*2 = 134,479,872 B at 1555e9 B/s is
       86.48 us, far above the math, so write_sector_cost 0.5 adds half of it: 43.241 us. N = 4112
       (8224 B = 32 x 257) fills whole sectors and pays nothing; N = 4097 (odd: the 2-byte class)
       is left to align_mem_eff. */
    tw_device d = bare();
    tw_gemm_result r0, r1;
    const double c_write = 16384.0 * 4104.0 * 2.0 / 1555e9;
    r0 = run(&d, fp16(16384, 4104, 16));
    d.write_sector_cost = 0.5;
    r1 = run(&d, fp16(16384, 4104, 16));
    assert_int_equal(r1.align_bytes, 16);
    assert_int_equal(r1.bound, TW_BOUND_MEMORY);
    assert_close(r1.time_s - r0.time_s, 0.5 * c_write, 1e-9);
    assert_close(r1.memory_s - r0.memory_s, 0.5 * c_write, 1e-9);
    r1 = run(&d, fp16(16384, 4112, 16));
    d.write_sector_cost = 0.0;
    r0 = run(&d, fp16(16384, 4112, 16));
    assert_true(r1.time_s == r0.time_s);
    r0 = run(&d, fp16(16384, 4097, 16));
    d.write_sector_cost = 0.5;
    r1 = run(&d, fp16(16384, 4097, 16));
    assert_true(r1.time_s == r0.time_s);
    d.write_sector_cost = -0.1;
    assert_bad_device(&d, "device.write_sector_cost");
    d.write_sector_cost = NAN;
    assert_bad_device(&d, "device.write_sector_cost");
    (void)state;
}

static void test_gemm_non_tma_class_has_its_own_exposure(void **state)
{
    /* 4096x4096x4097 fp16: K odd, so the 2-byte class, which write_exposed_non_tma governs.
       10 waves of the one 128x128 tile over K = 4097 (compute far above reads + C), so exposing
       the C writes adds them whole: 33,554,432 B / 1555e9 B/s = 21.578 us. The 16-byte class
       (4096^3) keeps write_exposed's 0. */
    tw_device d = bare();
    tw_gemm_result hidden, exposed, aligned0, aligned1;
    const double write = 33554432.0 / 1555e9;
    hidden = run(&d, fp16(4096, 4096, 4097));
    aligned0 = run(&d, fp16(4096, 4096, 4096));
    d.write_exposed_non_tma = 1.0;
    exposed = run(&d, fp16(4096, 4096, 4097));
    aligned1 = run(&d, fp16(4096, 4096, 4096));
    assert_int_equal(exposed.align_bytes, 2);
    assert_close(exposed.time_s - hidden.time_s, write, 1e-9);
    assert_true(aligned1.time_s == aligned0.time_s);
    d.write_exposed_non_tma = 1.5;
    assert_bad_device(&d, "device.write_exposed_non_tma");
    (void)state;
}

static void test_gemm_pipeline_fill_is_exposed_per_wave(void **state)
{
    /* 16384x128x64 fp16 (the 16-byte class): 128 tiles of 128x128 = 2 waves of 108; K = 64 is
       128 bytes, 2 stages of 64, so fill_stages 2 exposes all of a wave's reads: A + B =
       16384*64*2 + 64*128*2 = 2,113,536 B (they fit in L2: read once) / 1555e9 B/s = 1.35919 us
       over 2 waves = 0.67960 us. fill_stages 1 exposes half of that. Off 16 bytes (N = 129) the
       non-persistent CUTLASS kernels fill on every wave: 128 x 2 = 256 tiles in 3 waves, each
       exposing half of its wave's reads at fill_stages 1, half of all reads (A + B =
       16384*64*2 + 64*129*2 = 2,113,792 B: 0.67967 us) in all. */
    tw_device d = bare();
    tw_gemm_result r0, r1, r2;
    const double reads = (16384.0 * 64.0 * 2.0 + 64.0 * 128.0 * 2.0) / 1555e9;
    r0 = run(&d, fp16(16384, 128, 64));
    d.fill_stages = 2.0;
    r2 = run(&d, fp16(16384, 128, 64));
    d.fill_stages = 1.0;
    r1 = run(&d, fp16(16384, 128, 64));
    assert_int_equal(r2.waves, 2);
    assert_close(r2.time_s - r0.time_s, reads / 2.0, 1e-9);
    assert_close(r1.time_s - r0.time_s, reads / 4.0, 1e-9);
    r1 = run(&d, fp16(16384, 129, 64));
    d.fill_stages = 0.0;
    r0 = run(&d, fp16(16384, 129, 64));
    assert_int_equal(r1.waves, 3);
    assert_close(r1.time_s - r0.time_s, (16384.0 * 64.0 * 2.0 + 64.0 * 129.0 * 2.0) / 1555e9 / 2.0, 1e-9);
    d.fill_stages = 65.0;
    assert_bad_device(&d, "device.fill_stages");
    (void)state;
}

static void test_gemm_misaligned_split_k_spans_waves(void **state)
{
    /* 1024x1025x16384 fp16 (N odd: the 2-byte class, no stream-K, CUTLASS split-K of any factor):
       8 x 9 = 72 tiles fill 72 of 108 slots. Split 3 ways they are 216 tiles in 2 waves of
       K = ceil(16384 / 3) = 5462 each: 2 * 46.460 us * 5462 / 4096 = 123.91 us, then the
       reduction reads 3 fp32 partials and writes C: (3*1024*1025*4 + 1024*1025*2) B / 1555e9
       B/s = 9.450 us; 133.36 us against 185.84 us unsplit (split 2: 2 waves of K = 8192; 4: 3
       waves of 4096, 151.53 us; 6: 4 waves of 2731, the same main loop as 3 but 17.55 us of
       reduction). N = 1024 (the TMA class) keeps split-K within one wave: 64 tiles, 2 splits would
       need 128 slots, so it runs unsplit, 4 * 46.460 us. */
    static const struct { int64_t n, k; int split; int64_t waves; double time_s; } want[] = {
        {1025, 16384, 3, 2, 2 * TILE_128_K4096_S * 5462.0 / 4096.0 + (3.0 * 1024 * 1025 * 4 + 1024.0 * 1025 * 2) / 1555e9},
        {1024, 16384, 1, 1, 4 * TILE_128_K4096_S},
        /* with K = 2048 the extra waves and the reduction cost more than they fill: unsplit */
        {1025, 2048, 1, 1, 0.5 * TILE_128_K4096_S},
    };
    tw_device d = bare();
    size_t i;
    d.max_split_k = 16;
    d.split_k_any = 1;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        tw_gemm_result r = run(&d, fp16(1024, want[i].n, want[i].k));
        assert_int_equal(r.split_k, want[i].split);
        assert_int_equal(r.waves, want[i].waves);
        assert_close(r.time_s, want[i].time_s, 1e-4);
    }
    /* split_k_any 0 keeps powers of two: 4 ways, 288 tiles in 3 waves of K = 4096, 151.53 us */
    d.split_k_any = 0;
    {
        tw_gemm_result r = run(&d, fp16(1024, 1025, 16384));
        assert_int_equal(r.split_k, 4);
        assert_int_equal(r.waves, 3);
        assert_close(r.time_s, 3 * TILE_128_K4096_S + (4.0 * 1024 * 1025 * 4 + 1024.0 * 1025 * 2) / 1555e9, 1e-4);
    }
    d.split_k_any = 2;
    assert_bad_device(&d, "device.split_k_any");
    (void)state;
}

static void test_gemm_last_wave_drain_is_exposed(void **state)
{
    /* 4096^3 as above: 1024 tiles in 10 waves of 108, the last with 1024 - 9*108 = 52 tiles, so
       52/1024 of C's 21.578 us of writes (1.0958 us) follow the last main loops: with
       drain_exposed 1 they leave the max (464.60 vs 148.35 + 21.58 - 1.10 us) and add, 465.70
       us. With write_exposed 0.5 the drain takes its share of the hidden half: 464.60 + 10.789 +
       0.5479 us. Memory-bound, nothing changes: 4096x2560x16 has 640 tiles (6 waves, 100 in the
       last) and C = 20,971,520 B = 13.486 us of writes against 1.09 us of compute, so moving
       the last wave's 2.107 us out of max(1.09, 0.137 + 13.486) gives the same 13.623 us. */
    tw_device d = bare();
    tw_gemm_result r0, r;
    const double compute = 10 * TILE_128_K4096_S, write = 33554432.0 / 1555e9;
    const double last = 52.0 / 1024.0;
    d.drain_exposed = 1.0;
    r = run(&d, fp16(4096, 4096, 4096));
    assert_int_equal(r.waves, 10);
    assert_close(r.time_s, compute + write * last, 1e-12);
    d.write_exposed = 0.5;
    r = run(&d, fp16(4096, 4096, 4096));
    assert_close(r.time_s, compute + 0.5 * write + 0.5 * write * last, 1e-12);
    d.write_exposed = 0.0;
    d.drain_exposed = 0.0;
    r0 = run(&d, fp16(4096, 2560, 16));
    d.drain_exposed = 1.0;
    r = run(&d, fp16(4096, 2560, 16));
    assert_int_equal(r.waves, 6);
    assert_int_equal(r.bound, TW_BOUND_MEMORY);
    assert_close(r.time_s, r0.time_s, 1e-12);
    d.drain_exposed = 1.5;
    assert_bad_device(&d, "device.drain_exposed");
    (void)state;
}

static void test_gemm_tma_class_overhead(void **state)
{
    /* tma_overhead_s adds to the per-call cost of the 16-byte class only: 2304x1536x4096 fp16 (N
       and K multiples of 8 elements) pays call_overhead_s 2 us + 1 us on top of its 2 waves of
       46.460 us; N = 1537 (the 2-byte class) pays the 2 us alone, and the estimate reports each
       shape's own overhead. */
    tw_device d = bare();
    tw_gemm_result a0, a1, m0, m1;
    d.call_overhead_s = 2e-6;
    a0 = run(&d, fp16(2304, 1536, 4096));
    m0 = run(&d, fp16(2304, 1537, 4096));
    d.tma_overhead_s = 1e-6;
    a1 = run(&d, fp16(2304, 1536, 4096));
    m1 = run(&d, fp16(2304, 1537, 4096));
    assert_close(a1.time_s, 2e-6 + 1e-6 + 2 * TILE_128_K4096_S, 1e-12);
    assert_close(a1.time_s - a0.time_s, 1e-6, 1e-9);
    assert_close(a1.overhead_s, 3e-6, 1e-15);
    assert_true(m1.time_s == m0.time_s);
    assert_close(m1.overhead_s, 2e-6, 1e-15);
    d.tma_overhead_s = -1e-6;
    assert_bad_device(&d, "device.tma_overhead_s");
    (void)state;
}

static void test_gemm_n_off_tma_class(void **state)
{
    /* int8 (1-byte A and B, 4-byte C) 1024x1032x4096: N = 8 mod 16, K = 0 mod 16, so the 8-byte
       class. Compute-bound device: compute_frac 0.5, align_eff 0.25 at 8 bytes, tiles 128x128
       (every class) and 256x128 (TMA only). Off: 8 x 9 = 72 tiles of 128x128 in one wave at
       312e12 * 0.5 * 0.25 / 108 = 0.36111e12 FLOP/s each, 2*128*128*4096 = 134,217,728 FLOP ->
       371.68 us. On (eff 2, the 256x128 tile, 3 us): 4 x 9 = 36 tiles at 312e12 * 0.5 * 2 / 108
       = 2.8889e12 FLOP/s, 268,435,456 FLOP -> 92.92 us, + 3 us = 95.92 us. */
    tw_device d = bare();
    tw_gemm_shape s = {1024, 1032, 4096, 1, 1, 4, 0.0};
    tw_gemm_shape many[2] = {{1024, 1032, 4096, 1, 1, 4, 0.0}, {1024, 1032, 4104, 1, 1, 4, 0.0}};
    double times[2];
    tw_gemm_result r;
    const char *bad = NULL;
    d.mem_bw = 1555e15;
    d.compute_frac = 0.5;
    d.align_eff[3] = 0.25;
    d.n_tiles = 2;
    d.tiles[1] = d.tiles[0];
    d.tiles[1].m = 256;
    d.tiles[1].tma = 1;
    r = run(&d, s);
    assert_close(r.time_s, 371.68e-6, 1e-4);
    assert_int_equal(r.tile_m, 128);
    d.n_off_tma_eff = 2.0;
    d.n_off_tma_max_mn = 1e7;
    d.n_off_tma_overhead_s = 3e-6;
    d.n_off_tma_tile = 1;
    r = run(&d, s);
    assert_close(r.time_s, 95.92e-6, 1e-4);
    assert_int_equal(r.tile_m, 256);
    assert_int_equal(r.tiles, 36);
    assert_close(r.align_eff, 2.0, 1e-15);
    assert_int_equal(r.align_bytes, 8);
    assert_close(r.overhead_s, 3e-6, 1e-15);
    /* the prepared plan agrees; K = 4104 (8 mod 16) keeps the 8-byte class: 372.41 us */
    assert_int_equal(tw_gemm_estimate_many(&d, many, 2, times, NULL, NULL, &bad), TW_OK);
    assert_close(times[0], r.time_s, 1e-15);
    assert_close(times[1], 372.41e-6, 1e-4);
    /* C's rows off 16 bytes (1-byte C: N = 1032 bytes) or more outputs than max_mn: off again */
    s.out_bytes = 1;
    assert_close(run(&d, s).time_s, 371.68e-6, 1e-4);
    s.out_bytes = 4;
    d.n_off_tma_max_mn = 1e6;
    assert_close(run(&d, s).time_s, 371.68e-6, 1e-4);
    /* its rate may not pass the peak, and its tile must exist */
    d.n_off_tma_eff = 2.5;
    assert_bad_device(&d, "device.n_off_tma_eff");
    d.n_off_tma_eff = 2.0;
    d.n_off_tma_tile = 2;
    assert_bad_device(&d, "device.n_off_tma_tile");
    (void)state;
}

static void test_gemm_lone_cta_gets_whole_sm(void **state)
{
    /* A 64x64 tile with ctas_per_sm = 2: two CTAs share an SM, each at half its
       rate, only when the wave puts two on it. 64x64x4096 is one tile: alone on
       its SM at the full 2.8889e12 FLOP/s, 2*64*64*4096 = 33,554,432 FLOP ->
       11.615 us. 64x6912 is 108 tiles, one per SM: still 11.615 us. 64x6976 is
       109 tiles: one wave of 216 slots, but one SM holds two, so 2 * 11.615 =
       23.23 us. 13824x1024 is 216*16 = 3456 tiles = 16 full waves of two per SM:
       16 * 2 * 11.615 us = 371.68 us. */
    const double t = 33554432.0 / (312e12 / 108.0);
    tw_device d = bare();
    tw_gemm_result r;
    d.tiles[0].m = 64;
    d.tiles[0].n = 64;
    d.tiles[0].ctas_per_sm = 2;
    r = run(&d, fp16(64, 64, 4096));
    assert_int_equal(r.tiles, 1);
    assert_close(r.compute_s, t, 1e-12);
    r = run(&d, fp16(64, 6912, 4096));
    assert_int_equal(r.tiles, 108);
    assert_close(r.compute_s, t, 1e-12);
    r = run(&d, fp16(64, 6976, 4096));
    assert_int_equal(r.tiles, 109);
    assert_int_equal(r.waves, 1);
    assert_close(r.compute_s, 2 * t, 1e-12);
    r = run(&d, fp16(13824, 1024, 4096));
    assert_int_equal(r.waves, 16);
    assert_close(r.compute_s, 16 * 2 * t, 1e-12);
    (void)state;
}

/* The bare device with ample bandwidth and two tiles: 128x128 for TMA kernels only, 256x256 for
 * every kernel class. */
static tw_device tma_pair(void)
{
    tw_device d = bare();
    d.mem_bw = 1555e15;
    d.n_tiles = 2;
    d.tiles[0].tma = 1;
    d.tiles[1] = d.tiles[0];
    d.tiles[1].m = d.tiles[1].n = 256;
    d.tiles[1].tma = 0;
    return d;
}

static void test_gemm_stream_k_fills_a_partial_wave(void **state)
{
    /* 128x128 tiles, K = 4096: one tile is 46.460 us on its SM (TILE_128_K4096_S). 128x6912
       is 54 tiles: data-parallel, one wave with 54 of 108 SMs busy, 46.460 us. Stream-K deals
       the 54 tiles' K iterations to min(108, 2*54) = 108 CTAs: 54/108 * 46.460 + 1 (fixup) =
       24.230 us. 128x5120 is 40 tiles: min(108, 80) = 80 CTAs, 40/80 * 46.460 + 1 = 24.230 us.
       128x13824 fills the wave (108 tiles): stream-K is not considered, 46.460 us. The plain
       256x256 fallback (4 * 46.460 us per tile) never wins. Bandwidth made ample. */
    tw_device d = tma_pair();
    tw_gemm_result r;
    d.stream_k = 1;
    d.streamk_fixup_s = 1e-6;
    r = run(&d, fp16(128, 6912, 4096));
    assert_int_equal(r.stream_k, 1);
    assert_int_equal(r.tiles, 54);
    assert_close(r.compute_s, 0.5 * TILE_128_K4096_S + 1e-6, 1e-12);
    r = run(&d, fp16(128, 5120, 4096));
    assert_int_equal(r.stream_k, 1);
    assert_close(r.compute_s, 0.5 * TILE_128_K4096_S + 1e-6, 1e-12);
    r = run(&d, fp16(128, 13824, 4096));
    assert_int_equal(r.stream_k, 0);
    assert_close(r.compute_s, TILE_128_K4096_S, 1e-12);
    d.stream_k = 0;
    r = run(&d, fp16(128, 6912, 4096));
    assert_int_equal(r.stream_k, 0);
    assert_close(r.compute_s, TILE_128_K4096_S, 1e-12);
    d.stream_k = 2;
    assert_bad_device(&d, "device.stream_k");
    (void)state;
}

static void test_gemm_misaligned_runs_non_tma_tiles_and_narrow_loads(void **state)
{
    /* Tile 0 (128x128) is TMA-only, tile 1 (256x256) is not. 4096^3 fp16 is 128-byte aligned and
       takes the 128x128 tile; 4096x4097x4096 is 2-byte aligned (N odd) and must take 256x256.
       Loads: kstep_latency 1 us per 64 bytes of K on one plain 128x128 tile: 128x128x4096 has
       4096*2/64 = 128 stages -> 128 us (above the 46.460 us of math); at K = 4095 (2-byte aligned)
       each stage issues 16/2 = 8 loads: ceil(4095*2/64) * 8 = 1024 us; K = 4100 (8-byte): 129 *
       2 = 258 us. A device whose every tile is TMA-only is refused. */
    tw_device d = tma_pair();
    tw_gemm_result r;
    r = run(&d, fp16(4096, 4096, 4096));
    assert_int_equal(r.tile_m, 128);
    r = run(&d, fp16(4096, 4097, 4096));
    assert_int_equal(r.tile_m, 256);
    assert_int_equal(r.align_bytes, 2);

    d = bare();
    d.mem_bw = 1555e15;
    d.kstep_latency_s = 1e-6;
    r = run(&d, fp16(128, 128, 4096));
    assert_close(r.compute_s, 128e-6, 1e-12);
    r = run(&d, fp16(128, 128, 4095));
    assert_close(r.compute_s, 1024e-6, 1e-12);
    r = run(&d, fp16(128, 128, 4100));
    assert_close(r.compute_s, 258e-6, 1e-12);

    d.tiles[0].tma = 1;
    assert_bad_device(&d, "device.tiles.tma");
    (void)state;
}

static void test_gemm_alignment_classes(void **state)
{
    /* align_eff by class 1, 2, 4, ... 128 bytes; the class is the coarsest power
       of two dividing N and K (the leading dimensions), times the element size. */
    static const double levels[TW_ALIGN_CLASSES] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0};
    tw_device d = bare();
    tw_gemm_shape s;
    tw_gemm_result r;
    memcpy(d.align_eff, levels, sizeof levels);
    r = run(&d, fp16(4096, 4096, 4096)); /* 8192 B -> capped at 128 */
    assert_int_equal(r.align_bytes, 128);
    assert_close(r.align_eff, 1.0, 0);
    r = run(&d, fp16(4096, 130, 4096)); /* 130 = 2*65 -> 2 elements = 4 B */
    assert_int_equal(r.align_bytes, 4);
    assert_close(r.align_eff, 0.3, 0);
    r = run(&d, fp16(8192, 4097, 51200)); /* odd -> 2 B */
    assert_int_equal(r.align_bytes, 2);
    assert_close(r.align_eff, 0.2, 0);
    r = run(&d, fp16(4096, 136, 4096)); /* 136 = 8*17 -> 16 B */
    assert_int_equal(r.align_bytes, 16);
    assert_close(r.align_eff, 0.5, 0);
    r = run(&d, fp16(4095, 4096, 4096)); /* odd M is not a stride: still 128 B */
    assert_int_equal(r.align_bytes, 128);
    s = fp16(4096, 4096, 4095); /* fp8: odd K -> 1 B */
    s.in_bytes = 1;
    r = run(&d, s);
    assert_int_equal(r.align_bytes, 1);
    assert_close(r.align_eff, 0.1, 0);
    /* FP4 (half a byte): K = 4095 is below one byte (class 0, the worst); K = 4094 -> 1 B;
       K = 4096 -> 2048 B, capped at 128; operands counted at half a byte each:
       64 x 64 x 64 moves (64*64 + 64*64) * 0.5 + 64*64 * 2 = 12,288 B */
    s = fp16(4096, 4096, 4095);
    s.in_bytes = 0.5;
    assert_int_equal(run(&d, s).align_bytes, 1);
    s.k = 4094;
    assert_int_equal(run(&d, s).align_bytes, 1);
    s.k = 4096;
    assert_int_equal(run(&d, s).align_bytes, 128);
    s = fp16(64, 64, 64);
    s.in_bytes = 0.5;
    assert_close(run(&d, s).bytes, 12288.0, 0);
    /* compute time scales by 1/align_eff. N=128 -> 32 tiles, N=130 -> 64 tiles:
       both one wave of 108, so only the factor 1/0.3 separates them. */
    {
        tw_gemm_result a = run(&d, fp16(4096, 128, 4096));
        tw_gemm_result b = run(&d, fp16(4096, 130, 4096));
        assert_int_equal(a.waves, 1);
        assert_int_equal(b.waves, 1);
        assert_close(b.compute_s, a.compute_s / 0.3, 1e-12);
    }
}

static void test_gemm_picks_fastest_tile(void **state)
{
    /* Tiles 256x128 (eff 1) and 128x128 (eff 0.9).
       N=1536: 256x128 -> 9*12 = 108 tiles, 1 wave of 2*46.46 us = 92.92 us;
               128x128 -> 216 tiles, 2 waves of 46.46/0.9 = 103.2 us -> 256x128.
       N=1600: 256x128 -> 9*13 = 117 tiles, 2 waves = 185.8 us;
               128x128 -> 234 tiles, 3 waves = 154.9 us -> 128x128. */
    tw_device d = bare();
    d.n_tiles = 2;
    d.tiles[1] = d.tiles[0];
    d.tiles[0].m = 256;
    d.tiles[1].eff = 0.9;
    {
        tw_gemm_result r = run(&d, fp16(2304, 1536, 4096));
        assert_int_equal(r.tile_m, 256);
        assert_int_equal(r.tiles, 108);
        assert_close(r.time_s, 2 * TILE_128_K4096_S, 1e-12);
    }
    {
        tw_gemm_result r = run(&d, fp16(2304, 1600, 4096));
        assert_int_equal(r.tile_m, 128);
        assert_int_equal(r.waves, 3);
        assert_close(r.time_s, 3 * TILE_128_K4096_S / 0.9, 1e-12);
    }
}

static void test_gemm_unsplit_reduce_below_4_byte_alignment(void **state)
{
    /* 128x128x63: K odd (2-byte class), one tile. Compute 2*128*128*63 = 2,064,384 FLOP /
       2.888889e12 = 0.714595 us; reads 2*(128*63*2) = 32,256 B hide under it. With
       unsplit_reduce_m/_n covering the output the kernel writes fp32 partials (128*128*4 =
       65,536 B, hidden too) and the reduction reads them and writes C (32,768 B): + 98,304 B /
       1555e9 = 0.063218 us -> 0.777813 us, split_k still 1 */
    tw_device d = bare();
    tw_gemm_result plain, red;
    plain = run(&d, fp16(128, 128, 63));
    assert_close(plain.time_s, 2064384.0 / (312e12 / 108.0), 1e-12);
    d.unsplit_reduce_m = 512;
    d.unsplit_reduce_n = 1024;
    red = run(&d, fp16(128, 128, 63));
    assert_int_equal(red.split_k, 1);
    assert_close(red.time_s, 2064384.0 / (312e12 / 108.0) + 98304.0 / 1555e9, 1e-12);
    assert_close(red.dram_bytes, 32256.0 + 65536.0 + 65536.0 + 32768.0, 1e-12);
    /* not at 4-byte alignment (K = 62), nor past the bounds (M = 513; N = 128 > 127) */
    {
        tw_device off = bare();
        assert_true(run(&d, fp16(128, 128, 62)).time_s == run(&off, fp16(128, 128, 62)).time_s);
        assert_true(run(&d, fp16(513, 128, 63)).time_s == run(&off, fp16(513, 128, 63)).time_s);
        assert_true(run(&d, fp16(512, 128, 63)).time_s > run(&off, fp16(512, 128, 63)).time_s);
        d.unsplit_reduce_n = 127;
        assert_true(run(&d, fp16(128, 128, 63)).time_s == plain.time_s);
    }
    (void)state;
}

static void test_gemm_split_k_fills_idle_sms(void **state)
{
    /* M=N=128, K=8192: one tile, 107 SMs idle. Split-K s in {2,4,8,16} with
       K/s >= 64; s=16: K/s = 512 -> 16,777,216 / 2.888889e12 = 5.80750 us;
       kernel bytes = A+B (2*128*8192*2 = 4,194,304) + partials 16*128*128*4
       (1,048,576) -> 3.372 us < compute; reduction reads 1,048,576 and writes
       128*128*2 = 32,768 B -> 0.69540 us. Total 6.50290 us (vs 92.9 us unsplit). */
    tw_device d = bare();
    tw_gemm_result r;
    d.max_split_k = 16;
    r = run(&d, fp16(128, 128, 8192));
    assert_int_equal(r.split_k, 16);
    assert_int_equal(r.tiles, 16);
    assert_int_equal(r.waves, 1);
    assert_close(r.time_s, 6.50290e-6, 1e-5);
    /* the reduction is a second kernel: reduce_overhead_s = 2 us is added once */
    d.reduce_overhead_s = 2e-6;
    r = run(&d, fp16(128, 128, 8192));
    assert_int_equal(r.split_k, 16);
    assert_close(r.time_s, 8.50290e-6, 1e-5);
    /* splitk_tma_latency_s = 1 us: added where N and K are 16-byte aligned (here 256 B) ... */
    d.splitk_tma_latency_s = 1e-6;
    r = run(&d, fp16(128, 128, 8192));
    assert_int_equal(r.split_k, 16);
    assert_close(r.time_s, 9.50290e-6, 1e-5);
    /* ... and not where K is 2-byte aligned (8191 * 2 B): the non-TMA class runs it */
    {
        tw_gemm_result with = run(&d, fp16(128, 128, 8191)), without;
        d.splitk_tma_latency_s = 0;
        without = run(&d, fp16(128, 128, 8191));
        assert_int_equal(with.split_k, 16);
        assert_true(with.time_s == without.time_s);
    }
    d.reduce_overhead_s = 0;
    /* max_split_k = 1 forbids it */
    d.max_split_k = 1;
    r = run(&d, fp16(128, 128, 8192));
    assert_int_equal(r.split_k, 1);
    assert_close(r.time_s, 2 * TILE_128_K4096_S, 1e-12);
}

static void test_gemm_overheads_and_latency_bound_loop(void **state)
{
    /* A 32x32 tile over K=4096: math 2*32*32*4096 / 2.8889e12 = 2.904 us, but the
       main loop has 4096*2 B / 64 B = 128 stages at 0.2 us = 25.6 us, so the tile
       takes 25.6 + 1 (tile latency) = 26.6 us; the 40 us call overhead is the
       largest part -> bound "overhead"; time = 66.6 us. */
    tw_device d = bare();
    tw_gemm_result r;
    d.tiles[0].m = 32;
    d.tiles[0].n = 32;
    d.call_overhead_s = 40e-6;
    d.kstep_latency_s = 0.2e-6;
    d.tile_latency_s = 1e-6;
    r = run(&d, fp16(32, 32, 4096));
    assert_close(r.compute_s, 25.6e-6 + 1e-6, 1e-9);
    assert_close(r.time_s, 40e-6 + 26.6e-6, 1e-9);
    assert_int_equal(r.bound, TW_BOUND_OVERHEAD);
    assert_close(r.overhead_s, 40e-6, 0);
}

static void test_gemm_batched_counts_every_matrix(void **state)
{
    /* batch 4 of 1024x1024x4096: 64 tiles each, 256 tiles -> 3 waves;
       FLOP = 4 * 2*1024*1024*4096 = 34,359,738,368. */
    tw_device d = bare();
    tw_gemm_shape s = fp16(1024, 1024, 4096);
    tw_gemm_result r;
    s.batch = 4;
    r = run(&d, s);
    assert_int_equal(r.tiles, 256);
    assert_int_equal(r.waves, 3);
    assert_close(r.flops, 34359738368.0, 1e-15);
}

static void expect_shape_error(tw_gemm_shape s, int status, const char *field)
{
    tw_device d = bare();
    tw_gemm_result r;
    const char *bad = NULL;
    memset(&r, 0x5a, sizeof r);
    assert_int_equal(tw_gemm_estimate(&d, &s, &r, &bad), status);
    assert_non_null(bad);
    assert_string_equal(bad, field);
    assert_int_equal(r.split_k, 0x5a5a5a5a);
}

static void test_gemm_rejects_bad_shapes(void **state)
{
    tw_gemm_shape s;
    s = fp16(-3, 1, 1); expect_shape_error(s, TW_EINVAL, "m");
    s = fp16(0, 1, 1); expect_shape_error(s, TW_EINVAL, "m");
    s = fp16(1, 0, 1); expect_shape_error(s, TW_EINVAL, "n");
    s = fp16(1, 1, -1); expect_shape_error(s, TW_EINVAL, "k");
    s = fp16(1, 1, 1); s.batch = 0; expect_shape_error(s, TW_EINVAL, "batch");
    s = fp16(1, 1, 1); s.in_bytes = 3; expect_shape_error(s, TW_EINVAL, "in_bytes");
    s = fp16(1, 1, 1); s.in_bytes = 0.25; expect_shape_error(s, TW_EINVAL, "in_bytes");
    s = fp16(1, 1, 1); s.out_bytes = 0; expect_shape_error(s, TW_EINVAL, "out_bytes");
    s = fp16(TW_DIM_MAX + 1, 1, 1); expect_shape_error(s, TW_ERANGE, "m");
    s = fp16(1, 1, INT64_MAX); expect_shape_error(s, TW_ERANGE, "k");
    /* 2^31-1 squared times 4 = 1.8e19 > 2^53 output elements */
    s = fp16(TW_DIM_MAX, TW_DIM_MAX, 1); s.batch = 4; expect_shape_error(s, TW_ERANGE, "m*n*batch");
}

static void test_gemm_largest_accepted_shape_is_finite(void **state)
{
    /* M*N = 2^52 output elements with K = 2^31-1: no overflow, finite result */
    tw_device d = bare();
    tw_gemm_result r = run(&d, fp16(INT64_C(1) << 26, INT64_C(1) << 26, TW_DIM_MAX));
    assert_true(isfinite(r.time_s) && r.time_s > 0);
    assert_true(isfinite(r.flops));
    assert_true(r.tiles > 0 && r.waves > 0);
}

static void test_gemm_absurd_device_gives_error_not_crash(void **state)
{
    /* A valid but absurd device (bandwidth 1e-320 byte/s): every candidate's time is infinite.
     * The estimate must refuse it (TW_ERANGE, "device.figures"), never read an unset tile. */
    tw_device d = bare();
    const char *bad = NULL;
    tw_gemm_shape s = fp16(4096, 4096, 4096);
    tw_gemm_result r;
    double t;
    size_t idx = 99;
    d.mem_bw = 1e-320;
    assert_int_equal(tw_gemm_estimate(&d, &s, &r, &bad), TW_ERANGE);
    assert_string_equal(bad, "device.figures");
    bad = NULL;
    assert_int_equal(tw_gemm_estimate_many(&d, &s, 1, &t, NULL, &idx, &bad), TW_ERANGE);
    assert_string_equal(bad, "device.figures");
    assert_int_equal(idx, 0);
    (void)state;
}

static void expect_device_error(tw_device d, const char *field)
{
    const char *bad = NULL;
    tw_gemm_shape s = fp16(128, 128, 128);
    tw_gemm_result r;
    assert_int_equal(tw_device_validate(&d, &bad), TW_EINVAL);
    assert_string_equal(bad, field);
    bad = NULL;
    assert_int_equal(tw_gemm_estimate(&d, &s, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, field);
}

static void test_device_validation(void **state)
{
    tw_device ok = bare(), d;
    assert_int_equal(tw_device_validate(&ok, NULL), TW_OK);
    d = ok; d.sm_count = 0; expect_device_error(d, "device.sm_count");
    d = ok; d.peak_flops = NAN; expect_device_error(d, "device.peak_flops");
    d = ok; d.compute_frac = 1.01; expect_device_error(d, "device.compute_frac");
    d = ok; d.mem_bw = INFINITY; expect_device_error(d, "device.mem_bw");
    d = ok; d.mem_frac = 0; expect_device_error(d, "device.mem_frac");
    d = ok; d.l2_bytes = -1; expect_device_error(d, "device.l2_bytes");
    d = ok; d.call_overhead_s = NAN; expect_device_error(d, "device.call_overhead_s");
    d = ok; d.tile_latency_s = -1e-6; expect_device_error(d, "device.tile_latency_s");
    d = ok; d.kstep_latency_s = -1; expect_device_error(d, "device.kstep_latency_s");
    d = ok; d.max_split_k = 0; expect_device_error(d, "device.max_split_k");
    d = ok; d.n_tiles = 0; expect_device_error(d, "device.n_tiles");
    d = ok; d.n_tiles = TW_MAX_TILES + 1; expect_device_error(d, "device.n_tiles");
    d = ok; d.tiles[0].m = 0; expect_device_error(d, "device.tiles.m");
    d = ok; d.tiles[0].n = 8192; expect_device_error(d, "device.tiles.n");
    d = ok; d.tiles[0].eff = 1.5; expect_device_error(d, "device.tiles.eff");
    d = ok; d.tiles[0].ctas_per_sm = 0; expect_device_error(d, "device.tiles.ctas_per_sm");
    d = ok; d.align_eff[3] = 0; expect_device_error(d, "device.align_eff");
    d = ok; d.write_frac = 1.5; expect_device_error(d, "device.write_frac");
    d = ok; d.reduce_overhead_s = -1e-6; expect_device_error(d, "device.reduce_overhead_s");
    d = ok; d.splitk_tma_latency_s = NAN; expect_device_error(d, "device.splitk_tma_latency_s");
    d = ok; d.unsplit_reduce_m = -1; expect_device_error(d, "device.unsplit_reduce_m");
    d = ok; d.unsplit_reduce_n = NAN; expect_device_error(d, "device.unsplit_reduce_n");
    d = ok; d.align_mem_eff[0] = NAN; expect_device_error(d, "device.align_mem_eff");
}

static void test_gemm_many_matches_single(void **state)
{
    tw_device d = bare();
    tw_gemm_shape shapes[3] = {fp16(2304, 1600, 4096), fp16(27648, 64, 4096), fp16(128, 128, 8192)};
    double t[3], rate[3];
    size_t i, bad_index = 99;
    const char *bad = NULL;
    d.max_split_k = 16;
    assert_int_equal(tw_gemm_estimate_many(&d, shapes, 3, t, rate, &bad_index, &bad), TW_OK);
    for (i = 0; i < 3; i++) {
        tw_gemm_result r = run(&d, shapes[i]);
        assert_close(t[i], r.time_s, 0);
        assert_close(rate[i], r.flop_rate, 1e-15);
    }
    shapes[1].n = -5;
    assert_int_equal(tw_gemm_estimate_many(&d, shapes, 3, t, NULL, &bad_index, &bad), TW_EINVAL);
    assert_int_equal(bad_index, 1);
    assert_string_equal(bad, "n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_tile_and_wave_counts_2304x1600),
        cmocka_unit_test(test_gemm_full_wave_2304x1536),
        cmocka_unit_test(test_gemm_tile_quantization_27648x130),
        cmocka_unit_test(test_gemm_memory_bound_skinny_27648x64),
        cmocka_unit_test(test_gemm_writes_and_misaligned_bandwidth),
        cmocka_unit_test(test_gemm_exposed_writes_add_to_the_main_loop),
        cmocka_unit_test(test_gemm_partial_sector_rows_cost_c_writes),
        cmocka_unit_test(test_gemm_non_tma_class_has_its_own_exposure),
        cmocka_unit_test(test_gemm_pipeline_fill_is_exposed_per_wave),
        cmocka_unit_test(test_gemm_last_wave_drain_is_exposed),
        cmocka_unit_test(test_gemm_tma_class_overhead),
        cmocka_unit_test(test_gemm_misaligned_split_k_spans_waves),
        cmocka_unit_test(test_gemm_n_off_tma_class),
        cmocka_unit_test(test_gemm_lone_cta_gets_whole_sm),
        cmocka_unit_test(test_gemm_alignment_classes),
        cmocka_unit_test(test_gemm_picks_fastest_tile),
        cmocka_unit_test(test_gemm_split_k_fills_idle_sms),
        cmocka_unit_test(test_gemm_unsplit_reduce_below_4_byte_alignment),
        cmocka_unit_test(test_gemm_overheads_and_latency_bound_loop),
        cmocka_unit_test(test_gemm_batched_counts_every_matrix),
        cmocka_unit_test(test_gemm_rejects_bad_shapes),
        cmocka_unit_test(test_gemm_largest_accepted_shape_is_finite),
        cmocka_unit_test(test_device_validation),
        cmocka_unit_test(test_gemm_absurd_device_gives_error_not_crash),
        cmocka_unit_test(test_gemm_many_matches_single),
        cmocka_unit_test(test_gemm_stream_k_fills_a_partial_wave),
        cmocka_unit_test(test_gemm_misaligned_runs_non_tma_tiles_and_narrow_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
