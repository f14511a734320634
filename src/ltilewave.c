/*
 * ltilewave.c - the Lua 5.4 binding of libtilewave: module `tilewave.core`
 * (device, GEMM, roofline here; decode, memory, attention, collectives in
 * ltilewave_ops.c; shared helpers in lbind.c). Arguments are read into C structs first,
 * then the core is called, then the result table is built, so an error raised
 * from Lua never leaves anything to free.
 *
 *   core.device(tbl)            -> device userdata (a tw_gemm_plan: validated and prepared once)
 *   core.gemm(dev, shape)       -> result table (see tw_gemm.h tw_gemm_result)
 *   core.gemm_many(dev, flat, opts) -> times (s), rates (FLOP/s): arrays
 *   core.gemm_time(dev, m, n, k, batch, in_bytes, out_bytes) -> time (s)
 *   core.pass(flat), core.pass_time(dev, pass, ...) -> a whole pass (ltilewave_pass.c)
 *   core.roofline(tbl)          -> result table
 *   core.decode(tbl)            -> decode step (tilewave.h tw_decode_result)
 *   core.splitkv(tbl)           -> decode attention splits and occupancy (tw_splitkv_result)
 *   core.memory_fit(tbl)        -> memory budget (tw_memory_result)
 *   core.attention_io(tbl)      -> standard vs FlashAttention traffic (tw_attention_result)
 *   core.collective(tbl)        -> alpha-beta collective time (tw_collective_result)
 * Errors are raised as "<prefix>.<field>: <expectation>, got <value>".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lbind.h"

#define DEVICE_MT "tilewave.device"

/* ---- device ---- */

