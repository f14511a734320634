/* test_serve.c - tw_serve_run() and tw_serve_step_time() on hand-worked examples. */
#include <stdlib.h>
#include <string.h>

#include "tilewave.h"
#include "tw_test.h"

/* Tables: lin(n) = 1 ms + 1 us per token (points 1 and 1001), A(S) = 1 ns * S^2 at S = 1, 100,
 * 10000 (linear in between), lm = 0.1 ms, D(b, c) = 2 ms flat. */
static const double tok[] = {1, 1001}, lin[] = {1.001e-3, 2.001e-3};
static const double ctxg[] = {1, 100, 10000}, attn[] = {1e-9, 1e-5, 1e-1};
static const double seq[] = {1, 64}, lm[] = {1e-4, 1e-4};
static const double dctx[] = {1, 10000}, dec[] = {2e-3, 2e-3, 2e-3, 2e-3};

static tw_serve_costs costs(void)
{
    tw_serve_costs c;
    memset(&c, 0, sizeof c);
    c.tok_grid = tok; c.n_tok = 2; c.lin_s = lin;
    c.ctx_grid = ctxg; c.n_ctx = 3; c.attn_s = attn;
    c.seq_grid = seq; c.n_seq = 2; c.logits_s = lm;
    c.dctx_grid = dctx; c.n_dctx = 2; c.decode_s = dec;
    c.host_s = 5e-4;
    c.scale = 1.0;
    return c;
}

static tw_serve_policy policy(void)
{
    tw_serve_policy p;
    memset(&p, 0, sizeof p);
    p.policy = TW_SERVE_CONTINUOUS;
    p.mix = 1;
    p.chunked = 1;
    p.max_num_seqs = 64;
    p.max_num_batched_tokens = 1000;
    p.block_size = 1;
    p.kv_capacity_tokens = 100000;
    p.replicas = 1;
    p.multi_step = 1;
    return p;
}

static tw_serve_workload offline(double n, double isl, double osl)
{
    tw_serve_workload w;
    memset(&w, 0, sizeof w);
    w.arrival = TW_ARRIVE_OFFLINE;
    w.requests = n;
    w.isl.kind = TW_LEN_FIXED;
    w.isl.a = isl;
    w.osl.kind = TW_LEN_FIXED;
    w.osl.a = osl;
    return w;
}

static int run(const tw_serve_workload *w, const tw_serve_policy *p, const tw_serve_costs *c, tw_serve_result *r,
               const char **bad)
{
    size_t bytes = tw_serve_workspace_bytes(w, p, 0);
    void *work = bytes ? malloc(bytes) : NULL;
    int st = tw_serve_run(w, p, c, 0.0, 0.0, work, bytes, NULL, 0, r, bad);
    free(work);
    return st;
}

static void test_step_time_hand_example(void **state)
{
    tw_serve_costs c = costs();
    double n = 100, p = 0, t;
    (void)state;
    /* one whole prefill of 100 tokens: lin(100) = 1.1 ms, A(100) = 10 us, lm = 0.1 ms, host 0.5 ms */
    assert_int_equal(TW_OK, tw_serve_step_time(&c, &n, &p, 1, 0, 1, 1, &t, NULL));
    assert_close(t, 1.1e-3 + 1e-5 + 1e-4 + 5e-4, 1e-12);
    /* a chunk of 100 after 100 cached: A(200) - A(100) = (1e-5 + 100/9900 * (0.1 - 1e-5)) - 1e-5 */
    p = 100;
    assert_int_equal(TW_OK, tw_serve_step_time(&c, &n, &p, 1, 0, 1, 1, &t, NULL));
    assert_close(t, 1.1e-3 + 100.0 / 9900.0 * (0.1 - 1e-5) + 1e-4 + 5e-4, 1e-12);
    /* 8 decodes alone: lin(8) + lm + host = 1.008 + 0.1 + 0.5 ms < D = 2 ms */
    assert_int_equal(TW_OK, tw_serve_step_time(&c, NULL, NULL, 0, 8, 50, 8, &t, NULL));
    assert_close(t, 2e-3, 1e-12);
}

