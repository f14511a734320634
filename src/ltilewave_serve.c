/*
 * ltilewave_serve.c - Lua binding of tw_serve (src/tw_serve.h). One concern past 400 lines: the
 * serving core's inputs read from one Lua table and its results pushed back (its field-descriptor
 * table is issue 67's).
 *
 *   core.serve{ arrival = "poisson" | "gamma" | "offline" | "closed" | "trace", rate, cv, concurrency, requests,
 *     measure_from, measure_to, prefix_tokens, prefix_share, turns, think_s, max_total, seed, isl = { kind = "fixed" |
 *     "uniform" | "lognormal" | "trace", a, b, lo, hi }, osl, trace_arrival, trace_isl, trace_osl, policy =
 *     "continuous" | "static", mix, chunked, reserve, async_output, prefix_caching, per_request, records (booleans),
 *     max_num_seqs, max_num_batched_tokens, block_size, kv_capacity_tokens, watermark, replicas, multi_step,
 *     spec_k, spec_alpha, router = "round_robin" | "least_loaded", prefill_replicas, decode_kv_capacity_tokens,
 *     transfer_s_per_token, transfer_latency_s, the costs (tok_grid, lin_s, ctx_grid, attn_s, seq_grid,
 *     logits_s, dctx_grid, decode_s row-major seq x dctx, draft_s, host_s, seq_host_s, kv_s_per_token,
 *     host_overlap, scale, decode_kernels; decode_pool = the same for disaggregated decode replicas), slo_ttft_s, slo_tpot_s,
 *     stop_percentile, series_max, emit_max, drawn = core.serve_lengths's result or nil }
 *     -> tw_serve_result's fields (ttft_s, tpot_s, itl_s, e2e_s, queue_s as { mean, p50, p90, p99, max }),
 *        records = { arrival_s = {...}, ... } (records = true), series = { time_s, waiting, running,
 *        kv_fraction } (series_max > 0), emissions_s = { {t, ...} per request } and emissions_lost
 *        (emit_max > 0: each request's logged chunk times, tw_serve_emission)
 *   core.serve_lengths{ isl, osl, seed, n } -> the first n lengths of that stream, drawn once for many runs
 *     (tw_serve_draw_lengths; a run of the same isl, osl and seed passes it as `drawn` and draws none)
 *   core.serve_step(costs, chunks = { { n, p }, ... }, b, ctx, k) -> s (the same table fields as core.serve)
 * Errors name the field: "serve.<field>: <expectation>, got <value>".
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "lbind.h"

#define P "serve"
#define DRAWN_MT "tilewave.serve_lengths"

/* field `key` of the table at t, one of `names` (its index), or dflt when absent; an error names
   "<prefix>.<key>" (the full path: "serve.isl.kind", never "serve.kind") */
static int option(lua_State *L, int t, const char *prefix, const char *key, const char *const names[], int dflt)
{
    int i;
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return dflt;
    }
    if (lua_type(L, -1) == LUA_TSTRING) {
        const char *s = lua_tostring(L, -1);
        for (i = 0; names[i] != NULL; i++) {
            if (strcmp(s, names[i]) == 0) {
                lua_pop(L, 1);
                return i;
            }
        }
    }
    {
        /* "expected one of a, b, c" from the names */
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        luaL_addstring(&b, "expected one of ");
        for (i = 0; names[i] != NULL; i++) {
            if (i > 0) luaL_addstring(&b, ", ");
            luaL_addstring(&b, names[i]);
        }
        luaL_pushresult(&b);
        lua_insert(L, -2);
        return tw_lua_field_error(L, prefix, key, lua_tostring(L, -2), -1);
    }
}

static int flag(lua_State *L, int t, const char *key, int dflt)
{
    int v = dflt;
    if (lua_getfield(L, t, key) == LUA_TBOOLEAN) v = lua_toboolean(L, -1);
    else if (!lua_isnil(L, -1)) return tw_lua_field_error(L, P, key, "expected true or false", -1);
    lua_pop(L, 1);
    return v;
}

