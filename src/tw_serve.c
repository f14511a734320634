/* tw_serve.c - the serving loop: arrivals, per-replica schedulers over a paged KV cache, steps
 * priced from the caller's tables, and the run's metrics (tw_serve.h gives the rules).
 * One concern past 400 lines: one run's life - its workspace laid out, checked, set up, its events
 * looped, and what it left (requests, chunk log) read back from the same layout. */
#include <math.h>
#include <string.h>

#include "tw_serve_sim.h"

/* run_events' answer when stop_percentile decided the run before its end */
static const char STOPPED[] = "stopped";

static int count(double x, double lo, double hi) { return isfinite(x) && x >= lo && x <= hi && x == floor(x); }

static int layout(const tw_serve_workload *w, const tw_serve_policy *p, hdr_t *h)
{
    if (w == NULL || p == NULL || !count(w->requests, 1, TW_SERVE_MAX_REQUESTS) ||
        !count(p->replicas, 1, TW_SERVE_MAX_REPLICAS) || !count(p->max_num_seqs, 1, 1e6))
        return 0;
    h->n = (size_t)w->requests;
    h->frontend_s = p->frontend_s;
    h->n_rep = (size_t)p->replicas;
    h->max_seqs = (size_t)p->max_num_seqs;
    h->off_req = ALIGN8(sizeof(hdr_t));
    h->off_rep = ALIGN8(h->off_req + h->n * sizeof(req_t));
    h->off_run = ALIGN8(h->off_rep + h->n_rep * sizeof(rep_t));
    h->off_bins = ALIGN8(h->off_run + h->n_rep * h->max_seqs * sizeof(int32_t));
    h->off_scratch = ALIGN8(h->off_bins + TW__ITL_BINS * sizeof(uint64_t));
    h->off_heap_t = ALIGN8(h->off_scratch + 2 * h->n * sizeof(double)); /* values and a sort's room */
    h->off_heap_i = ALIGN8(h->off_heap_t + h->n * sizeof(double));
    h->off_ghp = ALIGN8(h->off_heap_i + h->n * sizeof(int32_t));
    h->off_gky = ALIGN8(h->off_ghp + h->n_rep * h->max_seqs * sizeof(int32_t));
    h->off_gbk = ALIGN8(h->off_gky + h->n_rep * h->max_seqs * sizeof(double));
    h->off_gaps = ALIGN8(h->off_gbk + h->n_rep * TW__GROUP_MAX_BS * sizeof(double));
    h->off_emit = ALIGN8(h->off_gaps + (h->max_seqs + 1) * sizeof(gap_t));
    h->emit_max = count(p->emit_max, 0, 1e9) ? (size_t)p->emit_max : 0;
    h->emit_n = h->emit_lost = 0;
    h->total = h->off_emit + h->emit_max * sizeof(tw_serve_chunk);
    return 1;
}

size_t tw_serve_workspace_bytes(const tw_serve_workload *w, const tw_serve_policy *p, size_t series_max)
{
    hdr_t h;
    (void)series_max;
    return layout(w, p, &h) ? h.total : 0;
}

/* The policy's limits and why: max_num_seqs and block_size up to 10^6 (engines run up to a few
 * thousand sequences and blocks of 16-256 tokens; the run array is max_num_seqs per replica);
 * max_num_batched_tokens up to TW_SERVE_MAX_TOKENS (a step can take one whole request); KV capacity
 * up to 10^15 tokens (exact in a double); watermark at most half the cache (vLLM's default is 1%);
 * multi_step up to 1000 (vLLM's --num-scheduler-steps is a handful); spec_k up to 16 drafts (EAGLE
 * and Medusa use 4-8); a KV transfer of at most 1 s per token and 1000 s of latency (beyond any link:
 * a larger figure is a unit error). */
