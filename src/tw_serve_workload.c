/* tw_serve_workload.c - the requests of a serving run (arrival gaps and token counts drawn
 * from a seeded generator) and the statistics of its results. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tw_serve_internal.h"

static int positive(double x) { return isfinite(x) && x > 0.0; }
static int count(double x, double lo, double hi) { return isfinite(x) && x >= lo && x <= hi && x == floor(x); }

/* splitmix64 (Steele, Lea & Flood 2014), the seeding Vigna recommends for xoshiro */
static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void tw__rng_seed(tw__rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
    int i;
    for (i = 0; i < 4; i++) r->s[i] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

double tw__rng_uniform(tw__rng *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    /* 53 random bits, shifted half a step off 0: in (0, 1) */
    return ((double)(out >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* a standard normal draw (Box-Muller; one of the pair) */
static double normal(tw__rng *r)
{
    double u = tw__rng_uniform(r), v = tw__rng_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Gamma(shape, 1): Marsaglia & Tsang 2000; shape < 1 through Gamma(shape + 1) * U^(1/shape) */
static double gamma_draw(double shape, tw__rng *r)
{
    double d, c, x, v, u, boost = 1.0;
    if (shape < 1.0) {
        boost = pow(tw__rng_uniform(r), 1.0 / shape);
        shape += 1.0;
    }
    d = shape - 1.0 / 3.0;
    c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        do {
            x = normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        u = tw__rng_uniform(r);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return d * v * boost;
    }
}

double tw__serve_draw_gap(const tw_serve_workload *w, tw__rng *r)
{
    if (w->arrival == TW_ARRIVE_POISSON) return -log(tw__rng_uniform(r)) / w->rate;
    /* vLLM's benchmark: Gamma(shape = 1/cv^2, scale = 1/(rate * shape)): mean 1/rate, CV cv */
    {
        double shape = 1.0 / (w->cv * w->cv);
        return gamma_draw(shape, r) / (w->rate * shape);
    }
}

static double clamp_tokens(double x)
{
    x = floor(x + 0.5);
    if (x < 1.0) x = 1.0;
    if (x > TW_SERVE_MAX_TOKENS) x = TW_SERVE_MAX_TOKENS;
    return x;
}

double tw__serve_draw_length(const tw_serve_lengths *l, const double *trace, size_t i, tw__rng *r)
{
    double x = 0.0;
    int tries;
    switch (l->kind) {
    case TW_LEN_FIXED: return clamp_tokens(l->a);
    case TW_LEN_UNIFORM: return clamp_tokens(l->a + floor(tw__rng_uniform(r) * (l->b - l->a + 1.0)));
    case TW_LEN_TRACE: return clamp_tokens(trace[i]);
    default:
        for (tries = 0; tries < 64; tries++) {
            x = floor(exp(l->a + l->b * normal(r)) + 0.5);
            if (x >= l->lo && x <= l->hi) return clamp_tokens(x);
        }
        return clamp_tokens(x < l->lo ? l->lo : l->hi);
    }
}

const char *tw__serve_check_lengths(const tw_serve_lengths *l, const double *trace, double n, int isl)
{
    size_t i;
    switch (l->kind) {
    case TW_LEN_FIXED:
        if (!count(l->a, 1, TW_SERVE_MAX_TOKENS)) return isl ? "workload.isl" : "workload.osl";
        return NULL;
    case TW_LEN_UNIFORM:
        if (!count(l->a, 1, TW_SERVE_MAX_TOKENS) || !count(l->b, l->a, TW_SERVE_MAX_TOKENS))
            return isl ? "workload.isl" : "workload.osl";
        return NULL;
    case TW_LEN_LOGNORMAL:
        if (!(isfinite(l->a) && fabs(l->a) <= 30.0) || !(isfinite(l->b) && l->b >= 0.0 && l->b <= 10.0) ||
            !count(l->lo, 1, TW_SERVE_MAX_TOKENS) || !count(l->hi, l->lo, TW_SERVE_MAX_TOKENS))
            return isl ? "workload.isl" : "workload.osl";
        return NULL;
    case TW_LEN_TRACE:
        if (trace == NULL) return isl ? "workload.trace_isl" : "workload.trace_osl";
        for (i = 0; i < (size_t)n; i++) {
            if (!count(trace[i], 1, TW_SERVE_MAX_TOKENS)) return isl ? "workload.trace_isl" : "workload.trace_osl";
        }
        return NULL;
    default: return isl ? "workload.isl" : "workload.osl";
    }
}

const char *tw__serve_check_workload(const tw_serve_workload *w)
{
    const char *bad;
    size_t i;
    if (w == NULL) return "workload";
    if (!count(w->requests, 1, TW_SERVE_MAX_REQUESTS)) return "workload.requests";
    if (!(w->measure_to == 0.0 || count(w->measure_to, 1, w->requests))) return "workload.measure_to";
    if (!count(w->prefix_tokens, 0, TW_SERVE_MAX_TOKENS)) return "workload.prefix_tokens";
    if (!(isfinite(w->prefix_share) && w->prefix_share >= 0.0 && w->prefix_share <= 1.0)) return "workload.prefix_share";
    if (!(count(w->measure_from, 0, w->requests - 1) &&
          (w->measure_to == 0.0 || w->measure_from < w->measure_to))) return "workload.measure_from";
    if (!count(w->turns, 0, 1000)) return "workload.turns";
    if (w->turns > 1.0 && (fmod(w->requests, w->turns) != 0.0 || w->arrival == TW_ARRIVE_TRACE || w->prefix_tokens > 0.0))
        return "workload.turns";
    if (!(isfinite(w->think_s) && w->think_s >= 0.0 && w->think_s <= 1e6)) return "workload.think_s";
    switch (w->arrival) {
    case TW_ARRIVE_POISSON:
        if (!positive(w->rate) || w->rate > 1e9) return "workload.rate";
        if (!count(w->concurrency, 0, TW_SERVE_MAX_REQUESTS) || (w->concurrency > 0.0 && w->turns > 1.0))
            return "workload.concurrency";
        break;
    case TW_ARRIVE_GAMMA:
        if (!positive(w->rate) || w->rate > 1e9) return "workload.rate";
        if (!(isfinite(w->cv) && w->cv >= 0.01 && w->cv <= 100.0)) return "workload.cv";
        if (!count(w->concurrency, 0, TW_SERVE_MAX_REQUESTS) || (w->concurrency > 0.0 && w->turns > 1.0))
            return "workload.concurrency";
        break;
    case TW_ARRIVE_OFFLINE: break;
    case TW_ARRIVE_CLOSED:
        if (!count(w->concurrency, 1, TW_SERVE_MAX_REQUESTS)) return "workload.concurrency";
        break;
    case TW_ARRIVE_TRACE:
        if (w->trace_arrival == NULL) return "workload.trace_arrival";
        for (i = 0; i < (size_t)w->requests; i++) {
            double a = w->trace_arrival[i];
            if (!(isfinite(a) && a >= 0.0 && a <= 1e12) || (i > 0 && a < w->trace_arrival[i - 1]))
                return "workload.trace_arrival";
        }
        break;
    default: return "workload.arrival";
    }
    bad = tw__serve_check_lengths(&w->isl, w->trace_isl, w->requests, 1);
    if (bad == NULL) bad = tw__serve_check_lengths(&w->osl, w->trace_osl, w->requests, 0);
    if (bad == NULL && !(w->max_total == 0.0 || (count(w->max_total, 2, TW_SERVE_MAX_TOKENS) &&
                                                  w->isl.kind != TW_LEN_TRACE && w->osl.kind != TW_LEN_TRACE)))
        bad = "workload.max_total";
    return bad;
}

/* in-place heapsort (no allocation, unlike some C libraries' qsort) */
static void sift(double *v, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        double t;
        if (child >= n) return;
        if (child + 1 < n && v[child + 1] > v[child]) child++;
        if (!(v[child] > v[root])) return;
        t = v[root];
        v[root] = v[child];
        v[child] = t;
        root = child;
    }
}

static void heap_sort(double *v, size_t n)
{
    size_t i;
    double t;
    for (i = n / 2; i-- > 0;) sift(v, i, n);
    for (i = n; i-- > 1;) {
        t = v[0];
        v[0] = v[i];
        v[i] = t;
        sift(v, 0, i);
    }
}

/* Sort n values ascending with tmp (n values) as room. Non-negative doubles order as their bit
   patterns do as unsigned integers: a least-significant-digit radix sort on 11-bit digits (six
   passes, a pass skipped when every value shares its digit) gives the order a comparison sort gives
   (equal values have equal bits), in linear time; anything else (a negative value, a NaN) takes the
   heap sort. */
#define DIGIT_BITS 11
#define DIGITS (1u << DIGIT_BITS)
static void sort_values(double *v, double *tmp, size_t n)
{
    size_t i, count[DIGITS];
    unsigned d;
    double *src = v, *dst = tmp, *sw;
    for (i = 0; i < n; i++) {
        if (!(v[i] >= 0.0)) {
            heap_sort(v, n);
            return;
        }
    }
    if (n < 2) return;
    for (d = 0; d < 64; d += DIGIT_BITS) {
        size_t sum = 0, c;
        uint64_t u;
        memset(count, 0, sizeof count);
        for (i = 0; i < n; i++) {
            memcpy(&u, &src[i], sizeof u);
            count[(u >> d) & (DIGITS - 1)]++;
        }
        memcpy(&u, &src[0], sizeof u);
        if (count[(u >> d) & (DIGITS - 1)] == n) continue; /* one digit for all: the pass moves nothing */
        for (i = 0; i < DIGITS; i++) {
            c = count[i];
            count[i] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++) {
            memcpy(&u, &src[i], sizeof u);
            dst[count[(u >> d) & (DIGITS - 1)]++] = src[i];
        }
        sw = src;
        src = dst;
        dst = sw;
    }
    if (src != v) memcpy(v, src, n * sizeof *v);
}

/* numpy's default percentile: linear between the order statistics around q/100 * (n - 1) */
static double percentile(const double *v, size_t n, double q)
{
    double pos = q / 100.0 * (double)(n - 1), f = floor(pos);
    size_t i = (size_t)f;
    if (i + 1 >= n) return v[n - 1];
    return v[i] + (pos - f) * (v[i + 1] - v[i]);
}

void tw__serve_stat(double *v, double *tmp, size_t n, tw_serve_stat *out)
{
    double sum = 0.0;
    size_t i;
    if (n == 0) {
        out->mean = out->p50 = out->p90 = out->p99 = out->max = 0.0;
        return;
    }
    sort_values(v, tmp, n);
    for (i = 0; i < n; i++) sum += v[i];
    out->mean = sum / (double)n;
    out->p50 = percentile(v, n, 50.0);
    out->p90 = percentile(v, n, 90.0);
    out->p99 = percentile(v, n, 99.0);
    out->max = v[n - 1];
}

size_t tw__itl_bin(double x)
{
    /* x = f 2^e, f in [0.5, 1): octave e - 1, and 512 equal steps of the mantissa within it (no log) */
    int e;
    double f = frexp(x, &e), b;
    if (!(x > 0.0) || !isfinite(x)) return x > 0.0 ? TW__ITL_BINS - 1 : 0;
    b = (double)(e - 1 - TW__ITL_LOG2_MIN) * TW__ITL_PER_OCTAVE + floor((2.0 * f - 1.0) * TW__ITL_PER_OCTAVE);
    if (!(b > 0.0)) return 0;
    if (b >= TW__ITL_BINS - 1) return TW__ITL_BINS - 1;
    return (size_t)b;
}

/* the middle of bin i: octave i / 512, mantissa step i % 512 */
static double itl_bin_middle(size_t i)
{
    return ldexp(1.0 + ((double)(i % TW__ITL_PER_OCTAVE) + 0.5) / TW__ITL_PER_OCTAVE,
                 (int)(i / TW__ITL_PER_OCTAVE) + TW__ITL_LOG2_MIN);
}

/* the value of order statistic `rank` (1-based) of the histogram: its bin's middle */
static double itl_order(const uint64_t *bins, double rank)
{
    double seen = 0.0;
    size_t i;
    for (i = 0; i < TW__ITL_BINS; i++) {
        seen += (double)bins[i];
        if (seen >= rank) break;
    }
    return itl_bin_middle(i == TW__ITL_BINS ? TW__ITL_BINS - 1 : i);
}

/* numpy's linear percentile (as percentile() above) with the histogram's order statistics */
static double itl_percentile(const uint64_t *bins, double n, double q)
{
    double pos = q / 100.0 * (n - 1.0), f = floor(pos), lo = itl_order(bins, f + 1.0);
    if (f + 2.0 > n || pos == f) return lo;
    return lo + (pos - f) * (itl_order(bins, f + 2.0) - lo);
}

void tw__itl_stat(const uint64_t *bins, double n, double sum, double max, tw_serve_stat *out)
{
    if (n <= 0.0) {
        out->mean = out->p50 = out->p90 = out->p99 = out->max = 0.0;
        return;
    }
    out->mean = sum / n;
    out->p50 = itl_percentile(bins, n, 50.0);
    out->p90 = itl_percentile(bins, n, 90.0);
    out->p99 = itl_percentile(bins, n, 99.0);
    out->max = max;
    /* a bin's middle never above the largest gap */
    if (out->p50 > max) out->p50 = max;
    if (out->p90 > max) out->p90 = max;
    if (out->p99 > max) out->p99 = max;
}