/* the list `key` of the table at t as doubles in a userdata left on the stack; NULL when absent */
static const double *array(lua_State *L, int t, const char *key, size_t *n, int required)
{
    double *v;
    lua_Integer i, len;
    int tv;
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1) && !required) {
        lua_pop(L, 1);
        *n = 0;
        return NULL;
    }
    if (!lua_istable(L, -1)) {
        tw_lua_field_error(L, P, key, "expected a list of numbers", -1);
        return NULL;
    }
    tv = lua_gettop(L);
    len = luaL_len(L, tv);
    if (len < 1 || len > 200000000) {
        tw_lua_field_error(L, P, key, "expected a non-empty list of numbers", tv);
        return NULL;
    }
    v = (double *)lua_newuserdatauv(L, (size_t)len * sizeof(double), 0);
    for (i = 1; i <= len; i++) {
        int isnum;
        lua_rawgeti(L, tv, i);
        v[i - 1] = lua_tonumberx(L, -1, &isnum);
        if (!isnum) {
            tw_lua_raise(L, "%s.%s[%I]: expected a number, got %s", P, key, i, tw_lua_describe(L, -1));
            return NULL;
        }
        lua_pop(L, 1);
    }
    lua_remove(L, tv); /* keep the userdata, drop the list */
    *n = (size_t)len;
    return v;
}

static void lengths(lua_State *L, int t, const char *key, tw_serve_lengths *l)
{
    static const char *const kinds[] = {"fixed", "uniform", "lognormal", "trace", NULL};
    char path[32];
    int s;
    if (lua_getfield(L, t, key) != LUA_TTABLE) tw_lua_field_error(L, P, key, "expected a table { kind, a, b, lo, hi }", -1);
    s = lua_gettop(L);
    snprintf(path, sizeof path, "%s.%s", P, key);
    l->kind = option(L, s, path, "kind", kinds, -1);
    if (l->kind < 0) tw_lua_raise(L, "%s.kind: expected fixed, uniform, lognormal or trace", path);
    l->a = tw_lua_get_num(L, s, "a", path, 0.0);
    l->b = tw_lua_get_num(L, s, "b", path, 0.0);
    l->lo = tw_lua_get_num(L, s, "lo", path, 1.0);
    l->hi = tw_lua_get_num(L, s, "hi", path, TW_SERVE_MAX_TOKENS);
    lua_pop(L, 1);
}

/* list `key` holds `got` values where `want` are expected (one per point of the grids `of`) */
static void sized(lua_State *L, const char *key, size_t got, size_t want, const char *of)
{
    if (got != want) tw_lua_raise(L, "%s.%s: expected %s = %d values, got %d", P, key, of, (int)want, (int)got);
}

/* the cost tables of the table at t; their arrays stay on the stack */
static void costs(lua_State *L, int t, tw_serve_costs *c)
{
    size_t n_lin, n_attn, n_lm, n_dec, n_draft = 0;
    memset(c, 0, sizeof *c);
    c->tok_grid = array(L, t, "tok_grid", &c->n_tok, 1);
    c->lin_s = array(L, t, "lin_s", &n_lin, 1);
    c->ctx_grid = array(L, t, "ctx_grid", &c->n_ctx, 1);
    c->attn_s = array(L, t, "attn_s", &n_attn, 1);
    c->seq_grid = array(L, t, "seq_grid", &c->n_seq, 1);
    c->logits_s = array(L, t, "logits_s", &n_lm, 1);
    c->dctx_grid = array(L, t, "dctx_grid", &c->n_dctx, 1);
    c->decode_s = array(L, t, "decode_s", &n_dec, 1);
    c->draft_s = array(L, t, "draft_s", &n_draft, 0);
    sized(L, "lin_s", n_lin, c->n_tok, "tok_grid");
    sized(L, "attn_s", n_attn, c->n_ctx, "ctx_grid");
    sized(L, "logits_s", n_lm, c->n_seq, "seq_grid");
    sized(L, "decode_s", n_dec, c->n_seq * c->n_dctx, "seq_grid x dctx_grid");
    if (c->draft_s != NULL) sized(L, "draft_s", n_draft, c->n_seq * c->n_dctx, "seq_grid x dctx_grid");
    c->host_s = tw_lua_get_num(L, t, "host_s", P, 0.0);
    c->seq_host_s = tw_lua_get_num(L, t, "seq_host_s", P, 0.0);
    c->kv_s_per_token = tw_lua_get_num(L, t, "kv_s_per_token", P, 0.0);
    c->host_overlap = tw_lua_get_num(L, t, "host_overlap", P, 0.0);
    c->scale = tw_lua_get_num(L, t, "scale", P, 1.0);
    c->decode_kernels = tw_lua_get_num(L, t, "decode_kernels", P, 0.0);
}

