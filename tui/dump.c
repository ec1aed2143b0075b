/*
 * dump.c - the report format a dump asks for: -f FORMAT, else the file
 * name's extension (.trace.json or .trace: trace, .json: json, .folded:
 * folded, anything else: text), and saving the report on this host the way
 * the daemon saves its copy: whole or not at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tui.h"

/* The process's umask (read by setting it back). */
static mode_t dump_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

/* Does s end with suffix? */
static bool dump_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* See tui.h. */
const char *tui_dump_format(const char *path)
{
	if (path == NULL)
		return "text";
	if (dump_ends(path, ".trace.json") || dump_ends(path, ".trace"))
		return "trace";
	if (dump_ends(path, ".json"))
		return "json";
	if (dump_ends(path, ".folded"))
		return "folded";
	return "text";
}

/* See tui.h. */
const char *tui_dump_ext(const char *format)
{
	if (strcmp(format, "trace") == 0)
		return ".trace.json";
	if (strcmp(format, "json") == 0)
		return ".json";
	if (strcmp(format, "folded") == 0)
		return ".folded";
	return ".txt";
}

/* See tui.h. */
bool tui_dump_format_ok(const char *format)
{
	return strcmp(format, "text") == 0 || strcmp(format, "json") == 0 ||
	    strcmp(format, "trace") == 0 || strcmp(format, "folded") == 0;
}

/* See tui.h: FILE.XXXXXX next to it, written, then renamed over FILE. */
int tui_dump_save(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	size_t n = strlen(path) + 8;
	char *tmp = xmalloc(n);
	FILE *f = NULL;
	int fd, e = 0;

	snprintf(tmp, n, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0 || (f = fdopen(fd, "w")) == NULL) {
		e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	} else {
		if (fwrite(data, 1, len, f) != len || fflush(f) != 0 || fsync(fd) != 0)
			e = errno ? errno : EIO;
		if (fclose(f) != 0 && e == 0)
			e = errno;
		/* mkstemp makes it 0600; a report is as readable as any new file. */
		if (e == 0 && chmod(tmp, 0666 & ~dump_umask()) != 0)
			e = errno;
		if (e == 0 && rename(tmp, path) != 0)
			e = errno;
		if (e != 0)
			unlink(tmp);
	}
	free(tmp);
	if (e != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}
