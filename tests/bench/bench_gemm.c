/* bench_gemm.c - estimates per second of tw_gemm_estimate, tw_gemm_plan_estimate and
 * tw_gemm_plan_estimate_many
 * in C, over a fixed pseudo-random set of shapes (dims log-uniform in [1, 16384]).
 * Prints figures; asserts nothing (speed is checked by reading, not by a timed test).
 * Usage: bench_gemm [count]   (default 1000000) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tilewave.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the same sequence as scripts/bench.lua: a 63-bit LCG (Lua integers are signed) */
static uint64_t lcg(uint64_t *s)
{
    *s = (*s * 6364136223846793005ULL + 1442695040888963407ULL) & 0x7fffffffffffffffULL;
    return *s >> 33;
}

static double min3(const double *x)
{
    return x[0] < x[1] ? (x[0] < x[2] ? x[0] : x[2]) : (x[1] < x[2] ? x[1] : x[2]);
}

static double median3(const double *x)
{
    double a = x[0], b = x[1], c = x[2];
    if ((a <= b && b <= c) || (c <= b && b <= a)) return b;
    if ((b <= a && a <= c) || (c <= a && a <= b)) return a;
    return c;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000, i;
    tw_device d;
    tw_gemm_shape *shapes = malloc(n * sizeof *shapes);
    double *t = malloc(n * sizeof *t), *t1 = malloc(n * sizeof *t1), t0, single, many, maxdiff = 0;
    uint64_t seed = 42;
    static const int64_t tiles[8][2] = {{256, 128}, {128, 256}, {128, 128}, {256, 64},
                                        {64, 256}, {128, 64}, {64, 128}, {64, 64}};
    if (shapes == NULL || t == NULL || t1 == NULL) return 1;

    /* an A100-like device with the full 8-tile list and split-K up to 16 */
    memset(&d, 0, sizeof d);
    d.sm_count = 108; d.peak_flops = 312e12; d.compute_frac = 0.865; d.mem_bw = 1555e9;
    d.mem_frac = 0.875; d.write_frac = 0.875; d.l2_bytes = 40e6; d.call_overhead_s = 39e-6; d.tile_latency_s = 0.9e-6;
    d.kstep_latency_s = 0.15e-6; d.max_split_k = 16; d.n_tiles = 8;
    for (i = 0; i < 8; i++) {
        d.tiles[i].m = tiles[i][0]; d.tiles[i].n = tiles[i][1];
        d.tiles[i].eff = i == 7 ? 0.75 : 1.0; d.tiles[i].ctas_per_sm = i == 7 ? 2 : 1;
    }
    for (i = 0; i < TW_ALIGN_CLASSES; i++) d.align_eff[i] = d.align_mem_eff[i] = 1.0;

    /* the shapes of scripts/bench.lua, in the same order: each dim 2^(r % 15) + r' % 64 */
    for (i = 0; i < n; i++) {
        int64_t p;
        p = (int64_t)1 << (lcg(&seed) % 15);
        shapes[i].m = p + (int64_t)(lcg(&seed) % 64);
        p = (int64_t)1 << (lcg(&seed) % 15);
        shapes[i].n = p + (int64_t)(lcg(&seed) % 64);
        p = (int64_t)1 << (lcg(&seed) % 15);
        shapes[i].k = p + (int64_t)(lcg(&seed) % 64);
        shapes[i].batch = 1; shapes[i].in_bytes = 2; shapes[i].out_bytes = 2;
    }

    {
        /* three repeats of each path: min and median, in ns per estimate. "one-shot" validates
           and prepares the device on every call (tw_gemm_estimate); "prepared" is one shape per
           call on a device prepared once (tw_gemm_prepare + tw_gemm_plan_estimate, what the Lua
           device does); "many" is one call for all shapes (tw_gemm_plan_estimate_many). */
        double s3[3], p3[3], m3[3], prep;
        tw_gemm_plan plan;
        int rep;
        if (tw_gemm_prepare(&d, &plan, NULL) != TW_OK) return 1;
        for (rep = 0; rep < 3; rep++) {
            t0 = now();
            for (i = 0; i < n; i++) {
                tw_gemm_result r;
                if (tw_gemm_estimate(&d, &shapes[i], &r, NULL) != TW_OK) return 1;
                t1[i] = r.time_s;
            }
            s3[rep] = now() - t0;
            t0 = now();
            for (i = 0; i < n; i++) {
                tw_gemm_result r;
                if (tw_gemm_plan_estimate(&plan, &shapes[i], &r, NULL) != TW_OK) return 1;
                t[i] = r.time_s;
            }
            p3[rep] = now() - t0;
            for (i = 0; i < n; i++)
                if (fabs(t[i] - t1[i]) > maxdiff) maxdiff = fabs(t[i] - t1[i]);
            t0 = now();
            if (tw_gemm_plan_estimate_many(&plan, shapes, n, t, NULL, NULL, NULL) != TW_OK) return 1;
            m3[rep] = now() - t0;
        }
        for (i = 0; i < n; i++)
            if (fabs(t[i] - t1[i]) > maxdiff) maxdiff = fabs(t[i] - t1[i]);
        t0 = now();
        for (i = 0; i < 10000; i++)
            if (tw_gemm_prepare(&d, &plan, NULL) != TW_OK) return 1;
        prep = (now() - t0) / 10000;
        single = min3(s3);
        many = min3(m3);
        printf("C tw_gemm_estimate (one-shot):   %zu shapes, min %.1f ns, median %.1f ns per estimate (%.2f M/s)\n", n,
               1e9 * single / n, 1e9 * median3(s3) / n, n / single / 1e6);
        printf("C tw_gemm_plan_estimate:         %zu shapes, min %.1f ns, median %.1f ns per estimate (%.2f M/s)\n", n,
               1e9 * min3(p3) / n, 1e9 * median3(p3) / n, n / min3(p3) / 1e6);
        printf("C tw_gemm_plan_estimate_many:    %zu shapes, min %.1f ns, median %.1f ns per estimate (%.2f M/s)\n", n,
               1e9 * many / n, 1e9 * median3(m3) / n, n / many / 1e6);
        printf("C tw_gemm_prepare: %.1f ns per device\n", 1e9 * prep);
        printf("(largest difference between the three paths: %.3g s, expected 0)\n", maxdiff);
    }
    free(shapes);
    free(t);
    free(t1);
    return 0;
}
