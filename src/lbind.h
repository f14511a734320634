/*
 * lbind.h - internal helpers of the Lua binding of libtilewave (src/lbind.c). Not
 * installed; the only header besides main.c's that includes lua.h.
 */
#ifndef TW_LBIND_H
#define TW_LBIND_H

#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>

#include "tilewave.h"

/* Raise a one-line message (printf format) without a "file:line:" prefix. */
int tw_lua_raise(lua_State *L, const char *fmt, ...);
/* The value at idx as an error message shows it ("string 'x'", a number, a type name). */
const char *tw_lua_describe(lua_State *L, int idx);
/* Raise "<prefix>.<field>: <expect>, got <value at idx>". */
int tw_lua_field_error(lua_State *L, const char *prefix, const char *field, const char *expect, int idx);
/* Field `key` of the table at t as an integer / number (dflt when absent; NAN or
 * INT64_MIN as dflt: required); raises naming "<prefix>.<key>" otherwise. */
int64_t tw_lua_get_int(lua_State *L, int t, const char *key, const char *prefix, int64_t dflt);
double tw_lua_get_num(lua_State *L, int t, const char *key, const char *prefix, double dflt);
/* Raise the core's status for `field` as "<prefix>.<field>: <expectation>, got <value>". */
int tw_lua_core_error(lua_State *L, int t, const char *prefix, const char *field, int status);
/* Read the per-alignment-class table `key` (TW_ALIGN_CLASSES numbers) of the table at
 * index 1 into out; absent and not required: out untouched, returns 0. */
int tw_lua_get_classes(lua_State *L, const char *key, int required, double *out);
/* Set field k of the table on top of the stack. */
void tw_lua_set_num(lua_State *L, const char *k, double v);
void tw_lua_set_int(lua_State *L, const char *k, int64_t v);

/* The bindings of ltilewave_ops.c: decode, memory fit, attention IO, collectives. */
int tw_lua_decode(lua_State *L);
int tw_lua_memory_limit(lua_State *L); /* lbudget.c: core.memory_limit */
int tw_lua_splitkv(lua_State *L);
int tw_lua_memory_fit(lua_State *L);
int tw_lua_attention_io(lua_State *L);
int tw_lua_collective(lua_State *L);
/* ltilewave_pass.c: core.pass and core.pass_time, set on the module table on top of the stack. */
void tw_lua_open_pass(lua_State *L);
/* ltilewave_serve.c: core.serve and core.serve_step, likewise. */
void tw_lua_open_serve(lua_State *L);

#endif
