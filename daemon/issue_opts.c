/*
 * issue_opts.c - the issue sinks' options (doc/issues.md), on the command
 * line and, like every long option, in the config file (opts_config.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "issue.h"

enum {
	IO_DIR = 0x200, IO_MAX_FILES, IO_MAX_BYTES, IO_SYSLOG, IO_UPLOAD, IO_FORMAT, IO_HEADER,
	IO_TOKEN_FILE, IO_QUEUE, IO_BACKOFF,
};

const struct option issue_longopts[] = {
	{ "issue-dir",          required_argument, NULL, IO_DIR },
	{ "issue-max-files",    required_argument, NULL, IO_MAX_FILES },
	{ "issue-max-bytes",    required_argument, NULL, IO_MAX_BYTES },
	{ "syslog",             optional_argument, NULL, IO_SYSLOG },
	{ "upload",             required_argument, NULL, IO_UPLOAD },
	{ "upload-format",      required_argument, NULL, IO_FORMAT },
	{ "upload-header",      required_argument, NULL, IO_HEADER },
	{ "upload-token-file",  required_argument, NULL, IO_TOKEN_FILE },
	{ "upload-queue",       required_argument, NULL, IO_QUEUE },
	{ "upload-backoff-max", required_argument, NULL, IO_BACKOFF },
};
const size_t issue_nlongopts = sizeof issue_longopts / sizeof issue_longopts[0];

/* See issue.h. */
void
issue_opts_usage(FILE *f)
{
	fprintf(f,
"\n"
"issue options (doc/issues.md; also in the config file):\n"
"  --issue-dir DIR   keep every issue as DIR/SEQ-ID.json (default with\n"
"                    --upload: REPORT_DIR/issues)\n"
"  --issue-max-files N  at most N issue files (default %d; oldest dropped)\n"
"  --issue-max-bytes N  at most N bytes of issue files (default %llu; K, M, G)\n"
"  --syslog[=SOCKET] each new issue as an RFC 5424 line to SOCKET (default %s)\n"
"  --upload URL      POST each new issue to URL (http or https)\n"
"  --upload-format F json (the issue, default) or otlp (OTLP/HTTP JSON logs)\n"
"  --upload-header 'NAME: VALUE'  a header sent with every upload\n"
"  --upload-token-file FILE  'Authorization: Bearer TOKEN', TOKEN on FILE's first line\n"
"  --upload-queue N  issues waiting for the server, at most (default %d)\n"
"  --upload-backoff-max SEC  longest wait between retries (default %d)\n",
	    ISSUE_DEFAULT_MAX_FILES, (unsigned long long)ISSUE_DEFAULT_MAX_BYTES,
	    ISSUE_SYSLOG_SOCKET, ISSUE_DEFAULT_QUEUE, ISSUE_DEFAULT_BACKOFF_S);
}

