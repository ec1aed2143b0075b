/*
 * demangle.c - C++ names as people write them, for the daemon (display) and
 * the agent (HOOKSCOPE_FUNCS globs): one call convention of __cxa_demangle,
 * found by each side its own way.
 */
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

typedef char *(*proto_demangle_fn)(const char *, char *, size_t *, int *);

/* See protocol.h. */
char *proto_demangle(void *cxa_demangle, const char *name)
{
	int status = -1;
	char *out;

	if (cxa_demangle == NULL || name == NULL || strncmp(name, "_Z", 2) != 0)
		return NULL;
	out = ((proto_demangle_fn)cxa_demangle)(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
