/*
 * ltilewave.c - the Lua 5.4 binding of libtilewave: module `tilewave.core`.
 * The only file that includes lua.h. Arguments are read into C structs first,
 * then the core is called, then the result table is built, so an error raised
 * from Lua never leaves anything to free.
 *
 *   core.device(tbl)            -> device userdata (validated tw_device)
 *   core.gemm(dev, shape)       -> result table (see tilewave.h tw_gemm_result)
 *   core.gemm_many(dev, flat, opts) -> times (s), rates (FLOP/s): arrays
 *   core.roofline(tbl)          -> result table
 *   core.decode(tbl)            -> decode step (tilewave.h tw_decode_result)
 *   core.memory_fit(tbl)        -> memory budget (tw_memory_result)
 *   core.attention_io(tbl)      -> standard vs FlashAttention traffic (tw_attention_result)
 *   core.collective(tbl)        -> alpha-beta collective time (tw_collective_result)
 * Errors are raised as "<prefix>.<field>: <expectation>, got <value>".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "tilewave.h"

#define DEVICE_MT "tilewave.device"

/* Raise a message without luaL_error's "file:line:" prefix: the message
 * names the field, which is all a user needs. */
static int raise(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return lua_error(L);
}

/* Push a short description of the value at idx: "-3", "2.5", "string '80'", "nil". */
static const char *describe(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) return lua_pushfstring(L, "%I", lua_tointeger(L, idx));
        return lua_pushfstring(L, "%s", luaL_tolstring(L, idx, NULL));
    case LUA_TSTRING: return lua_pushfstring(L, "string '%s'", lua_tostring(L, idx));
    default: return lua_pushstring(L, luaL_typename(L, idx));
    }
}

static int field_error(lua_State *L, const char *prefix, const char *field, const char *expect,
                       int value_idx)
{
    const char *got = describe(L, value_idx);
    return raise(L, "%s.%s: %s, got %s", prefix, field, expect, got);
}

/* Read an integer field; a missing field takes `dflt` when dflt >= 0. */
static int64_t get_int(lua_State *L, int t, const char *key, const char *prefix, int64_t dflt)
{
    int64_t v = 0;
    int type = lua_getfield(L, t, key);
    if (type == LUA_TNIL && dflt >= 0) {
        lua_pop(L, 1);
        return dflt;
    }
    if (type != LUA_TNUMBER) return field_error(L, prefix, key, "expected positive integer", -1);
    if (lua_isinteger(L, -1)) {
        v = lua_tointeger(L, -1);
    } else {
        double d = lua_tonumber(L, -1);
        /* integral floats (4096.0, 1e12) pass here; the core checks the range */
        if (!isfinite(d) || d != floor(d)) return field_error(L, prefix, key, "expected positive integer", -1);
        if (d >= 9.2e18 || d <= -9.2e18) v = d > 0 ? INT64_MAX : INT64_MIN;
        else v = (int64_t)d;
    }
    lua_pop(L, 1);
    return v;
}

