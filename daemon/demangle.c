/*
 * demangle.c - C++ function names as people write them ("ns::f(int)"), for
 * display, filters and reports.  __cxa_demangle comes from the system's
 * libstdc++ (on Debian every system has it: apt needs it), loaded on the
 * first mangled name: the daemon stays a C program that needs no C++
 * runtime for C targets, and the agent never loads one into a target.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* __cxa_demangle, looked up once; NULL if libstdc++ is missing. */
static demangle_fn demangle_lookup(void)
{
	static demangle_fn fn;
	static bool tried;
	void *h;

	if (tried)
		return fn;
	tried = true;
	h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	if (h != NULL)
		fn = (demangle_fn)dlsym(h, "__cxa_demangle");
	if (fn == NULL)
		daemon_log(DLOG_NOTICE, "C++ names are shown mangled: cannot load __cxa_demangle "
		    "from libstdc++.so.6 (install libstdc++6)");
	return fn;
}

/* See daemon.h. */
char *daemon_demangle(const char *name)
{
	demangle_fn fn;
	int status = -1;
	char *out;

	if (name == NULL || strncmp(name, "_Z", 2) != 0 || (fn = demangle_lookup()) == NULL)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
