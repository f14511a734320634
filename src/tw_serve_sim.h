/*
 * tw_serve_sim.h - the state of one serving run, shared by the loop's files: tw_serve.c (the
 * run, its checks, arrivals and metrics) and tw_serve_sched.c (the scheduler: queues, KV blocks,
 * admission, a step's start and end). Not installed.
 */
#ifndef TW_SERVE_SIM_H
#define TW_SERVE_SIM_H

#include "tw_serve_internal.h"

typedef struct {
    double arrival, first, last, sched, done; /* s; first/sched/done < 0 until they happen */
    int32_t isl, osl, computed, gen, blocks, next, n_sched, replica, preempt, running;
    int32_t pend_next, pend; /* async_output: the replica's next pending request; 1 first, 2 last token pending */
    int32_t shared;          /* 1: the prompt starts with the workload's shared prefix */
    int32_t pfx_blocks;      /* prefix caching: the cache's blocks this request uses (not its own) */
    int32_t cached;          /* prompt tokens it skipped on a hit (not prefilled by it) */
    int32_t ent_blocks;      /* multi-turn caching: blocks of this finished turn kept for the next one */
    int32_t lru_prev, lru_next; /* and its place in its replica's LRU list (-1: none) */
    double think;            /* multi-turn: the think time before this turn, s */
    double adm;              /* its admission's number on its replica: the running list's order */
    double g_e0;             /* decode group (tw_serve_group.c): the group's tick when it joined; its
                                computed and gen are as they were then until it leaves */
    int32_t in_grp;          /* 1 while in its replica's decode group */
} req_t;

/* What a replica serves: both phases (aggregated), or one pool of a disaggregated deployment. */
typedef enum { ROLE_BOTH = 0, ROLE_PREFILL = 1, ROLE_DECODE = 2 } role_t;

/* Which running requests a scheduling pass takes: prompts (unfinished prefills), decodes, or both. */
typedef enum { PHASE_BOTH = -1, PHASE_DECODE = 0, PHASE_PREFILL = 1 } phase_t;

/* What starting a step came to: a step started (or nothing to do), work that can never be
   scheduled (it needs more KV than is free with nothing running to free it), or a step time out
   of range (not finite, below TW__SERVE_MIN_STEP, or past TW__SERVE_MAX_TIME). */
typedef enum { STEP_OK = 0, STEP_STUCK = -1, STEP_RANGE = -2 } step_t;

typedef struct {
    int32_t head, tail, n_wait, n_run;
    const tw_serve_costs *c; /* this replica's step costs */
    tw__grid_hints hint;     /* where its last lookups in them fell */
    double blocks_total;     /* its KV cache, blocks */
    role_t role;
    double busy_until, blocks_used, blocks_peak;
    int32_t pend;            /* async_output: the first of the requests whose first or last token of
                                its last step the client has not seen yet (-1: none), linked by next */
    double decode_run; /* decode-only steps since the last step that scheduled prompts */
    double pfx_blocks;       /* prefix caching: blocks the cache holds for the shared prefix (0: none) */
    int32_t pfx_refs;        /* running requests using them */
    int pfx_ready;           /* 1 once a request has computed the prefix into them */
    int32_t lru_head, lru_tail; /* multi-turn caching: finished turns' cached blocks, least recent first */
    int busy, dirty;
    /* the decode group (tw_serve_group.c): running requests in steady decode, advanced together one
       token per tick instead of one by one; the run list holds only the others */
    int32_t g_n;             /* members */
    int32_t g_hold, g_backoff; /* steps left in which none joins, and the next such pause */
    int g_tick;              /* 1: the step running gives every member a token */
    int64_t g_E;             /* ticks so far */
    double g_S;              /* sum over members of computed - g_e0 at joining: their computed sum is
                                g_S + g_n g_E */
    double g_win;            /* members in the measured window */
    double t_tick;           /* when the last tick ended: every member's last token */
    int32_t *g_heap;         /* members, a min-heap on the tick of their last token */
    double *g_key;           /* that tick of each heap entry (beside it, not read from the request) */
    double *g_bucket;        /* members by (g_e0 - computed) mod block size: g_bucket[g_E mod bs] need a
                                new KV block at tick g_E */
} rep_t;

/* a gap between two tokens, s, and how many requests had it in one step */
typedef struct {
    double gap, n;
} gap_t;

/* What a step runs, tallied as the scheduler gives each request its tokens (in the order of the
   running list, so every sum is the one a pass over that list would give). */
