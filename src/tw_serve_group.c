/* tw_serve_group.c - the decode group of a replica: its running requests in steady decode, advanced
 * together. Under continuous batching that mixes prefill chunks and decodes in every step, a request
 * past its prompt takes one token a step until its last; the scheduler's pass over the running list
 * gives each the same token, the same KV block rule and the same gap. The group keeps what those
 * passes would compute as counts instead (members, the sum of their contexts, members in the measured
 * window, members needing a block at each tick by their position in a block, a heap of their finishing
 * ticks), so a step costs the requests that are not in it plus the ones it finishes, not every running
 * one.
 *
 * It is exact, not an approximation: a step takes the group's tokens only when no limit binds - the
 * token budget holds every running request's full ask and the free KV blocks every block they need -
 * so the list's pass would have given every member its token in any order, and every sum is of
 * integers (exact in a double) but the ITL sum, which adds a step's common gap once per member as a
 * product. Otherwise every member goes back to the running list at its place in admission order (the
 * list's order) before the step is scheduled, with the tokens and blocks the ticks gave it, and the
 * list's rules (budget order, preemption of the newest) apply as they would have. */
#include <math.h>

#include "tw_serve_sim.h"

int tw__grp_allowed(const sim_t *s)
{
    const tw_serve_policy *p = s->p;
    /* prefix caching with no shared prefix and no conversations caches nothing */
    int caching = p->prefix_caching && (s->pfx_nblocks > 0.0 || s->turns > 1);
    return !p->per_request && p->policy == TW_SERVE_CONTINUOUS && p->mix && p->multi_step == 1.0 && p->spec_k == 0.0 && s->turns == 1 &&
           !caching && !p->async_output && p->block_size <= TW__GROUP_MAX_BS &&
           p->emit_max == 0.0;
}

/* the tick of member i's last token, its heap key */
static double last_tick(const sim_t *s, int32_t i)
{
    const req_t *q = &s->req[i];
    return q->g_e0 + (double)(q->osl - q->gen);
}

/* member i's bucket: the ticks at which it needs a new block are those equal to it mod the block size */
static int64_t bucket(const sim_t *s, const req_t *q)
{
    int64_t k = ((int64_t)q->g_e0 - (int64_t)q->computed) % s->grp_bs;
    return k < 0 ? k + s->grp_bs : k;
}

/* The heap of replica r's members: entries (g_heap[k], key[k]), smallest key first; the keys are
   their last ticks (the finishing heap) or minus their admission numbers (the heap sort that puts
   members back in the list's order). */
static void swap(int32_t *h, double *key, int32_t a, int32_t b)
{
    int32_t x = h[a];
    double y = key[a];
    h[a] = h[b];
    key[a] = key[b];
    h[b] = x;
    key[b] = y;
}

static void sift_down(int32_t *h, double *key, int32_t n, int32_t i)
{
    for (;;) {
        int32_t l = 2 * i + 1, m = i;
        if (l < n && key[l] < key[m]) m = l;
        if (l + 1 < n && key[l + 1] < key[m]) m = l + 1;
        if (m == i) return;
        swap(h, key, i, m);
        i = m;
    }
}

static void push(const sim_t *s, rep_t *r, int32_t i)
{
    int32_t *h = r->g_heap, k = r->g_n++;
    double *key = r->g_key;
    h[k] = i;
    key[k] = last_tick(s, i);
    while (k > 0 && key[(k - 1) / 2] > key[k]) {
        swap(h, key, k, (k - 1) / 2);
        k = (k - 1) / 2;
    }
}

/* member i leaves the group with what its ticks gave it: tokens, and the blocks taken for them */
static void leave(sim_t *s, rep_t *r, int32_t i)
{
    req_t *q = &s->req[i];
    int32_t d = (int32_t)((double)r->g_E - q->g_e0);
    if (!s->p->reserve) r->g_bucket[bucket(s, q)] -= 1.0;
    r->g_S -= q->computed - q->g_e0;
    if ((size_t)i >= s->lo && (size_t)i < s->hi) r->g_win -= 1.0;
    q->computed += d;
    q->gen += d;
    if (!s->p->reserve) q->blocks = (int32_t)tw__blocks_for(q->computed, s->bs);
    q->last = r->t_tick;
    q->in_grp = 0;
}