/* A count with an optional K, M or G suffix (powers of 1024) in [lo, hi]. */
static int
io_size(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* See issue.h. */
int
issue_opts_value(struct daemon_issue_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	char tok[PROTO_TOKEN_MAX + 1], *h;
	uint64_t v;

	switch (c) {
	case IO_DIR:
		if (arg[0] == '\0') {
			snprintf(err, errlen, "--issue-dir needs a directory");
			return -1;
		}
		free(o->dir);
		o->dir = xstrdup(arg);
		return 0;
	case IO_MAX_FILES:
		if (io_size(arg, 1, 1000000, &o->max_files) < 0) {
			snprintf(err, errlen, "bad --issue-max-files '%s' (expected 1-1000000)", arg);
			return -1;
		}
		return 0;
	case IO_MAX_BYTES:
		if (io_size(arg, 4096, 1ull << 40, &o->max_bytes) < 0) {
			snprintf(err, errlen, "bad --issue-max-bytes '%s' (expected 4096 to 1T, "
			    "e.g. 64M)", arg);
			return -1;
		}
		return 0;
	case IO_SYSLOG:
		o->syslog = true;
		free(o->syslog_socket);
		o->syslog_socket = arg && arg[0] ? xstrdup(arg) : NULL;
		return 0;
	case IO_UPLOAD:
		if (strncmp(arg, "http://", 7) != 0 && strncmp(arg, "https://", 8) != 0) {
			snprintf(err, errlen, "bad --upload '%s' (expected an http:// or https:// "
			    "URL)", arg);
			return -1;
		}
		free(o->upload_url);
		o->upload_url = xstrdup(arg);
		return 0;
	case IO_FORMAT:
		if (strcmp(arg, "json") != 0 && strcmp(arg, "otlp") != 0) {
			snprintf(err, errlen, "bad --upload-format '%s' (expected json or otlp)", arg);
			return -1;
		}
		o->upload_otlp = strcmp(arg, "otlp") == 0;
		return 0;
	case IO_HEADER:
		if ((h = strchr(arg, ':')) == NULL || h == arg || strpbrk(arg, "\r\n") != NULL) {
			snprintf(err, errlen, "bad --upload-header '%s' (expected 'NAME: VALUE' on "
			    "one line)", arg);
			return -1;
		}
		free(o->upload_header);
		o->upload_header = xstrdup(arg);
		return 0;
	case IO_TOKEN_FILE:
		if (proto_token_read(arg, tok, sizeof tok, err, errlen) < 0)
			return -1;
		free(o->upload_header);
		o->upload_header = xmalloc(strlen(tok) + 32);
		sprintf(o->upload_header, "Authorization: Bearer %s", tok);
		return 0;
	case IO_QUEUE:
		if (io_size(arg, 1, 1000000, &o->upload_queue) < 0) {
			snprintf(err, errlen, "bad --upload-queue '%s' (expected 1-1000000)", arg);
			return -1;
		}
		return 0;
	case IO_BACKOFF:
		if (io_size(arg, 1, 86400, &v) < 0) {
			snprintf(err, errlen, "bad --upload-backoff-max '%s' (expected 1-86400 "
			    "seconds)", arg);
			return -1;
		}
		o->backoff_max_s = (unsigned)v;
		return 0;
	}
	snprintf(err, errlen, "internal: unhandled issue option");
	return -1;
}

/* See issue.h. */
int
issue_opts_finish(struct daemon_issue_opts *o, const char *report_dir, char *err, size_t errlen)
{
	if (o->max_files == 0)
		o->max_files = ISSUE_DEFAULT_MAX_FILES;
	if (o->max_bytes == 0)
		o->max_bytes = ISSUE_DEFAULT_MAX_BYTES;
	if (o->upload_queue == 0)
		o->upload_queue = ISSUE_DEFAULT_QUEUE;
	if (o->backoff_max_s == 0)
		o->backoff_max_s = ISSUE_DEFAULT_BACKOFF_S;
	if ((o->upload_header != NULL || o->upload_otlp) && o->upload_url == NULL) {
		snprintf(err, errlen, "--upload-format, --upload-header and --upload-token-file "
		    "need --upload URL");
		return -1;
	}
	if (o->upload_url != NULL && o->dir == NULL) {
		/* the upload queue lives in the store */
		o->dir = xmalloc(strlen(report_dir) + 8);
		sprintf(o->dir, "%s/issues", report_dir);
	}
	if (o->dir != NULL && o->dir[0] != '/') {
		char cwd[4096], *abs;

		if (getcwd(cwd, sizeof cwd) != NULL) {
			abs = xmalloc(strlen(cwd) + strlen(o->dir) + 2);
			sprintf(abs, "%s/%s", cwd, o->dir);
			free(o->dir);
			o->dir = abs;
		}
	}
	return 0;
}

/* See issue.h. */
void
issue_opts_free(struct daemon_issue_opts *o)
{
	free(o->dir);
	free(o->syslog_socket);
	free(o->upload_url);
	free(o->upload_header);
	memset(o, 0, sizeof *o);
}
