/*
 * tw_serve.h - a serving simulation: requests arriving under load, scheduled step by step
 * (continuous or static batching over a paged KV cache), each step's time looked up from
 * cost tables the caller priced (included by tilewave.h).
 *
 * The caller (tilewave.serve) prices a model once per run through its pricing layer and
 * hands the tables here; this loop only looks them up and keeps the queue. Discrete-event
 * design after Vidur (Agrawal et al. 2024, arXiv 2405.05465): events are arrivals and step
 * ends; a replica starts its next step when its previous one ends.
 *
 * Step time (every table is interpolated linearly between its grid points; `scale`
 * multiplies the result):
 *   a step with prefill chunks (n_i new tokens after p_i cached ones; none in a decode-only
 *   step) and b decodes at mean context c, k sequences sampled:
 *     G = lin(sum n_i + b) + sum_i max(A(p_i + n_i) - A(p_i), A(n_i)) + lm(k) + kv_s * b * c
 *     G = max(G, D(b, c) - host_s - seq_host_s * b) when b > 0
 *     G = D(b, c) - host_s - seq_host_s * b for b decodes alone (no chunk, no speculative
 *         verification) unless decode_kernels: the decode step tilewave.inference.decode prices for
 *         a standalone engine (with decode_kernels, a serving engine's, it takes the max above as
 *         decode does), so serve and decode give one TPOT (tests/properties/step_price.lua)
 *     H = host_s + seq_host_s * k
 *     time = max(G + (1 - f) H, H), f = host_overlap
 *   (D bounds a decode step by its weight and KV stream; G adds its kernels in sequence: the
 *   GEMMs at M = the step's tokens by the GEMM model's tiles and waves, then the decode
 *   attention streaming b caches of c tokens at kv_s per token, as separate kernels do)
 *   lin(n): every op of a forward over n tokens but attention and the logits (GEMMs,
 *   elementwise kernels, tensor-parallel communication); A(S): causal attention over S
 *   tokens from scratch, so A(p + n) - A(p) is a chunk against its prefix and itself;
 *   lm(k): the logits of the k sequences sampled in the step; D(b, c): one decode step
 *   of b sequences at context c, its host work host_s + seq_host_s b included (as
 *   tilewave.inference.decode prices it); host_s: the engine's host time per step, seq_host_s
 *   per sequence sampled; f: the share of the host work an overlapped scheduler does while the
 *   GPU runs the previous step (f = 0: the host and the GPU take turns, time = G + H; f = 1:
 *   time = max(G, H); SGLang's overlap scheduler, v0.4 release notes). A whole prefill of n tokens
 *   alone is lin(n) + A(n) + lm(1) + host_s + seq_host_s at f = 0; b decodes alone are D(b, c)
 *   at f = 0, max(D - (f H), H) otherwise, as tilewave.inference.decode prices them.
 *
 * Schedulers (TW_SERVE_CONTINUOUS): each step first serves the running requests in
 * admission order (decodes one token each, unfinished prompts a chunk), then admits
 * waiting requests first come first served, within max_num_seqs sequences and
 * max_num_batched_tokens tokens. With mix = 0 a step holds either prefill chunks or
 * decodes (prefill first, vLLM v0's default and SGLang's). With chunked = 0 a prompt is
 * scheduled whole (a prompt above the budget is still chunked: it could never run).
 * reserve = 0: KV blocks are taken as tokens are written; when none is free the newest
 * running request is preempted (blocks freed, recomputed later, first in the waiting
 * queue) and no request is admitted in that step (vLLM v1). reserve = 1: prompt + output
 * blocks are reserved at admission and nothing is ever preempted (TensorRT-LLM's
 * GUARANTEED_NO_EVICT, Orca as Vidur models it). TW_SERVE_STATIC: requests are taken in
 * batches of up to max_num_seqs when a replica is idle; with multi_step = m > 1 decodes run
 * in blocks of m steps and prompts are scheduled only between blocks (vLLM v0.6's multi-step
 * scheduling). Speculative decoding (spec_k = k > 0; Leviathan et al. 2023, arXiv 2211.17192):
 * a decode step drafts k tokens per sequence (k draft steps, draft_s) and verifies k + 1 (the
 * target's GEMMs over b (k + 1) tokens); each draft is accepted with probability spec_alpha until
 * the first rejection, and the sequence emits the accepted tokens plus one: in expectation
 * (1 - alpha^(k+1)) / (1 - alpha). ITL counts one gap per step (a chunk), TPOT per token.
 * Disaggregated serving (prefill_replicas = P > 0; DistServe, Zhong et al. 2024, arXiv 2401.09670):
 * arrivals go to the P prefill replicas (costs), a prompt's first token leaves with its KV cache
 * (transfer_latency_s + input tokens x transfer_s_per_token, added to TTFT), and the request decodes
 * on the least loaded of the other replicas (costs->decode_pool, decode_kv_capacity_tokens).
 * TW_SERVE_STATIC: requests are taken in
 * batches of up to max_num_seqs when a replica is idle; one step prefills all the
 * batch's prompts, then decode steps run until the last request of the batch finishes.
 *
 * Metrics as vLLM's benchmark_serving defines them: TTFT = first token - arrival; TPOT =
 * (e2e - TTFT) / (output - 1) for outputs above 1 token; ITL = every gap between two
 * consecutive tokens of a request, pooled over all requests; duration = last completion
 * - first arrival; throughput = requests (and their tokens) over the duration. With a steady
 * window (measure_from > 0 or measure_to < requests) throughput and goodput are taken over the
 * window the latencies are: the completions (and their tokens) between the first and the last
 * measured arrival, over the time between them (a stable load reads its offered rate within
 * sampling error, a load past capacity the rate it is served at; the ramp and the drain count in
 * neither; a window with fewer than 2 completions keeps the run's figures); duration stays the
 * run's. Percentiles interpolate linearly between order statistics (numpy's
 * default, np.percentile(x, q) with method "linear", which benchmark_serving calls): the value at
 * position q/100 (n - 1) of the sorted values. ITL percentiles do the same on a histogram of
 * relative bin width at most 2^-9, each order statistic taken as its bin's geometric middle (within
 * 2^-10 of the gap, relative) and never above the largest gap. mean_in_system is the time average
 * of requests arrived and not finished over [first arrival, last completion]; it equals
 * requests_per_s x mean E2E (Little's law) to rounding.
 */