static int l_device(lua_State *L)
{
    /* 75 lines, one function: every field of the device table read in struct order, each one line */
    tw_device dev;
    tw_gemm_plan *ud;
    const char *bad = NULL;
    int i, n, status;

    luaL_checktype(L, 1, LUA_TTABLE);
    memset(&dev, 0, sizeof dev);
    dev.sm_count = (int)tw_lua_get_int(L, 1, "sm_count", "device", -1);
    dev.peak_flops = tw_lua_get_num(L, 1, "peak_flops", "device", NAN);
    dev.compute_frac = tw_lua_get_num(L, 1, "compute_frac", "device", NAN);
    dev.mem_bw = tw_lua_get_num(L, 1, "mem_bw", "device", NAN);
    dev.mem_frac = tw_lua_get_num(L, 1, "mem_frac", "device", NAN);
    dev.write_frac = tw_lua_get_num(L, 1, "write_frac", "device", dev.mem_frac);
    dev.write_exposed = tw_lua_get_num(L, 1, "write_exposed", "device", 0.0);
    dev.write_exposed_non_tma = tw_lua_get_num(L, 1, "write_exposed_non_tma", "device", dev.write_exposed);
    dev.write_sector_cost = tw_lua_get_num(L, 1, "write_sector_cost", "device", 0.0);
    dev.fill_stages = tw_lua_get_num(L, 1, "fill_stages", "device", 0.0);
    dev.drain_exposed = tw_lua_get_num(L, 1, "drain_exposed", "device", 0.0);
    dev.l2_bytes = tw_lua_get_num(L, 1, "l2_bytes", "device", 0.0);
    dev.call_overhead_s = tw_lua_get_num(L, 1, "call_overhead_s", "device", 0.0);
    dev.tma_overhead_s = tw_lua_get_num(L, 1, "tma_overhead_s", "device", 0.0);
    dev.reduce_overhead_s = tw_lua_get_num(L, 1, "reduce_overhead_s", "device", 0.0);
    dev.splitk_tma_latency_s = tw_lua_get_num(L, 1, "splitk_tma_latency_s", "device", 0.0);
    dev.unsplit_reduce_m = tw_lua_get_num(L, 1, "unsplit_reduce_m", "device", 0.0);
    dev.unsplit_reduce_n = tw_lua_get_num(L, 1, "unsplit_reduce_n", "device", 0.0);
    dev.tile_latency_s = tw_lua_get_num(L, 1, "tile_latency_s", "device", 0.0);
    dev.kstep_latency_s = tw_lua_get_num(L, 1, "kstep_latency_s", "device", 0.0);
    dev.max_split_k = (int)tw_lua_get_int(L, 1, "max_split_k", "device", 1);
    dev.stream_k = (int)tw_lua_get_int(L, 1, "stream_k", "device", 0);
    dev.split_k_any = (int)tw_lua_get_int(L, 1, "split_k_any", "device", 0);
    dev.streamk_fixup_s = tw_lua_get_num(L, 1, "streamk_fixup_s", "device", 0.0);
    dev.n_off_tma_eff = tw_lua_get_num(L, 1, "n_off_tma_eff", "device", 0.0);
    dev.n_off_tma_max_mn = tw_lua_get_num(L, 1, "n_off_tma_max_mn", "device", 0.0);
    dev.n_off_tma_overhead_s = tw_lua_get_num(L, 1, "n_off_tma_overhead_s", "device", 0.0);
    /* 1-based in Lua, as the tiles array */
    dev.n_off_tma_tile = (int)tw_lua_get_int(L, 1, "n_off_tma_tile", "device", 1) - 1;

    if (lua_getfield(L, 1, "tiles") != LUA_TTABLE)
        return tw_lua_field_error(L, "device", "tiles", "expected array of tiles", -1);
    n = (int)luaL_len(L, -1);
    if (n < 1 || n > TW_MAX_TILES) return tw_lua_raise(L, "device.tiles: expected 1 to %d tiles, got %d", TW_MAX_TILES, n);
    dev.n_tiles = n;
    for (i = 0; i < n; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "device.tiles[%d]", i + 1);
        if (lua_rawgeti(L, -1, i + 1) != LUA_TTABLE) return tw_lua_field_error(L, "device", prefix + 7, "expected table", -1);
        dev.tiles[i].m = tw_lua_get_int(L, -1, "m", prefix, -1);
        dev.tiles[i].n = tw_lua_get_int(L, -1, "n", prefix, -1);
        dev.tiles[i].eff = tw_lua_get_num(L, -1, "eff", prefix, NAN);
        dev.tiles[i].ctas_per_sm = (int)tw_lua_get_int(L, -1, "ctas_per_sm", prefix, 1);
        dev.tiles[i].tma = (int)tw_lua_get_int(L, -1, "tma", prefix, 0);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);

    tw_lua_get_classes(L, "align_eff", 1, dev.align_eff); /* each raises on bad input */
    tw_lua_get_classes(L, "align_mem_eff", 0, dev.align_mem_eff);

    status = tw_device_validate(&dev, &bad);
    if (status != TW_OK) {
        for (i = 0; i < dev.n_tiles && strncmp(bad, "device.tiles.", 13) == 0; i++) {
            const tw_tile *t = &dev.tiles[i];
            if (t->m < 1 || t->m > 4096 || t->n < 1 || t->n > 4096 || !(t->eff > 0 && t->eff <= 1) ||
                t->ctas_per_sm < 1 || t->ctas_per_sm > 32 || (t->tma != 0 && t->tma != 1))
                return tw_lua_raise(L, "device.tiles[%d].%s: %s", i + 1, bad + 13, tw_field_expectation(bad));
        }
        return tw_lua_core_error(L, 1, "device", bad, status);
    }
    ud = (tw_gemm_plan *)lua_newuserdatauv(L, sizeof *ud, 0);
    if (tw_gemm_prepare(&dev, ud, &bad) != TW_OK) return tw_lua_core_error(L, 1, "device", bad, TW_EINVAL);
    luaL_setmetatable(L, DEVICE_MT);
    return 1;
}

/* ---- gemm ---- */

static void read_shape(lua_State *L, int t, tw_gemm_shape *s)
{
    s->m = tw_lua_get_int(L, t, "m", "gemm", -1);
    s->n = tw_lua_get_int(L, t, "n", "gemm", -1);
    s->k = tw_lua_get_int(L, t, "k", "gemm", -1);
    s->batch = tw_lua_get_int(L, t, "batch", "gemm", 1);
    s->in_bytes = tw_lua_get_num(L, t, "in_bytes", "gemm", 2);
    s->out_bytes = (int)tw_lua_get_int(L, t, "out_bytes", "gemm", 2);
    s->w_bytes = tw_lua_get_num(L, t, "w_bytes", "gemm", 0);
}


