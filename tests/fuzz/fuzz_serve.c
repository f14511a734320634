/* fuzz_serve.c - libFuzzer target: tw_serve_run and tw_serve_step_time. Runs are kept small
 * (at most 64 requests of at most 4096 tokens each) so that every input finishes quickly; the
 * core's own limits are far larger. On TW_OK: every output finite, every request complete with
 * first token <= finish, KV never over capacity. */
#include <stddef.h>

#include "fuzz_input.h"

#define PTS 4

static size_t fuzz_count(fuzz_in *in, size_t max)
{
    int b = fuzz_byte(in);
    return b < 0 ? 1 : 1 + (size_t)b % max;
}

/* a grid of n points: 1, then ascending; values from the input */
static void grid(fuzz_in *in, double *g, double *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        g[i] = i == 0 ? 1.0 : g[i - 1] + 1.0 + (double)(fuzz_byte(in) & 0xff) * 16.0;
        v[i] = fuzz_double(in);
    }
}

static int small_lengths(const tw_serve_lengths *l)
{
    switch (l->kind) {
    case TW_LEN_FIXED: return l->a <= 4096;
    case TW_LEN_UNIFORM: return l->b <= 4096;
    case TW_LEN_LOGNORMAL: return l->hi <= 4096;
    default: return 0;
    }
}

static void stat_ok(const tw_serve_stat *s)
{
    check(finite_ge0(s->mean) && finite_ge0(s->p50) && finite_ge0(s->p90) && finite_ge0(s->p99) && finite_ge0(s->max),
          "a statistic not finite and non-negative");
}

/* The decode group (src/tw_serve_group.c) changes nothing: the run again with every request scheduled
   one by one gives the same result, bit for bit (group_ticks says how it ran, not what it gave), and the
   same requests. */