int tw__grp_join(sim_t *s, rep_t *r, int32_t i, double t)
{
    req_t *q = &s->req[i];
    if (r->g_hold > 0 || r->role == ROLE_PREFILL || q->gen == 0 || q->isl + q->gen - q->computed != 1 || q->gen >= q->osl ||
        q->last != t || q->pfx_blocks != 0 || (r->g_n > 0 && r->t_tick != t))
        return 0;
    /* its blocks cover exactly its tokens: a new one at every block boundary, as the list gives them */
    if (!s->p->reserve && (double)q->blocks != tw__blocks_for(q->computed, s->bs)) return 0;
    q->g_e0 = (double)r->g_E;
    q->in_grp = 1;
    r->t_tick = t;
    r->g_S += q->computed - q->g_e0;
    if ((size_t)i >= s->lo && (size_t)i < s->hi) r->g_win += 1.0;
    if (!s->p->reserve) r->g_bucket[bucket(s, q)] += 1.0;
    push(s, r, i);
    return 1;
}

/* every member back in the running list `run`, merged by admission number (the list's own order) */
static void disband(sim_t *s, rep_t *r, int32_t *run)
{
    int32_t *h = r->g_heap, n = r->g_n, k, a, b, o;
    for (k = 0; k < n; k++) {
        leave(s, r, h[k]);
        r->g_key[k] = -s->req[h[k]].adm;
    }
    /* the members by admission number, a heap sort: a min-heap on minus it puts the largest last */
    for (k = n / 2 - 1; k >= 0; k--) sift_down(h, r->g_key, n, k);
    for (k = n - 1; k > 0; k--) {
        swap(h, r->g_key, 0, k);
        sift_down(h, r->g_key, k, 0);
    }
    /* merge from the back: the list has room for every running request */
    a = r->n_run - 1;
    b = n - 1;
    for (o = r->n_run + n - 1; b >= 0; o--) {
        if (a >= 0 && s->req[run[a]].adm > s->req[h[b]].adm) run[o] = run[a--];
        else run[o] = h[b--];
    }
    r->n_run += n;
    r->g_n = 0;
    /* a limit binds: no one joins for a while, longer each time it binds again soon (a tight cache
       would otherwise disband a full group every step) */
    r->g_backoff = r->g_backoff < 1 ? 1 : r->g_backoff < 1024 ? 2 * r->g_backoff : 1024;
    r->g_hold = r->g_backoff;
    r->g_S = 0.0;
    r->g_win = 0.0;
    if (!s->p->reserve)
        for (k = 0; k < (int32_t)s->grp_bs; k++) r->g_bucket[k] = 0.0;
}

int tw__grp_fits(sim_t *s, rep_t *r, const int32_t *run, double budget)
{
    double ask = r->g_n, blocks = s->p->reserve ? 0.0 : r->g_bucket[r->g_E % s->grp_bs];
    int32_t j;
    for (j = 0; j < r->n_run; j++) {
        const req_t *q = &s->req[run[j]];
        double n = (double)q->isl + q->gen - q->computed;
        ask += n;
        if (!s->p->reserve) {
            double nb = tw__blocks_for(q->computed + n, s->bs) - q->blocks - q->pfx_blocks;
            if (nb > 0.0) blocks += nb;
        }
    }
    if (ask <= budget && blocks <= r->blocks_total - r->blocks_used) {
        r->g_backoff /= 2;
        return 1;
    }
    disband(s, r, (int32_t *)run);
    return 0;
}

double tw__grp_schedule(sim_t *s, rep_t *r, comp_t *m)
{
    double n = r->g_n;
    if (!s->p->reserve) {
        double nb = r->g_bucket[r->g_E % s->grp_bs];
        r->blocks_used += nb;
        s->blocks_used_all += nb;
        if (r->blocks_used > r->blocks_peak) r->blocks_peak = r->blocks_used;
    }
    m->b += n;
    m->ctx += r->g_S + n * (double)r->g_E + n; /* each member's context: its computed tokens and this one */
    m->k += n;
    m->dec_tokens += n;
    r->g_tick = 1;
    return n;
}

size_t tw__grp_tick(sim_t *s, rep_t *r, double t, size_t *spawn, size_t n_total)
{
    double gap = t - r->t_tick;
    size_t done = 0;
    r->g_tick = 0;
    s->group_ticks++;
    if (r->g_win > 0.0) tw__itl_gap(s, gap, r->g_win);
    s->spec_steps += r->g_n;
    s->spec_tokens += r->g_n;
    r->g_E++;
    r->t_tick = t;
    while (r->g_n > 0 && r->g_key[0] <= (double)r->g_E) {
        int32_t i = r->g_heap[0];
        r->g_n--;
        swap(r->g_heap, r->g_key, 0, r->g_n);
        sift_down(r->g_heap, r->g_key, r->g_n, 0);
        leave(s, r, i);
        tw__finish(s, r, i, t, spawn, n_total);
        done++;
    }
    return done;
}
