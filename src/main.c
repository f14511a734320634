/*
 * main.c - the `tilewave` executable: embeds Lua 5.4, makes `tilewave.core`
 * available (linked in), points package.path at the Lua library, and runs the
 * CLI module `tilewave.cli` with the command-line arguments.
 *
 * The Lua library is found next to the executable's install prefix
 * (<prefix>/share/tilewave/lua) when it is there, else in the source tree the
 * executable was built from (TW_SOURCE_LUA_DIR), so `build/tilewave` works with
 * no install step and no environment variables.
 *
 * Start-up: the build precompiles the source tree's modules with luac into
 * TW_BYTECODE_DIR (CMakeLists.txt). Run from the source tree, the executable
 * loads a module's bytecode instead of its source when the bytecode is at least
 * as new as the source, so an edited module is never shadowed by a stale build.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

int luaopen_tilewave_core(lua_State *L);

#ifndef TW_SOURCE_LUA_DIR
#error "TW_SOURCE_LUA_DIR must be defined by the build"
#endif
#ifndef TW_INSTALL_LUA_REL
#define TW_INSTALL_LUA_REL "../share/tilewave/lua"
#endif

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* 1 if file `bc` exists and was modified no earlier than file `src`, else 0. */
static int fresh(const char *bc, const char *src)
{
    struct stat b, s;
    if (stat(bc, &b) != 0 || stat(src, &s) != 0) return 0;
    if (b.st_mtim.tv_sec != s.st_mtim.tv_sec) return b.st_mtim.tv_sec > s.st_mtim.tv_sec;
    return b.st_mtim.tv_nsec >= s.st_mtim.tv_nsec;
}

/* A package.searchers entry: the precompiled chunk of module `name` when it is fresh
 * (upvalues: source directory, bytecode directory). Its source is looked for in the source
 * directory, else where package.searchpath finds it on package.path (a pure-Lua dependency
 * the build precompiled, e.g. argparse). The loader gets the source path as its second
 * argument, as from the standard Lua searcher; luac keeps the source name in the chunk, so
 * error positions and debug.getinfo name the source file. */
static int bytecode_searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    const char *src_dir = lua_tostring(L, lua_upvalueindex(1));
    const char *bc_dir = lua_tostring(L, lua_upvalueindex(2));
    static const char *const suffixes[] = {".lua", "/init.lua"};
    char rel[512], src[4608], bc[4608];
    size_t i, n = strlen(name);

    if (n + 1 > sizeof rel) return 0;
    for (i = 0; i <= n; i++) rel[i] = name[i] == '.' ? '/' : name[i];
    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(src, sizeof src, "%s/%s%s", src_dir, rel, suffixes[i]);
        snprintf(bc, sizeof bc, "%s/%s%s", bc_dir, rel, suffixes[i]);
        if (exists(src)) break;
    }
    if (i == sizeof suffixes / sizeof suffixes[0]) { /* not ours: where Lua would find it */
        const char *found;
        snprintf(bc, sizeof bc, "%s/%s.lua", bc_dir, rel);
        if (!exists(bc)) goto none;
        lua_getglobal(L, "package");
        lua_getfield(L, -1, "searchpath");
        lua_pushstring(L, name);
        lua_getfield(L, -3, "path");
        if (lua_pcall(L, 2, 1, 0) != LUA_OK || (found = lua_tostring(L, -1)) == NULL) {
            lua_pop(L, 2);
            goto none;
        }
        snprintf(src, sizeof src, "%s", found);
        lua_pop(L, 2);
    }
    if (fresh(bc, src)) {
        if (luaL_loadfilex(L, bc, "b") != LUA_OK) { /* e.g. another Lua's bytecode: use the source */
            lua_pop(L, 1);
            goto none;
        }
        lua_pushstring(L, src);
        return 2;
    }
none:
    lua_pushfstring(L, "no fresh bytecode for '%s' in '%s'", name, bc_dir);
    return 1;
}

/* Put bytecode_searcher before the standard Lua-file searcher (package.searchers[2]). */
static void add_bytecode_searcher(lua_State *L, const char *src_dir, const char *bc_dir)
{
    lua_Integer i, n;
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchers");
    n = (lua_Integer)luaL_len(L, -1);
    for (i = n; i >= 2; i--) {
        lua_rawgeti(L, -1, i);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushstring(L, src_dir);
    lua_pushstring(L, bc_dir);
    lua_pushcclosure(L, bytecode_searcher, 2);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 2);
}

/* Directory of the Lua library for this executable, written to buf. */
static void lua_dir(char *buf, size_t size)
{
    char exe[2048], probe[4352];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        char *slash;
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = '\0';
            snprintf(probe, sizeof probe, "%s/%s/tilewave/cli.lua", exe, TW_INSTALL_LUA_REL);
            if (exists(probe)) {
                snprintf(buf, size, "%s/%s", exe, TW_INSTALL_LUA_REL);
                return;
            }
        }
    }
    snprintf(buf, size, "%s", TW_SOURCE_LUA_DIR);
}

/* tilewave.sys.isatty(fd): whether file descriptor fd (0, 1, 2) is a terminal,
 * for progress lines that only a person watching should see. */
static int sys_isatty(lua_State *L)
{
    lua_Integer fd = luaL_checkinteger(L, 1);
    lua_pushboolean(L, fd >= 0 && fd <= 2 && isatty((int)fd));
    return 1;
}

static int luaopen_tilewave_sys(lua_State *L)
{
    static const luaL_Reg funcs[] = {{"isatty", sys_isatty}, {NULL, NULL}};
    luaL_newlib(L, funcs);
    return 1;
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) msg = luaL_tolstring(L, 1, NULL);
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int main(int argc, char **argv)
{
    char dir[4096];
    lua_State *L = luaL_newstate();
    int i, status;

    if (L == NULL) {
        fputs("tilewave: cannot create Lua state (out of memory)\n", stderr);
        return 1;
    }
    luaL_openlibs(L);

    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_tilewave_core);
    lua_setfield(L, -2, "tilewave.core");
    lua_pushcfunction(L, luaopen_tilewave_sys);
    lua_setfield(L, -2, "tilewave.sys");
    lua_pop(L, 1);

    lua_dir(dir, sizeof dir);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", dir, dir);
    lua_getfield(L, -2, "path");
    lua_concat(L, 2);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
#ifdef TW_BYTECODE_DIR
    if (strcmp(dir, TW_SOURCE_LUA_DIR) == 0) add_bytecode_searcher(L, dir, TW_BYTECODE_DIR);
#endif

    lua_pushcfunction(L, traceback);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "tilewave.cli");
    status = lua_pcall(L, 1, 1, 1);
    if (status == LUA_OK) {
        lua_getfield(L, -1, "main");
        lua_createtable(L, argc, 0);
        for (i = 1; i < argc; i++) {
            lua_pushstring(L, argv[i]);
            lua_rawseti(L, -2, i);
        }
        status = lua_pcall(L, 1, 1, 1);
    }
    if (status != LUA_OK) {
        /* the CLI catches every error of a command; this is a broken install or a bug */
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "tilewave: internal error: %s, please report\n", msg != NULL ? msg : "(no message)");
        lua_close(L);
        return 3;
    }
    status = (int)luaL_optinteger(L, -1, 0);
    lua_close(L);
    return status;
}
