/*
 * opts_config.c - the config file of hookscoped: any long option, one per
 * line, as "name = value" or "name" alone for an option without a value;
 * '#' starts a comment line.  Its options come before the command line's,
 * so the command line overrides them.  The file is --config FILE, else
 * $XDG_CONFIG_HOME/hookscope/hookscoped.conf (~/.config/... without it)
 * when that exists.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

/* The default config file (heap), or NULL when no home is known. */
static char *
config_default(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	char buf[4096];

	if (x != NULL && x[0] == '/')
		snprintf(buf, sizeof buf, "%s/hookscope/hookscoped.conf", x);
	else if (h != NULL && h[0] == '/')
		snprintf(buf, sizeof buf, "%s/.config/hookscope/hookscoped.conf", h);
	else
		return NULL;
	return xstrdup(buf);
}

/* Trim spaces at both ends in place. */
static char *
config_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* See daemon.h. */
int
daemon_opts_config(const char *path, const struct option *longopts, char ***args, size_t *nargs,
    char *err, size_t errlen)
{
	char *def = path ? NULL : config_default(), line[4096];
	const char *file = path ? path : def;
	unsigned lineno = 0;
	FILE *f;

	*args = NULL;
	*nargs = 0;
	if (file == NULL || (f = fopen(file, "r")) == NULL) {
		int e = errno;

		free(def);
		if (path == NULL)
			return 0;         /* no default file: nothing to read */
		snprintf(err, errlen, "--config %s: %s", path, strerror(e));
		return -1;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		char *k = config_trim(line), *v = NULL, *eq = strchr(k, '=');
		const struct option *o = NULL;
		size_t len;

		lineno++;
		if (*k == '\0' || *k == '#')
			continue;
		if (eq != NULL) {
			*eq = '\0';
			v = config_trim(eq + 1);
			k = config_trim(k);
		}
		for (const struct option *p = longopts; p->name != NULL && o == NULL; p++)
			if (strcmp(p->name, k) == 0)
				o = p;
		if (o == NULL || strcmp(k, "config") == 0 || (o->has_arg == required_argument &&
		    (v == NULL || *v == '\0')) || (o->has_arg == no_argument && v != NULL)) {
			snprintf(err, errlen, "%s:%u: %s '%s'%s", file, lineno, o == NULL ||
			    strcmp(k, "config") == 0 ? "unknown option" : "bad line for option", k,
			    o != NULL && o->has_arg == required_argument ? " (expected NAME = VALUE)" :
			    o != NULL && o->has_arg == no_argument ? " (takes no value)" : "");
			goto fail;
		}
		len = strlen(k) + (v ? strlen(v) : 0) + 4;
		*args = xrealloc(*args, (*nargs + 1) * sizeof **args);
		(*args)[*nargs] = xmalloc(len);
		snprintf((*args)[(*nargs)++], len, "--%s%s%s", k, v ? "=" : "", v ? v : "");
	}
	fclose(f);
	free(def);
	return 0;
fail:
	fclose(f);
	free(def);
	for (size_t i = 0; i < *nargs; i++)
		free((*args)[i]);
	free(*args);
	*args = NULL;
	*nargs = 0;
	return -1;
}