#ifndef TW_SERVE_H
#define TW_SERVE_H

#ifndef TILEWAVE_H
#error "include tilewave.h, which includes tw_serve.h"
#endif

enum { TW_SERVE_CONTINUOUS = 0, TW_SERVE_STATIC = 1 };
enum { TW_ARRIVE_POISSON = 0, TW_ARRIVE_GAMMA = 1, TW_ARRIVE_OFFLINE = 2, TW_ARRIVE_CLOSED = 3, TW_ARRIVE_TRACE = 4 };
enum { TW_LEN_FIXED = 0, TW_LEN_UNIFORM = 1, TW_LEN_LOGNORMAL = 2, TW_LEN_TRACE = 3 };
enum { TW_ROUTE_ROUND_ROBIN = 0, TW_ROUTE_LEAST_LOADED = 1 };

/* Most requests, replicas, table points, and the largest token count of one request. A run holds
 * about 100 bytes per request (tw_serve_workspace_bytes): 10^7 requests take about 1 GB, which a
 * 2-core, 8 GiB machine holds with the caller's three runs of one simulation (nominal and the two
 * bounds of the step-cost interval); past 10^4 requests a stable load's percentiles no longer move. */
#define TW_SERVE_MAX_REQUESTS 10000000
#define TW_SERVE_MAX_REPLICAS 4096
#define TW_SERVE_MAX_POINTS 4096
#define TW_SERVE_MAX_TOKENS 100000000

typedef struct {
    int kind;     /* TW_LEN_* */
    double a, b;  /* FIXED: a tokens; UNIFORM: integers in [a, b]; LOGNORMAL: mu, sigma of ln(tokens) */
    double lo, hi;/* LOGNORMAL: draws outside [lo, hi] are drawn again (then clamped after 64 tries) */
} tw_serve_lengths;