static void push_stat(lua_State *L, const char *key, const tw_serve_stat *s)
{
    static const char *const names[] = {"mean", "p50", "p90", "p99", "max"}; /* tw_serve_stat's order */
    const double v[] = {s->mean, s->p50, s->p90, s->p99, s->max};
    size_t i;
    lua_createtable(L, 0, 5);
    for (i = 0; i < 5; i++) tw_lua_set_num(L, names[i], v[i]);
    lua_setfield(L, -2, key);
}

static void push_column(lua_State *L, const char *key, const void *work, size_t n, size_t field)
{
    size_t i;
    lua_createtable(L, (int)n, 0);
    for (i = 0; i < n; i++) {
        tw_serve_record r;
        tw_serve_request(work, i, &r);
        lua_pushnumber(L, ((const double *)(const void *)&r)[field]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, key);
}

/* The run's emission log as one list of times (s) per request, in emission order, and the count of
   chunks past emit_max (result table on top) */
static void push_emissions(lua_State *L, const void *work, size_t n)
{
    size_t lost = 0, m = tw_serve_emission_count(work, &lost), k, i;
    int top;
    lua_createtable(L, (int)n, 0);
    top = lua_gettop(L);
    for (i = 0; i < n; i++) {
        lua_newtable(L);
        lua_rawseti(L, top, (lua_Integer)i + 1);
    }
    for (k = 0; k < m; k++) {
        tw_serve_chunk e;
        tw_serve_emission(work, k, &e);
        lua_rawgeti(L, top, (lua_Integer)e.request + 1);
        lua_pushnumber(L, e.time_s);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        lua_pop(L, 1);
    }
    lua_setfield(L, -2, "emissions_s");
    tw_lua_set_num(L, "emissions_lost", (double)lost);
}

/* The workload fields of the table at 1 (tw_serve.h tw_serve_workload); the trace arrays stay on
   the stack. */
static void read_workload(lua_State *L, tw_serve_workload *w)
{
    static const char *const arrivals[] = {"poisson", "gamma", "offline", "closed", "trace", NULL};
    size_t n_trace = 0;
    double seed;
    memset(w, 0, sizeof *w);
    w->arrival = option(L, 1, P, "arrival", arrivals, TW_ARRIVE_POISSON);
    w->rate = tw_lua_get_num(L, 1, "rate", P, 1.0);
    w->cv = tw_lua_get_num(L, 1, "cv", P, 1.0);
    w->concurrency = tw_lua_get_num(L, 1, "concurrency", P, 0.0);
    w->requests = tw_lua_get_num(L, 1, "requests", P, NAN);
    w->measure_from = tw_lua_get_num(L, 1, "measure_from", P, 0.0);
    w->measure_to = tw_lua_get_num(L, 1, "measure_to", P, 0.0);
    w->prefix_tokens = tw_lua_get_num(L, 1, "prefix_tokens", P, 0.0);
    w->prefix_share = tw_lua_get_num(L, 1, "prefix_share", P, 0.0);
    w->turns = tw_lua_get_num(L, 1, "turns", P, 1.0);
    w->think_s = tw_lua_get_num(L, 1, "think_s", P, 0.0);
    w->max_total = tw_lua_get_num(L, 1, "max_total", P, 0.0);
    seed = tw_lua_get_num(L, 1, "seed", P, 0.0);
    if (!(seed >= 0 && seed <= 9007199254740992.0 && seed == floor(seed)))
        tw_lua_raise(L, "%s.seed: expected an integer in [0, 2^53], got %g", P, seed);
    w->seed = (uint64_t)seed;
    lengths(L, 1, "isl", &w->isl);
    lengths(L, 1, "osl", &w->osl);
    /* a trace has one value per request */
    w->trace_arrival = array(L, 1, "trace_arrival", &n_trace, 0);
    if (w->trace_arrival && (double)n_trace != w->requests)
        tw_lua_raise(L, "%s.trace_arrival: expected %g values (requests), got %d", P, w->requests, (int)n_trace);
    w->trace_isl = array(L, 1, "trace_isl", &n_trace, 0);
    if (w->trace_isl && (double)n_trace != w->requests)
        tw_lua_raise(L, "%s.trace_isl: expected %g values (requests), got %d", P, w->requests, (int)n_trace);
    w->trace_osl = array(L, 1, "trace_osl", &n_trace, 0);
    if (w->trace_osl && (double)n_trace != w->requests)
        tw_lua_raise(L, "%s.trace_osl: expected %g values (requests), got %d", P, w->requests, (int)n_trace);
    /* lengths drawn before (serve_lengths): the core uses them when they are this workload's */
    if (lua_getfield(L, 1, "drawn") != LUA_TNIL) {
        w->drawn = (const tw_serve_drawn *)luaL_testudata(L, -1, DRAWN_MT);
        if (w->drawn == NULL) tw_lua_field_error(L, P, "drawn", "expected serve_lengths' result", -1);
    }
}

/* serve_lengths{ isl, osl, seed, n }: the first n prompt and output lengths of that stream, drawn once
   (tw_serve_draw_lengths) for the runs that pass it as `drawn` */
static int l_serve_lengths(lua_State *L)
{
    tw_serve_workload w;
    tw_serve_drawn *d;
    double seed, n;
    const char *bad = NULL;
    int status;
    luaL_checktype(L, 1, LUA_TTABLE);
    memset(&w, 0, sizeof w);
    seed = tw_lua_get_num(L, 1, "seed", P ".lengths", 0.0);
    if (!(seed >= 0 && seed <= 9007199254740992.0 && seed == floor(seed)))
        return tw_lua_raise(L, "%s.lengths.seed: expected an integer in [0, 2^53], got %g", P, seed);
    w.seed = (uint64_t)seed;
    lengths(L, 1, "isl", &w.isl);
    lengths(L, 1, "osl", &w.osl);
    n = tw_lua_get_num(L, 1, "n", P ".lengths", NAN);
    if (!(n >= 1 && n <= TW_SERVE_MAX_REQUESTS && n == floor(n)))
        return tw_lua_raise(L, "%s.lengths.n: expected an integer in [1, %g], got %g", P, (double)TW_SERVE_MAX_REQUESTS, n);
    /* the header, then the prompts, then the outputs (a userdata never moves: the pointers hold) */
    d = (tw_serve_drawn *)lua_newuserdatauv(L, sizeof *d + 2 * (size_t)n * sizeof(double), 0);
    luaL_setmetatable(L, DRAWN_MT);
    status = tw_serve_draw_lengths(&w, (size_t)n, (double *)(d + 1), (double *)(d + 1) + (size_t)n, d, &bad);
    if (status != TW_OK) return tw_lua_raise(L, "%s.lengths: %s: expected valid lengths (%s)", P, bad, tw_strerror(status));
    return 1;
}

/* The scheduling policy fields of the table at 1 (tw_serve.h tw_serve_policy). */
static void read_policy(lua_State *L, tw_serve_policy *p)
{
    static const char *const policies[] = {"continuous", "static", NULL};
    static const char *const routers[] = {"round_robin", "least_loaded", NULL};
    memset(p, 0, sizeof *p);
    p->policy = option(L, 1, P, "policy", policies, TW_SERVE_CONTINUOUS);
    p->mix = flag(L, 1, "mix", 1);
    p->chunked = flag(L, 1, "chunked", 1);
    p->reserve = flag(L, 1, "reserve", 0);
    p->max_num_seqs = tw_lua_get_num(L, 1, "max_num_seqs", P, NAN);
    p->max_num_batched_tokens = tw_lua_get_num(L, 1, "max_num_batched_tokens", P, NAN);
    p->block_size = tw_lua_get_num(L, 1, "block_size", P, 16.0);
    p->kv_capacity_tokens = tw_lua_get_num(L, 1, "kv_capacity_tokens", P, NAN);
    p->watermark = tw_lua_get_num(L, 1, "watermark", P, 0.0);
    p->replicas = tw_lua_get_num(L, 1, "replicas", P, 1.0);
    p->router = option(L, 1, P, "router", routers, TW_ROUTE_ROUND_ROBIN);
    p->multi_step = tw_lua_get_num(L, 1, "multi_step", P, 1.0);
    p->spec_k = tw_lua_get_num(L, 1, "spec_k", P, 0.0);
    p->spec_alpha = tw_lua_get_num(L, 1, "spec_alpha", P, 0.0);
    p->prefill_replicas = tw_lua_get_num(L, 1, "prefill_replicas", P, 0.0);
    p->decode_kv_capacity_tokens = tw_lua_get_num(L, 1, "decode_kv_capacity_tokens", P, 0.0);
    p->transfer_s_per_token = tw_lua_get_num(L, 1, "transfer_s_per_token", P, 0.0);
    p->transfer_latency_s = tw_lua_get_num(L, 1, "transfer_latency_s", P, 0.0);
    p->async_output = flag(L, 1, "async_output", 0);
    p->frontend_s = tw_lua_get_num(L, 1, "frontend_s", P, 0.0);
    p->prefix_caching = flag(L, 1, "prefix_caching", 0);
    p->per_request = flag(L, 1, "per_request", 0);
    p->emit_max = tw_lua_get_num(L, 1, "emit_max", P, 0.0);
    p->stop_percentile = tw_lua_get_num(L, 1, "stop_percentile", P, 0.0);
}

/* A failed run as the one message a caller reads: the two refusals that are about the deployment
   (a request larger than the cache, nothing schedulable) in its terms, else the field. */
static int run_error(lua_State *L, int status, const char *bad, const tw_serve_policy *p)
{
    if (strcmp(bad, "workload.isl+osl") == 0)
        return tw_lua_raise(L, "%s.workload: a request needs more KV cache than a replica holds (%f tokens); "
                            "expected isl + osl within kv_capacity_tokens", P, p->kv_capacity_tokens);
    if (strcmp(bad, "policy.kv_capacity_tokens") == 0 || strcmp(bad, "policy") == 0)
        return tw_lua_raise(L, "%s.policy: the scheduler can place no request (KV capacity %f tokens, "
                            "budget %f tokens)", P, p->kv_capacity_tokens, p->max_num_batched_tokens);
    return tw_lua_raise(L, "%s.%s: expected a valid value (%s)", P, bad, tw_strerror(status));
}

/* The result table of a run (its fields as tw_serve_result names them). */
#define NUM(f) {#f, offsetof(tw_serve_result, f)}
static const struct { const char *name; size_t off; } RESULT_NUMS[] = {
    NUM(requests), NUM(measured), NUM(duration_s), NUM(requests_per_s), NUM(output_tokens_per_s),
    NUM(total_tokens_per_s), NUM(mean_in_system), NUM(mean_running), NUM(kv_peak_fraction), NUM(preemptions),
    NUM(steps), NUM(prefill_tokens), NUM(recomputed_tokens), NUM(output_tokens), NUM(goodput_rps),
    NUM(spec_tokens_per_step), NUM(dropped), NUM(decode_tokens), NUM(kv_blocks_end), NUM(prefix_lookups), NUM(prefix_hits),
    NUM(cached_tokens), NUM(slo_failed), NUM(group_ticks), NUM(queue_start), NUM(queue_end), NUM(queue_growth_rps)};
#undef NUM

static void push_result(lua_State *L, const tw_serve_result *r)
{
    size_t i;
    lua_createtable(L, 0, 32);
    for (i = 0; i < sizeof RESULT_NUMS / sizeof RESULT_NUMS[0]; i++)
        tw_lua_set_num(L, RESULT_NUMS[i].name, *(const double *)(const void *)((const char *)r + RESULT_NUMS[i].off));
    push_stat(L, "ttft_s", &r->ttft_s);
    push_stat(L, "tpot_s", &r->tpot_s);
    push_stat(L, "itl_s", &r->itl_s);
    push_stat(L, "e2e_s", &r->e2e_s);
    push_stat(L, "queue_s", &r->queue_s);
}

/* The time series (series_n samples) as result.series = { time_s = {...}, waiting, running, kv_fraction }. */
static void push_series(lua_State *L, const tw_serve_sample *series, size_t n)
{
    const char *keys[] = {"time_s", "waiting", "running", "kv_fraction"};
    size_t i;
    int k;
    lua_createtable(L, 0, 4);
    for (k = 0; k < 4; k++) {
        lua_createtable(L, (int)n, 0);
        for (i = 0; i < n; i++) {
            lua_pushnumber(L, ((const double *)(const void *)&series[i])[k]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, keys[k]);
    }
    lua_setfield(L, -2, "series");
}

static int l_serve(lua_State *L)
{
    static const char *const record_keys[] = {"arrival_s", "first_token_s", "finish_s", "scheduled_s",
                                              "input_tokens", "output_tokens", "preemptions", "replica"};
    tw_serve_workload w;
    tw_serve_policy p;
    tw_serve_costs c, dc;
    tw_serve_result r;
    tw_serve_sample *series = NULL;
    size_t bytes, series_max, i;
    const char *bad = NULL;
    void *work;
    int status, records;
    double slo_ttft, slo_tpot, sm;
    luaL_checktype(L, 1, LUA_TTABLE);
    read_workload(L, &w);
    read_policy(L, &p);
    costs(L, 1, &c);
    lua_getfield(L, 1, "decode_pool");
    if (lua_istable(L, -1)) {
        costs(L, lua_gettop(L), &dc);
        c.decode_pool = &dc;
    } else if (!lua_isnil(L, -1)) {
        return tw_lua_field_error(L, P, "decode_pool", "expected a table of cost tables", -1);
    }
    slo_ttft = tw_lua_get_num(L, 1, "slo_ttft_s", P, 0.0);
    slo_tpot = tw_lua_get_num(L, 1, "slo_tpot_s", P, 0.0);
    records = flag(L, 1, "records", 0);
    sm = tw_lua_get_num(L, 1, "series_max", P, 0.0);
    if (!(sm >= 0 && sm <= 1e7 && sm == floor(sm)))
        return tw_lua_raise(L, "%s.series_max: expected an integer in [0, 1e7], got %g", P, sm);
    series_max = (size_t)sm;
    /* a count out of range gives 0 bytes: the core then names the field */
    bytes = tw_serve_workspace_bytes(&w, &p, series_max);
    if (bytes == 0) bytes = 8;
    work = lua_newuserdatauv(L, bytes, 0);
    if (series_max > 0) series = (tw_serve_sample *)lua_newuserdatauv(L, series_max * sizeof *series, 0);
    status = tw_serve_run(&w, &p, &c, slo_ttft, slo_tpot, work, bytes, series, series_max, &r, &bad);
    if (status != TW_OK) return run_error(L, status, bad, &p);
    push_result(L, &r);
    if (records) {
        lua_createtable(L, 0, 8);
        for (i = 0; i < 8; i++) push_column(L, record_keys[i], work, (size_t)r.requests, i);
        lua_setfield(L, -2, "records");
    }
    if (series_max > 0) push_series(L, series, (size_t)r.series_n);
    if (p.emit_max > 0) push_emissions(L, work, (size_t)w.requests);
    return 1;
}

/* argument `arg` of serve_step as a number: a number only (never "80", never nil unless it has a default) */
static double step_number(lua_State *L, int arg, const char *name, double dflt)
{
    if (lua_isnoneornil(L, arg) && !isnan(dflt)) return dflt;
    if (lua_type(L, arg) != LUA_TNUMBER) {
        lua_pushvalue(L, arg);
        return tw_lua_field_error(L, P ".step", name, "expected a number", -1);
    }
    return lua_tonumber(L, arg);
}

static int l_serve_step(lua_State *L)
{
    tw_serve_costs c;
    double n[256], p[256], b, ctx, k, time;
    lua_Integer i, len;
    const char *bad = NULL;
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    b = step_number(L, 3, "b", NAN);
    ctx = step_number(L, 4, "ctx", 1.0);
    k = step_number(L, 5, "k", 0.0);
    len = luaL_len(L, 2);
    if (len > 256) return tw_lua_raise(L, "%s.chunks: expected at most 256 chunks, got %I", P, len);
    for (i = 1; i <= len; i++) {
        lua_rawgeti(L, 2, i);
        if (!lua_istable(L, -1)) return tw_lua_raise(L, "%s.chunks[%I]: expected { n, p }", P, i);
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        /* token counts are numbers: "80" and nil are refused, not read as 80 and 0 */
        if (lua_type(L, -2) != LUA_TNUMBER || lua_type(L, -1) != LUA_TNUMBER)
            return tw_lua_raise(L, "%s.chunks[%I]: expected { n, p } as numbers (tokens)", P, i);
        n[i - 1] = lua_tonumber(L, -2);
        p[i - 1] = lua_tonumber(L, -1);
        lua_pop(L, 3);
    }
    costs(L, 1, &c);
    if (tw_serve_step_time(&c, n, p, (size_t)len, b, ctx, k, &time, &bad) != TW_OK)
        return tw_lua_raise(L, "%s.step.%s: expected a valid value", P, bad);
    lua_pushnumber(L, time);
    return 1;
}

void tw_lua_open_serve(lua_State *L)
{
    luaL_newmetatable(L, DRAWN_MT);
    lua_pushliteral(L, DRAWN_MT);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_serve_lengths);
    lua_setfield(L, -2, "serve_lengths");
    lua_pushcfunction(L, l_serve);
    lua_setfield(L, -2, "serve");
    lua_pushcfunction(L, l_serve_step);
    lua_setfield(L, -2, "serve_step");
}
