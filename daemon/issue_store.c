/*
 * issue_store.c - the local store of issues: one JSON file per issue,
 * DIR/SEQ-ID.json (SEQ the raise order, 12 digits, so names sort in it),
 * rewritten when the issue repeats.  At most max_files files and max_bytes
 * bytes: before a file is written, the oldest files (lowest SEQ) are
 * removed until the new one fits, counting the old copy of a rewritten
 * file and the temporary the new one is written to, so the directory never
 * holds more than the limits.  A file is written to DIR/.tmp-SEQ and
 * renamed, so it appears whole.  Opening an existing store reads what it
 * holds (the limits applied again), so issues survive a restart and a
 * process that is still running does not get its issues raised twice.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "issue.h"
#include "report.h"

struct issue_file {
	uint64_t seq;
	char     id[24];
	int32_t  pid;
	uint64_t count, occ, first_ms;
	uint64_t bytes;
};

struct issue_store {
	char    *dir;
	uint64_t max_files, max_bytes;
	struct issue_file *v;             /* by seq, oldest first */
	size_t   n, cap;
	uint64_t bytes, max_seq;
	uint64_t dropped;                 /* files removed to stay within the limits */
};

/* DIR/SEQ-ID.json of f. */
static void
store_path(const struct issue_store *st, const struct issue_file *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%012" PRIu64 "-%s.json", st->dir, f->seq, f->id);
}

/* A top-level unsigned key of our own file, 0 when absent: the issue's
 * scalar keys come first, and a string value cannot hold '"key":' (its
 * quotes are escaped). */
static uint64_t
store_key(const char *text, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	p = strstr(text, pat);
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

/* Remove the i-th file. */
static void
store_drop(struct issue_store *st, size_t i)
{
	char path[4096];

	store_path(st, &st->v[i], path, sizeof path);
	if (unlink(path) < 0 && errno != ENOENT)
		daemon_log(DLOG_WARN, "issue store: cannot remove %s: %s", path, strerror(errno));
	st->bytes -= st->v[i].bytes;
	st->dropped++;
	memmove(&st->v[i], &st->v[i + 1], (st->n - i - 1) * sizeof *st->v);
	st->n--;
}

static int
store_cmp(const void *a, const void *b)
{
	const struct issue_file *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Read one existing file's name and keys. */
static void
store_load(struct issue_store *st, const char *name)
{
	struct issue_file f = { 0 };
	char path[4096], *text;
	struct stat sb;
	FILE *fp;
	size_t n;

	if (sscanf(name, "%12" SCNu64 "-%16[0-9a-f].json", &f.seq, f.id) != 2 ||
	    strlen(name) != 12 + 1 + 16 + 5)
		return;
	snprintf(path, sizeof path, "%s/%s", st->dir, name);
	if ((fp = fopen(path, "r")) == NULL || fstat(fileno(fp), &sb) < 0 || sb.st_size > (1 << 20)) {
		if (fp)
			fclose(fp);
		return;
	}
	text = xmalloc((size_t)sb.st_size + 1);
	n = fread(text, 1, (size_t)sb.st_size, fp);
	text[n] = '\0';
	fclose(fp);
	f.pid = (int32_t)store_key(text, "pid");
	f.count = store_key(text, "count");
	f.occ = store_key(text, "occurrence");
	f.first_ms = store_key(text, "first_ms");
	f.bytes = (uint64_t)sb.st_size;
	free(text);
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 64;
		st->v = xrealloc(st->v, st->cap * sizeof *st->v);
	}
	st->v[st->n++] = f;
	st->bytes += f.bytes;
	if (f.seq > st->max_seq)
		st->max_seq = f.seq;
}

/* See issue.h. */
struct issue_store *
issue_store_open(const char *dir, uint64_t max_files, uint64_t max_bytes, char *err, size_t errlen)
{
	struct issue_store *st;
	struct dirent *e;
	DIR *d;

	if (daemon_mkdirs(dir) < 0 || (d = opendir(dir)) == NULL) {
		snprintf(err, errlen, "issue store %s: %s (give a writable directory with "
		    "--issue-dir)", dir, strerror(errno));
		return NULL;
	}
	st = xcalloc(1, sizeof *st);
	st->dir = xstrdup(dir);
	st->max_files = max_files;
	st->max_bytes = max_bytes;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, ".tmp-", 5) == 0)
			unlinkat(dirfd(d), e->d_name, 0);   /* a write cut short */
		else
			store_load(st, e->d_name);
	}
	closedir(d);
	if (st->n > 0)
		qsort(st->v, st->n, sizeof *st->v, store_cmp);
	while (st->n > 0 && (st->n > st->max_files || st->bytes > st->max_bytes))
		store_drop(st, 0);
	return st;
}

/* Write all of buf to a new file path; 0 or -1 with errno (nothing left). */
static int
store_write(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	size_t off = 0;
	int e;

	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto fail;
		off += (size_t)w;
	}
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	e = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	unlink(path);
	errno = e;
	return -1;
}