typedef struct {
    int arrival;         /* TW_ARRIVE_* */
    double rate;         /* POISSON, GAMMA: requests/s; > 0 */
    double cv;           /* GAMMA: coefficient of variation of the gaps; > 0 (1 = Poisson) */
    double concurrency;  /* CLOSED: requests in flight; integer >= 1 (a finished one sends the next at once).
                            POISSON, GAMMA: 0 (no cap) or the client's cap on requests in flight
                            (vllm bench serve --request-rate with --max-concurrency): a request whose
                            arrival finds that many in flight is sent when one finishes, and its TTFT
                            and E2E count from then (the client's clock starts inside its semaphore);
                            integer 0..TW_SERVE_MAX_REQUESTS, with turns 1 only */
    double requests;     /* requests in the run; integer 1..TW_SERVE_MAX_REQUESTS */
    double prefix_tokens;  /* a shared system prompt of this many tokens, integer 0..TW_SERVE_MAX_TOKENS (0: none) */
    double prefix_share;   /* the probability that a request starts with it, [0, 1]: its prompt is then the
                              prefix's tokens and its own (isl) */
    double turns;          /* multi-turn conversations: turns per conversation, integer 0..1000 (0 and 1: every
                              request alone); requests is a multiple, request i turn i % turns of conversation
                              i / turns. The arrival process starts conversations (CLOSED: concurrency of
                              them in flight); a later turn arrives think time after its previous turn's last
                              token, its prompt the previous prompt, that answer and isl new tokens. Not with
                              TRACE arrivals, prefix_tokens or prefill_replicas */
    double think_s;        /* mean think time between turns, s, [0, 1e6]: exponential draws, one per turn
                              (0: the next turn at once) */
    double measure_from, measure_to; /* the latency statistics (TTFT, TPOT, ITL, E2E, queue, goodput) are
                                        of requests measure_from .. measure_to - 1 in arrival order (a
                                        steady window: warm-up and drain left out); integers, 0 <=
                                        from < to <= requests; to = 0 means requests (every one) */
    tw_serve_lengths isl, osl; /* prompt and output tokens, each 1..TW_SERVE_MAX_TOKENS after rounding */
    uint64_t seed;       /* the same seed gives the same requests */
    const double *trace_arrival; /* TRACE: arrival times, s, non-decreasing, >= 0 (requests values) */
    const double *trace_isl;     /* TW_LEN_TRACE: prompt tokens per request */
    const double *trace_osl;     /* TW_LEN_TRACE: output tokens per request */
    double max_total;    /* 0, or the most tokens (isl + osl) a request may have, integer 2..TW_SERVE_MAX_TOKENS:
                            a request drawn past it is dropped and another drawn in its place (result.dropped
                            counts them), as a benchmark client's dataset sampler drops sequences past its
                            length limit (vLLM benchmark_dataset.py is_valid_sequence); drawn lengths only
                            (not with TW_LEN_TRACE), the lengths alone (a shared prefix and a conversation's
                            history come on top) */
    const struct tw_serve_drawn *drawn; /* NULL, or lengths drawn before by tw_serve_draw_lengths: used
                                           when drawn for the same isl, osl and seed and at least
                                           `requests` of them (the run is then the same, bit for bit,
                                           without drawing again), else ignored */
} tw_serve_workload;

/* The first n prompt and output lengths of a workload's stream (isl, osl, seed), drawn once for many
 * runs: a search runs one workload at many rates, and a run's lengths do not depend on its rate (they
 * have a stream of their own). isl_v and osl_v hold n values each, owned by the caller. */
typedef struct tw_serve_drawn {
    size_t n;
    uint64_t seed;
    tw_serve_lengths isl, osl;
    const double *isl_v, *osl_v;
} tw_serve_drawn;

