/*
 * lbind.c - helpers of the Lua binding (lbind.h): reading fields of argument
 * tables with their expectations, raising one-line errors that name the field,
 * and setting result fields. Used by ltilewave.c and ltilewave_ops.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lbind.h"

/* Raise a message without luaL_error's "file:line:" prefix: the message
 * names the field, which is all a user needs. */
int tw_lua_raise(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return lua_error(L);
}

/* Push a short description of the value at idx: "-3", "2.5", "string '80'", "nil". */
const char *tw_lua_describe(lua_State *L, int idx)
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

int tw_lua_field_error(lua_State *L, const char *prefix, const char *field, const char *expect,
                       int value_idx)
{
    const char *got = tw_lua_describe(L, value_idx);
    return tw_lua_raise(L, "%s.%s: %s, got %s", prefix, field, expect, got);
}

/* Read an integer field; a missing field takes `dflt` when dflt >= 0. */
int64_t tw_lua_get_int(lua_State *L, int t, const char *key, const char *prefix, int64_t dflt)
{
    int64_t v = 0;
    int type = lua_getfield(L, t, key);
    if (type == LUA_TNIL && dflt >= 0) {
        lua_pop(L, 1);
        return dflt;
    }
    if (type != LUA_TNUMBER) return tw_lua_field_error(L, prefix, key, "expected positive integer", -1);
    if (lua_isinteger(L, -1)) {
        v = lua_tointeger(L, -1);
    } else {
        double d = lua_tonumber(L, -1);
        /* integral floats (4096.0, 1e12) pass here; the core checks the range */
        if (!isfinite(d) || d != floor(d)) return tw_lua_field_error(L, prefix, key, "expected positive integer", -1);
        if (d >= 9.2e18 || d <= -9.2e18) v = d > 0 ? INT64_MAX : INT64_MIN;
        else v = (int64_t)d;
    }
    lua_pop(L, 1);
    return v;
}

/* Read a number field; a missing field takes `dflt` unless dflt is NaN. */
double tw_lua_get_num(lua_State *L, int t, const char *key, const char *prefix, double dflt)
{
    double v;
    int type = lua_getfield(L, t, key);
    if (type == LUA_TNIL && !isnan(dflt)) {
        lua_pop(L, 1);
        return dflt;
    }
    if (type != LUA_TNUMBER) return tw_lua_field_error(L, prefix, key, "expected number", -1);
    v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* Raise the core's complaint about `field` of the table at t. */
int tw_lua_core_error(lua_State *L, int t, const char *prefix, const char *field, int status)
{
    const char *dot = strchr(field, '.');
    const char *key = dot != NULL ? dot + 1 : field;
    const char *expect = tw_field_expectation(field);
    if (strcmp(field, "device.figures") == 0) return tw_lua_raise(L, "%s: %s", prefix, expect);
    if (status == TW_ERANGE && strcmp(field, "m*n*batch") != 0)
        expect = strcmp(prefix, "gemm") == 0 ? "out of range (max 2147483647)"
                                              : "out of range (element counts must stay below 2^53)";
    if (strcmp(field, "m*n*batch") == 0) {
        lua_pushnumber(L, (double)tw_lua_get_int(L, t, "m", prefix, 1) * (double)tw_lua_get_int(L, t, "n", prefix, 1) *
                              (double)tw_lua_get_int(L, t, "batch", prefix, 1));
        return tw_lua_field_error(L, prefix, field, expect, -1);
    }
    if (strchr(key, '.') != NULL || strchr(key, '[') != NULL || strchr(key, '*') != NULL) {
        lua_pushnil(L);
        return tw_lua_raise(L, "%s.%s: %s", prefix, key, expect);
    }
    lua_getfield(L, t, key);
    return tw_lua_field_error(L, prefix, key, expect, -1);
}

/* device.<key>: an array of TW_ALIGN_CLASSES numbers into out[]; an optional one
 * (required = 0) that is absent leaves 1 in every class. Raises a one-line error. */
int tw_lua_get_classes(lua_State *L, const char *key, int required, double *out)
{
    int i, type = lua_getfield(L, 1, key);

    for (i = 0; i < TW_ALIGN_CLASSES; i++) out[i] = 1.0;
    if (type == LUA_TNIL && !required) {
        lua_pop(L, 1);
        return TW_OK;
    }
    if (type != LUA_TTABLE) return tw_lua_field_error(L, "device", key, "expected array of 8 numbers", -1);
    if (luaL_len(L, -1) != TW_ALIGN_CLASSES)
        return tw_lua_raise(L, "device.%s: expected 8 numbers (1, 2, 4 ... 128 bytes)", key);
    for (i = 0; i < TW_ALIGN_CLASSES; i++) {
        if (lua_rawgeti(L, -1, i + 1) != LUA_TNUMBER)
            return tw_lua_field_error(L, "device", key, "expected number in (0, 1]", -1);
        out[i] = lua_tonumber(L, -1);
        if (!(out[i] > 0.0 && out[i] <= 1.0)) { /* name the class here: the core names only the table */
            char field[32];
            snprintf(field, sizeof field, "%s[%d]", key, i + 1);
            return tw_lua_field_error(L, "device", field, "expected number in (0, 1]", -1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return TW_OK;
}

void tw_lua_set_num(lua_State *L, const char *k, double v) { lua_pushnumber(L, v); lua_setfield(L, -2, k); }
void tw_lua_set_int(lua_State *L, const char *k, int64_t v) { lua_pushinteger(L, v); lua_setfield(L, -2, k); }
