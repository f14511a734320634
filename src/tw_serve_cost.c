/* tw_serve_cost.c - the step time of a serving step, looked up from the caller's cost tables
 * (tw_serve.h gives the formula). */
#include <math.h>
#include <stddef.h>

#include "tw_serve_internal.h"

static int nonneg(double x) { return isfinite(x) && x >= 0.0; }

/* a grid: 1..TW_SERVE_MAX_POINTS points, first 1, strictly ascending integers; values >= 0 */
static int grid_ok(const double *g, size_t n, const double *v, size_t n_v)
{
    size_t i;
    if (g == NULL || v == NULL || n < 1 || n > TW_SERVE_MAX_POINTS || g[0] != 1.0) return 0;
    for (i = 0; i < n; i++) {
        if (!isfinite(g[i]) || g[i] != floor(g[i]) || (i > 0 && !(g[i] > g[i - 1]))) return 0;
    }
    for (i = 0; i < n_v; i++) {
        if (!nonneg(v[i])) return 0;
    }
    return 1;
}

const char *tw__serve_check_costs(const tw_serve_costs *c)
{
    if (c == NULL) return "costs";
    if (!grid_ok(c->tok_grid, c->n_tok, c->lin_s, c->n_tok)) return "costs.lin_s";
    if (!grid_ok(c->ctx_grid, c->n_ctx, c->attn_s, c->n_ctx)) return "costs.attn_s";
    if (!grid_ok(c->seq_grid, c->n_seq, c->logits_s, c->n_seq)) return "costs.logits_s";
    if (c->n_dctx > 0 && c->n_seq > TW_SERVE_MAX_POINTS * (size_t)TW_SERVE_MAX_POINTS / c->n_dctx) return "costs.decode_s";
    if (!grid_ok(c->dctx_grid, c->n_dctx, c->decode_s, c->n_seq * c->n_dctx)) return "costs.decode_s";
    if (c->draft_s != NULL && !grid_ok(c->dctx_grid, c->n_dctx, c->draft_s, c->n_seq * c->n_dctx)) return "costs.draft_s";
    if (!nonneg(c->host_s)) return "costs.host_s";
    if (!nonneg(c->seq_host_s)) return "costs.seq_host_s";
    if (!nonneg(c->kv_s_per_token)) return "costs.kv_s_per_token";
    if (!(c->host_overlap >= 0.0 && c->host_overlap <= 1.0)) return "costs.host_overlap";
    if (!(c->decode_kernels == 0.0 || c->decode_kernels == 1.0)) return "costs.decode_kernels";
    if (!(isfinite(c->scale) && c->scale > 0.0)) return "costs.scale";
    return NULL;
}

/* index i with g[i] <= x < g[i+1] (clamped to the grid), and the weight of g[i+1] */
static size_t locate(const double *g, size_t n, double x, double *w, size_t *hint)
{
    size_t lo = 0, len, half;
    if (n == 1 || x <= g[0]) { *w = 0.0; return 0; }
    if (x >= g[n - 1]) {
        /* beyond the grid: extrapolate along the last segment */
        *w = (x - g[n - 2]) / (g[n - 1] - g[n - 2]);
        return n - 2;
    }
    /* g[0] < x < g[n - 1]: the segment i with g[i] <= x < g[i + 1], unique as g strictly increases.
       First the segment the last lookup found, */
    if (hint != NULL) {
        lo = *hint;
        if (lo + 1 < n && g[lo] <= x && x < g[lo + 1]) {
            *w = (x - g[lo]) / (g[lo + 1] - g[lo]);
            return lo;
        }
    }
    /* then by its integer part (the grids of tilewave.serve.steps hold every integer 1..16 first:
       g[j - 1] = j <= x < g[j]), */
    lo = (size_t)x;
    if (!(lo >= 1 && lo < n && g[lo - 1] == (double)lo && g[lo] > x)) {
        /* else by halving a window whose first point is at or below x (the choice a conditional
           move, not a branch) */
        for (lo = 0, len = n; len > 1; len -= half) {
            half = len / 2;
            lo = g[lo + half] <= x ? lo + half : lo;
        }
    } else {
        lo -= 1;
    }
    if (hint != NULL) *hint = lo;
    *w = (x - g[lo]) / (g[lo + 1] - g[lo]);
    return lo;
}

static double lookup(const double *g, size_t n, const double *v, double x, size_t *hint)
{
    double w, r;
    size_t i = locate(g, n, x, &w, hint);
    if (n == 1) return v[0] * (x > 1.0 ? x : 1.0);
    r = v[i] + w * (v[i + 1] - v[i]);
    return r > 0.0 ? r : 0.0;
}

double tw__serve_attn(const tw_serve_costs *c, tw__grid_hints *h, double s)
{
    return lookup(c->ctx_grid, c->n_ctx, c->attn_s, s, h != NULL ? &h->ctx : NULL);
}