static const char *check_policy(const tw_serve_policy *p)
{
    if (p == NULL) return "policy";
    if (p->policy != TW_SERVE_CONTINUOUS && p->policy != TW_SERVE_STATIC) return "policy.policy";
    if (p->mix != 0 && p->mix != 1) return "policy.mix";
    if (p->chunked != 0 && p->chunked != 1) return "policy.chunked";
    if (p->reserve != 0 && p->reserve != 1) return "policy.reserve";
    if (!count(p->max_num_seqs, 1, 1e6)) return "policy.max_num_seqs";
    if (!count(p->max_num_batched_tokens, 1, TW_SERVE_MAX_TOKENS)) return "policy.max_num_batched_tokens";
    if (!count(p->block_size, 1, 1e6)) return "policy.block_size";
    if (!count(p->kv_capacity_tokens, p->block_size, 1e15)) return "policy.kv_capacity_tokens";
    if (!(isfinite(p->watermark) && p->watermark >= 0.0 && p->watermark <= 0.5)) return "policy.watermark";
    if (!count(p->replicas, 1, TW_SERVE_MAX_REPLICAS)) return "policy.replicas";
    if (p->router != TW_ROUTE_ROUND_ROBIN && p->router != TW_ROUTE_LEAST_LOADED) return "policy.router";
    if (!count(p->multi_step, 1, 1000)) return "policy.multi_step";
    if (!count(p->spec_k, 0, 16)) return "policy.spec_k";
    if (!(isfinite(p->spec_alpha) && p->spec_alpha >= 0.0 && p->spec_alpha <= 1.0)) return "policy.spec_alpha";
    if (p->async_output != 0 && p->async_output != 1) return "policy.async_output";
    if (!(isfinite(p->frontend_s) && p->frontend_s >= 0.0 && p->frontend_s <= 60.0)) return "policy.frontend_s";
    if (p->per_request != 0 && p->per_request != 1) return "policy.per_request";
    if (!count(p->emit_max, 0, 1e9)) return "policy.emit_max";
    if (p->prefix_caching != 0 && p->prefix_caching != 1) return "policy.prefix_caching";
    if (!(isfinite(p->stop_percentile) && p->stop_percentile >= 0.0 && p->stop_percentile <= 100.0))
        return "policy.stop_percentile";
    if (p->prefix_caching && p->prefill_replicas > 0) return "policy.prefix_caching";
    if (!count(p->prefill_replicas, 0, p->replicas - 1)) return "policy.prefill_replicas";
    if (p->prefill_replicas > 0) {
        if (!count(p->decode_kv_capacity_tokens, p->block_size, 1e15)) return "policy.decode_kv_capacity_tokens";
        if (!(isfinite(p->transfer_s_per_token) && p->transfer_s_per_token >= 0.0 && p->transfer_s_per_token <= 1.0))
            return "policy.transfer_s_per_token";
        if (!(isfinite(p->transfer_latency_s) && p->transfer_latency_s >= 0.0 && p->transfer_latency_s <= 1e3))
            return "policy.transfer_latency_s";
    }
    return NULL;
}

void tw__sample(sim_t *s, double t)
{
    size_t i;
    if (s->series == NULL || s->series_max == 0) return;
    if (s->skip > 0) { s->skip--; return; }
    if (s->series_n == s->series_max) {
        /* full: keep every other sample and halve the rate from here on */
        for (i = 0; 2 * i < s->series_n; i++) s->series[i] = s->series[2 * i];
        s->series_n = (s->series_n + 1) / 2;
        s->stride *= 2;
    }
    s->series[s->series_n].time_s = t;
    s->series[s->series_n].waiting = s->waiting;
    s->series[s->series_n].running = s->n_running;
    s->series[s->series_n].kv_fraction = s->blocks_used_all / s->blocks_all;
    s->series_n++;
    s->skip = s->stride - 1;
}

static size_t route(sim_t *s, size_t i, size_t lo, size_t hi, int least)
{
    size_t j, best = lo;
    if (!least) return lo + i % (hi - lo);
    for (j = lo + 1; j < hi; j++) {
        const rep_t *a = &s->rep[j], *b = &s->rep[best];
        if (a->n_wait + a->n_run + a->g_n < b->n_wait + b->n_run + b->g_n) best = j;
    }
    return best;
}

static int fail(const char **bad_field, const char *field, int status)
{
    if (bad_field != NULL) *bad_field = field;
    return status;
}

static int same_lengths(const tw_serve_lengths *x, const tw_serve_lengths *y)
{
    return x->kind == y->kind && x->a == y->a && x->b == y->b && x->lo == y->lo && x->hi == y->hi;
}

/* lengths drawn before for this workload's stream, at least n of them: the run reads them instead of
   drawing the same values again (NULL: draw) */
static const tw_serve_drawn *drawn_for(const tw_serve_workload *w, size_t n)
{
    const tw_serve_drawn *d = w->drawn;
    if (d == NULL || d->n < n || d->seed != w->seed || w->max_total > 0.0 || !same_lengths(&d->isl, &w->isl) ||
        !same_lengths(&d->osl, &w->osl) || w->isl.kind == TW_LEN_TRACE || w->osl.kind == TW_LEN_TRACE)
        return NULL;
    return d;
}

