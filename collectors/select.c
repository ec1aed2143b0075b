/*
 * select.c - the monitoring levels' rule (select.h).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"

/* Does name match one of the HOOKSCOPE_FUNCS globs (':' or ',' separated)?
 * The variable is read each time: this runs when levels change, not per
 * call. */
static bool select_named(const char *name)
{
	const char *p = getenv("HOOKSCOPE_FUNCS");

	while (p != NULL && *p) {
		size_t len = strcspn(p, ":,");
		char glob[256];

		if (len > 0 && len < sizeof glob) {
			memcpy(glob, p, len);
			glob[len] = '\0';
			if (fnmatch(glob, name, 0) == 0)
				return true;
		}
		p += len;
		p += *p != '\0';
	}
	return false;
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
