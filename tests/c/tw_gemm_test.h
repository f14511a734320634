/* tw_gemm_test.h - the bare device and shape helpers shared by test_gemm.c and
 * test_gemm_plan.c.
 *
 * The bare "A100-like" device keeps the arithmetic easy to follow: 108 SMs, 312e12 FLOP/s,
 * 1555e9 byte/s, 40e6 byte L2, every fraction 1, no overheads, one 128x128 tile (1 CTA/SM),
 * no split-K, alignment factor 1. Per-SM rate = 312e12 / 108 = 2.8889e12 FLOP/s; a 128x128
 * tile over K = 4096 is 2*128*128*4096 = 134,217,728 FLOP -> 46.460 us.
 */
#ifndef TW_GEMM_TEST_H
#define TW_GEMM_TEST_H

#include <string.h>

#include "tilewave.h"

#define TILE_128_K4096_S (134217728.0 / (312e12 / 108.0)) /* 46.460 us */

static inline tw_device bare(void)
{
    tw_device d;
    int i;
    memset(&d, 0, sizeof d);
    d.sm_count = 108;
    d.peak_flops = 312e12;
    d.compute_frac = 1.0;
    d.mem_bw = 1555e9;
    d.mem_frac = 1.0;
    d.write_frac = 1.0;
    d.l2_bytes = 40e6;
    d.max_split_k = 1;
    d.n_tiles = 1;
    d.tiles[0].m = 128;
    d.tiles[0].n = 128;
    d.tiles[0].eff = 1.0;
    d.tiles[0].ctas_per_sm = 1;
    for (i = 0; i < TW_ALIGN_CLASSES; i++) d.align_eff[i] = d.align_mem_eff[i] = 1.0;
    return d;
}

/* an fp16 GEMM (2-byte A, B and C), batch 1 */
static inline tw_gemm_shape fp16(int64_t m, int64_t n, int64_t k)
{
    tw_gemm_shape s = {m, n, k, 1, 2, 2, 0.0};
    return s;
}

#endif /* TW_GEMM_TEST_H */
