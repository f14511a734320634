/* tw_serve_prefix.c - prefix caching of one shared prompt prefix (tw_serve.h: prefix_tokens,
 * prefix_share, prefix_caching), and of each multi-turn conversation's history (turns; below). A replica caches the prefix's full blocks (a partial last block is
 * each request's own, as vLLM hashes only full blocks); requests that start with it use them by
 * reference. The first request to run computes them (a miss); once it has computed past them, later
 * ones skip those tokens (a hit). The cache is one entry evicted when nothing running uses it and
 * blocks run short (LRU with one entry: vLLM's free-block queue, SGLang's radix tree, reduced to the
 * one prefix every request shares). Invariant: r->blocks_used counts the cached blocks once, and a
 * request's q->blocks only its own. */
#include <math.h>

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

/* unlink cached turn i from replica r's LRU list */
static void lru_unlink(sim_t *s, rep_t *r, int32_t i)
{
    req_t *q = &s->req[i];
    if (q->lru_prev >= 0) s->req[q->lru_prev].lru_next = q->lru_next; else r->lru_head = q->lru_next;
    if (q->lru_next >= 0) s->req[q->lru_next].lru_prev = q->lru_prev; else r->lru_tail = q->lru_prev;
    q->lru_prev = q->lru_next = -1;
}

int tw__prefix_evict(sim_t *s, rep_t *r)
{
    if (r->pfx_blocks > 0.0 && r->pfx_refs == 0) {
        r->blocks_used -= r->pfx_blocks;
        s->blocks_used_all -= r->pfx_blocks;
        r->pfx_blocks = 0.0;
        r->pfx_ready = 0;
        return 1;
    }
    if (r->lru_head >= 0) {
        /* the least recently finished turn's history: its conversation's next turn will miss */
        int32_t i = r->lru_head;
        req_t *q = &s->req[i];
        lru_unlink(s, r, i);
        r->blocks_used -= q->ent_blocks;
        s->blocks_used_all -= q->ent_blocks;
        q->ent_blocks = 0;
        return 1;
    }
    return 0;
}

/* Multi-turn conversations (tw_serve.h: turns): a finished turn's full blocks (a partial last block is
 * freed, as vLLM hashes only full blocks) stay cached, owned by no request, at the tail of its
 * replica's LRU list; its conversation's next turn is routed there and, when it is admitted from
 * scratch, takes them over and skips their tokens (a hit). Nothing else shares a conversation's
 * history, so a hit moves the blocks to the request instead of counting references. Invariant:
 * r->blocks_used counts each cached turn's ent_blocks once, and a request's q->blocks only its own. */
static int32_t later_turn(const sim_t *s, const req_t *q)
{
    size_t i = (size_t)(q - s->req);
    return s->turns > 1 && i % s->turns > 0 ? (int32_t)i - 1 : -1;
}

void tw__conv_peek(const sim_t *s, const rep_t *r, const req_t *q, double *share, double *skip)
{
    int32_t prev = later_turn(s, q);
    *share = *skip = 0.0;
    if (!s->p->prefix_caching || prev < 0 || q->computed > 0) return;
    if (s->req[prev].ent_blocks > 0 && &s->rep[s->req[prev].replica] == r) {
        double tokens = s->req[prev].ent_blocks * s->bs;
        *share = s->req[prev].ent_blocks;
        *skip = tokens < q->isl - 1.0 ? tokens : q->isl - 1.0;
    }
}

void tw__conv_admit(sim_t *s, rep_t *r, req_t *q)
{
    int32_t prev = later_turn(s, q);
    double share, skip;
    if (!s->p->prefix_caching || prev < 0 || q->computed > 0) return;
    s->prefix_lookups += 1.0;
    tw__conv_peek(s, r, q, &share, &skip);
    if (share <= 0.0) return;
    s->prefix_hits += 1.0;
    s->cached_tokens += skip;
    q->computed = q->cached = (int32_t)skip;
    q->blocks += (int32_t)share; /* counted in r->blocks_used already */
    lru_unlink(s, r, prev);
    s->req[prev].ent_blocks = 0;
}

int tw__conv_keep(sim_t *s, rep_t *r, req_t *q)
{
    size_t i = (size_t)(q - s->req);
    double keep, written = (double)q->isl + q->osl - 1.0;
    if (!s->p->prefix_caching || s->turns <= 1 || i % s->turns + 1 >= s->turns || r->role != ROLE_BOTH ||
        s->p->policy != TW_SERVE_CONTINUOUS)
        return 0;
    keep = floor(written / s->bs);
    if (keep > q->blocks) keep = q->blocks;
    if (keep <= 0.0) return 0;
    r->blocks_used -= q->blocks - keep;
    s->blocks_used_all -= q->blocks - keep;
    q->blocks = 0;
    q->ent_blocks = (int32_t)keep;
    q->lru_prev = r->lru_tail;
    q->lru_next = -1;
    if (r->lru_tail >= 0) s->req[r->lru_tail].lru_next = (int32_t)i; else r->lru_head = (int32_t)i;
    r->lru_tail = (int32_t)i;
    return 1;
}

void tw__prefix_step(sim_t *s, rep_t *r, const req_t *q)
{
    if (q->pfx_blocks > 0 && r->pfx_blocks > 0.0 && q->computed >= s->pfx_tokens) r->pfx_ready = 1;
}
