/*
 * report_write.c - writing a report atomically into the report directory.
 *
 * The file appears whole or not at all: the text goes to a temp file in the
 * same directory, is fsync'ed, then linked to its final name (link() never
 * replaces an existing report; rename() is the fallback on file systems
 * without hard links).  The final name is NAME-YYYYmmdd-HHMMSS[-K].EXT where
 * NAME is "hookscope-PID" or "hookscope-all", or a name the user gave that
 * daemon_report_name_ok() accepted (no '/', no leading '.'), so it cannot
 * leave the directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "daemon.h"

#define REPORT_NAME_MAX 64

/* See daemon.h: letters, digits, '-', '_', '.'; not starting with '.'. */
int
daemon_report_name_ok(const char *name, char *err, size_t errlen)
{
	size_t n = strlen(name);

	if (n == 0 || n > REPORT_NAME_MAX || name[0] == '.' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-_.") != n) {
		snprintf(err, errlen, "bad report name '%.80s': use 1 to %d letters, "
		    "digits, '-', '_' or '.', not starting with '.' (the report "
		    "stays in the report directory)", name, REPORT_NAME_MAX);
		return -1;
	}
	return 0;
}

/* See daemon.h. */
int
daemon_mkdirs(const char *dir)
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
report_publish(const char *tmp, const char *dir, const char *name, const char *stamp,
    const char *ext, char **path)
{
	char final[4096];

	for (int k = 1; k < 100; k++) {
		if (k == 1)
			snprintf(final, sizeof final, "%s/%s-%s%s", dir, name, stamp, ext);
		else
			snprintf(final, sizeof final, "%s/%s-%s-%d%s", dir, name, stamp, k, ext);
		if (link(tmp, final) == 0) {
			unlink(tmp);
			*path = xstrdup(final);
			return 0;
		}
		if (errno == EEXIST)
			continue;
		/* No hard links here (e.g. vfat): rename, if the name is free. */
		if (access(final, F_OK) == 0)
			continue;
		if (rename(tmp, final) == 0) {
			*path = xstrdup(final);
			return 0;
		}
		return -1;
	}
	errno = EEXIST;
	return -1;
}

/* See daemon.h. */
int
daemon_report_save(const char *dir, const char *name, const char *ext, uint64_t wall_ms,
    const char *text, size_t len, char **path, char *err, size_t errlen)
{
	char tmp[4096], stamp[32];
	time_t t = (time_t)(wall_ms / 1000);
	struct tm tm;
	int fd, e;

	*path = NULL;
	if (daemon_report_name_ok(name, err, errlen) < 0)
		return -1;
	if (daemon_mkdirs(dir) < 0) {
		snprintf(err, errlen, "cannot create report directory %s: %s "
		    "(use --report-dir DIR)", dir, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s/.hookscope-XXXXXX.tmp", dir);
	if ((fd = mkostemps(tmp, 4, O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot write a report in %s: %s "
		    "(use --report-dir DIR)", dir, strerror(errno));
		return -1;
	}
	if (localtime_r(&t, &tm) == NULL || strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm) == 0)
		snprintf(stamp, sizeof stamp, "%" PRIu64, wall_ms / 1000);
	if (report_write_all(fd, text, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		snprintf(err, errlen, "cannot write a report in %s: %s", dir, strerror(e));
		return -1;
	}
	if (close(fd) < 0 || report_publish(tmp, dir, name, stamp, ext, path) < 0) {
		e = errno;
		unlink(tmp);
		snprintf(err, errlen, "cannot write a report in %s: %s", dir, strerror(e));
		return -1;
	}
	return 0;
}

/* See daemon.h. */
int
daemon_report_write(const char *dir, int32_t pid, uint64_t wall_ms, const char *text,
    size_t len, char **path, char *err, size_t errlen)
{
	char name[32];

	snprintf(name, sizeof name, "hookscope-%d", (int)pid);
	return daemon_report_save(dir, name, ".txt", wall_ms, text, len, path, err, errlen);
}
