/*
 * ltilewave_ops.c - the Lua bindings of the core's decode step, memory fit,
 * split-KV occupancy, attention IO and collectives (tilewave.h): core.decode, core.splitkv, core.memory_fit,
 * core.attention_io, core.collective. Registered by ltilewave.c.
 */
#include <math.h>
#include <string.h>

#include "lbind.h"

int tw_lua_decode(lua_State *L)
{
    tw_decode_input in;
    tw_decode_result r;
    const char *bad = NULL;
    const char *P = "decode";
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.weight_bytes = tw_lua_get_num(L, 1, "weight_bytes", P, NAN);
    in.matmul_params = tw_lua_get_num(L, 1, "matmul_params", P, NAN);
    in.dequant_ops = tw_lua_get_num(L, 1, "dequant_ops", P, 0.0);
    in.layers = tw_lua_get_num(L, 1, "layers", P, NAN);
    in.kv_heads = tw_lua_get_num(L, 1, "kv_heads", P, NAN);
    in.q_heads = tw_lua_get_num(L, 1, "q_heads", P, NAN);
    in.head_dim = tw_lua_get_num(L, 1, "head_dim", P, NAN);
    in.kv_elem_bytes = tw_lua_get_num(L, 1, "kv_elem_bytes", P, 2.0);
    in.context = tw_lua_get_num(L, 1, "context", P, NAN);
    in.batch = tw_lua_get_num(L, 1, "batch", P, 1.0);
    in.act_bytes = tw_lua_get_num(L, 1, "act_bytes", P, 0.0);
    in.peak_flops = tw_lua_get_num(L, 1, "peak_flops", P, NAN);
    in.compute_frac = tw_lua_get_num(L, 1, "compute_frac", P, 1.0);
    in.vector_flops = tw_lua_get_num(L, 1, "vector_flops", P, NAN);
    in.mem_bw = tw_lua_get_num(L, 1, "mem_bw", P, NAN);
    in.mem_frac = tw_lua_get_num(L, 1, "mem_frac", P, 1.0);
    in.kernels = tw_lua_get_num(L, 1, "kernels", P, 0.0);
    in.launch_s = tw_lua_get_num(L, 1, "launch_s", P, 0.0);
    in.attn_dim = tw_lua_get_num(L, 1, "attn_dim", P, 0.0);
    in.kv_eff = tw_lua_get_num(L, 1, "kv_eff", P, 0.0);
    status = tw_decode_step(&in, &r, &bad);
    if (status != TW_OK) return tw_lua_core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 16);
    tw_lua_set_num(L, "tpot_s", r.tpot_s);
    tw_lua_set_num(L, "tokens_per_s", r.tokens_per_s);
    tw_lua_set_num(L, "aggregate_tokens_per_s", r.aggregate_tokens_per_s);
    tw_lua_set_num(L, "bytes", r.bytes);
    tw_lua_set_num(L, "weight_bytes", r.weight_bytes);
    tw_lua_set_num(L, "kv_bytes", r.kv_bytes);
    tw_lua_set_num(L, "flops", r.flops);
    tw_lua_set_num(L, "compute_s", r.compute_s);
    tw_lua_set_num(L, "memory_s", r.memory_s);
    tw_lua_set_num(L, "dequant_s", r.dequant_s);
    tw_lua_set_num(L, "overhead_s", r.overhead_s);
    tw_lua_set_num(L, "achieved_bw", r.achieved_bw);
    tw_lua_set_num(L, "intensity", r.intensity);
    lua_pushstring(L, tw_bound_name(r.bound));
    lua_setfield(L, -2, "bound");
    return 1;
}

int tw_lua_splitkv(lua_State *L)
{
    tw_splitkv_input in;
    tw_splitkv_result r;
    const char *bad = NULL;
    const char *P = "splitkv";
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.blocks = tw_lua_get_num(L, 1, "blocks", P, NAN);
    in.kv_blocks = tw_lua_get_num(L, 1, "kv_blocks", P, NAN);
    in.sms = tw_lua_get_num(L, 1, "sms", P, NAN);
    in.slots = tw_lua_get_num(L, 1, "slots", P, NAN);
    in.max_splits = tw_lua_get_num(L, 1, "max_splits", P, 128.0);
    status = tw_splitkv(&in, &r, &bad);
    if (status != TW_OK) return tw_lua_core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 3);
    tw_lua_set_num(L, "splits", r.splits);
    tw_lua_set_num(L, "blocks", r.blocks);
    tw_lua_set_num(L, "efficiency", r.efficiency);
    return 1;
}

