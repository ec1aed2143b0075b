/*
 * select.c - the monitoring levels' rule (select.h).
 */
#include <dlfcn.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

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

typedef char *(*select_demangle_fn)(const char *, char *, size_t *, int *);

/* The demangled form of a C++ name (malloc'd), when the target has the C++
 * runtime loaded (a C++ program: the agent never loads it); else NULL. */
static char *select_demangle(const char *name)
{
	select_demangle_fn fn;
	int status = -1;
	char *out;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	fn = (select_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (fn == NULL)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
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

/* See select.h. */
bool select_level(int level, const char *name, bool global, bool exported)
{
	switch (level) {
	case 0:
		return false;
	case 1:
		return name != NULL && (strcmp(name, "main") == 0 || select_named(name));
	case 2:
		return exported || select_level(1, name, global, exported);
	case 3:
		return global || select_level(1, name, global, exported);
	default:
		return true;
	}
}
