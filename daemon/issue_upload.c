/*
 * issue_upload.c - the upload sink: each new issue is POSTed, as its JSON
 * or as an OTLP/HTTP JSON logs request, to the --upload URL (libcurl: http
 * and https), by a thread of its own, so the event loop never waits for a
 * server.
 *
 * The queue is persisted in the store: the event loop writes each body to
 * STORE/upload/SEQ.json (a temporary renamed, so it appears whole) before
 * the thread sees it; the thread sends the lowest SEQ first and removes the
 * file once the server answered 2xx, so a server that is down loses nothing
 * and a daemon restart resumes where it stopped without sending anything
 * twice.  Failures (no connection, 408, 429, 5xx) are retried after 1 s,
 * doubling up to --upload-backoff-max; any other 4xx is the server refusing
 * that issue: it is dropped, counted failed.  At most --upload-queue issues
 * wait: beyond, the oldest waiting one is dropped.
 */
#include <assert.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "issue.h"
#include "report.h"

#define UP_TIMEOUT_S      10      /* one POST, connection included */
#define UP_CONNECT_S      5

static struct {
	pthread_mutex_t mu;
	pthread_cond_t  cv;
	pthread_t thread;
	atomic_bool stop;
	char    *dir;                 /* STORE/upload */
	char    *url, *header;        /* header: "Name: value" or NULL */
	bool     otlp;
	char     host[256];
	uint64_t max_queue;
	unsigned backoff_max_s;
	uint64_t *q;                  /* seqs waiting, oldest first (a ring) */
	size_t   qhead, qlen, qcap;
	uint64_t inflight;            /* seq being sent, 0 none */
	uint64_t sent, failed, dropped;
	char     error[256];
	char     error_copy[256];     /* the event loop's copy (state) */
} up = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static uint64_t
up_at(size_t k)
{
	return up.q[(up.qhead + k) % up.qcap];
}

static void
up_path(char *buf, size_t len, uint64_t seq)
{
	snprintf(buf, len, "%s/%012" PRIu64 ".json", up.dir, seq);
}

/* Append seq (mutex held). */
static void
up_push(uint64_t seq)
{
	if (up.qlen == up.qcap) {
		size_t cap = up.qcap ? up.qcap * 2 : 64;
		uint64_t *q = xmalloc(cap * sizeof *q);

		for (size_t k = 0; k < up.qlen; k++)
			q[k] = up_at(k);
		free(up.q);
		up.q = q;
		up.qcap = cap;
		up.qhead = 0;
	}
	up.q[(up.qhead + up.qlen++) % up.qcap] = seq;
}

/* Remove the k-th waiting seq (mutex held). */
static void
up_remove(size_t k)
{
	for (size_t m = k; m + 1 < up.qlen; m++)
		up.q[(up.qhead + m) % up.qcap] = up.q[(up.qhead + m + 1) % up.qcap];
	up.qlen--;
}

static int
up_seq_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* curl: abort a transfer when the daemon stops. */
static int
up_progress(void *p, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	(void)p; (void)a; (void)b; (void)c; (void)d;
	return atomic_load(&up.stop) ? 1 : 0;
}

/* curl: the response body is not needed. */
static size_t
up_discard(char *p, size_t size, size_t n, void *u)
{
	(void)p;
	(void)u;
	return size * n;
}

/* POST body; the HTTP status, or 0 with err on a transport failure. */
static long
up_post(CURL *c, const char *body, size_t len, char *err, size_t errlen)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char ebuf[CURL_ERROR_SIZE] = "";
	long status = 0;
	CURLcode rc;

	if (up.header != NULL)
		h = curl_slist_append(h, up.header);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, up.url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)UP_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)UP_CONNECT_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, up_progress);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, up_discard);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "hookscoped/" HS_VERSION);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	else
		snprintf(err, errlen, "%s", ebuf[0] ? ebuf : curl_easy_strerror(rc));
	curl_slist_free_all(h);
	return status;
}

