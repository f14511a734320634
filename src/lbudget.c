/*
 * lbudget.c - core.memory_limit(bytes): a cap on the Lua state's memory, enforced in its
 * allocator (lua_setallocf), for evaluating user files (tilewave.util.sandbox). A data file
 * that asks for more than the cap - a table that grows without end, ("x"):rep(2^33) - gets
 * Lua's "not enough memory" error instead of exhausting the machine.
 *
 *   core.memory_limit(bytes) -> installs the cap: the state may grow by at most `bytes`
 *                               (a positive number) beyond what it holds now
 *   core.memory_limit(nil)   -> removes it
 * The counting allocator wraps the state's own (every block still comes from and returns
 * to it), so installing and removing it at any time is safe. Its bookkeeping lives in a
 * userdata anchored in the registry while the cap is installed.
 */
#include "lbind.h"

#define BUDGET_KEY "tilewave.memory_budget"

typedef struct {
    lua_Alloc f; /* the state's allocator, wrapped */
    void *ud;
    size_t used;  /* bytes the state holds, as counted since the cap was installed */
    size_t limit; /* most bytes it may hold */
} budget;

static void *capped(void *ud, void *ptr, size_t osize, size_t nsize)
{
    budget *b = (budget *)ud;
    size_t old = ptr != NULL ? osize : 0; /* for a new block, osize is a type tag */
    void *p;
    if (nsize > old && (nsize - old > b->limit || b->used > b->limit - (nsize - old))) return NULL;
    p = b->f(b->ud, ptr, osize, nsize);
    if (p != NULL || nsize == 0) b->used = (b->used > old ? b->used - old : 0) + nsize;
    return p;
}

int tw_lua_memory_limit(lua_State *L)
{
    void *ud;
    lua_Alloc f = lua_getallocf(L, &ud);
    if (lua_isnoneornil(L, 1)) {
        if (f == capped) {
            budget *b = (budget *)ud;
            lua_setallocf(L, b->f, b->ud);
            lua_pushnil(L);
            lua_setfield(L, LUA_REGISTRYINDEX, BUDGET_KEY); /* the bookkeeping may now be collected */
        }
        return 0;
    }
    {
        lua_Number bytes = luaL_checknumber(L, 1);
        size_t held = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024u + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
        budget *b;
        if (!(bytes > 0 && bytes < 1e15))
            return luaL_error(L, "memory_limit: expected a positive number of bytes below 1e15");
        if (f == capped) { /* already capped: move the cap */
            b = (budget *)ud;
            b->limit = b->used + (size_t)bytes;
            return 0;
        }
        b = (budget *)lua_newuserdatauv(L, sizeof *b, 0);
        lua_setfield(L, LUA_REGISTRYINDEX, BUDGET_KEY);
        b->f = f;
        b->ud = ud;
        b->used = held;
        b->limit = held + (size_t)bytes;
        lua_setallocf(L, capped, b);
    }
    return 0;
}
