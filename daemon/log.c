/*
 * log.c - the daemon's logger: one line per message on stderr.
 *
 * Errors and warnings always show; -v adds informational lines, -vv debug.
 * libwebsockets is routed here through an emitter so its lines carry our
 * prefix and obey the same verbosity.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libwebsockets.h>
#include "daemon.h"

static int log_verbosity;

/* Set how chatty the log is (count of -v). */
void
daemon_log_set_verbosity(int verbosity)
{
	log_verbosity = verbosity;
}

/* Current verbosity (count of -v). */
int
daemon_log_verbosity(void)
{
	return log_verbosity;
}

/* Print one line: "hookscoped: [warning: ]message". */
void
daemon_log(enum daemon_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = {
		[DLOG_ERROR] = "", [DLOG_WARN] = "warning: ", [DLOG_NOTICE] = "",
		[DLOG_INFO] = "", [DLOG_DEBUG] = "debug: ",
	};
	char buf[1024];
	va_list ap;

	if ((level == DLOG_INFO && log_verbosity < 1) ||
	    (level == DLOG_DEBUG && log_verbosity < 2))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* One fprintf keeps the line whole even if a child shares stderr. */
	fprintf(stderr, "hookscoped: %s%s\n", prefix[level], buf);
}

/* The lws levels worth seeing at the current verbosity. */
int
daemon_log_lws_levels(void)
{
	int levels = LLL_ERR;

	if (log_verbosity >= 1)
		levels |= LLL_WARN;
	if (log_verbosity >= 2)
		levels |= LLL_NOTICE | LLL_INFO;
	return levels;
}

/* lws log emitter: strip the newline, prefix, print. */
void
daemon_log_lws_emit(int level, const char *line)
{
	size_t n = strlen(line);

	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	fprintf(stderr, "hookscoped: lws%s: %.*s\n",
	    (level & LLL_ERR) ? " error" : "", (int)n, line);
}