static void test_offline_hand_example(void **state)
{
    /* 4 requests of 10 + 3 tokens at t = 0: step 1 prefills all 40 tokens (lin(40) = 1.04 ms +
       4 A(10) + lm + host = 1.04 ms + 4 * (1e-9 + 9/99 * (1e-5 - 1e-9)) + 0.6 ms), each emits its first
       token; two decode steps of 4 (D = 2 ms each) finish them. */
    tw_serve_workload w = offline(4, 10, 3);
    tw_serve_policy p = policy();
    tw_serve_costs c = costs();
    tw_serve_result r;
    double a10 = 1e-9 + 9.0 / 99.0 * (1e-5 - 1e-9), first = 1.04e-3 + 4 * a10 + 1e-4 + 5e-4;
    (void)state;
    assert_int_equal(TW_OK, run(&w, &p, &c, &r, NULL));
    assert_close(r.ttft_s.p50, first, 1e-12);
    assert_close(r.ttft_s.max, first, 1e-12);
    assert_close(r.e2e_s.mean, first + 4e-3, 1e-12);
    assert_close(r.tpot_s.p99, 2e-3, 1e-12);
    assert_close(r.itl_s.mean, 2e-3, 1e-12);
    assert_close(r.duration_s, first + 4e-3, 1e-12);
    assert_close(r.requests_per_s, 4 / (first + 4e-3), 1e-12);
    assert_close(r.output_tokens, 12, 0);
    assert_close(r.steps, 3, 0);
    assert_close(r.mean_in_system, 4, 1e-12); /* Little: 4 requests for the whole run */
    assert_close(r.preemptions, 0, 0);
}

static void test_preemption_conserves(void **state)
{
    /* a cache of 25 tokens and two requests of 10 + 10: both start, the newest is preempted
       when they grow past it, and recomputed after the first finishes */
    tw_serve_workload w = offline(2, 10, 10);
    tw_serve_policy p = policy();
    tw_serve_costs c = costs();
    tw_serve_result r;
    (void)state;
    p.kv_capacity_tokens = 25;
    assert_int_equal(TW_OK, run(&w, &p, &c, &r, NULL));
    assert_true(r.preemptions >= 1);
    assert_true(r.recomputed_tokens > 0);
    assert_true(r.kv_peak_fraction <= 1.0);
    assert_close(r.output_tokens, 20, 0);
    /* reserved at admission: never preempted, the second waits */
    p.reserve = 1;
    assert_int_equal(TW_OK, run(&w, &p, &c, &r, NULL));
    assert_close(r.preemptions, 0, 0);
    assert_true(r.ttft_s.max > 10 * 2e-3);
}

/* Round-number tables for the hand-worked runs: every step costs 1 ms of host time plus 10 us per
 * token it computes (lin(n) = n * 10 us: points 1 and 1001), attention, logits and the decode bound
 * D free; a draft step (speculative decoding) 0.1 ms. */
static const double rtok[] = {1, 1001}, rlin[] = {1e-5, 1.001e-2};
static const double rone[] = {1}, rzero[] = {0}, rdraft[] = {1e-4};

static tw_serve_costs round_costs(void)
{
    tw_serve_costs c;
    memset(&c, 0, sizeof c);
    c.tok_grid = rtok; c.n_tok = 2; c.lin_s = rlin;
    c.ctx_grid = rone; c.n_ctx = 1; c.attn_s = rzero;
    c.seq_grid = rone; c.n_seq = 1; c.logits_s = rzero;
    c.dctx_grid = rone; c.n_dctx = 1; c.decode_s = rzero;
    c.host_s = 1e-3;
    c.scale = 1.0;
    c.decode_kernels = 1.0; /* a serving engine's: decode steps cost their tokens' lin too */
    return c;
}

static void test_decode_only_step_by_hand(void **state)
{
    /* lin(n) = 1e-5 s per token (rtok/rlin), D(b, c) = 0.5 ms flat, no host: b = 4 decodes alone.
     * A serving engine's step (decode_kernels 1): max(lin(4) + kv, D) = max(0.04 ms, 0.5 ms) = 0.5 ms;
     * with D = 0.01 ms instead, lin's 0.04 ms binds. A standalone engine's (decode_kernels 0): D
     * alone, 0.01 ms, as tilewave.inference.decode prices it. With a prompt chunk of 6 tokens the
     * kernels bind either way: lin(10) = 0.1 ms. */
    static const double d_half[] = {5e-4}, d_small[] = {1e-5};
    tw_serve_costs c = round_costs();
    double t = 0.0, n = 6.0, p = 0.0;
    (void)state;
    c.host_s = 0.0;
    c.decode_s = d_half;
    assert_int_equal(TW_OK, tw_serve_step_time(&c, NULL, NULL, 0, 4, 1, 4, &t, NULL));
    assert_close(t, 5e-4, 1e-12);
    c.decode_s = d_small;
    assert_int_equal(TW_OK, tw_serve_step_time(&c, NULL, NULL, 0, 4, 1, 4, &t, NULL));
    assert_close(t, 4e-5, 1e-12);
    c.decode_kernels = 0.0;
    assert_int_equal(TW_OK, tw_serve_step_time(&c, NULL, NULL, 0, 4, 1, 4, &t, NULL));
    assert_close(t, 1e-5, 1e-12);
    assert_int_equal(TW_OK, tw_serve_step_time(&c, &n, &p, 1, 4, 1, 5, &t, NULL));
    assert_close(t, 1e-4, 1e-12);
    c.decode_kernels = 0.5;
    assert_int_equal(TW_EINVAL, tw_serve_step_time(&c, NULL, NULL, 0, 4, 1, 4, &t, NULL));
}