typedef struct {
    double pre_tokens, attn, b, ctx, k, dec_tokens;
} comp_t;

/* the largest KV block size the decode group keeps buckets for (tw_serve_group.c) */
#define TW__GROUP_MAX_BS 256

typedef struct {
    size_t n, n_rep, max_seqs;
    size_t off_req, off_rep, off_run, off_bins, off_scratch, off_heap_t, off_heap_i, off_ghp, off_gky, off_gbk, off_gaps;
    size_t off_emit, emit_max;  /* the emission log (policy.emit_max entries) */
    size_t emit_n, emit_lost;   /* chunks logged and past emit_max: written when the run ends */
    size_t total;
    double frontend_s; /* the policy's: tw_serve_request adds it to a record's client-side times */
} hdr_t;

/* the longest simulated time, s (3e7 years): every sum of times stays finite */
#define TW__SERVE_MAX_TIME 1e15
/* the shortest step, s: no kernel launch is faster (every rate stays finite) */
#define TW__SERVE_MIN_STEP 1e-9
#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)


/* the state one run shares between its functions */
typedef struct {
    const tw_serve_workload *w;
    const tw_serve_policy *p;
    const tw_serve_costs *c;
    req_t *req;
    rep_t *rep;
    int32_t *run;
    uint64_t *bins;
    double blocks_total, bs, budget;
    size_t max_seqs;
    /* totals */
    double n_sys, n_running, waiting, itl_n, itl_sum, itl_max, preemptions, steps, prefill_tokens, recomputed;
    double area_sys, area_run, t_prev, blocks_used_all;
    tw_serve_sample *series;
    size_t series_max, series_n, stride, skip;
    tw__rng spec_rng;                       /* draft acceptance */
    double *heap_t;                         /* KV transfers in flight: end times (a min-heap) */
    int32_t *heap_i;                        /* and their requests */
    size_t heap_n;
    double blocks_all;                      /* KV blocks of every replica */
    double dec_blocks;                      /* KV blocks of a decode replica (disaggregated) */
    double spec_steps, spec_tokens;         /* decode steps of sequences and the tokens they emitted */
    size_t lo, hi;                          /* the measured requests: lo .. hi - 1 in arrival order */
    rep_t *pend_rep;                        /* the replica whose step is ending */
    double pfx_tokens, pfx_nblocks;         /* prefix caching: cached tokens (full blocks) and their blocks */
    double prefix_lookups, prefix_hits, cached_tokens;
    double gap_last;                        /* the last ITL binned and its bin: the sequences of one */
    size_t gap_bin;                         /* step mostly share their gap */
    gap_t *gaps;                            /* the ITLs of the step ending, each distinct gap and its */
    size_t n_gaps;                          /* count (tw__itl_gap), summed by tw__itl_flush */
    size_t turns;                           /* turns per conversation (1: none) */
    double slo_ttft, slo_tpot;              /* stop_percentile: the limits, the measured requests known */
    double bad_ttft, bad_tpot;              /* to exceed each, and how many decide it (tw_serve_stop.c) */
    double stop_ttft, stop_tpot;
    int grp_on;                             /* 1: the policy lets the decode group run (tw__grp_setup) */
    int64_t grp_bs;                         /* its block size */
    double adm_next;                        /* the next admission's number */
    double group_ticks;                     /* steps that ticked a decode group */
    double dropped;                         /* requests drawn past workload.max_total and drawn again */
    tw_serve_chunk *emit;                /* the emission log (policy.emit_max entries), */
    size_t emit_max, emit_n, emit_lost;     /* chunks logged and chunks past it */
} sim_t;

/* tw_serve.c: a time-series sample of the state when a step starts at t */
void tw__sample(sim_t *s, double t);

/* tw_serve_prefix.c: the shared prefix's blocks on a replica (prefix_caching) */
/* blocks request q at the head of replica r's queue needs from the cache's side before admission: the
   prefix's blocks when they are not cached yet (0 otherwise, or without caching) */
double tw__prefix_needs(const sim_t *s, const rep_t *r, const req_t *q);
/* admit request q's use of the prefix: a hit skips its tokens (q->computed), a miss allocates them */
void tw__prefix_admit(sim_t *s, rep_t *r, req_t *q);
/* request q stops using the prefix (finished, preempted or transferred) */
void tw__prefix_release(sim_t *s, rep_t *r, req_t *q);
/* free the cached prefix when nothing running uses it; 1 when blocks were freed */
int tw__prefix_evict(sim_t *s, rep_t *r);
/* request q's step ended: the prefix is ready for hits once q has computed past it */
void tw__prefix_step(sim_t *s, rep_t *r, const req_t *q);
/* multi-turn caching: the blocks (*share) and tokens (*skip) of q's conversation history cached on
   replica r, 0 when none (q not a later turn, not from scratch, or its history evicted) */
