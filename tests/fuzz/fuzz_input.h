/* fuzz_input.h - turn libFuzzer's bytes into the numbers the tilewave core takes.
 *
 * Each value takes one selector byte: below 128 it picks one of the boundary
 * values below (zero, subnormals, 2^53, DBL_MAX, inf, NaN, ...); otherwise the
 * next 8 bytes are a raw double (or integer). Past the end of the input every
 * value is 1, so short inputs still reach the arithmetic.
 *
 * check(ok, what) aborts, which libFuzzer reports as a crash with its input. */
#ifndef TW_FUZZ_INPUT_H
#define TW_FUZZ_INPUT_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilewave.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} fuzz_in;

static const double fuzz_special[] = {
    0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 1e-6, 0.01, 0.99, 1.0000000000000002, 4.9e-324, 2.2250738585072014e-308,
    1e-300, 1e-30, 1e30, 1e300, 1.7976931348623157e308, 9007199254740992.0, 9007199254740993.0, 2147483647.0,
    2147483648.0, 4096.0, 4097.0, 64.0, 128.0, 132.0, 108.0, 1e12, 1e15, 3e12, 39e-6, 2.5e-6, INFINITY,
    -INFINITY, NAN, 7.0, 3.0, 1e6, 1e7, 16.0, 32.0, 8.0,
};

static inline int fuzz_byte(fuzz_in *in)
{
    int b;
    if (in->n == 0) return -1;
    b = in->p[0];
    in->p++;
    in->n--;
    return b;
}

static inline double fuzz_double(fuzz_in *in)
{
    int sel = fuzz_byte(in);
    double v;
    if (sel < 0) return 1.0;
    if (sel < 128) return fuzz_special[(size_t)sel % (sizeof fuzz_special / sizeof fuzz_special[0])];
    if (in->n < sizeof v) return (double)(sel - 128);
    memcpy(&v, in->p, sizeof v);
    in->p += sizeof v;
    in->n -= sizeof v;
    return v;
}

static inline int64_t fuzz_int(fuzz_in *in)
{
    double d = fuzz_double(in);
    if (!(d > -9.2e18 && d < 9.2e18)) return d > 0 ? INT64_MAX : INT64_MIN; /* NaN, inf */
    return (int64_t)d;
}

static inline void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "tilewave fuzz: TW_OK with %s\n", what);
        abort();
    }
}

static inline int finite_ge0(double x) { return isfinite(x) && x >= 0.0; }
static inline int finite_gt0(double x) { return isfinite(x) && x > 0.0; }

/* A status and its field must both be meaningful. */
static inline void check_status(int st, const char *bad)
{
    check(st == TW_OK || st == TW_EINVAL || st == TW_ERANGE, "an unknown status");
    if (st != TW_OK) {
        check(bad != NULL && bad[0] != '\0', "an error that names no field");
        check(tw_strerror(st) != NULL, "a status with no message");
        check(tw_field_expectation(bad) != NULL, "a field with no expectation");
    }
}

/* An A/B element size from a fuzzed integer: 0-4 give the valid 0.5 (FP4), 1, 2, 4, 8; 1000-1004
 * near misses 0.75 ... 12; anything else the integer itself (8 valid; 0, negatives, huge refused). */
static inline double fuzz_elem_bytes(int64_t v)
{
    static const double valid[] = {0.5, 1.0, 2.0, 4.0, 8.0};
    if (v >= 0 && v < 5) return valid[v];
    if (v >= 1000 && v < 1005) return valid[v - 1000] * 1.5; /* 0.75, 1.5, 3, 6, 12: near misses */
    return (double)v;
}

#endif