static int l_gemm(lua_State *L)
{
    const tw_gemm_plan *dev = (const tw_gemm_plan *)luaL_checkudata(L, 1, DEVICE_MT);
    tw_gemm_shape s;
    tw_gemm_result r;
    const char *bad = NULL;
    int status;

    luaL_checktype(L, 2, LUA_TTABLE);
    read_shape(L, 2, &s);
    status = tw_gemm_plan_estimate(dev, &s, &r, &bad);
    if (status != TW_OK) return tw_lua_core_error(L, 2, "gemm", bad, status);

    lua_createtable(L, 0, 24);
    tw_lua_set_num(L, "time_s", r.time_s);
    tw_lua_set_num(L, "flop_rate", r.flop_rate);
    tw_lua_set_num(L, "tflops", r.flop_rate / 1e12);
    tw_lua_set_num(L, "flops", r.flops);
    tw_lua_set_num(L, "bytes", r.bytes);
    tw_lua_set_num(L, "dram_bytes", r.dram_bytes);
    tw_lua_set_num(L, "intensity", r.intensity);
    tw_lua_set_num(L, "compute_s", r.compute_s);
    tw_lua_set_num(L, "memory_s", r.memory_s);
    tw_lua_set_num(L, "overhead_s", r.overhead_s);
    lua_pushstring(L, tw_bound_name(r.bound));
    lua_setfield(L, -2, "bound");
    lua_createtable(L, 0, 2);
    tw_lua_set_int(L, "m", r.tile_m);
    tw_lua_set_int(L, "n", r.tile_n);
    lua_setfield(L, -2, "tile");
    tw_lua_set_int(L, "split_k", r.split_k);
    lua_pushboolean(L, r.stream_k);
    lua_setfield(L, -2, "stream_k");
    tw_lua_set_int(L, "tiles", r.tiles);
    tw_lua_set_int(L, "waves", r.waves);
    tw_lua_set_num(L, "tile_eff", r.tile_eff);
    tw_lua_set_num(L, "wave_eff", r.wave_eff);
    tw_lua_set_num(L, "align_eff", r.align_eff);
    tw_lua_set_int(L, "align_bytes", r.align_bytes);
    return 1;
}

/*
 * A scratch buffer of at least `bytes` for gemm_many: the userdata in upvalue 1, replaced by a
 * larger one when too small and otherwise reused, so a sweep's repeated calls do not each add
 * megabytes for the collector to reclaim (the buffer never holds anything between calls).
 */
static void *scratch(lua_State *L, size_t bytes)
{
    void *buf = lua_touserdata(L, lua_upvalueindex(1));
    if (buf == NULL || lua_rawlen(L, lua_upvalueindex(1)) < bytes) {
        buf = lua_newuserdatauv(L, bytes, 0);
        lua_replace(L, lua_upvalueindex(1));
    }
    return buf;
}

/*
 * core.gemm_many(dev, flat, opts) with flat = {m1, n1, k1, m2, n2, k2, ...}
 * and opts = {batch=1, in_bytes=2, out_bytes=2} shared by all shapes.
 * Returns two arrays: times (s) and rates (FLOP/s).
 */