typedef struct {
    int policy;                    /* TW_SERVE_CONTINUOUS or TW_SERVE_STATIC */
    int mix;                       /* 1: prefill chunks and decodes share a step; 0: prefill first */
    int chunked;                   /* 1: prompts are cut to the token budget; 0: whole */
    int reserve;                   /* 0: blocks as written, preemption by recompute; 1: reserved at admission */
    double max_num_seqs;           /* sequences per step per replica; integer >= 1 */
    double max_num_batched_tokens; /* tokens per step; integer >= 1 */
    double block_size;             /* tokens per KV block; integer >= 1 */
    double kv_capacity_tokens;     /* KV cache per replica, token; integer >= block_size */
    double watermark;              /* fraction of blocks kept free when admitting; [0, 0.5] */
    double replicas;               /* data-parallel replicas; integer 1..TW_SERVE_MAX_REPLICAS */
    int router;                    /* TW_ROUTE_* */
    double multi_step;             /* decode steps run as one block before prompts are scheduled again
                                      (vLLM's --num-scheduler-steps); integer 1..1000 (1: every step) */
    double spec_k;                 /* speculative decoding: draft tokens per step, integer 0..16 (0: none) */
    double spec_alpha;             /* acceptance probability of each draft token, [0, 1] */
    double prefill_replicas;       /* disaggregated serving: the first this many replicas only prefill,
                                      the others only decode; integer 0 (aggregated) .. replicas - 1 */
    double decode_kv_capacity_tokens; /* disaggregated: KV cache of a decode replica, token */
    double transfer_s_per_token;   /* disaggregated: KV transfer time per prompt token, s; >= 0 */
    double transfer_latency_s;     /* disaggregated: latency of one transfer, s; >= 0 */
    int prefix_caching;            /* 1: a replica keeps the shared prefix's full KV blocks once computed and
                                      a request starting with it skips them (vLLM's automatic prefix
                                      caching, SGLang's radix cache); they are shared, not copied, and
                                      evicted when nothing running uses them and blocks are short (LRU of
                                      one entry); with turns > 1 (continuous policy) a finished turn's full
                                      blocks stay cached for its conversation's next turn, which goes to
                                      that replica and skips them, evicted least recently used first when
                                      blocks are short; 0: every prompt is computed whole. Not with
                                      prefill_replicas > 0 */
    int async_output;              /* 1: the client sees a step's first and last tokens of each request
                                      when the replica's next step ends (vLLM 0.6's asynchronous output
                                      processing: step n's outputs are processed while step n + 1 runs),
                                      at once when it idles; TTFT and E2E take it, ITL, TPOT's gaps and
                                      the scheduler do not; 0: when their own step ends */
    double frontend_s;             /* s per request the client waits outside the engine's steps: the API
                                      server's tokenization and validation, the hand-off to the engine
                                      process, the first chunk's detokenization and streaming. Added to
                                      each request's TTFT and E2E as the client measures them (their
                                      statistics, goodput, the SLO test and its early stop, a record's
                                      first_token_s and finish_s); the scheduler never sees it (the
                                      engine receives the request that much later, a shift of every
                                      arrival). Finite, 0 to 60; 0: none */
    double stop_percentile;        /* (0, 100]: stop the run as soon as its measured TTFT or TPOT at this
                                      percentile is certain to exceed slo_ttft_s or slo_tpot_s (enough
                                      measured requests already do: src/tw_serve_stop.c); the result is
                                      then zeros and slo_failed = 1. A caller that only asks "does this
                                      load meet the SLO" (a sizing search) saves the rest of the run.
                                      TPOT only without async_output. 0: every run to its end */
    int per_request;               /* 1: every running request scheduled one by one, each step (the
                                      reference); 0: requests in steady decode advanced together as a
                                      decode group where the policy allows it (src/tw_serve_group.c),
                                      the same run (the ITL mean to rounding) in a fraction of the time */
    double emit_max;               /* chunks to log for tw_serve_emission: the time and request of every
                                      token chunk a request receives after its first (one per step, as
                                      ITL counts them), in the order the run emits them; an integer,
                                      0 to 1e9 (a request logs at most output tokens - 1; chunks past
                                      emit_max are counted, not kept). A run that logs never forms a
                                      decode group (the same run, scheduled per request). 0: none */
} tw_serve_policy;

