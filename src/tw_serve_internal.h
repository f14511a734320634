/*
 * tw_serve_internal.h - what the serving loop (tw_serve.c) shares with its cost tables
 * (tw_serve_cost.c) and its workload and statistics (tw_serve_workload.c). Not installed.
 */
#ifndef TW_SERVE_INTERNAL_H
#define TW_SERVE_INTERNAL_H

#include "tilewave.h"

/* A deterministic generator: xoshiro256** (Blackman & Vigna 2018) seeded by splitmix64. */
typedef struct {
    uint64_t s[4];
} tw__rng;

void tw__rng_seed(tw__rng *r, uint64_t seed, uint64_t stream);
double tw__rng_uniform(tw__rng *r); /* in (0, 1) */

/* Validate a workload; NULL when valid, else the field. */
const char *tw__serve_check_workload(const tw_serve_workload *w);
/* Validate cost tables; NULL when valid, else the field. */
const char *tw__serve_check_costs(const tw_serve_costs *c);

/* Draw request i's tokens (prompt or output): an integer in 1..TW_SERVE_MAX_TOKENS. */
double tw__serve_draw_length(const tw_serve_lengths *l, const double *trace, size_t i, tw__rng *r);
/* NULL, or the field of bad length parameters (n values of a trace checked) */
const char *tw__serve_check_lengths(const tw_serve_lengths *l, const double *trace, double n, int isl);
/* The gap before the next arrival, s (POISSON, GAMMA). */
double tw__serve_draw_gap(const tw_serve_workload *w, tw__rng *r);

/* The grid segments a replica's last lookups fell in, one per grid of its costs: a lookup tries its
   grid's segment first (steps move little from one to the next), then searches; the point found is
   the same either way. Zero is a valid start. */
typedef struct {
    size_t tok, seq, ctx, dctx;
} tw__grid_hints;

/* Unscaled step time (tw_serve.h): the chunk sums already taken; h: the replica's hints (may be NULL). */
double tw__serve_step(const tw_serve_costs *c, tw__grid_hints *h, double prefill_tokens, double attn_s, double b,
                      double ctx, double k, double decode_tokens, double spec_k);
/* A(S), causal attention over S tokens from scratch, s; h as tw__serve_step's. */
double tw__serve_attn(const tw_serve_costs *c, tw__grid_hints *h, double s);

/* Statistics of n values (sorted in place): mean, p50, p90, p99, max; all 0 when n = 0. */
void tw__serve_stat(double *v, double *tmp, size_t n, tw_serve_stat *out);

/* The ITL histogram: each octave from 2^TW__ITL_LOG2_MIN s split into TW__ITL_PER_OCTAVE equal
 * steps (relative width at most 1/TW__ITL_PER_OCTAVE). */
#define TW__ITL_PER_OCTAVE 512
#define TW__ITL_LOG2_MIN (-30)
#define TW__ITL_OCTAVES 50
#define TW__ITL_BINS (TW__ITL_PER_OCTAVE * TW__ITL_OCTAVES)
size_t tw__itl_bin(double x);
void tw__itl_stat(const uint64_t *bins, double n, double sum, double max, tw_serve_stat *out);

#endif