static int l_gemm_many(lua_State *L)
{
    /* 61 lines, one function: the options, the shapes and the results in one pass; the loop is
     * gemm_many's hot path */
    const tw_gemm_plan *dev = (const tw_gemm_plan *)luaL_checkudata(L, 1, DEVICE_MT);
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
    if (len % 3 != 0) return tw_lua_raise(L, "gemm_many.shapes: expected a flat list of M, N, K triples, got %I values", len);
    count = len / 3;
    proto.m = proto.n = proto.k = 1;
    proto.batch = tw_lua_get_int(L, 3, "batch", "gemm", 1);
    proto.in_bytes = tw_lua_get_num(L, 3, "in_bytes", "gemm", 2);
    proto.out_bytes = (int)tw_lua_get_int(L, 3, "out_bytes", "gemm", 2);
    proto.w_bytes = tw_lua_get_num(L, 3, "w_bytes", "gemm", 0);

    shapes = (tw_gemm_shape *)scratch(L, (size_t)(count ? count : 1) * (sizeof *shapes + 2 * sizeof(double)));
    times = (double *)(shapes + (count ? count : 1));
    rates = times + (count ? count : 1);
    for (i = 0; i < count; i++) {
        int j, isnum[3];
        lua_Integer v[3];
        /* the triple pushed, read, then dropped with one stack reset instead of three pops */
        lua_rawgeti(L, 2, 3 * i + 1);
        lua_rawgeti(L, 2, 3 * i + 2);
        lua_rawgeti(L, 2, 3 * i + 3);
        for (j = 0; j < 3; j++) v[j] = lua_tointegerx(L, j - 3, &isnum[j]);
        for (j = 0; j < 3; j++)
            if (!isnum[j]) {
                const char *got = tw_lua_describe(L, j - 3);
                return tw_lua_raise(L, "gemm_many.shapes[%I]: expected positive integer, got %s", 3 * i + j + 1, got);
            }
        lua_settop(L, -4);
        shapes[i] = proto;
        shapes[i].m = v[0];
        shapes[i].n = v[1];
        shapes[i].k = v[2];
    }
    status = tw_gemm_plan_estimate_many(dev, shapes, (size_t)count, times, rates, &bad_index, &bad);
    if (status != TW_OK && strcmp(bad, "device.figures") == 0)
        return tw_lua_raise(L, "gemm_many: %s", tw_field_expectation(bad));
    if (status != TW_OK)
        return tw_lua_raise(L, "gemm_many.shapes[%I].%s: %s", (lua_Integer)bad_index + 1, bad,
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

/* integer argument i (dflt when absent and dflt >= 0), else "gemm.<name>: expected positive integer, got x" */
static int64_t int_arg(lua_State *L, int i, const char *name, int64_t dflt)
{
    int isnum;
    lua_Integer v;
    if (dflt >= 0 && lua_isnoneornil(L, i)) return dflt;
    v = lua_tointegerx(L, i, &isnum);
    if (!isnum) return tw_lua_field_error(L, "gemm", name, "expected positive integer", i);
    return (int64_t)v;
}

/*
 * core.gemm_time(dev, m, n, k, batch, in_bytes, out_bytes[, w_bytes]) -> time_s: one shape's
 * time alone (no result table), as gemm_many gives it.
 */
static int l_gemm_time(lua_State *L)
{
    const tw_gemm_plan *dev = (const tw_gemm_plan *)luaL_checkudata(L, 1, DEVICE_MT);
    tw_gemm_shape s;
    int64_t out;
    double t;
    const char *bad = NULL;
    int status;
    s.m = int_arg(L, 2, "m", -1);
    s.n = int_arg(L, 3, "n", -1);
    s.k = int_arg(L, 4, "k", -1);
    s.batch = int_arg(L, 5, "batch", 1);
    s.in_bytes = luaL_optnumber(L, 6, 2); /* the core names anything but 0.5, 1, 2, 4, 8 */
    out = int_arg(L, 7, "out_bytes", 2);
    s.out_bytes = out >= 0 && out <= 64 ? (int)out : -1;
    s.w_bytes = luaL_optnumber(L, 8, 0.0); /* the core names anything outside 0 and (0, 8] */
    status = tw_gemm_plan_estimate_many(dev, &s, 1, &t, NULL, NULL, &bad);
    if (status != TW_OK)
        return tw_lua_raise(L, "gemm.%s: %s", bad, status == TW_ERANGE ? "out of range" : tw_field_expectation(bad));
    lua_pushnumber(L, t);
    return 1;
}

/* ---- roofline ---- */

static int l_roofline(lua_State *L)
{
    tw_roofline_input in;
    tw_roofline_result r;
    const char *bad = NULL;
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.flops = tw_lua_get_num(L, 1, "flops", "roofline", NAN);
    in.bytes = tw_lua_get_num(L, 1, "bytes", "roofline", NAN);
    in.peak_flops = tw_lua_get_num(L, 1, "peak_flops", "roofline", NAN);
    in.compute_frac = tw_lua_get_num(L, 1, "compute_frac", "roofline", 1.0);
    in.mem_bw = tw_lua_get_num(L, 1, "mem_bw", "roofline", NAN);
    in.mem_frac = tw_lua_get_num(L, 1, "mem_frac", "roofline", 1.0);
    status = tw_roofline(&in, &r, &bad);
    if (status != TW_OK) return tw_lua_core_error(L, 1, "roofline", bad, status);

    lua_createtable(L, 0, 6);
    tw_lua_set_num(L, "time_s", r.time_s);
    tw_lua_set_num(L, "compute_s", r.compute_s);
    tw_lua_set_num(L, "memory_s", r.memory_s);
    tw_lua_set_num(L, "intensity", r.intensity);
    tw_lua_set_num(L, "ridge", r.ridge);
    lua_pushstring(L, tw_bound_name(r.bound));
    lua_setfield(L, -2, "bound");
    return 1;
}

static const luaL_Reg funcs[] = {
    {"decode", tw_lua_decode},
    {"splitkv", tw_lua_splitkv},
    {"memory_fit", tw_lua_memory_fit},
    {"attention_io", tw_lua_attention_io},
    {"collective", tw_lua_collective},
    {"device", l_device},
    {"gemm", l_gemm},
    {"gemm_time", l_gemm_time},
    {"roofline", l_roofline},
    {"memory_limit", tw_lua_memory_limit},
    {NULL, NULL},
};

int luaopen_tilewave_core(lua_State *L)
{
    luaL_newmetatable(L, DEVICE_MT);
    lua_pushliteral(L, "tilewave.device");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
    luaL_newlib(L, funcs);
    lua_pushnil(L); /* gemm_many's scratch buffer, made on first use */
    lua_pushcclosure(L, l_gemm_many, 1);
    lua_setfield(L, -2, "gemm_many");
    tw_lua_open_pass(L);
    tw_lua_open_serve(L);
    lua_pushliteral(L, TW_VERSION);
    lua_setfield(L, -2, "_VERSION");
    return 1;
}