/* Read a whole file; NULL with errno. */
static char *
up_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	struct stat sb;
	char *buf;

	if (f == NULL)
		return NULL;
	if (fstat(fileno(f), &sb) < 0) {
		fclose(f);
		return NULL;
	}
	buf = xmalloc((size_t)sb.st_size + 1);
	*len = fread(buf, 1, (size_t)sb.st_size, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* Wait s seconds, or less when the daemon stops (mutex held): a new issue
 * does not cut a backoff short. */
static void
up_wait(unsigned s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += s;
	while (!atomic_load(&up.stop) && pthread_cond_timedwait(&up.cv, &up.mu, &ts) != ETIMEDOUT)
		;
}

static void *
up_main(void *arg)
{
	CURL *c = curl_easy_init();
	unsigned backoff = 0;

	(void)arg;
	pthread_mutex_lock(&up.mu);
	while (!atomic_load(&up.stop)) {
		char path[4096], err[CURL_ERROR_SIZE + 64] = "";
		uint64_t seq;
		size_t len = 0;
		char *body;
		long status;

		if (up.qlen == 0) {
			pthread_cond_wait(&up.cv, &up.mu);
			continue;
		}
		seq = up.inflight = up_at(0);
		pthread_mutex_unlock(&up.mu);
		up_path(path, sizeof path, seq);
		body = up_read(path, &len);
		status = body == NULL ? -1 : c == NULL ? 0 : up_post(c, body, len, err, sizeof err);
		free(body);
		if (c == NULL)
			snprintf(err, sizeof err, "curl_easy_init failed");
		if (status >= 200 && status < 300)
			unlink(path);
		pthread_mutex_lock(&up.mu);
		up.inflight = 0;
		if (atomic_load(&up.stop))
			break;
		if (status == -1 || (status >= 200 && status < 300) || (status >= 400 &&
		    status < 500 && status != 408 && status != 429)) {
			/* done with it: sent, gone from the store, or refused */
			if (up.qlen > 0 && up_at(0) == seq)
				up_remove(0);
			if (status == -1)
				up.dropped++;
			else if (status < 300)
				up.sent++;
			else {
				up.failed++;
				snprintf(up.error, sizeof up.error, "issue %" PRIu64 " refused: HTTP %ld "
				    "(dropped)", seq, status);
				unlink(path);
			}
			backoff = 0;
			continue;
		}
		up.failed++;
		if (status != 0)
			snprintf(err, sizeof err, "HTTP %ld", status);
		backoff = backoff == 0 ? 1 : backoff * 2 > up.backoff_max_s ? up.backoff_max_s :
		    backoff * 2;
		snprintf(up.error, sizeof up.error, "%s (retry in %u s)", err, backoff);
		if (!atomic_load(&up.stop))
			up_wait(backoff);
	}
	pthread_mutex_unlock(&up.mu);
	if (c != NULL)
		curl_easy_cleanup(c);
	return NULL;
}

static bool
up_wanted(const struct daemon_issue_opts *o)
{
	return o->upload_url != NULL;
}

/* Resume the queue the store holds: every STORE/upload/SEQ.json. */
static void
up_resume(void)
{
	struct dirent *e;
	DIR *d = opendir(up.dir);
	uint64_t seq;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, ".tmp-", 5) == 0)
			unlinkat(dirfd(d), e->d_name, 0);
		else if (strlen(e->d_name) == 12 + 5 &&
		    sscanf(e->d_name, "%12" SCNu64 ".json", &seq) == 1)
			up_push(seq);
	}
	closedir(d);
	if (up.qlen > 0)
		qsort(up.q, up.qlen, sizeof *up.q, up_seq_cmp);   /* qhead is 0 */
}

