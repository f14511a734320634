/*
 * ltilewave_pass.c - Lua binding of tw_pass (src/tw_pass.h): a forward pass built once,
 * priced in one call. The pass comes as one flat array of numbers (no table per step:
 * building and reading it stays cheap next to the pricing):
 *
 *   core.pass({ count, layer (1 or 0), steps, floor_s,  -- an op (floor_s: its least time, s)
 *                kind, part, a, b, c, d, e, f, g,        -- each of its steps
 *              count, layer, steps, floor_s, ... }[, n])  -- the first n values (default all)
 *     kind 0 (GEMM):    a..g = m, n, k, batch, in_bytes, out_bytes, w_bytes (0: as in_bytes)
 *     kind 1 (kernel):  a, b = bytes, bw (c..g unused)
 *     kind 2 (fused):   a..f = bytes, bw, work, rate, sfu, sfu_rate (g unused)
 *     -> pass userdata (validated once)
 *   core.pass_time(dev, pass, kernel_s, host_s[, per_op]) -> time_s, layer_s, gemm_s (s)
 *     [, { each op's time per call (s) } when per_op is true]
 */
#include <string.h>

#include "lbind.h"

#define PASS_MT "tilewave.pass"
#define DEVICE_MT "tilewave.device"
#define STEP_VALUES 9
#define OP_VALUES 4

typedef struct {
    size_t n_ops, n_steps;
} pass_header;

/* the header, then the steps, then the ops, in one userdata */
static tw_pass_step *pass_steps(pass_header *h) { return (tw_pass_step *)(void *)(h + 1); }
static tw_pass_op *pass_ops(pass_header *h) { return (tw_pass_op *)(void *)(pass_steps(h) + h->n_steps); }

/* value i (1-based) of the array at index 1, a number */
static double value(lua_State *L, lua_Integer i)
{
    int isnum;
    double v;
    lua_rawgeti(L, 1, i);
    v = lua_tonumberx(L, -1, &isnum);
    if (!isnum) {
        const char *got = tw_lua_describe(L, -1);
        tw_lua_raise(L, "pass[%I]: expected a number, got %s", i, got);
    }
    lua_pop(L, 1);
    return v;
}

/* a number read as an integer field (out-of-range values become -1 for the core to refuse) */
static int64_t integer(double v) { return v >= -9.2e18 && v <= 9.2e18 && v == (double)(int64_t)v ? (int64_t)v : -1; }
/* an element size: 1..64, else -1 */
static int elem_size(double v) { return v >= 1 && v <= 64 && v == (double)(int)v ? (int)v : -1; }
/* an input element size, FP4's half byte included (the core refuses anything but 0.5, 1, 2, 4, 8) */
static double in_size(double v) { return v == v ? v : -1; }

