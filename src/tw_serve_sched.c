/* tw_serve_sched.c - the scheduler of the serving loop: each replica's waiting queue, its KV
 * blocks and preemption, admission within the step's budgets, and a step's start (what runs, its
 * time from the cost tables) and end (tokens out, requests finished). tw_serve.h gives the rules;
 * tw_serve.c runs the events. */
#include <math.h>
#include <string.h>

#include "tw_serve_sim.h"

double tw__blocks_for(double tokens, double bs) { return ceil(tokens / bs); }

void tw__advance(sim_t *s, double t)
{
    double dt = t - s->t_prev;
    if (dt > 0.0) {
        s->area_sys += s->n_sys * dt;
        s->area_run += s->n_running * dt;
        s->t_prev = t;
    }
}

void tw__push_back(sim_t *s, rep_t *r, int32_t i)
{
    s->req[i].next = -1;
    if (r->tail >= 0) s->req[r->tail].next = i; else r->head = i;
    r->tail = i;
    r->n_wait++;
    s->waiting++;
}

static void push_front(sim_t *s, rep_t *r, int32_t i)
{
    s->req[i].next = r->head;
    r->head = i;
    if (r->tail < 0) r->tail = i;
    r->n_wait++;
    s->waiting++;
}

static int32_t pop_front(sim_t *s, rep_t *r)
{
    int32_t i = r->head;
    r->head = s->req[i].next;
    if (r->head < 0) r->tail = -1;
    r->n_wait--;
    s->waiting--;
    return i;
}

static void take_blocks(sim_t *s, rep_t *r, req_t *q, double nb)
{
    q->blocks += (int32_t)nb;
    r->blocks_used += nb;
    s->blocks_used_all += nb;
    if (r->blocks_used > r->blocks_peak) r->blocks_peak = r->blocks_used;
}

void tw__free_blocks(sim_t *s, rep_t *r, req_t *q)
{
    r->blocks_used -= q->blocks;
    s->blocks_used_all -= q->blocks;
    q->blocks = 0;
}

/* preempt the newest running request of replica r (recompute later, first in line) */
static void preempt_tail(sim_t *s, rep_t *r, int32_t *run)
{
    int32_t i = run[--r->n_run];
    req_t *q = &s->req[i];
    s->n_running--;
    q->running = 0;
    tw__free_blocks(s, r, q);
    tw__prefix_release(s, r, q);
    /* every token the attempt holds is discarded, a hit's prefix included: the conservation of
       tw_serve.h then holds with every hit in cached_tokens, a readmission's hit again too */
    s->recomputed += q->computed;
    q->computed = 0;
    q->cached = 0;
    q->n_sched = 0;
    q->preempt++;
    s->preemptions++;
    push_front(s, r, i);
}

/* tokens request q needs before it emits its next token */
static double remaining(const req_t *q) { return (double)q->isl + q->gen - q->computed; }

/* 1 when request q has its prompt and at least one token: its next step is a decode */
static int decoding(const req_t *q) { return q->gen > 0 && q->isl + q->gen - q->computed == 1; }

/* request q, given n tokens this step, joins the step's composition */
static void tally(rep_t *r, const req_t *q, double n, comp_t *m)
{
    if (decoding(q)) {
        m->b += 1.0;
        m->ctx += q->computed + 1.0;
        m->k += 1.0;
        m->dec_tokens += n;
    } else {
        double inc = tw__serve_attn(r->c, &r->hint, q->computed + n) - tw__serve_attn(r->c, &r->hint, q->computed);
        double own = tw__serve_attn(r->c, &r->hint, n);
        m->pre_tokens += n;
        m->attn += inc > own ? inc : own;
        if (n == remaining(q)) m->k += 1.0;
    }
}

/* Schedule running requests (decode: 1 token; prefill: a chunk) of the phase asked.
 * Invariant: a request's KV blocks always cover its computed tokens plus what this step
 * schedules for it (tw__blocks_for(computed + n)); preemption frees the newest first, so the
 * requests before index j keep what they were given. Returns tokens scheduled; *preempted set
 * on preemption. */