int tw_serve_draw_lengths(const tw_serve_workload *w, size_t n, double *isl_v, double *osl_v, tw_serve_drawn *d,
                          const char **bad_field)
{
    tw__rng rl;
    size_t i;
    const char *bad = NULL;
    if (w == NULL || w->isl.kind == TW_LEN_TRACE || tw__serve_check_lengths(&w->isl, NULL, 0.0, 1) != NULL) bad = "workload.isl";
    else if (w->osl.kind == TW_LEN_TRACE || tw__serve_check_lengths(&w->osl, NULL, 0.0, 0) != NULL) bad = "workload.osl";
    else if (n == 0 || (double)n > TW_SERVE_MAX_REQUESTS) bad = "n";
    else if (isl_v == NULL || osl_v == NULL || d == NULL) bad = "isl_v";
    if (bad != NULL) return fail(bad_field, bad, TW_EINVAL);
    /* the order of draw(): a request's prompt, then its output, from the lengths' own stream */
    tw__rng_seed(&rl, w->seed, 2);
    for (i = 0; i < n; i++) {
        isl_v[i] = tw__serve_draw_length(&w->isl, NULL, i, &rl);
        osl_v[i] = tw__serve_draw_length(&w->osl, NULL, i, &rl);
    }
    d->n = n;
    d->seed = w->seed;
    d->isl = w->isl;
    d->osl = w->osl;
    d->isl_v = isl_v;
    d->osl_v = osl_v;
    return TW_OK;
}

/* draw every request's lengths and (open loop) arrival times */
static const char *draw(sim_t *s, size_t n)
{
    const tw_serve_workload *w = s->w;
    const tw_serve_drawn *dr = drawn_for(w, n);
    tw__rng ra, rl, rp, rt;
    double t = 0.0;
    size_t i;
    tw__rng_seed(&ra, w->seed, 1);
    tw__rng_seed(&rl, w->seed, 2);
    tw__rng_seed(&rp, w->seed, 4);
    tw__rng_seed(&rt, w->seed, 5);
    for (i = 0; i < n; i++) {
        req_t *q = &s->req[i];
        size_t turn = i % s->turns;
        memset(q, 0, sizeof *q);
        q->first = q->sched = q->done = -1.0;
        q->next = q->pend_next = -1;
        q->lru_prev = q->lru_next = -1;
        if (dr != NULL) {
            q->isl = (int32_t)dr->isl_v[i];
            q->osl = (int32_t)dr->osl_v[i];
        } else {
            int tries = 0;
            for (;;) {
                q->isl = (int32_t)tw__serve_draw_length(&w->isl, w->trace_isl, i, &rl);
                q->osl = (int32_t)tw__serve_draw_length(&w->osl, w->trace_osl, i, &rl);
                /* past max_total: dropped, and another drawn in its place (a sampler's length filter) */
                if (w->max_total == 0.0 || (double)q->isl + q->osl <= w->max_total) break;
                s->dropped += 1.0;
                if (++tries >= 1000) return "workload.max_total"; /* the limit leaves almost nothing */
            }
        }
        if (turn > 0) {
            /* a later turn: the previous prompt and its answer, then this turn's own tokens */
            double isl = (double)q[-1].isl + q[-1].osl + q->isl;
            if (isl > TW_SERVE_MAX_TOKENS) return "workload.isl+osl";
            q->isl = (int32_t)isl;
            q->think = w->think_s > 0.0 ? -w->think_s * log(1.0 - tw__rng_uniform(&rt)) : 0.0;
        }
        /* the shared prefix comes before the request's own prompt (its own stream: no other draw moves) */
        if (w->prefix_tokens > 0.0 && w->prefix_share > 0.0 && tw__rng_uniform(&rp) < w->prefix_share) {
            q->shared = 1;
            q->isl += (int32_t)w->prefix_tokens;
        }
        if (s->p->prefill_replicas > 0) {
            /* the prompt and its first token on a prefill replica; the whole request on a decode one */
            if (tw__blocks_for((double)q->isl + 1.0, s->bs) > s->blocks_total ||
                tw__blocks_for((double)q->isl + q->osl, s->bs) > s->dec_blocks)
                return "workload.isl+osl";
        } else if (tw__blocks_for((double)q->isl + q->osl, s->bs) > s->blocks_total) {
            return "workload.isl+osl";
        }
        if (turn > 0) {
            q->arrival = INFINITY; /* think time after the previous turn's last token */
        } else if (w->arrival == TW_ARRIVE_POISSON || w->arrival == TW_ARRIVE_GAMMA) {
            if (i > 0) t += tw__serve_draw_gap(w, &ra);
            if (!(t <= TW__SERVE_MAX_TIME)) return "workload.rate";
            q->arrival = t;
        } else if (w->arrival == TW_ARRIVE_TRACE) {
            q->arrival = w->trace_arrival[i];
        } else {
            q->arrival = 0.0;
        }
    }
    return NULL;
}