typedef struct tw_serve_costs {
    /* each grid ascending, first point 1, n points 1..TW_SERVE_MAX_POINTS; times >= 0, finite */
    const double *tok_grid; size_t n_tok; const double *lin_s;   /* lin(n) at n = tok_grid[i] */
    const double *ctx_grid; size_t n_ctx; const double *attn_s;  /* A(S) at S = ctx_grid[i] */
    const double *seq_grid; size_t n_seq; const double *logits_s;/* lm(k) at k = seq_grid[i] */
    const double *dctx_grid; size_t n_dctx;
    const double *decode_s;        /* D(b, c): n_seq x n_dctx, row i at b = seq_grid[i] */
    const double *draft_s;         /* speculative decoding: the draft model's decode step, as decode_s
                                      (NULL without speculation) */
    double host_s;                 /* host time per step, s; >= 0 */
    double seq_host_s;             /* host time per sequence sampled in a step, s; >= 0 */
    double kv_s_per_token;         /* decode attention per cached token of one sequence, s; >= 0 */
    double host_overlap;           /* fraction of a step's host work done while the GPU runs the previous
                                      step (an overlapped scheduler: SGLang >= 0.4, TensorRT-LLM's PyTorch
                                      backend); [0, 1], 0: none */
    double scale;                  /* every step time times this; > 0 */
    double decode_kernels;         /* 1: a step of decodes alone is bounded below by its kernels in
                                      sequence (G) as well as by D, as a serving engine's (vLLM, SGLang,
                                      TensorRT-LLM: an engine with a scheduler) decode step is priced by
                                      tilewave.inference.decode; 0: D alone (a standalone engine's).
                                      0 or 1 */
    const struct tw_serve_costs *decode_pool; /* disaggregated serving: the decode replicas' tables
                                                 (NULL when aggregated); its own decode_pool unused */
} tw_serve_costs;

typedef struct {
    double mean, p50, p90, p99, max;
} tw_serve_stat;

typedef struct {
    double requests, duration_s;
    double requests_per_s, output_tokens_per_s, total_tokens_per_s;
    tw_serve_stat ttft_s, tpot_s, itl_s, e2e_s, queue_s;
    double mean_in_system, mean_running;
    double kv_peak_fraction; /* most KV blocks in use over capacity, of any replica */
    double preemptions, steps, prefill_tokens, output_tokens;
    double recomputed_tokens; /* tokens preemption discarded from the cache (a hit's prefix included: if
                                 the readmitted request hits again, cached_tokens counts it again) */
    double goodput_rps;      /* requests meeting both SLOs per second (0 when none given) */
    double spec_tokens_per_step; /* speculative decoding: tokens a sequence emitted per decode step */
    double decode_tokens;    /* tokens decode steps wrote to the KV cache (accepted drafts included, rejected
                                ones not). Conservation: prefill_tokens + decode_tokens = sum over requests
                                of (input + output - 1) + recomputed_tokens, exactly */
    double kv_blocks_end;    /* KV blocks still held when the run ended: 0, as every block taken is freed */
    double series_n;         /* time-series samples written */
    double measured;         /* requests in the latency statistics (measure_to - measure_from) */
    double prefix_lookups;   /* admissions of requests that start with the shared prefix, or of later turns of
                                a conversation (from scratch) */
    double prefix_hits;      /* of those, the ones that found it (the conversation's history) cached and
                                skipped its tokens */
    double cached_tokens;    /* prompt tokens skipped by hits (they are in no prefill_tokens); with caching
                                the token conservation reads prefill_tokens + decode_tokens = sum(input +
                                output - 1) + recomputed_tokens - cached_tokens, and kv_blocks_end counts
                                the prefix blocks still cached */
    double slo_failed;       /* 1: stop_percentile stopped the run (its SLO test failed; every other
                                field 0); 0: the run ended */
    double group_ticks;      /* steps in which a decode group gave its members their tokens together
                                (policy.per_request; 0 when it never formed) */
    double queue_start, queue_end; /* requests in the system (arrived, not finished: waiting, running or
                                preempted; the queue in Kleinrock's sense) when the first and when the
                                last measured request arrived (the run's first and last arrival when
                                every request is measured) */
    double dropped;          /* requests drawn past workload.max_total, dropped and drawn again (0 without it) */
    double queue_growth_rps; /* (queue_end - queue_start) / the time between those arrivals, request/s:
                                the queue's growth the run observed (0 when the window has no length) */
} tw_serve_result;

