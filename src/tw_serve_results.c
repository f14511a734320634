/* tw_serve_results.c - the figures of a run (tw_serve_result): the ITLs of each step as it ends, and
 * at the run's end throughput over the whole run and the latency statistics of the measured window
 * (tw_serve.h gives the definitions). */
#include <math.h>
#include <stdlib.h>

#include "tw_serve_sim.h"

void tw__itl_gap(sim_t *s, double gap, double n)
{
    size_t i = s->n_gaps;
    s->itl_n += n;
    if (gap > s->itl_max) s->itl_max = gap;
    if (gap != s->gap_last) { /* the requests of one step mostly share their gap: bin it once */
        s->gap_last = gap;
        s->gap_bin = tw__itl_bin(gap);
    }
    s->bins[s->gap_bin] += (uint64_t)n;
    if (i > 0 && s->gaps[i - 1].gap == gap) {
        s->gaps[i - 1].n += n;
        return;
    }
    for (i = 0; i < s->n_gaps; i++) {
        if (s->gaps[i].gap == gap) {
            s->gaps[i].n += n;
            return;
        }
    }
    s->gaps[s->n_gaps].gap = gap;
    s->gaps[s->n_gaps++].n = n;
}

static int by_gap(const void *a, const void *b)
{
    double x = ((const gap_t *)a)->gap, y = ((const gap_t *)b)->gap;
    return (x > y) - (x < y);
}

void tw__itl_flush(sim_t *s)
{
    size_t i;
    if (s->n_gaps > 1) qsort(s->gaps, s->n_gaps, sizeof(gap_t), by_gap);
    for (i = 0; i < s->n_gaps; i++) s->itl_sum += s->gaps[i].gap * s->gaps[i].n;
    s->n_gaps = 0;
}

/* The steady window's throughput (tw_serve.h) and the requests in the system (arrived, not finished:
 * waiting, running or preempted) when the first and the last measured request arrived. */
static void steady_window(const sim_t *s, size_t n, tw_serve_result *out)
{
    size_t i, lo = s->lo, hi = s->hi;
    double ta = INFINITY, tb = -INFINITY, done = 0.0, o = 0.0, in = 0.0, q0 = 0.0, q1 = 0.0;
    for (i = lo; i < hi; i++) {
        const req_t *q = &s->req[i];
        if (q->arrival < ta) ta = q->arrival;
        if (q->arrival > tb) tb = q->arrival;
    }
    for (i = 0; i < n; i++) {
        const req_t *q = &s->req[i];
        if (q->arrival <= ta && q->done > ta) q0++;
        if (q->arrival <= tb && q->done > tb) q1++;
        if (q->done >= ta && q->done <= tb) done++, o += q->osl, in += q->isl;
    }
    out->queue_start = q0;
    out->queue_end = q1;
    out->queue_growth_rps = tb > ta ? (q1 - q0) / (tb - ta) : 0.0;
    /* a steady window with completions in it: the rate they came at */
    if ((lo > 0 || hi < n) && tb > ta && done >= 2.0) {
        out->requests_per_s = done / (tb - ta);
        out->output_tokens_per_s = o / (tb - ta);
        out->total_tokens_per_s = (o + in) / (tb - ta);
    }
}

void tw__serve_results(sim_t *s, size_t n, double *scratch, double slo_ttft, double slo_tpot, tw_serve_result *out)
{
    double first = s->req[0].arrival, last = 0.0, out_tokens = 0.0, in_tokens = 0.0, good = 0.0, dur;
    double f = s->p->frontend_s; /* the client's time outside the steps: in TTFT and E2E, not TPOT */
    size_t i, m, lo = s->lo, hi = s->hi, k = hi - lo;
    const req_t *req = s->req + lo;
    for (i = 0; i < n; i++) {
        const req_t *q = &s->req[i];
        double ttft = q->first - q->arrival + f, tpot = q->osl > 1 ? (q->done - q->first) / (q->osl - 1) : 0.0;
        if (q->arrival < first) first = q->arrival;
        if (q->done > last) last = q->done;
        out_tokens += q->osl;
        in_tokens += q->isl;
        if (i >= lo && i < hi && (slo_ttft <= 0.0 || ttft <= slo_ttft) && (slo_tpot <= 0.0 || tpot <= slo_tpot)) good++;
    }
    dur = last - first;
    if (!(dur > 0.0)) dur = 1e-300;
    out->requests = (double)n;
    out->duration_s = dur;
    out->requests_per_s = n / dur;
    out->output_tokens_per_s = out_tokens / dur;
    out->total_tokens_per_s = (out_tokens + in_tokens) / dur;
    steady_window(s, n, out);
    /* latencies of the measured window; throughput and the time averages over the whole run */
    for (i = 0; i < k; i++) scratch[i] = req[i].first - req[i].arrival + f;
    tw__serve_stat(scratch, scratch + n, k, &out->ttft_s);
    for (i = 0, m = 0; i < k; i++) {
        if (req[i].osl > 1) scratch[m++] = (req[i].done - req[i].first) / (req[i].osl - 1);
    }
    tw__serve_stat(scratch, scratch + n, m, &out->tpot_s);
    for (i = 0; i < k; i++) scratch[i] = req[i].done - req[i].arrival + f;
    tw__serve_stat(scratch, scratch + n, k, &out->e2e_s);
    for (i = 0; i < k; i++) scratch[i] = req[i].sched - req[i].arrival;
    tw__serve_stat(scratch, scratch + n, k, &out->queue_s);
    out->measured = (double)k;
    out->prefix_lookups = s->prefix_lookups;
    out->prefix_hits = s->prefix_hits;
    out->cached_tokens = s->cached_tokens;
    tw__itl_stat(s->bins, s->itl_n, s->itl_sum, s->itl_max, &out->itl_s);
    out->mean_in_system = s->area_sys / dur;
    out->mean_running = s->area_run / dur;
    out->kv_peak_fraction = 0.0;
    for (i = 0; i < (size_t)s->p->replicas; i++) {
        double f = s->rep[i].blocks_peak / s->rep[i].blocks_total;
        if (f > out->kv_peak_fraction) out->kv_peak_fraction = f;
    }
    out->preemptions = s->preemptions;
    out->steps = s->steps;
    out->prefill_tokens = s->prefill_tokens;
    out->recomputed_tokens = s->recomputed;
    out->output_tokens = out_tokens;
    /* requests per second that meet both SLOs: the run's rate times the measured share meeting them */
    out->goodput_rps = (slo_ttft > 0.0 || slo_tpot > 0.0) && k > 0 ? out->requests_per_s * (good / (double)k) : 0.0;
    out->series_n = (double)s->series_n;
    out->spec_tokens_per_step = s->spec_steps > 0.0 ? s->spec_tokens / s->spec_steps : 0.0;
    /* a decode step writes the tokens a sequence emitted to its cache (the last one, then the
       accepted drafts): each request's whole life writes input + output - 1 tokens, plus what
       preemption threw away and recomputed */
    out->decode_tokens = s->spec_tokens;
    out->kv_blocks_end = s->blocks_used_all;
    out->slo_failed = 0.0;
    out->group_ticks = s->group_ticks;
}