/* See issue.h. */
int
issue_store_put(struct issue_store *st, const struct proto_issue *i, bool create)
{
	struct proto_buf b = { 0 };
	struct issue_file nf = { .seq = i->seq, .pid = i->pid, .count = i->count, .occ = i->occ,
	    .first_ms = i->first_ms };
	char tmp[4096], path[4096];
	size_t at = 0;
	bool have = false;
	uint64_t old;
	int rc = -1;

	snprintf(nf.id, sizeof nf.id, "%s", i->id);
	issue_format_json(&b, i);
	proto_buf_add(&b, "\n", 1);
	nf.bytes = b.len;
	if (nf.bytes > st->max_bytes || st->max_files == 0) {
		errno = EFBIG;
		goto out;
	}
	for (size_t k = 0; k < st->n; k++)
		if (st->v[k].seq == nf.seq) {
			at = k;
			have = true;
		}
	if (!have && !create) {
		rc = 0;               /* dropped for newer ones: a repeat does not bring it back */
		goto out;
	}
	/* room for the new file beside everything else, its old copy too: the
	 * oldest other file goes first, the old copy last */
	while (st->bytes + nf.bytes > st->max_bytes || st->n + !have > st->max_files) {
		size_t victim = have && at == 0 && st->n > 1 ? 1 : 0;

		store_drop(st, victim);
		if (have && victim == at)
			have = false;
		else if (have && victim < at)
			at--;
	}
	old = have ? st->v[at].bytes : 0;
	snprintf(tmp, sizeof tmp, "%s/.tmp-%012" PRIu64, st->dir, nf.seq);
	store_path(st, &nf, path, sizeof path);
	unlink(tmp);
	if (store_write(tmp, b.p, b.len) < 0 || rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
		goto out;
	}
	if (have) {
		st->bytes -= old;
		st->v[at] = nf;
	} else {
		if (st->n == st->cap) {
			st->cap = st->cap ? st->cap * 2 : 64;
			st->v = xrealloc(st->v, st->cap * sizeof *st->v);
		}
		st->v[st->n++] = nf;
		qsort(st->v, st->n, sizeof *st->v, store_cmp);
	}
	st->bytes += nf.bytes;
	if (nf.seq > st->max_seq)
		st->max_seq = nf.seq;
	rc = 0;
out:
	free(b.p);
	return rc;
}

/* See issue.h. */
void
issue_store_usage(const struct issue_store *st, uint64_t *files, uint64_t *bytes)
{
	*files = st->n;
	*bytes = st->bytes;
}

/* See issue.h. */
uint64_t
issue_store_max_seq(const struct issue_store *st)
{
	return st->max_seq;
}

/* See issue.h. */
int
issue_store_find(const struct issue_store *st, int32_t pid, const char *id, uint64_t *count,
    uint64_t *occ, uint64_t *first_ms, uint64_t *seq)
{
	for (size_t k = st->n; k-- > 0;)
		if (st->v[k].pid == pid && strcmp(st->v[k].id, id) == 0) {
			*count = st->v[k].count;
			*occ = st->v[k].occ;
			*first_ms = st->v[k].first_ms;
			*seq = st->v[k].seq;
			return 0;
		}
	return -1;
}

/* See issue.h. */
void
issue_store_close(struct issue_store *st)
{
	if (st == NULL)
		return;
	free(st->v);
	free(st->dir);
	free(st);
}

/* ---- the store as a sink ---- */

static struct issue_store *store_cur;
static uint64_t store_written, store_failed;
static char store_error[256];

struct issue_store *
issue_store_current(void)
{
	return store_cur;
}

static bool
store_wanted(const struct daemon_issue_opts *o)
{
	return o->dir != NULL;
}

static int
store_start(const struct daemon_issue_opts *o, char *err, size_t errlen)
{
	store_cur = issue_store_open(o->dir, o->max_files, o->max_bytes, err, errlen);
	return store_cur != NULL ? 0 : -1;
}

/* A new or changed issue: its file written (again). */
static void
store_put(const struct proto_issue *i, bool create)
{
	if (issue_store_put(store_cur, i, create) == 0) {
		store_written++;
		return;
	}
	store_failed++;
	snprintf(store_error, sizeof store_error, "%s: %s", i->id, strerror(errno));
	daemon_log(DLOG_WARN, "issue store %s: cannot write issue %s: %s", store_cur->dir, i->id,
	    errno == EFBIG ? "larger than --issue-max-bytes" : strerror(errno));
}

static void
store_publish(const struct proto_issue *i)
{
	store_put(i, true);
}

static void
store_update(const struct proto_issue *i)
{
	store_put(i, false);
}

static void
store_state(struct proto_issue_sink *out)
{
	out->dest = store_cur->dir;
	out->queued = store_cur->n;       /* files held */
	out->sent = store_written;
	out->failed = store_failed;
	out->dropped = store_cur->dropped;
	out->error = store_error;
}

static void
store_stop(void)
{
	issue_store_close(store_cur);
	store_cur = NULL;
}

const struct issue_sink issue_sink_store = {
	.name = "store", .wanted = store_wanted, .start = store_start, .publish = store_publish,
	.update = store_update, .state = store_state, .stop = store_stop,
};

/* See issue.h. */
const char *
issue_store_dir(const struct issue_store *st)
{
	return st->dir;
}