/* core.pass(flat): count the ops and steps, then copy them into one userdata. */
static int l_pass(lua_State *L)
{
    /* 74 lines, one function: the two passes over the flat array (count, then copy) read the same
     * layout and must agree */
    lua_Integer len, at = 1;
    size_t n_ops = 0, n_steps = 0, i, next = 0, bad_index = 0;
    pass_header *h;
    tw_pass_step *steps;
    tw_pass_op *ops;
    const char *bad = NULL;
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    len = lua_isnoneornil(L, 2) ? luaL_len(L, 1) : luaL_checkinteger(L, 2);
    while (at <= len) {
        double k = at + 2 <= len ? value(L, at + 2) : -1;
        if (!(k >= 0 && k <= TW_PASS_MAX_STEPS) || at + 3 + STEP_VALUES * (lua_Integer)k > len)
            return tw_lua_raise(L, "pass[%I]: expected an op's step count with its steps after it", at + 2);
        n_ops++;
        n_steps += (size_t)k;
        at += OP_VALUES + STEP_VALUES * (lua_Integer)k;
        if (n_ops > TW_PASS_MAX_OPS || n_steps > TW_PASS_MAX_STEPS)
            return tw_lua_raise(L, "pass: expected at most %d ops and %d steps", TW_PASS_MAX_OPS, TW_PASS_MAX_STEPS);
    }
    h = (pass_header *)lua_newuserdatauv(L, sizeof *h + n_steps * sizeof(tw_pass_step) + n_ops * sizeof(tw_pass_op), 0);
    h->n_ops = n_ops;
    h->n_steps = n_steps;
    steps = pass_steps(h);
    ops = pass_ops(h);
    at = 1;
    for (i = 0; i < n_ops; i++) {
        int j;
        double layer = value(L, at + 1);
        ops[i].count = value(L, at);
        ops[i].layer = layer == 1 ? 1 : layer == 0 ? 0 : -1;
        ops[i].steps = (int)value(L, at + 2);
        ops[i].floor_s = value(L, at + 3);
        at += OP_VALUES;
        for (j = 0; j < ops[i].steps; j++, next++, at += STEP_VALUES) {
            tw_pass_step *s = &steps[next];
            double kind = value(L, at), part = value(L, at + 1), v[7];
            int q;
            for (q = 0; q < 7; q++) v[q] = value(L, at + 2 + q);
            memset(s, 0, sizeof *s);
            s->kind = kind == 0 || kind == 1 || kind == 2 ? (int)kind : -1;
            s->part = part == 0 || part == 1 || part == 2 ? (int)part : -1;
            if (s->kind == TW_STEP_GEMM) {
                s->gemm.m = integer(v[0]);
                s->gemm.n = integer(v[1]);
                s->gemm.k = integer(v[2]);
                s->gemm.batch = integer(v[3]);
                s->gemm.in_bytes = in_size(v[4]);
                s->gemm.out_bytes = elem_size(v[5]);
                s->gemm.w_bytes = v[6] == v[6] ? v[6] : -1;
            } else {
                s->bytes = v[0];
                s->bw = v[1];
                s->work = v[2];
                s->rate = v[3];
                s->sfu = v[4];
                s->sfu_rate = v[5];
            }
        }
    }
    status = tw_pass_validate(ops, n_ops, steps, n_steps, &bad_index, &bad);
    if (status != TW_OK) {
        /* name the op, or the op holding the bad step (1-based) */
        size_t op = 0, first = 0;
        if (strncmp(bad, "ops", 3) == 0)
            return tw_lua_raise(L, "pass: op %d: %s: %s", (int)bad_index + 1, bad, tw_field_expectation(bad));
        while (op + 1 < n_ops && first + (size_t)ops[op].steps <= bad_index) first += (size_t)ops[op++].steps;
        return tw_lua_raise(L, "pass: op %d, step %d: %s: %s (%s)", (int)op + 1, (int)(bad_index - first) + 1, bad,
                            tw_field_expectation(bad), tw_strerror(status));
    }
    luaL_setmetatable(L, PASS_MT);
    return 1;
}

/* core.pass_time(dev, pass, kernel_s, host_s, per_op) -> time_s, layer_s, gemm_s[, op times] */
static int l_pass_time(lua_State *L)
{
    const tw_gemm_plan *dev = (const tw_gemm_plan *)luaL_checkudata(L, 1, DEVICE_MT);
    pass_header *h = (pass_header *)luaL_checkudata(L, 2, PASS_MT);
    double kernel_s = luaL_checknumber(L, 3), host_s = luaL_optnumber(L, 4, 0.0);
    int per_op = lua_toboolean(L, 5);
    double *op_s = per_op ? (double *)lua_newuserdatauv(L, h->n_ops * sizeof(double) + 1, 0) : NULL;
    tw_pass_result r;
    const char *bad = NULL;
    size_t i;
    int status = tw_pass_estimate(dev, pass_ops(h), h->n_ops, pass_steps(h), h->n_steps, kernel_s, host_s, op_s,
                                  &r, &bad);
    if (status != TW_OK) return tw_lua_raise(L, "pass_time.%s: %s (%s)", bad, tw_field_expectation(bad), tw_strerror(status));
    lua_pushnumber(L, r.time_s);
    lua_pushnumber(L, r.layer_s);
    lua_pushnumber(L, r.gemm_s);
    if (!per_op) return 3;
    lua_createtable(L, (int)h->n_ops, 0);
    for (i = 0; i < h->n_ops; i++) {
        lua_pushnumber(L, op_s[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 4;
}

void tw_lua_open_pass(lua_State *L)
{
    luaL_newmetatable(L, PASS_MT);
    lua_pushliteral(L, PASS_MT);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_pass);
    lua_setfield(L, -2, "pass");
    lua_pushcfunction(L, l_pass_time);
    lua_setfield(L, -2, "pass_time");
}