/* One request as the run left it (tw_serve_request). */
typedef struct {
    double arrival_s, first_token_s, finish_s, scheduled_s; /* s; first_token_s and finish_s as the
                                                               client sees them (policy frontend_s
                                                               included), scheduled_s the engine's */
    double input_tokens, output_tokens, preemptions, replica;
} tw_serve_record;

/* A time-series sample: the state when a step starts. */
typedef struct {
    double time_s, waiting, running, kv_fraction;
} tw_serve_sample;

/* Bytes of workspace a run needs (0 when the counts are out of range). */
size_t tw_serve_workspace_bytes(const tw_serve_workload *w, const tw_serve_policy *p, size_t series_max);

/*
 * Run the simulation. `work` (work_bytes >= tw_serve_workspace_bytes, 8-byte aligned) holds
 * every request and the queues; `series` (series_max samples, may be NULL with 0) receives up
 * to series_max samples, thinned evenly as the run grows. slo_ttft_s and slo_tpot_s (0: none)
 * give goodput. TW_OK; TW_EINVAL naming the first bad field ("workload.rate", "policy.block_size",
 * "costs.lin_s", ...); TW_ERANGE "workload.isl+osl" when a request needs more KV than a replica
 * holds, "costs.scale" when a step time is not finite or below 1 ns or the run would pass 1e15 s,
 * "workload.rate" when the arrivals would, "policy.kv_capacity_tokens" when nothing can be
 * scheduled. Outputs are finite.
 */
int tw_serve_run(const tw_serve_workload *w, const tw_serve_policy *p, const tw_serve_costs *c,
                 double slo_ttft_s, double slo_tpot_s, void *work, size_t work_bytes,
                 tw_serve_sample *series, size_t series_max, tw_serve_result *out, const char **bad_field);

/* Draw the first n lengths of workload w's stream into isl_v and osl_v (n values each), as a run of w
 * draws them; fills d to describe them (pointing at isl_v and osl_v). TW_OK; TW_EINVAL naming
 * "workload.isl" or "workload.osl" (bad parameters, or TW_LEN_TRACE: a trace is not drawn) or "n"
 * (0 or above TW_SERVE_MAX_REQUESTS). */
int tw_serve_draw_lengths(const tw_serve_workload *w, size_t n, double *isl_v, double *osl_v, tw_serve_drawn *d,
                          const char **bad_field);

/* Request i (0-based) of the last run in `work`; TW_EINVAL "i" when out of range. */
int tw_serve_request(const void *work, size_t i, tw_serve_record *out);

/* One logged chunk (policy.emit_max): when the engine's step that emitted it ended, s (engine
 * time: without policy.frontend_s and the async_output delay, which a record's first_token_s and
 * finish_s carry), and the request's index (0-based, as tw_serve_request's). */
typedef struct {
    double time_s, request;
} tw_serve_chunk;

/* Chunks the last run in `work` logged (at most policy.emit_max); *lost (may be NULL) receives
 * those past emit_max, which were not kept. */
size_t tw_serve_emission_count(const void *work, size_t *lost);

/* Chunk k (0-based, in emission order) of the last run in `work`; TW_EINVAL when out of range. */
int tw_serve_emission(const void *work, size_t k, tw_serve_chunk *out);

/* Step time of a composition (the formula above), for tests and callers that price one step:
 * chunks n[i] after p[i] cached tokens (n_chunks of them), b decodes at mean context c, k
 * sequences sampled. TW_OK; TW_EINVAL naming the field; TW_ERANGE "costs.scale" when the time
 * overflows. */
int tw_serve_step_time(const tw_serve_costs *c, const double *n, const double *p, size_t n_chunks,
                       double b, double ctx, double k, double *time_s, const char **bad_field);

#endif