/* D(b, c) of table v: bilinear in batch and context */
static double table_time(const tw_serve_costs *c, tw__grid_hints *h, const double *v, double b, double ctx)
{
    double wb, wc, d00, d01, d10, d11, r;
    size_t ib, ic, *hs = h != NULL ? &h->seq : NULL, *hd = h != NULL ? &h->dctx : NULL;
    if (c->n_seq == 1 || c->n_dctx == 1) {
        /* a one-point axis: the table's row or column as it is */
        ib = c->n_seq == 1 ? 0 : locate(c->seq_grid, c->n_seq, b, &wb, hs);
        ic = c->n_dctx == 1 ? 0 : locate(c->dctx_grid, c->n_dctx, ctx, &wc, hd);
        if (c->n_seq == 1) wb = 0.0;
        if (c->n_dctx == 1) wc = 0.0;
        d00 = v[ib * c->n_dctx + ic];
        d10 = c->n_seq == 1 ? d00 : v[(ib + 1) * c->n_dctx + ic];
        d01 = c->n_dctx == 1 ? d00 : v[ib * c->n_dctx + ic + 1];
        r = d00 + wb * (d10 - d00) + wc * (d01 - d00);
        return r > 0.0 ? r : 0.0;
    }
    ib = locate(c->seq_grid, c->n_seq, b, &wb, hs);
    ic = locate(c->dctx_grid, c->n_dctx, ctx, &wc, hd);
    d00 = v[ib * c->n_dctx + ic];
    d01 = v[ib * c->n_dctx + ic + 1];
    d10 = v[(ib + 1) * c->n_dctx + ic];
    d11 = v[(ib + 1) * c->n_dctx + ic + 1];
    r = (1 - wb) * ((1 - wc) * d00 + wc * d01) + wb * ((1 - wc) * d10 + wc * d11);
    return r > 0.0 ? r : 0.0;
}

double tw__serve_step(const tw_serve_costs *c, tw__grid_hints *h, double prefill_tokens, double attn_s, double b,
                      double ctx, double k, double decode_tokens, double spec_k)
{
    /* host work of the step, and the GPU's: the kernels in sequence, bounded below by D(b, c) less the
     * host work D includes (host_s + seq_host_s b, as tilewave.inference.decode prices a step); a
     * step of decodes alone (no prompt chunk, no speculative verification) under a standalone engine
     * (decode_kernels 0) is D's alone, as tilewave.inference.decode prices it: serve and decode give
     * one TPOT */
    double host = c->host_s + c->seq_host_s * k, gpu = 0.0, t;
    int decode_only = c->decode_kernels == 0.0 && b > 0.0 && prefill_tokens == 0.0 && decode_tokens == b &&
                      spec_k == 0.0;
    if (!decode_only)
        gpu = lookup(c->tok_grid, c->n_tok, c->lin_s, prefill_tokens + decode_tokens, h != NULL ? &h->tok : NULL) +
              attn_s + (k > 0.0 ? lookup(c->seq_grid, c->n_seq, c->logits_s, k, h != NULL ? &h->seq : NULL) : 0.0);
    if (b > 0.0) {
        double d = table_time(c, h, c->decode_s, b, ctx) - (c->host_s + c->seq_host_s * b);
        /* decode attention streams each sequence's KV cache in its own kernels, after the GEMMs */
        if (!decode_only) gpu += c->kv_s_per_token * ctx * b;
        if (d > gpu) gpu = d;
        /* speculative decoding: the draft's k steps before the verification */
        if (spec_k > 0.0 && c->draft_s != NULL) gpu += spec_k * table_time(c, h, c->draft_s, b, ctx);
    }
    /* host_overlap f of the host work runs while the GPU runs the previous step (an overlapped
     * scheduler); the rest waits for it. f = 0: gpu + host; f = 1: max(gpu, host) */
    t = gpu + (1.0 - c->host_overlap) * host;
    return t > host ? t : host;
}

int tw_serve_step_time(const tw_serve_costs *c, const double *n, const double *p, size_t n_chunks, double b,
                       double ctx, double k, double *time_s, const char **bad_field)
{
    const char *bad = tw__serve_check_costs(c);
    double tokens = 0.0, attn = 0.0;
    size_t i;
    if (bad == NULL && n_chunks > 0 && (n == NULL || p == NULL)) bad = "n";
    for (i = 0; bad == NULL && i < n_chunks; i++) {
        if (!(isfinite(n[i]) && n[i] >= 1.0 && n[i] <= TW_SERVE_MAX_TOKENS)) bad = "n";
        else if (!(isfinite(p[i]) && p[i] >= 0.0 && p[i] <= TW_SERVE_MAX_TOKENS)) bad = "p";
    }
    if (bad == NULL && !(isfinite(b) && b >= 0.0 && b == floor(b) && b <= TW_SERVE_MAX_REQUESTS)) bad = "b";
    if (bad == NULL && !(isfinite(ctx) && ctx >= 1.0 && ctx <= TW_SERVE_MAX_TOKENS)) bad = "ctx";
    if (bad == NULL && !(isfinite(k) && k >= 0.0 && k <= TW_SERVE_MAX_REQUESTS)) bad = "k";
    if (bad == NULL && n_chunks == 0 && b == 0.0) bad = "b";
    if (bad == NULL && time_s == NULL) bad = "time_s";
    if (bad != NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return TW_EINVAL;
    }
    for (i = 0; i < n_chunks; i++) {
        double inc = tw__serve_attn(c, NULL, p[i] + n[i]) - tw__serve_attn(c, NULL, p[i]), own = tw__serve_attn(c, NULL, n[i]);
        tokens += n[i];
        attn += inc > own ? inc : own;
    }
    tokens = c->scale * tw__serve_step(c, NULL, tokens, attn, b, ctx, k, b, 0.0);
    if (!(isfinite(tokens) && tokens >= 0.0)) {
        /* valid tables whose sums or scale overflow */
        if (bad_field != NULL) *bad_field = "costs.scale";
        return TW_ERANGE;
    }
    *time_s = tokens;
    return TW_OK;
}
