/*
 * select.c - the monitoring levels' rule (select.h).
 */
#include <dlfcn.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "select.h"

/* Length of the glob at p: up to a ',' or a ':' that is not part of "::". */
static size_t select_glob_len(const char *p)
{
	size_t n = 0;

	for (; p[n] != '\0' && p[n] != ','; n++)
		if (p[n] == ':') {
			if (p[n + 1] == ':')
				n++;
			else
				break;
		}
	return n;
}

/* The demangled form of a C++ name (malloc'd), when the target has the C++
 * runtime loaded (a C++ program: the agent never loads it); else NULL. */
static char *select_demangle(const char *name)
{
	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	return proto_demangle(dlsym(RTLD_DEFAULT, "__cxa_demangle"), name);
}

/* Does name (or its demangled form: "ns::f(int)") match one of the
 * HOOKSCOPE_FUNCS globs (':' or ',' separated; "::" inside a glob is part
 * of it)?  The variable is read each time: this runs when levels change,
 * not per call. */
static bool select_named(const char *name)
{
	const char *p = getenv("HOOKSCOPE_FUNCS");
	char *plain = NULL;
	bool hit = false;

	if (p != NULL && *p)
		plain = select_demangle(name);
	while (p != NULL && *p && !hit) {
		size_t len = select_glob_len(p);
		char glob[256];

		if (len > 0 && len < sizeof glob) {
			memcpy(glob, p, len);
			glob[len] = '\0';
			hit = fnmatch(glob, name, 0) == 0 ||
			    (plain != NULL && fnmatch(glob, plain, 0) == 0);
		}
		p += len;
		p += *p != '\0';
	}
	free(plain);
	return hit;
}

#define SELECT_MAX_STARTS 256

/* Start routine names, append-only: a pointer is stored before the count
 * that covers it (release), so a reader on any thread sees whole names. */
static const char *select_starts[SELECT_MAX_STARTS];
static unsigned select_nstarts;

/* See select.h (reporter thread only). */
bool select_start_add(const char *name)
{
	unsigned n = __atomic_load_n(&select_nstarts, __ATOMIC_ACQUIRE);

	if (name == NULL || *name == '\0' || n == SELECT_MAX_STARTS)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (strcmp(select_starts[i], name) == 0)
			return false;
	select_starts[n] = xstrdup(name);
	__atomic_store_n(&select_nstarts, n + 1, __ATOMIC_RELEASE);
	return true;
}

/* See select.h. */
unsigned select_generation(void)
{
	return __atomic_load_n(&select_nstarts, __ATOMIC_ACQUIRE);
}

/* Is name a thread start routine seen so far? */
static bool select_is_start(const char *name)
{
	unsigned n = __atomic_load_n(&select_nstarts, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (strcmp(select_starts[i], name) == 0)
			return true;
	return false;
}

/* See select.h. */
bool select_level(int level, const char *name, bool global, bool exported)
{
	switch (level) {
	case 0:
		return false;
	case 1:
		return name != NULL && (strcmp(name, "main") == 0 || select_is_start(name) ||
		    select_named(name));
	case 2:
		return exported || select_level(1, name, global, exported);
	case 3:
		return global || select_level(1, name, global, exported);
	default:
		return true;
	}
}