static tw_serve_workload traced(size_t n, const double *arrival, const double *isl, const double *osl)
{
    tw_serve_workload w;
    memset(&w, 0, sizeof w);
    w.arrival = TW_ARRIVE_TRACE;
    w.requests = (double)n;
    w.trace_arrival = arrival;
    w.isl.kind = w.osl.kind = TW_LEN_TRACE;
    w.trace_isl = isl;
    w.trace_osl = osl;
    return w;
}

/* run, then read every request's record */
static void run_records(const tw_serve_workload *w, const tw_serve_policy *p, const tw_serve_costs *c,
                        tw_serve_result *r, tw_serve_record *rec)
{
    size_t bytes = tw_serve_workspace_bytes(w, p, 0), i;
    void *work = malloc(bytes);
    assert_non_null(work);
    assert_int_equal(TW_OK, tw_serve_run(w, p, c, 0.0, 0.0, work, bytes, NULL, 0, r, NULL));
    for (i = 0; i < (size_t)w->requests; i++) assert_int_equal(TW_OK, tw_serve_request(work, i, &rec[i]));
    free(work);
}

/* The conservation laws every run keeps, at rounding: Little's law (the time average of requests in
 * the system is throughput x mean E2E: both are the sum of E2E over the duration), tokens (each
 * request writes input + output - 1 tokens to its cache, plus what was recomputed) and KV blocks
 * (every block taken is freed). */
static void assert_conserves(const tw_serve_result *r, double sum_isl, double sum_osl)
{
    assert_close(r->mean_in_system, r->requests_per_s * r->e2e_s.mean, 1e-9);
    assert_close(r->prefill_tokens + r->decode_tokens, sum_isl + sum_osl - r->requests + r->recomputed_tokens, 0);
    assert_close(r->output_tokens, sum_osl, 0);
    assert_true(r->kv_blocks_end == 0.0);
    assert_true(r->kv_peak_fraction <= 1.0);
}

static void test_metrics_by_hand(void **state)
{
    /* Three requests under vLLM-v1-like continuous batching (mixed, chunked, budget 1000 tokens),
     * a step costing 1 ms + 10 us per token:
     *   R0 at 0 ms (100 + 4 tokens), R1 at 1 ms (200 + 2), R2 at 1.5 ms (50 + 3).
     *   step 1 [0, 2]:       R0's prompt, 100 tokens: 1 + 1 = 2 ms       R0 first token at 2
     *   step 2 [2, 5.51]:    R0 decodes, R1 and R2 prefill: 251 tokens, 3.51 ms
     *                        R0 2nd token (gap 3.51), R1 and R2 first tokens at 5.51
     *   step 3 [5.51, 6.54]: three decodes, 1.03 ms: R0 3rd, R1 2nd (done), R2 2nd (gaps 1.03)
     *   step 4 [6.54, 7.56]: two decodes, 1.02 ms: R0 4th (done), R2 3rd (done) (gaps 1.02)
     * TTFT 2, 4.51, 4.01 ms -> sorted 2, 4.01, 4.51: p50 4.01, p90 (position 1.8) 4.01 + 0.8 x 0.5
     * = 4.41, p99 (1.98) 4.5, mean 10.52 / 3. E2E 7.56, 5.54, 6.06 ms. TPOT (E2E - TTFT) / (out - 1):
     * 5.56 / 3, 1.03, 2.05 / 2 ms. ITL: 3.51, 1.03, 1.02 (R0), 1.03 (R1), 1.03, 1.02 (R2) -> sorted
     * 1.02, 1.02, 1.03, 1.03, 1.03, 3.51: p50 (position 2.5) 1.03, p90 (4.5) 1.03 + 0.5 x 2.48 = 2.27,
     * p99 (4.95) 1.03 + 0.95 x 2.48 = 3.386, mean 8.64 / 6 = 1.44, max 3.51. Queue 0, 1, 0.5 ms.
     * Requests in the system: 1 over [0, 1], 2 over [1, 1.5], 3 over [1.5, 6.54], 2 over [6.54, 7.56]:
     * 19.16 ms of requests / 7.56 ms (= the sum of E2E, Little); running 1, 3, 2 over [0, 2],
     * [2, 6.54], [6.54, 7.56]: 17.66 / 7.56. Tokens: 350 prefilled, 1 + 3 + 2 = 6 decoded.
     * Percentiles as benchmark_serving takes them: np.percentile(x, q), linear between order
     * statistics (vllm/benchmarks/benchmark_serving.py, calculate_metrics). ITL's order statistics
     * come from a histogram: within 2^-10 of each gap. */
    static const double arrival[] = {0, 1e-3, 1.5e-3}, isl[] = {100, 200, 50}, osl[] = {4, 2, 3};
    tw_serve_workload w = traced(3, arrival, isl, osl);
    tw_serve_policy p = policy();
    tw_serve_costs c = round_costs();
    tw_serve_result r;
    tw_serve_record rec[3];
    const double ms = 1e-3, bin = 1.0 / 1024;
    (void)state;
    run_records(&w, &p, &c, &r, rec);
    assert_close(r.steps, 4, 0);
    assert_close(rec[0].first_token_s, 2 * ms, 1e-12);
    assert_close(rec[1].first_token_s, 5.51 * ms, 1e-12);
    assert_close(rec[2].first_token_s, 5.51 * ms, 1e-12);
    assert_close(rec[0].finish_s, 7.56 * ms, 1e-12);
    assert_close(rec[1].finish_s, 6.54 * ms, 1e-12);
    assert_close(rec[2].finish_s, 7.56 * ms, 1e-12);
    assert_close(rec[1].scheduled_s, 2 * ms, 1e-12);
    assert_close(r.ttft_s.p50, 4.01 * ms, 1e-12);
    assert_close(r.ttft_s.p90, 4.41 * ms, 1e-12);
    assert_close(r.ttft_s.p99, 4.5 * ms, 1e-12);
    assert_close(r.ttft_s.mean, 10.52 / 3 * ms, 1e-12);
    assert_close(r.e2e_s.p50, 6.06 * ms, 1e-12);
    assert_close(r.e2e_s.max, 7.56 * ms, 1e-12);
    assert_close(r.tpot_s.p50, 1.03 * ms, 1e-12);
    assert_close(r.tpot_s.max, 5.56 / 3 * ms, 1e-12);
    assert_close(r.tpot_s.mean, (5.56 / 3 + 1.03 + 1.025) / 3 * ms, 1e-12);
    assert_close(r.itl_s.mean, 1.44 * ms, 1e-12);
    assert_close(r.itl_s.max, 3.51 * ms, 1e-12);
    assert_close(r.itl_s.p50, 1.03 * ms, bin);
    assert_close(r.itl_s.p90, 2.27 * ms, bin);
    assert_close(r.itl_s.p99, 3.386 * ms, bin);
    assert_close(r.queue_s.mean, 0.5 * ms, 1e-12);
    assert_close(r.queue_s.max, 1 * ms, 1e-12);
    assert_close(r.duration_s, 7.56 * ms, 1e-12);
    assert_close(r.requests_per_s, 3 / (7.56 * ms), 1e-12);
    assert_close(r.mean_in_system, 19.16 / 7.56, 1e-12);
    assert_close(r.mean_running, 17.66 / 7.56, 1e-12);
    assert_close(r.prefill_tokens, 350, 0);
    assert_close(r.decode_tokens, 6, 0);
    assert_conserves(&r, 350, 9);
}