/* The arguments of tw_serve_run checked before anything is touched; NULL, or the first bad field. */
static const char *check_run(const tw_serve_workload *w, const tw_serve_policy *p, const tw_serve_costs *c,
                             double slo_ttft_s, double slo_tpot_s, const void *work, size_t work_bytes,
                             const tw_serve_sample *series, size_t series_max, const tw_serve_result *out, hdr_t *h)
{
    const char *bad;
    if ((bad = tw__serve_check_workload(w)) != NULL) return bad;
    if ((bad = check_policy(p)) != NULL) return bad;
    if ((bad = tw__serve_check_costs(c)) != NULL) return bad;
    if (!(isfinite(slo_ttft_s) && slo_ttft_s >= 0.0)) return "slo.ttft_s";
    if (!(isfinite(slo_tpot_s) && slo_tpot_s >= 0.0)) return "slo.tpot_s";
    if (out == NULL) return "out";
    if (series == NULL && series_max > 0) return "series";
    if (!layout(w, p, h)) return "workload.requests";
    if (work == NULL || ((uintptr_t)work & 7u) != 0 || work_bytes < h->total) return "work";
    if (p->prefill_replicas > 0 && (c->decode_pool == NULL || tw__serve_check_costs(c->decode_pool) != NULL))
        return "costs.decode_pool";
    if (p->prefill_replicas > 0 && w->turns > 1.0) return "workload.turns";
    return NULL;
}

/* Lay the run's state out in `base` (its header written first, so tw_serve_request can read the
   requests back) and set every replica up: the first prefill_replicas only prefill, with `c`; the
   others decode, with c->decode_pool; aggregated, all do both with `c`. */
static void setup(sim_t *s, const tw_serve_workload *w, const tw_serve_policy *p, const tw_serve_costs *c,
                  unsigned char *base, const hdr_t *h, tw_serve_sample *series, size_t series_max)
{
    size_t i, n_pre = (size_t)p->prefill_replicas;
    memcpy(base, h, sizeof *h);
    memset(s, 0, sizeof *s);
    s->w = w;
    s->p = p;
    s->c = c;
    s->req = (req_t *)(void *)(base + h->off_req);
    s->rep = (rep_t *)(void *)(base + h->off_rep);
    s->run = (int32_t *)(void *)(base + h->off_run);
    s->bins = (uint64_t *)(void *)(base + h->off_bins);
    s->heap_t = (double *)(void *)(base + h->off_heap_t);
    s->heap_i = (int32_t *)(void *)(base + h->off_heap_i);
    s->bs = p->block_size;
    s->blocks_total = floor(p->kv_capacity_tokens / p->block_size);
    s->dec_blocks = n_pre > 0 ? floor(p->decode_kv_capacity_tokens / p->block_size) : s->blocks_total;
    s->budget = p->max_num_batched_tokens;
    s->max_seqs = h->max_seqs;
    s->series = series;
    s->series_max = series_max;
    s->stride = 1;
    s->gap_last = -1.0;
    s->gaps = (gap_t *)(void *)(base + h->off_gaps);
    s->emit = (tw_serve_chunk *)(void *)(base + h->off_emit);
    s->emit_max = h->emit_max;
    s->turns = w->turns > 1.0 ? (size_t)w->turns : 1;
    tw__rng_seed(&s->spec_rng, w->seed, 3);
    memset(s->bins, 0, TW__ITL_BINS * sizeof(uint64_t));
    for (i = 0; i < h->n_rep; i++) {
        rep_t *r = &s->rep[i];
        memset(r, 0, sizeof *r);
        r->head = r->tail = -1;
        r->pend = -1;
        r->lru_head = r->lru_tail = -1;
        r->role = n_pre == 0 ? ROLE_BOTH : i < n_pre ? ROLE_PREFILL : ROLE_DECODE;
        r->c = r->role == ROLE_DECODE ? c->decode_pool : c;
        r->blocks_total = r->role == ROLE_DECODE ? s->dec_blocks : s->blocks_total;
        s->blocks_all += r->blocks_total;
        r->g_heap = (int32_t *)(void *)(base + h->off_ghp) + i * h->max_seqs;
        r->g_key = (double *)(void *)(base + h->off_gky) + i * h->max_seqs;
        r->g_bucket = (double *)(void *)(base + h->off_gbk) + i * TW__GROUP_MAX_BS;
        memset(r->g_bucket, 0, TW__GROUP_MAX_BS * sizeof(double));
    }
    s->grp_bs = (int64_t)p->block_size;
}