static double schedule_running(sim_t *s, rep_t *r, int32_t *run, phase_t phase, double *budget, int *preempted,
                               comp_t *m)
{
    const tw_serve_policy *p = s->p;
    double tokens = 0.0;
    size_t j;
    for (j = 0; j < (size_t)r->n_run && *budget >= 1.0; j++) {
        req_t *q = &s->req[run[j]];
        double n = remaining(q), nb;
        int is_prefill = q->gen == 0 || n > 1.0;
        if ((phase == PHASE_PREFILL && !is_prefill) || (phase == PHASE_DECODE && is_prefill)) continue;
        if (!is_prefill && p->spec_k > 0.0) {
            /* verify the last token and up to k drafts, never past the output */
            double left = (double)q->osl - q->gen;
            n = 1.0 + (p->spec_k < left - 1.0 ? p->spec_k : left - 1.0);
        }
        if (n > *budget) {
            if (!p->chunked && n <= s->budget) continue; /* a whole prompt waits for a step with room */
            n = *budget;
        }
        /* the blocks it holds cover computed + n tokens already (most decode steps): none to take */
        if (!p->reserve && q->computed + n > ((double)q->blocks + q->pfx_blocks) * s->bs) {
            nb = tw__blocks_for(q->computed + n, s->bs) - q->blocks - q->pfx_blocks;
            while (nb > r->blocks_total - r->blocks_used) {
                int32_t victim = run[r->n_run - 1];
                if (tw__prefix_evict(s, r)) continue; /* a cached prefix nothing uses goes first */
                *preempted = 1;
                preempt_tail(s, r, run);
                if (victim == run[j] || (size_t)r->n_run <= j) { n = 0.0; break; }
            }
            if (n <= 0.0) break;
            if (nb > 0.0) take_blocks(s, r, q, nb);
        }
        q->n_sched = (int32_t)n;
        tally(r, q, n, m);
        *budget -= n;
        tokens += n;
    }
    return tokens;
}

/* Admit waiting requests first come first served within the budgets; returns tokens scheduled. */
static double admit(sim_t *s, rep_t *r, int32_t *run, double *budget, double now, comp_t *m)
{
    const tw_serve_policy *p = s->p;
    double tokens = 0.0, reserve_blocks = p->watermark * r->blocks_total;
    while (r->head >= 0 && (size_t)(r->n_run + r->g_n) < s->max_seqs && *budget >= 1.0) {
        req_t *q = &s->req[r->head];
        /* prefix caching: the cache's blocks it shares (not its own), the tokens a hit skips, and the
           blocks the cache itself still needs */
        double extra = tw__prefix_needs(s, r, q), share = 0.0, skip = 0.0, n, nb;
        if (p->prefix_caching && q->shared && s->pfx_nblocks > 0.0 && q->computed == 0) {
            share = s->pfx_nblocks;
            if (r->pfx_blocks > 0.0 && r->pfx_ready) skip = s->pfx_tokens;
        } else {
            tw__conv_peek(s, r, q, &share, &skip); /* a conversation's history (not with a shared prefix) */
        }
        n = remaining(q) - skip;
        if (n > *budget) {
            if (!p->chunked && n <= s->budget) break;
            n = *budget;
        }
        nb = (p->reserve ? tw__blocks_for((double)q->isl + q->osl, s->bs) : tw__blocks_for(q->computed + skip + n, s->bs))
             - share;
        if (nb < 0.0) nb = 0.0; /* a first chunk within the shared blocks */
        nb += extra;
        /* the watermark only holds back a request that would share the cache */
        if (nb > r->blocks_total - r->blocks_used - (r->n_run + r->g_n > 0 ? reserve_blocks : 0.0)) {
            if (tw__prefix_evict(s, r)) continue; /* a cached prefix nothing uses goes first */
            break;
        }
        tw__prefix_admit(s, r, q);
        tw__conv_admit(s, r, q);
        nb -= extra;
        pop_front(s, r);
        take_blocks(s, r, q, nb);
        run[r->n_run++] = (int32_t)(q - s->req);
        q->adm = s->adm_next++;
        q->running = 1;
        s->n_running++;
        if (q->sched < 0.0) q->sched = now;
        q->n_sched = (int32_t)n;
        tally(r, q, n, m);
        *budget -= n;
        tokens += n;
    }
    return tokens;
}

/* async_output (vLLM 0.6's asynchronous output processor): a step's first and last tokens reach the
   client when the replica's next step ends, not when their own does. pend() marks request q's token
   as waiting (kind 1: the first, 2: the last) on the replica whose step is ending; flush() sets the
   waiting ones to time t. A replica that idles flushes at once: its tokens keep their own times. */