static void same_as_per_request(const tw_serve_workload *w, const tw_serve_policy *pol, const tw_serve_costs *c,
                                double slo_ttft, double slo_tpot, const void *work, size_t bytes,
                                const tw_serve_result *r)
{
    tw_serve_policy ref = *pol;
    tw_serve_result r2;
    void *work2 = malloc(bytes);
    const double *a = (const double *)(const void *)r, *b = (const double *)(const void *)&r2;
    size_t i, ticks = offsetof(tw_serve_result, group_ticks) / sizeof(double); /* how it ran, not what */
    if (work2 == NULL) return;
    ref.per_request = 1;
    check(tw_serve_run(w, &ref, c, slo_ttft, slo_tpot, work2, bytes, NULL, 0, &r2, NULL) == TW_OK,
          "the per-request run failed where the grouped one did not");
    for (i = 0; i < sizeof r2 / sizeof(double); i++) {
        if (i == ticks) continue;
        check(a[i] == b[i] || (a[i] != a[i] && b[i] != b[i]), "a result differs from the per-request run");
    }
    for (i = 0; i < (size_t)w->requests; i++) {
        tw_serve_record x, y;
        tw_serve_request(work, i, &x);
        tw_serve_request(work2, i, &y);
        check(memcmp(&x, &y, sizeof x) == 0, "a request differs from the per-request run");
    }
    free(work2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    double tok[PTS], lin[PTS], ctx[PTS], attn[PTS], seq[PTS], lm[PTS], dctx[PTS], dec[PTS * PTS], n[2], p[2], t;
    double slo_ttft, slo_tpot;
    tw_serve_costs c;
    tw_serve_policy pol;
    tw_serve_workload w;
    tw_serve_result r;
    const char *bad = NULL;
    size_t i, bytes;
    void *work;
    int st;

    memset(&c, 0, sizeof c);
    c.n_tok = fuzz_count(&in, PTS);
    c.n_ctx = fuzz_count(&in, PTS);
    c.n_seq = fuzz_count(&in, PTS);
    c.n_dctx = fuzz_count(&in, PTS);
    grid(&in, tok, lin, c.n_tok);
    grid(&in, ctx, attn, c.n_ctx);
    grid(&in, seq, lm, c.n_seq);
    grid(&in, dctx, dec, c.n_dctx);
    for (i = 0; i < c.n_seq * c.n_dctx; i++) dec[i] = fuzz_double(&in);
    c.tok_grid = tok; c.lin_s = lin; c.ctx_grid = ctx; c.attn_s = attn;
    c.seq_grid = seq; c.logits_s = lm; c.dctx_grid = dctx; c.decode_s = dec;
    c.host_s = fuzz_double(&in);
    c.seq_host_s = fuzz_double(&in);
    c.kv_s_per_token = fuzz_double(&in);
    c.host_overlap = fuzz_double(&in);
    c.scale = fuzz_double(&in);

    n[0] = fuzz_double(&in); p[0] = fuzz_double(&in); n[1] = fuzz_double(&in); p[1] = fuzz_double(&in);
    st = tw_serve_step_time(&c, n, p, (size_t)(fuzz_byte(&in) & 1) + 1, fuzz_double(&in), fuzz_double(&in),
                            fuzz_double(&in), &t, &bad);
    check_status(st, bad);
    if (st == TW_OK) check(finite_ge0(t), "a step time not finite");

    memset(&pol, 0, sizeof pol);
    pol.policy = fuzz_byte(&in) & 1;
    pol.mix = fuzz_byte(&in) & 1;
    pol.chunked = fuzz_byte(&in) & 1;
    pol.reserve = fuzz_byte(&in) & 1;
    pol.max_num_seqs = fuzz_double(&in);
    pol.max_num_batched_tokens = fuzz_double(&in);
    pol.block_size = fuzz_double(&in);
    pol.kv_capacity_tokens = fuzz_double(&in);
    pol.watermark = fuzz_double(&in);
    pol.replicas = fuzz_double(&in);
    pol.router = fuzz_byte(&in) & 1;
    pol.multi_step = fuzz_double(&in);
    pol.spec_k = fuzz_double(&in);
    pol.spec_alpha = fuzz_double(&in);
    if (fuzz_byte(&in) & 1) c.draft_s = dec;
    pol.prefill_replicas = fuzz_double(&in);
    pol.decode_kv_capacity_tokens = fuzz_double(&in);
    pol.transfer_s_per_token = fuzz_double(&in);
    pol.transfer_latency_s = fuzz_double(&in);
    pol.async_output = fuzz_byte(&in) % 3; /* 2: invalid */
    pol.prefix_caching = fuzz_byte(&in) % 3;
    if (fuzz_byte(&in) & 1) c.decode_pool = &c;

    memset(&w, 0, sizeof w);
    w.arrival = fuzz_byte(&in) % 4; /* not TRACE: no arrays to give */
    w.rate = fuzz_double(&in);
    w.cv = fuzz_double(&in);
    w.concurrency = fuzz_double(&in);
    w.requests = fuzz_double(&in);
    w.isl.kind = fuzz_byte(&in) % 3;
    w.isl.a = fuzz_double(&in); w.isl.b = fuzz_double(&in); w.isl.lo = fuzz_double(&in); w.isl.hi = fuzz_double(&in);
    w.osl.kind = fuzz_byte(&in) % 3;
    w.osl.a = fuzz_double(&in); w.osl.b = fuzz_double(&in); w.osl.lo = fuzz_double(&in); w.osl.hi = fuzz_double(&in);
    w.seed = (uint64_t)fuzz_int(&in);
    w.prefix_tokens = fuzz_double(&in);
    w.prefix_share = fuzz_double(&in);
    w.measure_from = fuzz_double(&in);
    w.measure_to = fuzz_double(&in);
    w.turns = fuzz_byte(&in) % 5; /* multi-turn conversations: 0 and 1 none */
    w.think_s = fuzz_double(&in);

    /* keep the run small: requests, tokens, replicas, sequences and a budget of at least 16 */
    if (!(w.requests >= 1 && w.requests <= 64) || !small_lengths(&w.isl) || !small_lengths(&w.osl) ||
        !(pol.replicas >= 1 && pol.replicas <= 8) || !(pol.max_num_seqs >= 1 && pol.max_num_seqs <= 256) ||
        !(pol.max_num_batched_tokens >= 16) || !(pol.block_size <= 4096) || !(pol.multi_step <= 16) ||
        !(w.prefix_tokens <= 4096))
        return 0;
    /* the chunk log: none, or up to 255 entries (a short log counts what it cannot keep) */
    pol.emit_max = (double)(fuzz_byte(&in) & 0xff);
    bytes = tw_serve_workspace_bytes(&w, &pol, 0);
    if (bytes == 0) return 0;
    work = malloc(bytes);
    if (work == NULL) return 0;
    slo_ttft = fuzz_double(&in);
    slo_tpot = fuzz_double(&in);
    st = tw_serve_run(&w, &pol, &c, slo_ttft, slo_tpot, work, bytes, NULL, 0, &r, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        double tokens = 0, written = 0;
        check(r.requests == w.requests, "a run that lost requests");
        check(finite_gt0(r.duration_s) || r.duration_s >= 0, "a duration not finite");
        stat_ok(&r.ttft_s); stat_ok(&r.tpot_s); stat_ok(&r.itl_s); stat_ok(&r.e2e_s); stat_ok(&r.queue_s);
        check(finite_ge0(r.requests_per_s) && finite_ge0(r.output_tokens_per_s) && finite_ge0(r.total_tokens_per_s),
              "a throughput not finite");
        check(finite_ge0(r.mean_in_system) && finite_ge0(r.mean_running), "a time average not finite");
        check(r.kv_peak_fraction >= 0 && r.kv_peak_fraction <= 1, "KV use above capacity");
        for (i = 0; i < (size_t)w.requests; i++) {
            tw_serve_record q;
            check(tw_serve_request(work, i, &q) == TW_OK, "a request record missing");
            check(q.arrival_s <= q.scheduled_s && q.scheduled_s <= q.first_token_s && q.first_token_s <= q.finish_s,
                  "a request out of order");
            tokens += q.output_tokens;
            written += q.input_tokens + q.output_tokens - 1.0;
        }
        check(tokens == r.output_tokens, "output tokens not conserved");
        {
            /* the chunk log: at most emit_max kept, a request's chunks after its first token and
               in order, at most output - 1 of them (kept and lost together) */
            size_t lost = 0, m = tw_serve_emission_count(work, &lost), k;
            double chunks_max = 0.0;
            check(m <= (size_t)pol.emit_max, "more chunks kept than the log holds");
            for (i = 0; i < (size_t)w.requests; i++) {
                tw_serve_record q;
                tw_serve_request(work, i, &q);
                chunks_max += q.output_tokens - 1.0;
            }
            check((double)(m + lost) <= chunks_max, "more chunks than output tokens");
            for (k = 0; k < m; k++) {
                tw_serve_chunk e;
                tw_serve_record q;
                check(tw_serve_emission(work, k, &e) == TW_OK, "a logged chunk missing");
                check(e.request >= 0 && e.request < w.requests && e.request == floor(e.request), "a chunk's request");
                tw_serve_request(work, (size_t)e.request, &q);
                check(isfinite(e.time_s) && e.time_s <= q.finish_s, "a chunk after its request finished");
                check(e.time_s >= q.arrival_s, "a chunk before its request arrived");
            }
            check(tw_serve_emission(work, m, NULL) == TW_EINVAL, "a chunk past the log");
        }
        /* every block taken is freed, a conversation's cached history by its next turn or eviction */
        check(w.prefix_tokens > 0 || r.kv_blocks_end == 0, "KV blocks held at the end");
        /* every token written once, a preempted one again, a cached prefix's never by a hit */
        check(r.prefill_tokens + r.decode_tokens == written + r.recomputed_tokens - r.cached_tokens,
              "KV tokens not conserved");
        same_as_per_request(&w, &pol, &c, slo_ttft, slo_tpot, work, bytes, &r);
    }
    free(work);
    return 0;
}