/* The event loop: at each instant (the earliest of the next arrival, KV transfer end and step end)
   every event is applied first - transfers land on the least loaded decode replica, arrivals are
   routed, ended steps emit their tokens - then every replica that became idle or got work starts
   its next step. Time only moves forward; a request leaves the system exactly once, so the loop
   ends after n completions. Returns NULL, or the field to blame with TW_ERANGE. */
static const char *run_events(sim_t *s, size_t n, size_t n_rep)
{
    const tw_serve_policy *p = s->p;
    size_t i, next = 0, completed = 0, n_pre = (size_t)p->prefill_replicas;
    size_t T = s->turns, n_conv = n / T;
    size_t spawn = s->w->arrival == TW_ARRIVE_CLOSED
                       ? T * (size_t)(s->w->concurrency < (double)n_conv ? s->w->concurrency : (double)n_conv) : n;
    /* a paced client's cap on requests in flight (POISSON, GAMMA: tw_serve_workload.concurrency) */
    double cap = (s->w->arrival == TW_ARRIVE_POISSON || s->w->arrival == TW_ARRIVE_GAMMA) ? s->w->concurrency : 0.0;
    double clock = 0.0;
    while (completed < n) {
        double ta = INFINITY, ts = INFINITY, now;
        if (next < spawn && !(cap > 0.0 && (double)s->n_sys >= cap)) {
            /* held by the cap: sent when a request finished, its clock starting then */
            if (s->req[next].arrival < clock) s->req[next].arrival = clock;
            ta = s->req[next].arrival;
        }
        double tk = s->heap_n > 0 ? s->heap_t[0] : INFINITY;
        for (i = 0; i < n_rep; i++) {
            if (s->rep[i].busy && s->rep[i].busy_until < ts) ts = s->rep[i].busy_until;
        }
        now = ta < ts ? ta : ts;
        if (tk < now) now = tk;
        if (!isfinite(now)) return "policy"; /* nothing can move */
        clock = now;
        tw__advance(s, now);
        while (T > 1 && s->heap_n > 0 && s->heap_t[0] <= now) {
            /* a conversation's next turn: to the replica caching its history, else as any arrival */
            int32_t q = tw__heap_pop(s);
            const req_t *prev = &s->req[q - 1];
            size_t r = prev->ent_blocks > 0 ? (size_t)prev->replica
                                            : route(s, (size_t)q / T, 0, n_rep, p->router == TW_ROUTE_LEAST_LOADED);
            tw__push_back(s, &s->rep[r], q);
            s->req[q].replica = (int32_t)r;
            s->n_sys++;
            s->rep[r].dirty = 1;
        }
        while (T == 1 && s->heap_n > 0 && s->heap_t[0] <= now) {
            int32_t q = tw__heap_pop(s);
            size_t r = route(s, (size_t)q, n_pre, n_rep, 1);
            s->req[q].computed = s->req[q].isl; /* the prompt's KV arrived */
            s->req[q].replica = (int32_t)r;
            tw__push_back(s, &s->rep[r], q);
            s->rep[r].dirty = 1;
        }
        while (next < spawn && s->req[next].arrival <= now && !(cap > 0.0 && (double)s->n_sys >= cap)) {
            if (cap > 0.0 && s->req[next].arrival < now) s->req[next].arrival = now; /* held until now */
            size_t r = route(s, next / T, 0, n_pre > 0 ? n_pre : n_rep, p->router == TW_ROUTE_LEAST_LOADED);
            tw__push_back(s, &s->rep[r], (int32_t)next);
            s->req[next].replica = (int32_t)r;
            s->n_sys++;
            s->rep[r].dirty = 1;
            next += T; /* the next conversation's first turn (a request when T = 1) */
        }
        for (i = 0; i < n_rep; i++) {
            if (s->rep[i].busy && s->rep[i].busy_until <= now) {
                completed += tw__end_step(s, &s->rep[i], now, &spawn, n);
                s->rep[i].dirty = 1;
            }
        }
        if (tw__stop_now(s)) return STOPPED;
        for (i = 0; i < n_rep; i++) {
            step_t st;
            if (!s->rep[i].dirty) continue;
            s->rep[i].dirty = 0;
            if (s->rep[i].busy) continue;
            st = tw__start_step(s, &s->rep[i], now);
            if (st == STEP_STUCK) return "policy.kv_capacity_tokens";
            if (st == STEP_RANGE) return "costs.scale";
        }
    }
    return NULL;
}