void tw__conv_peek(const sim_t *s, const rep_t *r, const req_t *q, double *share, double *skip);
/* q admitted on r: a lookup; a hit takes the history's blocks over and skips its tokens */
void tw__conv_admit(sim_t *s, rep_t *r, req_t *q);
/* finished turn q keeps its full blocks for the next turn on r (LRU tail); 1 when it did (q->blocks
   then 0, the rest freed), 0 when caching does not apply (the caller frees its blocks) */
int tw__conv_keep(sim_t *s, rep_t *r, req_t *q);

/* tw_serve_sched.c */
/* KV blocks of `tokens` tokens in blocks of bs */
double tw__blocks_for(double tokens, double bs);
/* the time averages (requests in the system, running) carried forward to t */
void tw__advance(sim_t *s, double t);
/* request i joins the back of replica r's waiting queue */
void tw__push_back(sim_t *s, rep_t *r, int32_t i);
/* start a step on replica r at t when it has work: STEP_OK, or why none can ever run */
step_t tw__start_step(sim_t *s, rep_t *r, double t);
/* the step of replica r ends at t: tokens out, finished requests leave; returns the completions */
size_t tw__end_step(sim_t *s, rep_t *r, double t, size_t *spawn, size_t n_total);

/* tw_serve_results.c: the result of a finished run of n requests (scratch holds 2n values) */
void tw__serve_results(sim_t *s, size_t n, double *scratch, double slo_ttft, double slo_tpot, tw_serve_result *out);

/* tw_serve_results.c: n requests had an ITL of `gap` in the step ending (binned at once; summed when
   the step's tally is flushed) */
void tw__itl_gap(sim_t *s, double gap, double n);
/* the step's ITLs into the run's sum, in ascending order of gap: the sum is then the same whatever the
   order the step's requests were visited in (one by one or as a decode group) */
void tw__itl_flush(sim_t *s);

/* tw_serve_stop.c: stop_percentile - the counts that decide the SLO test early */
void tw__stop_setup(sim_t *s, double slo_ttft_s, double slo_tpot_s);
/* request q's first token leaves at t (a lower bound on when the client sees it) */
void tw__stop_first(sim_t *s, const req_t *q, double t);
/* request q finishes at t */
void tw__stop_done(sim_t *s, const req_t *q, double t);
/* 1 when the run's SLO test has failed already */
int tw__stop_now(const sim_t *s);

/* tw_serve_group.c: the decode group of each replica */
/* whether the policy allows it: continuous batching mixing prefill chunks and decodes every step,
   without speculative decoding, multi-step scheduling, a cached prefix, conversations or
   asynchronous output, blocks of at most TW__GROUP_MAX_BS tokens */
int tw__grp_allowed(const sim_t *s);
/* request i, just out of replica r's step at t, decodes next: it joins the group when it can (its
   blocks exactly cover its tokens); 1 when it did */
int tw__grp_join(sim_t *s, rep_t *r, int32_t i, double t);
/* at a step's start: 1 when every member and every other running request gets all it asks within
   the budget and the free blocks (the step is then the one the list would give), 0 after every
   member went back to the running list in its admission order */
int tw__grp_fits(sim_t *s, rep_t *r, const int32_t *run, double budget);
/* the members' tokens of the step (one each): their blocks taken, the composition tallied */
double tw__grp_schedule(sim_t *s, rep_t *r, comp_t *m);
/* the step that gave the members a token ended at t: their gaps, and the members whose last token it
   was finish (tw__finish); returns them */
size_t tw__grp_tick(sim_t *s, rep_t *r, double t, size_t *spawn, size_t n_total);

/* tw_serve_sched.c: request i of replica r emitted its last token at t: it leaves */
void tw__finish(sim_t *s, rep_t *r, int32_t i, double t, size_t *spawn, size_t n_total);
/* the blocks request q holds are given back */
void tw__free_blocks(sim_t *s, rep_t *r, req_t *q);

/* tw_serve_heap.c: the KV transfers in flight (disaggregated serving) */
/* request i's transfer, ending at t, onto the heap */
void tw__heap_push(sim_t *s, double t, int32_t i);
/* the request whose KV transfer ends first, off the heap */
int32_t tw__heap_pop(sim_t *s);

#endif
