/* tw_serve_prefix.c - prefix caching of one shared prompt prefix (tw_serve.h: prefix_tokens,
 * prefix_share, prefix_caching). A replica caches the prefix's full blocks (a partial last block is
 * each request's own, as vLLM hashes only full blocks); requests that start with it use them by
 * reference. The first request to run computes them (a miss); once it has computed past them, later
 * ones skip those tokens (a hit). The cache is one entry evicted when nothing running uses it and
 * blocks run short (LRU with one entry: vLLM's free-block queue, SGLang's radix tree, reduced to the
 * one prefix every request shares). Invariant: r->blocks_used counts the cached blocks once, and a
 * request's q->blocks only its own. */
#include "tw_serve_sim.h"

static int uses_cache(const sim_t *s, const req_t *q)
{
    return s->p->prefix_caching && q->shared && s->pfx_nblocks > 0.0;
}

double tw__prefix_needs(const sim_t *s, const rep_t *r, const req_t *q)
{
    if (!uses_cache(s, q) || q->computed > 0) return 0.0;
    return r->pfx_blocks > 0.0 ? 0.0 : s->pfx_nblocks;
}

void tw__prefix_admit(sim_t *s, rep_t *r, req_t *q)
{
    if (!uses_cache(s, q) || q->computed > 0 || q->pfx_blocks > 0) return;
    s->prefix_lookups += 1.0;
    if (r->pfx_blocks == 0.0) {
        /* a miss: the cache's blocks are allocated now and this request computes them */
        r->pfx_blocks = s->pfx_nblocks;
        r->pfx_ready = 0;
        r->blocks_used += s->pfx_nblocks;
        s->blocks_used_all += s->pfx_nblocks;
        if (r->blocks_used > r->blocks_peak) r->blocks_peak = r->blocks_used;
    } else if (r->pfx_ready) {
        /* a hit: the prefix's tokens are computed already */
        s->prefix_hits += 1.0;
        s->cached_tokens += s->pfx_tokens;
        q->computed = (int32_t)s->pfx_tokens;
        q->cached = (int32_t)s->pfx_tokens;
    }
    q->pfx_blocks = (int32_t)s->pfx_nblocks;
    r->pfx_refs++;
}

void tw__prefix_release(sim_t *s, rep_t *r, req_t *q)
{
    (void)s;
    if (q->pfx_blocks == 0) return;
    q->pfx_blocks = 0;
    r->pfx_refs--;
}

int tw__prefix_evict(sim_t *s, rep_t *r)
{
    if (r->pfx_blocks == 0.0 || r->pfx_refs > 0) return 0;
    r->blocks_used -= r->pfx_blocks;
    s->blocks_used_all -= r->pfx_blocks;
    r->pfx_blocks = 0.0;
    r->pfx_ready = 0;
    return 1;
}

void tw__prefix_step(sim_t *s, rep_t *r, const req_t *q)
{
    if (q->pfx_blocks > 0 && r->pfx_blocks > 0.0 && q->computed >= s->pfx_tokens) r->pfx_ready = 1;
}