int tw_serve_run(const tw_serve_workload *w, const tw_serve_policy *p, const tw_serve_costs *c,
                 double slo_ttft_s, double slo_tpot_s, void *work, size_t work_bytes,
                 tw_serve_sample *series, size_t series_max, tw_serve_result *out, const char **bad_field)
{
    const char *bad;
    hdr_t h;
    sim_t s;
    unsigned char *base = work;
    bad = check_run(w, p, c, slo_ttft_s, slo_tpot_s, work, work_bytes, series, series_max, out, &h);
    if (bad != NULL) return fail(bad_field, bad, TW_EINVAL);
    setup(&s, w, p, c, base, &h, series, series_max);
    s.pfx_tokens = floor(w->prefix_tokens / s.bs) * s.bs; /* full blocks only */
    s.pfx_nblocks = s.pfx_tokens / s.bs;
    s.grp_on = tw__grp_allowed(&s);
    s.lo = (size_t)w->measure_from;
    s.hi = w->measure_to > 0.0 ? (size_t)w->measure_to : h.n;
    if ((bad = draw(&s, h.n)) != NULL) return fail(bad_field, bad, TW_ERANGE);
    if (w->arrival == TW_ARRIVE_TRACE && s.req[h.n - 1].arrival > TW__SERVE_MAX_TIME)
        return fail(bad_field, "workload.trace_arrival", TW_ERANGE);
    tw__stop_setup(&s, slo_ttft_s, slo_tpot_s);
    if ((bad = run_events(&s, h.n, h.n_rep)) == STOPPED) {
        memset(out, 0, sizeof *out);
        out->slo_failed = 1.0;
        return TW_OK;
    }
    h.emit_n = s.emit_n;
    h.emit_lost = s.emit_lost;
    memcpy(base, &h, sizeof h);
    if (bad != NULL) return fail(bad_field, bad, TW_ERANGE);
    tw__serve_results(&s, h.n, (double *)(void *)(base + h.off_scratch), slo_ttft_s, slo_tpot_s, out);
    out->dropped = s.dropped;
    return TW_OK;
}

int tw_serve_request(const void *work, size_t i, tw_serve_record *out)
{
    const unsigned char *base = work;
    hdr_t h;
    const req_t *q;
    if (work == NULL || out == NULL) return TW_EINVAL;
    memcpy(&h, base, sizeof h);
    if (i >= h.n) return TW_EINVAL;
    q = (const req_t *)(const void *)(base + h.off_req) + i;
    out->arrival_s = q->arrival;
    out->first_token_s = q->first + h.frontend_s;
    out->finish_s = q->done + h.frontend_s;
    out->scheduled_s = q->sched;
    out->input_tokens = q->isl;
    out->output_tokens = q->osl;
    out->preemptions = q->preempt;
    out->replica = q->replica;
    return TW_OK;
}

size_t tw_serve_emission_count(const void *work, size_t *lost)
{
    hdr_t h;
    if (work == NULL) {
        if (lost != NULL) *lost = 0;
        return 0;
    }
    memcpy(&h, work, sizeof h);
    if (lost != NULL) *lost = h.emit_lost;
    return h.emit_n;
}

int tw_serve_emission(const void *work, size_t k, tw_serve_chunk *out)
{
    const unsigned char *base = work;
    hdr_t h;
    if (work == NULL || out == NULL) return TW_EINVAL;
    memcpy(&h, base, sizeof h);
    if (k >= h.emit_n) return TW_EINVAL;
    memcpy(out, base + h.off_emit + k * sizeof *out, sizeof *out);
    return TW_OK;
}