/* Read a number field; a missing field takes `dflt` unless dflt is NaN. */
static double get_num(lua_State *L, int t, const char *key, const char *prefix, double dflt)
{
    double v;
    int type = lua_getfield(L, t, key);
    if (type == LUA_TNIL && !isnan(dflt)) {
        lua_pop(L, 1);
        return dflt;
    }
    if (type != LUA_TNUMBER) return field_error(L, prefix, key, "expected number", -1);
    v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* Raise the core's complaint about `field` of the table at t. */
static int core_error(lua_State *L, int t, const char *prefix, const char *field, int status)
{
    const char *dot = strchr(field, '.');
    const char *key = dot != NULL ? dot + 1 : field;
    const char *expect = tw_field_expectation(field);
    if (strcmp(field, "device.figures") == 0) return raise(L, "%s: %s", prefix, expect);
    if (status == TW_ERANGE && strcmp(field, "m*n*batch") != 0)
        expect = strcmp(prefix, "gemm") == 0 ? "out of range (max 2147483647)"
                                              : "out of range (element counts must stay below 2^53)";
    if (strcmp(field, "m*n*batch") == 0) {
        lua_pushnumber(L, (double)get_int(L, t, "m", prefix, 1) * (double)get_int(L, t, "n", prefix, 1) *
                              (double)get_int(L, t, "batch", prefix, 1));
        return field_error(L, prefix, field, expect, -1);
    }
    if (strchr(key, '.') != NULL || strchr(key, '[') != NULL || strchr(key, '*') != NULL) {
        lua_pushnil(L);
        return raise(L, "%s.%s: %s", prefix, key, expect);
    }
    lua_getfield(L, t, key);
    return field_error(L, prefix, key, expect, -1);
}

/* device.<key>: an array of TW_ALIGN_CLASSES numbers into out[]; an optional one
 * (required = 0) that is absent leaves 1 in every class. Raises a one-line error. */
static int get_classes(lua_State *L, const char *key, int required, double *out)
{
    int i, type = lua_getfield(L, 1, key);

    for (i = 0; i < TW_ALIGN_CLASSES; i++) out[i] = 1.0;
    if (type == LUA_TNIL && !required) {
        lua_pop(L, 1);
        return TW_OK;
    }
    if (type != LUA_TTABLE) return field_error(L, "device", key, "expected array of 8 numbers", -1);
    if (luaL_len(L, -1) != TW_ALIGN_CLASSES)
        return raise(L, "device.%s: expected 8 numbers (1, 2, 4 ... 128 bytes)", key);
    for (i = 0; i < TW_ALIGN_CLASSES; i++) {
        if (lua_rawgeti(L, -1, i + 1) != LUA_TNUMBER)
            return field_error(L, "device", key, "expected number in (0, 1]", -1);
        out[i] = lua_tonumber(L, -1);
        if (!(out[i] > 0.0 && out[i] <= 1.0)) { /* name the class here: the core names only the table */
            char field[32];
            snprintf(field, sizeof field, "%s[%d]", key, i + 1);
            return field_error(L, "device", field, "expected number in (0, 1]", -1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return TW_OK;
}

/* ---- device ---- */

static int l_device(lua_State *L)
{
    tw_device dev;
    tw_device *ud;
    const char *bad = NULL;
    int i, n, status;

    luaL_checktype(L, 1, LUA_TTABLE);
    memset(&dev, 0, sizeof dev);
    dev.sm_count = (int)get_int(L, 1, "sm_count", "device", -1);
    dev.peak_flops = get_num(L, 1, "peak_flops", "device", NAN);
    dev.compute_frac = get_num(L, 1, "compute_frac", "device", NAN);
    dev.mem_bw = get_num(L, 1, "mem_bw", "device", NAN);
    dev.mem_frac = get_num(L, 1, "mem_frac", "device", NAN);
    dev.write_frac = get_num(L, 1, "write_frac", "device", dev.mem_frac);
    dev.l2_bytes = get_num(L, 1, "l2_bytes", "device", 0.0);
    dev.call_overhead_s = get_num(L, 1, "call_overhead_s", "device", 0.0);
    dev.reduce_overhead_s = get_num(L, 1, "reduce_overhead_s", "device", 0.0);
    dev.tile_latency_s = get_num(L, 1, "tile_latency_s", "device", 0.0);
    dev.kstep_latency_s = get_num(L, 1, "kstep_latency_s", "device", 0.0);
    dev.max_split_k = (int)get_int(L, 1, "max_split_k", "device", 1);

    if (lua_getfield(L, 1, "tiles") != LUA_TTABLE)
        return field_error(L, "device", "tiles", "expected array of tiles", -1);
    n = (int)luaL_len(L, -1);
    if (n < 1 || n > TW_MAX_TILES) return raise(L, "device.tiles: expected 1 to %d tiles, got %d", TW_MAX_TILES, n);
    dev.n_tiles = n;
    for (i = 0; i < n; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "device.tiles[%d]", i + 1);
        if (lua_rawgeti(L, -1, i + 1) != LUA_TTABLE) return field_error(L, "device", prefix + 7, "expected table", -1);
        dev.tiles[i].m = get_int(L, -1, "m", prefix, -1);
        dev.tiles[i].n = get_int(L, -1, "n", prefix, -1);
        dev.tiles[i].eff = get_num(L, -1, "eff", prefix, NAN);
        dev.tiles[i].ctas_per_sm = (int)get_int(L, -1, "ctas_per_sm", prefix, 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);

    get_classes(L, "align_eff", 1, dev.align_eff); /* each raises on bad input */
    get_classes(L, "align_mem_eff", 0, dev.align_mem_eff);

    status = tw_device_validate(&dev, &bad);
    if (status != TW_OK) {
        for (i = 0; i < dev.n_tiles && strncmp(bad, "device.tiles.", 13) == 0; i++) {
            const tw_tile *t = &dev.tiles[i];
            if (t->m < 1 || t->m > 4096 || t->n < 1 || t->n > 4096 || !(t->eff > 0 && t->eff <= 1) ||
                t->ctas_per_sm < 1 || t->ctas_per_sm > 32)
                return raise(L, "device.tiles[%d].%s: %s", i + 1, bad + 13, tw_field_expectation(bad));
        }
        return core_error(L, 1, "device", bad, status);
    }
    ud = (tw_device *)lua_newuserdatauv(L, sizeof *ud, 0);
    *ud = dev;
    luaL_setmetatable(L, DEVICE_MT);
    return 1;
}

/* ---- gemm ---- */

static void read_shape(lua_State *L, int t, tw_gemm_shape *s)
{
    s->m = get_int(L, t, "m", "gemm", -1);
    s->n = get_int(L, t, "n", "gemm", -1);
    s->k = get_int(L, t, "k", "gemm", -1);
    s->batch = get_int(L, t, "batch", "gemm", 1);
    s->in_bytes = (int)get_int(L, t, "in_bytes", "gemm", 2);
    s->out_bytes = (int)get_int(L, t, "out_bytes", "gemm", 2);
}

static void set_num(lua_State *L, const char *k, double v) { lua_pushnumber(L, v); lua_setfield(L, -2, k); }
static void set_int(lua_State *L, const char *k, int64_t v) { lua_pushinteger(L, v); lua_setfield(L, -2, k); }

static int l_gemm(lua_State *L)
{
    const tw_device *dev = (const tw_device *)luaL_checkudata(L, 1, DEVICE_MT);
    tw_gemm_shape s;
    tw_gemm_result r;
    const char *bad = NULL;
    int status;

    luaL_checktype(L, 2, LUA_TTABLE);
    read_shape(L, 2, &s);
    status = tw_gemm_estimate(dev, &s, &r, &bad);
    if (status != TW_OK) return core_error(L, 2, "gemm", bad, status);

    lua_createtable(L, 0, 24);
    set_num(L, "time_s", r.time_s);
    set_num(L, "flop_rate", r.flop_rate);
    set_num(L, "tflops", r.flop_rate / 1e12);
    set_num(L, "flops", r.flops);
    set_num(L, "bytes", r.bytes);
    set_num(L, "dram_bytes", r.dram_bytes);
    set_num(L, "intensity", r.intensity);
    set_num(L, "compute_s", r.compute_s);
    set_num(L, "memory_s", r.memory_s);
    set_num(L, "overhead_s", r.overhead_s);
    lua_pushstring(L, tw_bound_name(r.bound));
    lua_setfield(L, -2, "bound");
    lua_createtable(L, 0, 2);
    set_int(L, "m", r.tile_m);
    set_int(L, "n", r.tile_n);
    lua_setfield(L, -2, "tile");
    set_int(L, "split_k", r.split_k);
    set_int(L, "tiles", r.tiles);
    set_int(L, "waves", r.waves);
    set_num(L, "tile_eff", r.tile_eff);
    set_num(L, "wave_eff", r.wave_eff);
    set_num(L, "align_eff", r.align_eff);
    set_int(L, "align_bytes", r.align_bytes);
    return 1;
}

/*
 * core.gemm_many(dev, flat, opts) with flat = {m1, n1, k1, m2, n2, k2, ...}
 * and opts = {batch=1, in_bytes=2, out_bytes=2} shared by all shapes.
 * Returns two arrays: times (s) and rates (FLOP/s).
 */
static int l_gemm_many(lua_State *L)
{
    const tw_device *dev = (const tw_device *)luaL_checkudata(L, 1, DEVICE_MT);
    lua_Integer len, count, i;
    tw_gemm_shape *shapes, proto;
    double *times, *rates;
    size_t bad_index = 0;
    const char *bad = NULL;
    int status;

    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_isnoneornil(L, 3)) lua_newtable(L);
    luaL_checktype(L, 3, LUA_TTABLE);
    len = luaL_len(L, 2);
    if (len % 3 != 0) return raise(L, "gemm_many.shapes: expected a flat list of M, N, K triples, got %I values", len);
    count = len / 3;
    proto.m = proto.n = proto.k = 1;
    proto.batch = get_int(L, 3, "batch", "gemm", 1);
    proto.in_bytes = (int)get_int(L, 3, "in_bytes", "gemm", 2);
    proto.out_bytes = (int)get_int(L, 3, "out_bytes", "gemm", 2);

    shapes = (tw_gemm_shape *)lua_newuserdatauv(L, (size_t)(count ? count : 1) * (sizeof *shapes + 2 * sizeof(double)), 0);
    times = (double *)(shapes + (count ? count : 1));
    rates = times + (count ? count : 1);
    for (i = 0; i < count; i++) {
        int j;
        int64_t v[3];
        for (j = 0; j < 3; j++) {
            int isnum;
            lua_Integer x;
            lua_rawgeti(L, 2, 3 * i + j + 1);
            x = lua_tointegerx(L, -1, &isnum);
            if (!isnum) {
                const char *got = describe(L, -1);
                return raise(L, "gemm_many.shapes[%I]: expected positive integer, got %s", 3 * i + j + 1, got);
            }
            v[j] = x;
            lua_pop(L, 1);
        }
        shapes[i] = proto;
        shapes[i].m = v[0];
        shapes[i].n = v[1];
        shapes[i].k = v[2];
    }
    status = tw_gemm_estimate_many(dev, shapes, (size_t)count, times, rates, &bad_index, &bad);
    if (status != TW_OK && strcmp(bad, "device.figures") == 0)
        return raise(L, "gemm_many: %s", tw_field_expectation(bad));
    if (status != TW_OK)
        return raise(L, "gemm_many.shapes[%I].%s: %s", (lua_Integer)bad_index + 1, bad,
                          status == TW_ERANGE ? "out of range" : tw_field_expectation(bad));
    lua_createtable(L, (int)count, 0);
    for (i = 0; i < count; i++) {
        lua_pushnumber(L, times[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_createtable(L, (int)count, 0);
    for (i = 0; i < count; i++) {
        lua_pushnumber(L, rates[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 2;
}

/* ---- roofline ---- */

static int l_roofline(lua_State *L)
{
    tw_roofline_input in;
    tw_roofline_result r;
    const char *bad = NULL;
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.flops = get_num(L, 1, "flops", "roofline", NAN);
    in.bytes = get_num(L, 1, "bytes", "roofline", NAN);
    in.peak_flops = get_num(L, 1, "peak_flops", "roofline", NAN);
    in.compute_frac = get_num(L, 1, "compute_frac", "roofline", 1.0);
    in.mem_bw = get_num(L, 1, "mem_bw", "roofline", NAN);
    in.mem_frac = get_num(L, 1, "mem_frac", "roofline", 1.0);
    status = tw_roofline(&in, &r, &bad);
    if (status != TW_OK) return core_error(L, 1, "roofline", bad, status);

    lua_createtable(L, 0, 6);
    set_num(L, "time_s", r.time_s);
    set_num(L, "compute_s", r.compute_s);
    set_num(L, "memory_s", r.memory_s);
    set_num(L, "intensity", r.intensity);
    set_num(L, "ridge", r.ridge);
    lua_pushstring(L, tw_bound_name(r.bound));
    lua_setfield(L, -2, "bound");
    return 1;
}

/* ---- decode, memory, attention IO, collectives ---- */

static int l_decode(lua_State *L)
{
    tw_decode_input in;
    tw_decode_result r;
    const char *bad = NULL;
    const char *P = "decode";
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.weight_bytes = get_num(L, 1, "weight_bytes", P, NAN);
    in.matmul_params = get_num(L, 1, "matmul_params", P, NAN);
    in.dequant_ops = get_num(L, 1, "dequant_ops", P, 0.0);
    in.layers = get_num(L, 1, "layers", P, NAN);
    in.kv_heads = get_num(L, 1, "kv_heads", P, NAN);
    in.q_heads = get_num(L, 1, "q_heads", P, NAN);
    in.head_dim = get_num(L, 1, "head_dim", P, NAN);
    in.kv_elem_bytes = get_num(L, 1, "kv_elem_bytes", P, 2.0);
    in.context = get_num(L, 1, "context", P, NAN);
    in.batch = get_num(L, 1, "batch", P, 1.0);
    in.act_bytes = get_num(L, 1, "act_bytes", P, 0.0);
    in.peak_flops = get_num(L, 1, "peak_flops", P, NAN);
    in.compute_frac = get_num(L, 1, "compute_frac", P, 1.0);
    in.vector_flops = get_num(L, 1, "vector_flops", P, NAN);
    in.mem_bw = get_num(L, 1, "mem_bw", P, NAN);
    in.mem_frac = get_num(L, 1, "mem_frac", P, 1.0);
    in.kernels = get_num(L, 1, "kernels", P, 0.0);
    in.launch_s = get_num(L, 1, "launch_s", P, 0.0);
    in.attn_dim = get_num(L, 1, "attn_dim", P, 0.0);
    status = tw_decode_step(&in, &r, &bad);
    if (status != TW_OK) return core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 16);
    set_num(L, "tpot_s", r.tpot_s);
    set_num(L, "tokens_per_s", r.tokens_per_s);
    set_num(L, "aggregate_tokens_per_s", r.aggregate_tokens_per_s);
    set_num(L, "bytes", r.bytes);
    set_num(L, "weight_bytes", r.weight_bytes);
    set_num(L, "kv_bytes", r.kv_bytes);
    set_num(L, "flops", r.flops);
    set_num(L, "compute_s", r.compute_s);
    set_num(L, "memory_s", r.memory_s);
    set_num(L, "dequant_s", r.dequant_s);
    set_num(L, "overhead_s", r.overhead_s);
    set_num(L, "achieved_bw", r.achieved_bw);
    set_num(L, "intensity", r.intensity);
    lua_pushstring(L, tw_bound_name(r.bound));
    lua_setfield(L, -2, "bound");
    return 1;
}

static int l_memory_fit(lua_State *L)
{
    tw_memory_input in;
    tw_memory_result r;
    const char *bad = NULL;
    const char *P = "memory";
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.weight_bytes = get_num(L, 1, "weight_bytes", P, NAN);
    in.kv_bytes_per_token = get_num(L, 1, "kv_bytes_per_token", P, NAN);
    in.context = get_num(L, 1, "context", P, NAN);
    in.batch = get_num(L, 1, "batch", P, 1.0);
    in.workspace_bytes = get_num(L, 1, "workspace_bytes", P, 0.0);
    in.memory_bytes = get_num(L, 1, "memory_bytes", P, NAN);
    status = tw_memory_fit(&in, &r, &bad);
    if (status != TW_OK) return core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 6);
    set_num(L, "kv_bytes", r.kv_bytes);
    set_num(L, "total_bytes", r.total_bytes);
    set_num(L, "free_bytes", r.free_bytes);
    lua_pushboolean(L, r.fits);
    lua_setfield(L, -2, "fits");
    set_int(L, "max_batch", (int64_t)r.max_batch);
    set_int(L, "max_context", (int64_t)r.max_context);
    return 1;
}

static int l_attention_io(lua_State *L)
{
    tw_attention_input in;
    tw_attention_result r;
    const char *bad = NULL;
    const char *P = "attention";
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.seq_len = get_num(L, 1, "seq_len", P, NAN);
    in.head_dim = get_num(L, 1, "head_dim", P, NAN);
    in.heads = get_num(L, 1, "heads", P, 1.0);
    in.elem_bytes = get_num(L, 1, "elem_bytes", P, 2.0);
    in.sram_bytes = get_num(L, 1, "sram_bytes", P, NAN);
    status = tw_attention_io(&in, &r, &bad);
    if (status != TW_OK) return core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 9);
    set_num(L, "standard_bytes", r.standard_bytes);
    set_num(L, "flash_bytes", r.flash_bytes);
    set_num(L, "standard_bwd_bytes", r.standard_bwd_bytes);
    set_num(L, "flash_bwd_bytes", r.flash_bwd_bytes);
    set_num(L, "standard_mem_bytes", r.standard_mem_bytes);
    set_num(L, "flash_mem_bytes", r.flash_mem_bytes);
    set_int(L, "block_cols", (int64_t)r.block_cols);
    set_int(L, "block_rows", (int64_t)r.block_rows);
    set_int(L, "passes", (int64_t)r.passes);
    return 1;
}

static int l_collective(lua_State *L)
{
    static const char *const kinds[] = { "allreduce_ring", "allreduce_tree", "allgather_ring",
                                         "reducescatter_ring", "p2p", "alltoall", NULL };
    tw_collective_input in;
    tw_collective_result r;
    const char *bad = NULL;
    const char *P = "collective";
    int status, i;

    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "kind");
    in.kind = -1;
    if (lua_type(L, -1) == LUA_TSTRING)
        for (i = 0; kinds[i] != NULL; i++)
            if (strcmp(lua_tostring(L, -1), kinds[i]) == 0) in.kind = i;
    if (in.kind < 0) return field_error(L, P, "kind", tw_field_expectation("kind"), -1);
    lua_pop(L, 1);
    in.bytes = get_num(L, 1, "bytes", P, NAN);
    in.group = get_num(L, 1, "group", P, NAN);
    in.link_bw = get_num(L, 1, "link_bw", P, NAN);
    in.latency_s = get_num(L, 1, "latency_s", P, 0.0);
    status = tw_collective(&in, &r, &bad);
    if (status != TW_OK) return core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 4);
    set_num(L, "time_s", r.time_s);
    set_num(L, "steps", r.steps);
    set_num(L, "wire_bytes", r.wire_bytes);
    set_num(L, "bus_bw", r.bus_bw);
    return 1;
}

static const luaL_Reg funcs[] = {
    {"decode", l_decode},
    {"memory_fit", l_memory_fit},
    {"attention_io", l_attention_io},
    {"collective", l_collective},
    {"device", l_device},
    {"gemm", l_gemm},
    {"gemm_many", l_gemm_many},
    {"roofline", l_roofline},
    {NULL, NULL},
};

int luaopen_tilewave_core(lua_State *L)
{
    luaL_newmetatable(L, DEVICE_MT);
    lua_pushliteral(L, "tilewave.device");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    luaL_newlib(L, funcs);
    lua_pushliteral(L, TW_VERSION);
    lua_setfield(L, -2, "_VERSION");
    return 1;
}