static void pend(sim_t *s, req_t *q, int32_t kind)
{
    rep_t *r = s->pend_rep;
    if (!s->p->async_output || r == NULL) return;
    if (q->pend == 0) {
        q->pend_next = r->pend;
        r->pend = (int32_t)(q - s->req);
    }
    q->pend |= kind;
}

/* the replica idled after its step: its waiting tokens were seen at their own times */
static void drop(sim_t *s, rep_t *r)
{
    int32_t i = r->pend;
    while (i >= 0) {
        s->req[i].pend = 0;
        i = s->req[i].pend_next;
    }
    r->pend = -1;
}

static void flush(sim_t *s, rep_t *r, double t)
{
    int32_t i = r->pend;
    while (i >= 0) {
        req_t *q = &s->req[i];
        if (q->pend & 1) q->first = t;
        if (q->pend & 2) q->done = t;
        q->pend = 0;
        i = q->pend_next;
    }
    r->pend = -1;
}

/* Start a step on replica r at time t when it has work. */
step_t tw__start_step(sim_t *s, rep_t *r, double t)
{
    const tw_serve_policy *p = s->p;
    int32_t *run = s->run + (size_t)(r - s->rep) * s->max_seqs;
    double budget = p->policy == TW_SERVE_STATIC ? INFINITY : s->budget, tokens = 0.0;
    double time;
    comp_t m = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
    int preempted = 0, prompts_ok;
    if (r->pend >= 0 && t > r->busy_until) drop(s, r);
    if (r->n_run + r->g_n == 0 && r->n_wait == 0) return STEP_OK;
    /* the decode group's members take their tokens first when that changes nothing (no limit binds);
       else they are back in the running list */
    if (r->g_n > 0 && tw__grp_fits(s, r, run, budget)) {
        double g = tw__grp_schedule(s, r, &m);
        budget -= g;
        tokens += g;
    }
    /* multi-step scheduling: prompts only between blocks of decode steps */
    prompts_ok = p->multi_step == 1.0 || r->n_run + r->g_n == 0 || fmod(r->decode_run, p->multi_step) == 0.0;
    if (p->policy == TW_SERVE_STATIC) {
        if (r->n_run == 0) tokens = admit(s, r, run, &budget, t, &m); /* never a group: tw__grp_allowed */
        else tokens = schedule_running(s, r, run, PHASE_BOTH, &budget, &preempted, &m);
    } else if (p->mix) {
        tokens += schedule_running(s, r, run, prompts_ok ? PHASE_BOTH : PHASE_DECODE, &budget, &preempted, &m);
        if (!preempted && prompts_ok) tokens += admit(s, r, run, &budget, t, &m);
    } else {
        /* prefill first: unfinished prompts and new ones; else the decodes */
        if (prompts_ok) {
            tokens = schedule_running(s, r, run, PHASE_PREFILL, &budget, &preempted, &m);
            if (!preempted) tokens += admit(s, r, run, &budget, t, &m);
        }
        if (tokens == 0.0) tokens = schedule_running(s, r, run, PHASE_DECODE, &budget, &preempted, &m);
    }
    if (tokens == 0.0 && !prompts_ok && !preempted && p->policy != TW_SERVE_STATIC) {
        /* no decode left to run in the block: the prompts go now */
        tokens = schedule_running(s, r, run, PHASE_PREFILL, &budget, &preempted, &m);
        if (!preempted) tokens += admit(s, r, run, &budget, t, &m);
    }
    /* nothing scheduled although something waits or runs: no block can be had, ever */
    if (tokens == 0.0) return r->n_run + r->g_n > 0 || r->n_wait > 0 ? STEP_STUCK : STEP_OK;
    r->decode_run = m.pre_tokens > 0.0 ? 0.0 : r->decode_run + 1.0;
    tw__sample(s, t);
    time = r->c->scale
           * tw__serve_step(r->c, &r->hint, m.pre_tokens, m.attn, m.b, m.b > 0.0 ? m.ctx / m.b : 1.0, m.k, m.dec_tokens, p->spec_k);
    if (!(isfinite(time) && time >= TW__SERVE_MIN_STEP) || t + time > TW__SERVE_MAX_TIME) return STEP_RANGE;
    s->prefill_tokens += m.pre_tokens;
    s->steps++;
    r->busy = 1;
    r->busy_until = t + time;
    return STEP_OK;
}

