/*
 * report.c - the plain-text report of one session ("dump") and writing it
 * atomically into the report directory.
 *
 * The file appears whole or not at all: the text goes to a temp file in the
 * same directory, is fsync'ed, then linked to its final name (link() never
 * replaces an existing report; rename() is the fallback on file systems
 * without hard links).  The final name is built from the pid and the time
 * only, so it cannot leave the directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "daemon.h"

/* A growing text buffer. */
struct report_buf {
	char  *p;
	size_t len, cap;
};

/* Append printf output. */
static void __attribute__((format(printf, 2, 3)))
report_add(struct report_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	b->len += (size_t)n;
}

/* Human-readable duration of ns nanoseconds (fixed 3 significant decimals). */
static const char *
report_dur(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

/* Local date and time of a wall-clock ms value. */
static const char *
report_date(char *buf, size_t len, uint64_t ms, const char *fmt)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL || strftime(buf, len, fmt, &tm) == 0)
		snprintf(buf, len, "%" PRIu64, ms / 1000);
	return buf;
}

/* Header lines: who, what state, how long, how costly. */
static void
report_header(struct report_buf *b, const struct daemon_session *s,
    const struct daemon_totals *tot, size_t ncalled, uint64_t wall_ms)
{
	char t1[64], t2[64], st[96], sites[512];
	uint64_t end = s->ended_ms ? s->ended_ms : wall_ms;
	uint64_t up = end > s->started_ms ? end - s->started_ms : 0;
	double ovh_ns = (double)s->overhead_ps / 1000.0;

	if (s->exit_status >= 0) {
		daemon_run_status_str(s->exit_status, t1, sizeof t1);
		snprintf(st, sizeof st, "%s (%s)", proto_target_state_name(s->state), t1);
	} else {
		snprintf(st, sizeof st, "%s", proto_target_state_name(s->state));
	}
	report_add(b, "hookscope report\n\n");
	report_add(b, "target:    %s (pid %d)\n", s->name ? s->name : "?", (int)s->pid);
	report_add(b, "exe:       %s\n", s->exe && *s->exe ? s->exe : "?");
	if (s->cmdline && *s->cmdline)
		report_add(b, "cmdline:   %s\n", s->cmdline);
	if (s->build_id && *s->build_id)
		report_add(b, "build-id:  %s\n", s->build_id);
	report_add(b, "level:     %u\n", (unsigned)s->level);
	report_add(b, "state:     %s\n", st);
	report_add(b, "started:   %s\n", report_date(t1, sizeof t1,
	    s->started_ms, "%Y-%m-%d %H:%M:%S"));
	report_add(b, "uptime:    %s\n", report_dur(t2, sizeof t2, up * 1000000));
	report_add(b, "calls:     %" PRIu64 "\n", tot->calls);
	report_add(b, "overhead:  %.1f ns per call (about %s in all, already "
	    "removed from the times)\n", ovh_ns,
	    report_dur(t2, sizeof t2, (uint64_t)(ovh_ns * (double)tot->calls)));
	report_add(b, "threads:   %u\n", (unsigned)s->threads);
	report_add(b, "dropped:   %" PRIu64 " events\n", s->dropped);
	report_add(b, "functions: %zu known, %zu called or running\n", s->funcs.n, ncalled);
	report_add(b, "sites:     %s\n", daemon_sites_line(s->sites, s->nsites, sites,
	    sizeof sites));
	report_add(b, "written:   %s\n\n", report_date(t1, sizeof t1, wall_ms,
	    "%Y-%m-%d %H:%M:%S"));
}

/* The whole report as a heap string (see report.c header): functions by
 * total + running time, the "running" column showing calls in flight. */
