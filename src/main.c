/*
 * main.c - the `tilewave` executable: embeds Lua 5.4, makes `tilewave.core`
 * available (linked in), points package.path at the Lua library, and runs the
 * CLI module `tilewave.cli` with the command-line arguments.
 *
 * The Lua library is found next to the executable's install prefix
 * (<prefix>/share/tilewave/lua) when it is there, else in the source tree the
 * executable was built from (TW_SOURCE_LUA_DIR), so `build/tilewave` works with
 * no install step and no environment variables.
 */
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