/* The step of replica r ends at t: tokens out, finished requests leave. Returns completions. */
/* The tokens request q computed in the step that ended at t: its KV grows by them, and it emits
   a token (a decode, or the chunk that finishes its prompt) - under speculative decoding the drafts
   accepted in order until the first rejection, then one of the target's. ITL takes one gap per step
   and request, however many tokens it emitted (a streamed chunk, as benchmark_serving counts). */
static void step_tokens(sim_t *s, req_t *q, double t)
{
    int decode = decoding(q);
    int emits = decode || q->n_sched == remaining(q);
    double emitted = 1.0;
    if (decode && q->n_sched > 1) {
        int d;
        for (d = 1; d < q->n_sched && tw__rng_uniform(&s->spec_rng) < s->p->spec_alpha; d++) emitted += 1.0;
    }
    if (decode) {
        s->spec_steps += 1.0;
        s->spec_tokens += emitted;
        q->computed += (int32_t)emitted;
    } else {
        q->computed += q->n_sched;
    }
    if (s->pend_rep != NULL) tw__prefix_step(s, s->pend_rep, q);
    q->n_sched = 0;
    if (!emits) return;
    if (q->gen == 0) {
        q->first = t;
        tw__stop_first(s, q, t);
        pend(s, q, 1);
    }
    else {
        size_t i = (size_t)(q - s->req);
        if (i >= s->lo && i < s->hi) tw__itl_gap(s, t - q->last, 1.0);
        if (s->emit_n < s->emit_max) {
            s->emit[s->emit_n].time_s = t;
            s->emit[s->emit_n++].request = (double)i;
        } else if (s->emit_max > 0) {
            s->emit_lost++;
        }
    }
    q->gen += decode ? (int32_t)emitted : 1;
    q->last = t;
}

void tw__finish(sim_t *s, rep_t *r, int32_t i, double t, size_t *spawn, size_t n_total)
{
    req_t *q = &s->req[i];
    q->done = t;
    tw__stop_done(s, q, t);
    pend(s, q, 2);
    q->running = 0;
    if (!tw__conv_keep(s, r, q)) tw__free_blocks(s, r, q);
    tw__prefix_release(s, r, q);
    s->n_running--;
    s->n_sys--;
    if (s->turns > 1 && (size_t)i % s->turns + 1 < s->turns) {
        /* the conversation's next turn, its think time after this last token */
        s->req[i + 1].arrival = t + s->req[i + 1].think;
        tw__heap_push(s, s->req[i + 1].arrival, i + 1);
    } else if (s->w->arrival == TW_ARRIVE_CLOSED && *spawn < n_total) {
        s->req[*spawn].arrival = t; /* the next conversation (request) of the closed loop */
        *spawn += s->turns;
    }
}

size_t tw__end_step(sim_t *s, rep_t *r, double t, size_t *spawn, size_t n_total)
{
    int32_t *run = s->run + (size_t)(r - s->rep) * s->max_seqs;
    size_t j, kept = 0, done = 0;
    r->busy = 0;
    /* async_output: the previous step's outputs were processed while this one ran: the client sees
       them now; this step's wait for the next (flushed as they are if the replica idles) */
    flush(s, r, t);
    s->pend_rep = r;
    if (r->g_tick) done += tw__grp_tick(s, r, t, spawn, n_total); /* the group first: joiners wait a tick */
    else if (r->g_hold > 0) r->g_hold--;
    for (j = 0; j < (size_t)r->n_run; j++) {
        int32_t i = run[j];
        req_t *q = &s->req[i];
        if (q->n_sched > 0) step_tokens(s, q, t);
        if (r->role == ROLE_PREFILL && q->gen == 1 && q->gen < q->osl && q->n_sched == 0 && q->computed >= q->isl) {
            /* disaggregated: the first token leaves with the prompt's KV cache for a decode replica */
            double arrive = t + s->p->transfer_latency_s + q->isl * s->p->transfer_s_per_token;
            q->first = arrive;
            q->last = arrive;
            q->running = 0;
            tw__free_blocks(s, r, q);
            tw__prefix_release(s, r, q);
            s->n_running--;
            tw__heap_push(s, arrive, i);
            continue;
        }
        if (q->gen >= q->osl) {
            tw__finish(s, r, i, t, spawn, n_total);
            done++;
        } else if (!(s->grp_on && tw__grp_join(s, r, i, t))) {
            run[kept++] = i;
        }
    }
    r->n_run = (int32_t)kept;
    tw__itl_flush(s);
    return done;
}

/* the replica among [lo, hi) request i goes to: round robin, or the fewest waiting and running */