static int
up_start(const struct daemon_issue_opts *o, char *err, size_t errlen)
{
	struct issue_store *st = issue_store_current();
	char dir[4096];

	assert(st != NULL);      /* issue_opts_finish gives --upload a store */
	snprintf(dir, sizeof dir, "%s/upload", issue_store_dir(st));
	if (daemon_mkdirs(dir) < 0) {
		snprintf(err, errlen, "upload queue %s: %s", dir, strerror(errno));
		return -1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		snprintf(err, errlen, "--upload: libcurl could not initialise");
		return -1;
	}
	up.dir = xstrdup(dir);
	up.url = xstrdup(o->upload_url);
	up.header = o->upload_header ? xstrdup(o->upload_header) : NULL;
	up.otlp = o->upload_otlp;
	up.max_queue = o->upload_queue;
	up.backoff_max_s = o->backoff_max_s ? o->backoff_max_s : 1;
	if (gethostname(up.host, sizeof up.host) < 0)
		snprintf(up.host, sizeof up.host, "unknown");
	up.host[sizeof up.host - 1] = '\0';
	atomic_store(&up.stop, false);
	up_resume();
	if (up.qlen > 0)
		daemon_log(DLOG_NOTICE, "upload: %zu issues queued in %s from an earlier run",
		    up.qlen, up.dir);
	if ((errno = pthread_create(&up.thread, NULL, up_main, NULL)) != 0) {
		snprintf(err, errlen, "upload: cannot start its thread: %s", strerror(errno));
		curl_global_cleanup();
		return -1;
	}
	return 0;
}

/* A new issue: its body into the queue directory, then to the thread. */
static void
up_publish(const struct proto_issue *i)
{
	struct proto_buf b = { 0 };
	char tmp[4096], path[4096];
	int fd;

	if (up.otlp)
		issue_format_otlp(&b, i, up.host);
	else
		issue_format_json(&b, i);
	proto_buf_add(&b, "\n", 1);
	snprintf(tmp, sizeof tmp, "%s/.tmp-%012" PRIu64, up.dir, i->seq);
	up_path(path, sizeof path, i->seq);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, b.p, b.len) != (ssize_t)b.len || close(fd) < 0 ||
	    rename(tmp, path) < 0) {
		pthread_mutex_lock(&up.mu);
		up.failed++;
		snprintf(up.error, sizeof up.error, "cannot queue issue %s in %s: %s", i->id, up.dir,
		    strerror(errno));
		pthread_mutex_unlock(&up.mu);
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		free(b.p);
		return;
	}
	free(b.p);
	pthread_mutex_lock(&up.mu);
	up_push(i->seq);
	/* over the bound: the oldest waiting one that is not being sent goes */
	while (up.qlen > up.max_queue) {
		size_t k = up_at(0) == up.inflight ? 1 : 0;

		up_path(path, sizeof path, up_at(k));
		unlink(path);
		up_remove(k);
		up.dropped++;
	}
	pthread_cond_signal(&up.cv);
	pthread_mutex_unlock(&up.mu);
}

static void
up_state(struct proto_issue_sink *out)
{
	pthread_mutex_lock(&up.mu);
	out->dest = up.url;
	out->queued = up.qlen;
	out->sent = up.sent;
	out->failed = up.failed;
	out->dropped = up.dropped;
	memcpy(up.error_copy, up.error, sizeof up.error_copy);
	pthread_mutex_unlock(&up.mu);
	out->error = up.error_copy;
}

static void
up_stop(void)
{
	pthread_mutex_lock(&up.mu);
	atomic_store(&up.stop, true);
	pthread_cond_broadcast(&up.cv);
	pthread_mutex_unlock(&up.mu);
	pthread_join(up.thread, NULL);
	curl_global_cleanup();
	free(up.q);
	free(up.dir);
	free(up.url);
	free(up.header);
	up.q = NULL;
	up.qlen = up.qcap = up.qhead = 0;
	up.dir = up.url = up.header = NULL;
}

const struct issue_sink issue_sink_upload = {
	.name = "upload", .wanted = up_wanted, .start = up_start, .publish = up_publish,
	.state = up_state, .stop = up_stop,
};