static void test_window_by_hand(void **state)
{
    /* The three requests of test_metrics_by_hand measured over the window 1 .. 2 (R1 and R2): the
     * run is the same, the latencies are R1's and R2's alone; no request completes between R1's and
     * R2's arrival (1 .. 1.5 ms), so the throughput is the run's (3 / 7.56 ms; see
     * test_steady_window_by_hand for a window with completions). TTFT 4.51, 4.01 ms: p50 4.26, max 4.51. E2E 5.54, 6.06.
     * TPOT 1.03, 1.025. ITL 1.03 (R1), 1.03, 1.02 (R2): mean 3.08 / 3, max 1.03. Queue 1, 0.5 ms.
     * With a TTFT SLO of 4.2 ms only R2 meets it: goodput = 3 / 7.56 ms x 1/2. In the system when R1
     * arrives (1 ms): R0 and R1; when R2 arrives (1.5 ms): R0, R1 and R2; so the queue grew by 1 in
     * 0.5 ms, 2000/s. */
    static const double arrival[] = {0, 1e-3, 1.5e-3}, isl[] = {100, 200, 50}, osl[] = {4, 2, 3};
    tw_serve_workload w = traced(3, arrival, isl, osl);
    tw_serve_policy p = policy();
    tw_serve_costs c = round_costs();
    tw_serve_result r;
    const double ms = 1e-3;
    const char *bad = NULL;
    size_t bytes;
    void *work;
    (void)state;
    w.measure_from = 1;
    w.measure_to = 3;
    bytes = tw_serve_workspace_bytes(&w, &p, 0);
    work = malloc(bytes);
    assert_int_equal(tw_serve_run(&w, &p, &c, 4.2e-3, 0, work, bytes, NULL, 0, &r, &bad), TW_OK);
    assert_close(r.measured, 2, 0);
    assert_close(r.requests_per_s, 3 / (7.56 * ms), 1e-12); /* no completion in 1 .. 1.5 ms: the run's */
    assert_close(r.duration_s, 7.56 * ms, 1e-12);
    assert_close(r.queue_start, 2, 0);
    assert_close(r.queue_end, 3, 0);
    assert_close(r.queue_growth_rps, 1 / (0.5 * ms), 1e-12);
    assert_close(r.ttft_s.p50, 4.26 * ms, 1e-12);
    assert_close(r.ttft_s.max, 4.51 * ms, 1e-12);
    assert_close(r.e2e_s.mean, (5.54 + 6.06) / 2 * ms, 1e-12);
    assert_close(r.tpot_s.max, 1.03 * ms, 1e-12);
    assert_close(r.itl_s.mean, 3.08 / 3 * ms, 1e-12);
    assert_close(r.itl_s.max, 1.03 * ms, 1e-12);
    assert_close(r.queue_s.mean, 0.75 * ms, 1e-12);
    assert_close(r.goodput_rps, 3 / (7.56 * ms) / 2, 1e-12);
    /* a window outside the run, or empty, is refused by name */
    w.measure_from = 2;
    w.measure_to = 2;
    assert_int_equal(tw_serve_run(&w, &p, &c, 0, 0, work, bytes, NULL, 0, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "workload.measure_from");
    w.measure_from = 0;
    w.measure_to = 4;
    assert_int_equal(tw_serve_run(&w, &p, &c, 0, 0, work, bytes, NULL, 0, &r, &bad), TW_EINVAL);
    assert_string_equal(bad, "workload.measure_to");
    free(work);
}

static void test_steady_window_by_hand(void **state)
{
    /* Four requests of 100 + 2 tokens at 0, 10, 20, 30 ms under the round costs (1 ms a step + 10 us
     * a token): each prefills in 2 ms and decodes its second token in 1.01 ms, alone, so it
     * finishes 3.01 ms after it arrives: 3.01, 13.01, 23.01, 33.01 ms. Measured: requests 1 .. 3,
     * arriving 10 .. 30 ms; R1 and R2 complete within it: 2 requests and their 4 output and 200
     * input tokens over 20 ms = 100 req/s, 200 and 10,200 tokens/s, the offered rate. In the system
     * at 10 ms: R1 (it just arrived); at 30 ms: R3: one each, no growth. */
    static const double arrival[] = {0, 10e-3, 20e-3, 30e-3}, isl[] = {100, 100, 100, 100}, osl[] = {2, 2, 2, 2};
    tw_serve_workload w = traced(4, arrival, isl, osl);
    tw_serve_policy p = policy();
    tw_serve_costs c = round_costs();
    tw_serve_result r;
    const char *bad = NULL;
    size_t bytes;
    void *work;
    (void)state;
    w.measure_from = 1;
    w.measure_to = 4;
    bytes = tw_serve_workspace_bytes(&w, &p, 0);
    work = malloc(bytes);
    assert_int_equal(tw_serve_run(&w, &p, &c, 0, 0, work, bytes, NULL, 0, &r, &bad), TW_OK);
    assert_close(r.duration_s, 33.01e-3, 1e-12);
    assert_close(r.requests_per_s, 2 / 20e-3, 1e-12);
    assert_close(r.output_tokens_per_s, 4 / 20e-3, 1e-12);
    assert_close(r.total_tokens_per_s, 204 / 20e-3, 1e-12);
    assert_close(r.queue_start, 1, 0);
    assert_close(r.queue_end, 1, 0);
    assert_close(r.queue_growth_rps, 0, 0);
    free(work);
}

static void test_async_output_by_hand(void **state)
{
    /* The three requests of test_metrics_by_hand with async_output: a step's first and last tokens
     * reach the client when the replica's next step ends. R0's first token (step 1) at 5.51 ms, the
     * end of step 2; R1's and R2's (step 2) at 6.54, the end of step 3; R1's last (step 3) at 7.56,
     * the end of step 4; R0's and R2's last (step 4, after which the replica idles) at 7.56 itself.
     * TTFT 5.51, 5.54, 5.04 ms; E2E 7.56, 6.56, 6.06 ms. ITL keeps its gaps (mean 1.44 ms). */
    static const double arrival[] = {0, 1e-3, 1.5e-3}, isl[] = {100, 200, 50}, osl[] = {4, 2, 3};
    tw_serve_workload w = traced(3, arrival, isl, osl);
    tw_serve_policy p = policy();
    tw_serve_costs c = round_costs();
    tw_serve_result r;
    tw_serve_record rec[3];
    const double ms = 1e-3;
    (void)state;
    p.async_output = 1;
    run_records(&w, &p, &c, &r, rec);
    assert_close(rec[0].first_token_s, 5.51 * ms, 1e-12);
    assert_close(rec[1].first_token_s, 6.54 * ms, 1e-12);
    assert_close(rec[2].first_token_s, 6.54 * ms, 1e-12);
    assert_close(rec[1].finish_s, 7.56 * ms, 1e-12);
    assert_close(rec[0].finish_s, 7.56 * ms, 1e-12);
    assert_close(rec[2].finish_s, 7.56 * ms, 1e-12);
    assert_close(r.ttft_s.mean, (5.51 + 5.54 + 5.04) / 3 * ms, 1e-12);
    assert_close(r.e2e_s.mean, (7.56 + 6.56 + 6.06) / 3 * ms, 1e-12);
    assert_close(r.itl_s.mean, 1.44 * ms, 1e-12);
    assert_close(r.steps, 4, 0);
}

static void test_prefix_caching_by_hand(void **state)
{
    /* Two requests that start with a shared prefix of 100 tokens (blocks of 1 token), each 10 tokens of
     * its own and 2 output tokens, R0 at 0 and R1 at 10 ms; a step costs 1 ms + 10 us per token.
     *   R0 (a miss: the cache's 100 blocks allocated, R0 computes them): prompt 110 tokens,
     *     [0, 2.1 ms], first token at 2.1; decode [2.1, 3.11]: done. The prefix is then cached.
     *   R1 (a hit: its first 100 tokens skipped): 10 tokens, [10, 11.1]: TTFT 1.1 ms (2.1 without
     *     caching); decode [11.1, 12.11].
     * Lookups 2, hits 1, 100 cached tokens; prefill 110 + 10 = 120, decode 2: 120 + 2 = (111 + 111) + 0
     * recomputed - 100 cached. The cache's 100 blocks are still held at the end. */
    static const double arrival[] = {0, 10e-3}, isl[] = {10, 10}, osl[] = {2, 2};
    tw_serve_workload w = traced(2, arrival, isl, osl);
    tw_serve_policy p = policy();
    tw_serve_costs c = round_costs();
    tw_serve_result r;
    tw_serve_record rec[2];
    const double ms = 1e-3;
    (void)state;
    w.prefix_tokens = 100;
    w.prefix_share = 1;
    p.prefix_caching = 1;
    run_records(&w, &p, &c, &r, rec);
    assert_close(rec[0].first_token_s, 2.1 * ms, 1e-12);
    assert_close(rec[0].finish_s, 3.11 * ms, 1e-12);
    assert_close(rec[1].first_token_s - rec[1].arrival_s, 1.1 * ms, 1e-12);
    assert_close(rec[1].finish_s, 12.11 * ms, 1e-12);
    assert_close(rec[1].input_tokens, 110, 0);
    assert_close(r.prefix_lookups, 2, 0);
    assert_close(r.prefix_hits, 1, 0);
    assert_close(r.cached_tokens, 100, 0);
    assert_close(r.prefill_tokens, 120, 0);
    assert_close(r.prefill_tokens + r.decode_tokens, 222 + r.recomputed_tokens - r.cached_tokens, 0);
    assert_close(r.kv_blocks_end, 100, 0);
    /* without caching R1 computes its whole prompt */
    p.prefix_caching = 0;
    run_records(&w, &p, &c, &r, rec);
    assert_close(rec[1].first_token_s - rec[1].arrival_s, 2.1 * ms, 1e-12);
    assert_close(r.prefix_hits, 0, 0);
    assert_close(r.kv_blocks_end, 0, 0);
    /* a policy that caches with disaggregated pools is refused by name */
    {
        const char *bad = NULL;
        size_t bytes;
        void *work;
        p.prefix_caching = 1;
        p.replicas = 2;
        p.prefill_replicas = 1;
        p.decode_kv_capacity_tokens = 100000;
        bytes = tw_serve_workspace_bytes(&w, &p, 0);
        work = malloc(bytes);
        assert_int_equal(tw_serve_run(&w, &p, &c, 0, 0, work, bytes, NULL, 0, &r, &bad), TW_EINVAL);
        assert_string_equal(bad, "policy.prefix_caching");
        free(work);
    }
}

static void test_speculative_by_hand(void **state)
{
    /* One request of 100 + 7 tokens with k = 2 drafts, every draft accepted (alpha = 1):
     *   step 1 [0, 2]:       the prompt, 100 tokens, 2 ms; first token at 2 ms
     *   step 2 [2, 3.23]:    2 draft steps (0.2 ms), then the target verifies 1 + 2 tokens:
     *                        1 ms + 30 us; emits 3 tokens (4 in all)
     *   step 3 [3.23, 4.46]: 6 - 3 = 3 left: 1 + 2 again, 1.23 ms; 7 tokens, done
     * ITL is one gap per step as the client sees a chunk (benchmark_serving appends one ITL per
     * streamed chunk): 1.23, 1.23 ms; TPOT (4.46 - 2) / 6 = 0.41 ms; 3 tokens per decode step. */
    static const double arrival[] = {0}, isl[] = {100}, osl[] = {7};
    tw_serve_workload w = traced(1, arrival, isl, osl);
    tw_serve_policy p = policy();
    tw_serve_costs c = round_costs();
    tw_serve_result r;
    tw_serve_record rec[1];
    const double ms = 1e-3;
    (void)state;
    p.spec_k = 2;
    p.spec_alpha = 1;
    c.draft_s = rdraft;
    run_records(&w, &p, &c, &r, rec);
    assert_close(r.steps, 3, 0);
    assert_close(r.ttft_s.p50, 2 * ms, 1e-12);
    assert_close(rec[0].finish_s, 4.46 * ms, 1e-12);
    assert_close(r.itl_s.mean, 1.23 * ms, 1e-12);
    assert_close(r.itl_s.p50, 1.23 * ms, 1.0 / 1024);
    assert_close(r.itl_s.max, 1.23 * ms, 1e-12);
    assert_close(r.tpot_s.p50, 0.41 * ms, 1e-12);
    assert_close(r.spec_tokens_per_step, 3, 0);
    assert_close(r.decode_tokens, 6, 0);
    assert_conserves(&r, 100, 7);
}

static void test_preemption_by_hand(void **state)
{
    /* Two requests of 10 + 10 tokens at 0 in a cache of 25 one-token blocks (blocks taken as
     * tokens are written, the newest preempted when none is free: vLLM v1):
     *   step 1 [0, 1.2]:       both prompts (20 tokens, 20 blocks); first tokens at 1.2 ms
     *   steps 2, 3 (1.02 ms):  both decode, a block each per step: 24 blocks at 3.24 ms
     *   step 4 [3.24, 4.25]:   R0 takes the 25th block; R1 finds none and is preempted (its 12
     *                          computed tokens freed, to recompute); R0 alone, 1.01 ms
     *   steps 5-10 (1.01 ms): R0 decodes alone (R1's 13 tokens never fit beside it); done at 10.31
     *   step 11 [10.31, 11.44]: R1 recomputes prompt + 3 tokens, 13 tokens, 1.13 ms, and emits its
     *                          4th token (gap 11.44 - 3.24 = 8.2 ms)
     *   steps 12-17 (1.01 ms): R1's last 6 tokens; done at 17.50 ms
     * TTFT 1.2, 1.2 ms; E2E 10.31, 17.50 ms; TPOT 9.11 / 9, 16.30 / 9 ms. ITL: 4 gaps of 1.02, 13 of
     * 1.01 and 8.2: p50 (position 8.5) 1.01, p90 (15.3) 1.02, p99 (16.83) 1.02 + 0.83 x 7.18 = 6.9794,
     * mean 25.41 / 18 ms. Tokens: 20 + 13 prefilled, 17 decoded = 20 + 20 - 2 + 12 recomputed. */
    tw_serve_workload w = offline(2, 10, 10);
    tw_serve_policy p = policy();
    tw_serve_costs c = round_costs();
    tw_serve_result r;
    tw_serve_record rec[2];
    const double ms = 1e-3, bin = 1.0 / 1024;
    (void)state;
    p.kv_capacity_tokens = 25;
    run_records(&w, &p, &c, &r, rec);
    assert_close(r.steps, 17, 0);
    assert_close(r.preemptions, 1, 0);
    assert_close(rec[1].preemptions, 1, 0);
    assert_close(r.recomputed_tokens, 12, 0);
    assert_close(r.prefill_tokens, 33, 0);
    assert_close(r.decode_tokens, 17, 0);
    assert_close(r.kv_peak_fraction, 1, 0);
    assert_close(r.ttft_s.max, 1.2 * ms, 1e-12);
    assert_close(rec[0].finish_s, 10.31 * ms, 1e-12);
    assert_close(rec[1].finish_s, 17.50 * ms, 1e-12);
    assert_close(r.tpot_s.p50, (9.11 / 9 + 16.30 / 9) / 2 * ms, 1e-12);
    assert_close(r.itl_s.mean, 25.41 / 18 * ms, 1e-12);
    assert_close(r.itl_s.max, 8.2 * ms, 1e-12);
    assert_close(r.itl_s.p50, 1.01 * ms, bin);
    assert_close(r.itl_s.p90, 1.02 * ms, bin);
    assert_close(r.itl_s.p99, 6.9794 * ms, bin);
    assert_close(r.mean_in_system, (10.31 + 17.50) / 17.50, 1e-12);
    assert_conserves(&r, 20, 20);
}

static void test_conservation_light_and_saturated(void **state)
{
    /* Poisson arrivals of lognormal prompts and uniform outputs at a light load and far past
     * saturation (queue growing through the run), in a cache that forces preemption, with and
     * without speculation and disaggregated pools: the laws hold to rounding every time. */
    tw_serve_costs c = round_costs(), dc;
    tw_serve_result r;
    tw_serve_record *rec = malloc(2000 * sizeof *rec);
    double rates[] = {5, 5000};
    size_t i, j, mode;
    (void)state;
    assert_non_null(rec);
    c.draft_s = rdraft;
    dc = c;
    c.decode_pool = &dc;
    for (mode = 0; mode < 3; mode++) {
        for (j = 0; j < 2; j++) {
            tw_serve_workload w = offline(2000, 0, 0);
            tw_serve_policy p = policy();
            double sum_isl = 0, sum_osl = 0;
            w.arrival = TW_ARRIVE_POISSON;
            w.rate = rates[j];
            w.isl.kind = TW_LEN_LOGNORMAL;
            w.isl.a = 5; w.isl.b = 0.8; w.isl.lo = 4; w.isl.hi = 1000;
            w.osl.kind = TW_LEN_UNIFORM;
            w.osl.a = 1; w.osl.b = 60;
            w.seed = 7;
            p.kv_capacity_tokens = 4000;
            if (mode == 1) { p.spec_k = 3; p.spec_alpha = 0.7; }
            if (mode == 2) {
                p.replicas = 3; p.prefill_replicas = 1; p.decode_kv_capacity_tokens = 3000;
                p.transfer_s_per_token = 1e-7; p.transfer_latency_s = 1e-4;
            }
            run_records(&w, &p, &c, &r, rec);
            for (i = 0; i < 2000; i++) {
                sum_isl += rec[i].input_tokens;
                sum_osl += rec[i].output_tokens;
            }
            assert_conserves(&r, sum_isl, sum_osl);
            if (j == 1 && mode == 0) assert_true(r.preemptions > 0);
        }
    }
    free(rec);
}

static void test_deterministic_and_seeded(void **state)
{
    tw_serve_workload w = offline(500, 0, 0);
    tw_serve_policy p = policy();
    tw_serve_costs c = costs();
    tw_serve_result a, b;
    (void)state;
    w.arrival = TW_ARRIVE_POISSON;
    w.rate = 50;
    w.isl.kind = TW_LEN_LOGNORMAL;
    w.isl.a = 5; w.isl.b = 0.8; w.isl.lo = 4; w.isl.hi = 1000;
    w.osl.kind = TW_LEN_UNIFORM;
    w.osl.a = 10; w.osl.b = 50;
    w.seed = 3;
    assert_int_equal(TW_OK, run(&w, &p, &c, &a, NULL));
    assert_int_equal(TW_OK, run(&w, &p, &c, &b, NULL));
    assert_memory_equal(&a, &b, sizeof a);
    w.seed = 4;
    assert_int_equal(TW_OK, run(&w, &p, &c, &b, NULL));
    assert_true(a.duration_s != b.duration_s);
    /* uniform 10..50 output: mean 30 within sampling error */
    assert_close(a.output_tokens / 500, 30, 0.1);
    assert_close(a.mean_in_system, a.requests_per_s * a.e2e_s.mean, 1e-9);
}

static void test_validation_names_the_field(void **state)
{
    tw_serve_workload w = offline(2, 10, 10);
    tw_serve_policy p = policy();
    tw_serve_costs c = costs();
    tw_serve_result r;
    const char *bad = NULL;
    (void)state;
    w.requests = 0;
    assert_int_equal(TW_EINVAL, run(&w, &p, &c, &r, &bad));
    assert_string_equal("workload.requests", bad);
    w = offline(2, 10, 10);
    p.block_size = 0;
    assert_int_equal(TW_EINVAL, run(&w, &p, &c, &r, &bad));
    assert_string_equal("policy.block_size", bad);
    p = policy();
    c.scale = -1;
    assert_int_equal(TW_EINVAL, run(&w, &p, &c, &r, &bad));
    assert_string_equal("costs.scale", bad);
    c = costs();
    p.kv_capacity_tokens = 19;
    assert_int_equal(TW_ERANGE, run(&w, &p, &c, &r, &bad));
    assert_string_equal("workload.isl+osl", bad);
    p = policy();
    w.arrival = TW_ARRIVE_GAMMA;
    w.rate = 1;
    w.cv = 0;
    assert_int_equal(TW_EINVAL, run(&w, &p, &c, &r, &bad));
    assert_string_equal("workload.cv", bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_time_hand_example),
        cmocka_unit_test(test_offline_hand_example),
        cmocka_unit_test(test_preemption_conserves),
        cmocka_unit_test(test_deterministic_and_seeded),
        cmocka_unit_test(test_validation_names_the_field),
        cmocka_unit_test(test_metrics_by_hand),
        cmocka_unit_test(test_decode_only_step_by_hand),
        cmocka_unit_test(test_steady_window_by_hand),
        cmocka_unit_test(test_window_by_hand),
        cmocka_unit_test(test_async_output_by_hand),
        cmocka_unit_test(test_prefix_caching_by_hand),
        cmocka_unit_test(test_speculative_by_hand),
        cmocka_unit_test(test_preemption_by_hand),
        cmocka_unit_test(test_conservation_light_and_saturated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
