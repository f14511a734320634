/*
 * ltilewave_pass.c - Lua binding of tw_pass (src/tw_pass.h): a forward pass built once,
 * priced in one call.
 *
 *   core.pass{ { count = 32, layer = true, steps = {
 *                  { kind = "gemm", m =, n =, k =, batch = 1, in_bytes = 2, out_bytes = 2 },
 *                  { kind = "kernel", part = 1, bytes =, bw = },
 *                  { kind = "fused", bytes =, bw =, work =, rate =, sfu =, sfu_rate = } } }, ... }
 *     -> pass userdata (validated once)
 *   core.pass_time(dev, pass, kernel_s, host_s) -> time_s, layer_s, gemm_s (s)
 */
#include <string.h>

#include "lbind.h"

#define PASS_MT "tilewave.pass"
#define DEVICE_MT "tilewave.device"

typedef struct {
    size_t n_ops, n_steps;
} pass_header;

/* the header, then the steps, then the ops, in one userdata */
static tw_pass_step *pass_steps(pass_header *h) { return (tw_pass_step *)(void *)(h + 1); }
static tw_pass_op *pass_ops(pass_header *h) { return (tw_pass_op *)(void *)(pass_steps(h) + h->n_steps); }

static const char *const KINDS[] = { "gemm", "kernel", "fused", NULL };

static double get_num(lua_State *L, int t, const char *key, const char *prefix)
{
    return tw_lua_get_num(L, t, key, prefix, 0.0);
}

static void read_step(lua_State *L, int t, tw_pass_step *s, const char *prefix)
{
    memset(s, 0, sizeof *s);
    int i;
    const char *kind = lua_getfield(L, t, "kind") == LUA_TSTRING ? lua_tostring(L, -1) : "";
    for (i = 0; KINDS[i] != NULL && strcmp(KINDS[i], kind) != 0; i++) {}
    if (KINDS[i] == NULL) tw_lua_field_error(L, prefix, "kind", "expected 'gemm', 'kernel' or 'fused'", -1);
    s->kind = i;
    lua_pop(L, 1);
    s->part = (int)tw_lua_get_int(L, t, "part", prefix, 0);
    if (s->kind == TW_STEP_GEMM) {
        s->gemm.m = tw_lua_get_int(L, t, "m", prefix, -1);
        s->gemm.n = tw_lua_get_int(L, t, "n", prefix, -1);
        s->gemm.k = tw_lua_get_int(L, t, "k", prefix, -1);
        s->gemm.batch = tw_lua_get_int(L, t, "batch", prefix, 1);
        s->gemm.in_bytes = (int)tw_lua_get_int(L, t, "in_bytes", prefix, 2);
        s->gemm.out_bytes = (int)tw_lua_get_int(L, t, "out_bytes", prefix, 2);
        return;
    }
    s->bytes = get_num(L, t, "bytes", prefix);
    s->bw = get_num(L, t, "bw", prefix);
    if (s->kind == TW_STEP_FUSED) {
        s->work = get_num(L, t, "work", prefix);
        s->rate = get_num(L, t, "rate", prefix);
        s->sfu = get_num(L, t, "sfu", prefix);
        s->sfu_rate = get_num(L, t, "sfu_rate", prefix);
    }
}

/* core.pass(ops): count the steps, then copy ops and steps into one userdata. */
static int l_pass(lua_State *L)
{
    lua_Integer n_ops, i, j, n_steps = 0, next = 0;
    pass_header *h;
    tw_pass_step *steps;
    tw_pass_op *ops;
    size_t bad_index = 0;
    const char *bad = NULL;
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    n_ops = luaL_len(L, 1);
    if (n_ops > TW_PASS_MAX_OPS) return tw_lua_raise(L, "pass: expected at most %d ops, got %I", TW_PASS_MAX_OPS, n_ops);
    for (i = 1; i <= n_ops; i++) {
        if (lua_geti(L, 1, i) != LUA_TTABLE) return tw_lua_raise(L, "pass[%I]: expected table, got %s", i, luaL_typename(L, -1));
        if (lua_getfield(L, -1, "steps") != LUA_TTABLE)
            return tw_lua_raise(L, "pass[%I].steps: expected table, got %s", i, luaL_typename(L, -1));
        n_steps += luaL_len(L, -1);
        lua_pop(L, 2);
        if (n_steps > TW_PASS_MAX_STEPS) return tw_lua_raise(L, "pass: expected at most %d steps", TW_PASS_MAX_STEPS);
    }
    h = (pass_header *)lua_newuserdatauv(L, sizeof *h + (size_t)n_steps * sizeof(tw_pass_step) +
                                                (size_t)n_ops * sizeof(tw_pass_op), 0);
    h->n_ops = (size_t)n_ops;
    h->n_steps = (size_t)n_steps;
    steps = pass_steps(h);
    ops = pass_ops(h);
    for (i = 1; i <= n_ops; i++) {
        const char *prefix = lua_pushfstring(L, "pass[%I]", i);
        lua_geti(L, 1, i);
        ops[i - 1].count = tw_lua_get_num(L, -1, "count", prefix, 1.0);
        lua_getfield(L, -1, "layer");
        ops[i - 1].layer = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -1, "steps");
        ops[i - 1].steps = (int)luaL_len(L, -1);
        for (j = 1; j <= ops[i - 1].steps; j++) {
            const char *sp = lua_pushfstring(L, "%s.steps[%I]", prefix, j);
            lua_geti(L, -2, j);
            luaL_checktype(L, -1, LUA_TTABLE);
            read_step(L, lua_gettop(L), &steps[next++], sp);
            lua_pop(L, 2);
        }
        lua_pop(L, 3);
    }
    status = tw_pass_validate(ops, h->n_ops, steps, h->n_steps, &bad_index, &bad);
    if (status != TW_OK) {
        /* name the op, or the op holding the bad step */
        size_t op = 0, first = 0;
        if (strncmp(bad, "ops", 3) == 0 || strcmp(bad, "steps") == 0) {
            return tw_lua_raise(L, "pass[%d].%s: %s", (int)bad_index + 1, bad, tw_field_expectation(bad));
        }
        while (op + 1 < h->n_ops && first + (size_t)ops[op].steps <= bad_index) first += (size_t)ops[op++].steps;
        return tw_lua_raise(L, "pass[%d].steps[%d].%s: %s (%s)", (int)op + 1, (int)(bad_index - first) + 1, bad,
                            tw_field_expectation(bad), tw_strerror(status));
    }
    luaL_setmetatable(L, PASS_MT);
    return 1;
}

/* core.pass_time(dev, pass, kernel_s, host_s) -> time_s, layer_s, gemm_s */
static int l_pass_time(lua_State *L)
{
    const tw_gemm_plan *dev = (const tw_gemm_plan *)luaL_checkudata(L, 1, DEVICE_MT);
    pass_header *h = (pass_header *)luaL_checkudata(L, 2, PASS_MT);
    double kernel_s = luaL_checknumber(L, 3), host_s = luaL_optnumber(L, 4, 0.0);
    tw_pass_result r;
    const char *bad = NULL;
    int status = tw_pass_estimate(dev, pass_ops(h), h->n_ops, pass_steps(h), h->n_steps, kernel_s, host_s, NULL,
                                  &r, &bad);
    if (status != TW_OK) return tw_lua_raise(L, "pass_time.%s: %s (%s)", bad, tw_field_expectation(bad), tw_strerror(status));
    lua_pushnumber(L, r.time_s);
    lua_pushnumber(L, r.layer_s);
    lua_pushnumber(L, r.gemm_s);
    return 3;
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