int tw_lua_memory_fit(lua_State *L)
{
    tw_memory_input in;
    tw_memory_result r;
    const char *bad = NULL;
    const char *P = "memory";
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.weight_bytes = tw_lua_get_num(L, 1, "weight_bytes", P, NAN);
    in.kv_bytes_per_token = tw_lua_get_num(L, 1, "kv_bytes_per_token", P, NAN);
    in.context = tw_lua_get_num(L, 1, "context", P, NAN);
    in.batch = tw_lua_get_num(L, 1, "batch", P, 1.0);
    in.workspace_bytes = tw_lua_get_num(L, 1, "workspace_bytes", P, 0.0);
    in.memory_bytes = tw_lua_get_num(L, 1, "memory_bytes", P, NAN);
    status = tw_memory_fit(&in, &r, &bad);
    if (status != TW_OK) return tw_lua_core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 6);
    tw_lua_set_num(L, "kv_bytes", r.kv_bytes);
    tw_lua_set_num(L, "total_bytes", r.total_bytes);
    tw_lua_set_num(L, "free_bytes", r.free_bytes);
    lua_pushboolean(L, r.fits);
    lua_setfield(L, -2, "fits");
    tw_lua_set_int(L, "max_batch", (int64_t)r.max_batch);
    tw_lua_set_int(L, "max_context", (int64_t)r.max_context);
    return 1;
}

int tw_lua_attention_io(lua_State *L)
{
    tw_attention_input in;
    tw_attention_result r;
    const char *bad = NULL;
    const char *P = "attention";
    int status;

    luaL_checktype(L, 1, LUA_TTABLE);
    in.seq_len = tw_lua_get_num(L, 1, "seq_len", P, NAN);
    in.head_dim = tw_lua_get_num(L, 1, "head_dim", P, NAN);
    in.heads = tw_lua_get_num(L, 1, "heads", P, 1.0);
    in.elem_bytes = tw_lua_get_num(L, 1, "elem_bytes", P, 2.0);
    in.sram_bytes = tw_lua_get_num(L, 1, "sram_bytes", P, NAN);
    status = tw_attention_io(&in, &r, &bad);
    if (status != TW_OK) return tw_lua_core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 9);
    tw_lua_set_num(L, "standard_bytes", r.standard_bytes);
    tw_lua_set_num(L, "flash_bytes", r.flash_bytes);
    tw_lua_set_num(L, "standard_bwd_bytes", r.standard_bwd_bytes);
    tw_lua_set_num(L, "flash_bwd_bytes", r.flash_bwd_bytes);
    tw_lua_set_num(L, "standard_mem_bytes", r.standard_mem_bytes);
    tw_lua_set_num(L, "flash_mem_bytes", r.flash_mem_bytes);
    tw_lua_set_int(L, "block_cols", (int64_t)r.block_cols);
    tw_lua_set_int(L, "block_rows", (int64_t)r.block_rows);
    tw_lua_set_int(L, "passes", (int64_t)r.passes);
    return 1;
}

int tw_lua_collective(lua_State *L)
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
    if (in.kind < 0) return tw_lua_field_error(L, P, "kind", tw_field_expectation("kind"), -1);
    lua_pop(L, 1);
    in.bytes = tw_lua_get_num(L, 1, "bytes", P, NAN);
    in.group = tw_lua_get_num(L, 1, "group", P, NAN);
    in.link_bw = tw_lua_get_num(L, 1, "link_bw", P, NAN);
    in.latency_s = tw_lua_get_num(L, 1, "latency_s", P, 0.0);
    status = tw_collective(&in, &r, &bad);
    if (status != TW_OK) return tw_lua_core_error(L, 1, P, bad, status);

    lua_createtable(L, 0, 4);
    tw_lua_set_num(L, "time_s", r.time_s);
    tw_lua_set_num(L, "steps", r.steps);
    tw_lua_set_num(L, "wire_bytes", r.wire_bytes);
    tw_lua_set_num(L, "bus_bw", r.bus_bw);
    return 1;
}