char *
daemon_report_format(struct daemon_session *s, uint64_t now_ns,
    uint64_t wall_ms, size_t *len)
{
	struct report_buf b = { .cap = 4096 };
	struct daemon_func **rows;
	struct daemon_totals tot;
	char c1[32], c2[32], c3[32], c4[32], c5[32], *section;
	size_t n;

	b.p = xmalloc(b.cap);
	b.p[0] = '\0';
	daemon_session_tick(s, now_ns);
	rows = xcalloc(s->funcs.n ? s->funcs.n : 1, sizeof *rows);
	n = daemon_rank(s, DAEMON_SORT_TOTAL, NULL, rows, s->funcs.n, &tot);
	report_header(&b, s, &tot, n, wall_ms);
	/* "running": time so far of calls that had not returned at the last
	 * report (main, a stuck call); the rank counts it with total. */
	report_add(&b, "%5s %12s %12s %12s %12s %12s %12s %8s  %s\n", "rank", "calls",
	    "total", "running", "self", "avg", "max", "slow", "function [module]");
	for (size_t i = 0; i < n; i++) {
		const struct daemon_func *f = rows[i];

		report_add(&b, "%5zu %12" PRIu64 " %12s %12s %12s %12s %12s %8" PRIu64 "  ",
		    i + 1, f->calls, report_dur(c1, sizeof c1, f->total_ns),
		    f->running_ns ? report_dur(c5, sizeof c5, f->running_ns) : "-",
		    report_dur(c2, sizeof c2, f->self_ns),
		    report_dur(c3, sizeof c3, daemon_func_avg(f)),
		    report_dur(c4, sizeof c4, f->max_ns), f->slow);
		if (f->name != NULL)
			report_add(&b, "%s", f->name);
		else
			report_add(&b, "0x%" PRIx64, f->addr);
		report_add(&b, "%s%s%s\n", f->module ? " [" : "",
		    f->module ? f->module : "", f->module ? "]" : "");
	}
	if (n == 0)
		report_add(&b, "(no calls recorded)\n");
	free(rows);
	section = daemon_fps_report(s);
	report_add(&b, "\n%s", section);
	free(section);
	section = daemon_threads_report(s);
	report_add(&b, "%s", section);
	free(section);
	section = daemon_blocks_report(s);
	report_add(&b, "%s", section);
	free(section);
	section = daemon_ipc_report(s);
	report_add(&b, "%s", section);
	free(section);
	section = daemon_power_report(s);
	report_add(&b, "%s", section);
	free(section);
	*len = b.len;
	return b.p;
}

/* mkdir -p with mode 0700 for what we create. */
static int
report_mkdirs(const char *dir)
{
	char *p = xstrdup(dir);

	for (char *q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*q = '/';
	}
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

/* Write all of buf to fd. */
static int
report_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Give the complete temp file its final name without replacing a report. */
static int
report_publish(const char *tmp, const char *dir, int32_t pid, const char *stamp,
    char **path)
{
	char name[4096];

	for (int k = 1; k < 100; k++) {
		if (k == 1)
			snprintf(name, sizeof name, "%s/hookscope-%d-%s.txt", dir,
			    (int)pid, stamp);
		else
			snprintf(name, sizeof name, "%s/hookscope-%d-%s-%d.txt",
			    dir, (int)pid, stamp, k);
		if (link(tmp, name) == 0) {
			unlink(tmp);
			*path = xstrdup(name);
			return 0;
		}
		if (errno == EEXIST)
			continue;
		/* No hard links here (e.g. vfat): rename, if the name is free. */
		if (access(name, F_OK) == 0)
			continue;
		if (rename(tmp, name) == 0) {
			*path = xstrdup(name);
			return 0;
		}
		return -1;
	}
	errno = EEXIST;
	return -1;
}

/* Write text as a new report file (see daemon.h). */
int
daemon_report_write(const char *dir, int32_t pid, uint64_t wall_ms,
    const char *text, size_t len, char **path, char *err, size_t errlen)
{
	char tmp[4096], stamp[32];
	int fd, e;

	*path = NULL;
	if (report_mkdirs(dir) < 0) {
		snprintf(err, errlen, "cannot create report directory %s: %s "
		    "(use --report-dir DIR)", dir, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s/.hookscope-%d-XXXXXX.tmp", dir, (int)pid);
	if ((fd = mkostemps(tmp, 4, O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot write a report in %s: %s "
		    "(use --report-dir DIR)", dir, strerror(errno));
		return -1;
	}
	report_date(stamp, sizeof stamp, wall_ms, "%Y%m%d-%H%M%S");
	if (report_write_all(fd, text, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		snprintf(err, errlen, "cannot write a report in %s: %s", dir,
		    strerror(e));
		return -1;
	}
	if (close(fd) < 0 || report_publish(tmp, dir, pid, stamp, path) < 0) {
		e = errno;
		unlink(tmp);
		snprintf(err, errlen, "cannot write a report in %s: %s", dir,
		    strerror(e));
		return -1;
	}
	return 0;
}
