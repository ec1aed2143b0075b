/*
 * loop.c - the event loop of hookscope: libwebsockets owns it.
 *
 * lws 4.1 as Debian builds it has no external poll integration, so
 * everything else joins lws' loop: timers are lws_sul entries and extra fds
 * (the terminal, a signalfd) are adopted as raw file descriptors.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "tui.h"

#define LOOP_MAX_WATCH 4

struct tui_watch {
	struct tui_loop *loop;
	tui_fd_fn        fn;
	void            *arg;
};

struct tui_loop {
	struct lws_context   *ctx;
	struct lws_vhost     *vh;
	bool                  stop;
	bool                  closing;    /* context being destroyed */
	struct tui_watch      watch[LOOP_MAX_WATCH];
	int                   nwatch;
	struct lws_protocols  protocols[3];
};

struct tui_timer {
	lws_sorted_usec_list_t sul;       /* first: lws_container_of */
	struct tui_loop       *loop;
	void                 (*fn)(void *);
	void                  *arg;
};

static char loop_log_line[256];
static bool loop_log_stderr;

/* lws log emitter: keep the last line (never write on a curses screen). */
static void loop_log_emit(int level, const char *line)
{
	size_t n;

	(void)level;
	snprintf(loop_log_line, sizeof loop_log_line, "%s", line);
	n = strlen(loop_log_line);
	while (n > 0 && (loop_log_line[n - 1] == '\n' || loop_log_line[n - 1] == '\r'))
		loop_log_line[--n] = '\0';
	if (loop_log_stderr)
		fprintf(stderr, "hookscope: lws: %s\n", loop_log_line);
}

/* See tui.h. */
const char *tui_loop_last_log(void)
{
	return loop_log_line;
}

/* Callback of the adopted fds. */
static int loop_fd_callback(struct lws *wsi, enum lws_callback_reasons reason,
    void *user, void *in, size_t len)
{
	struct tui_watch *w = wsi ? lws_get_opaque_user_data(wsi) : NULL;

	(void)user;
	(void)in;
	(void)len;
	if (w == NULL || w->loop->closing)
		return 0;
	if (reason == LWS_CALLBACK_RAW_RX_FILE)
		w->fn(w->arg, false);
	else if (reason == LWS_CALLBACK_RAW_CLOSE_FILE)
		w->fn(w->arg, true);
	return 0;
}

/* See tui.h. */
struct tui_loop *tui_loop_new(bool log_to_stderr, char *err, size_t errlen)
{
	struct lws_context_creation_info info;
	struct tui_loop *l = xcalloc(1, sizeof *l);

	loop_log_stderr = log_to_stderr;
	lws_set_log_level(LLL_ERR | LLL_WARN, loop_log_emit);
	l->protocols[0] = *tui_conn_protocol();
	l->protocols[1].name = "hookscope-fd";
	l->protocols[1].callback = loop_fd_callback;
	/* protocols[2] stays all-zero: the terminator. */
	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = l->protocols;
	info.gid = -1;
	info.uid = -1;
	info.user = l;
	info.fd_limit_per_thread = 64;  /* not ulimit -n: one socket and two fds */
	l->ctx = lws_create_context(&info);
	if (l->ctx == NULL) {
		snprintf(err, errlen, "cannot start the websocket library (%s)",
		    loop_log_line[0] ? loop_log_line : "lws_create_context failed");
		free(l);
		return NULL;
	}
	l->vh = lws_get_vhost_by_name(l->ctx, "default");
	return l;
}

/* See tui.h. */
void tui_loop_free(struct tui_loop *l)
{
	if (l == NULL)
		return;
	l->closing = true;
	lws_context_destroy(l->ctx);
	free(l);
}

/* See tui.h. */
struct lws_context *tui_loop_context(struct tui_loop *l)
{
	return l->ctx;
}

/* See tui.h. */
int tui_loop_watch(struct tui_loop *l, int fd, tui_fd_fn fn, void *arg,
    char *err, size_t errlen)
{
	lws_adopt_desc_t ad;
	struct tui_watch *w;
	int dupfd;

	assert(l->nwatch < LOOP_MAX_WATCH);
	if (l->vh == NULL) {
		snprintf(err, errlen, "websocket library has no default vhost");
		return -1;
	}
	dupfd = dup(fd);
	if (dupfd < 0) {
		snprintf(err, errlen, "cannot watch fd %d: %s", fd, strerror(errno));
		return -1;
	}
	w = &l->watch[l->nwatch];
	w->loop = l;
	w->fn = fn;
	w->arg = arg;
	memset(&ad, 0, sizeof ad);
	ad.vh = l->vh;
	ad.type = LWS_ADOPT_RAW_FILE_DESC;
	ad.fd.filefd = dupfd;
	ad.vh_prot_name = l->protocols[1].name;
	ad.opaque = w;
	if (lws_adopt_descriptor_vhost_via_info(&ad) == NULL) {
		/* lws closed dupfd already. */
		snprintf(err, errlen, "cannot watch fd %d (%s)", fd, loop_log_line);
		return -1;
	}
	l->nwatch++;
	return 0;
}

/* See tui.h. */
void tui_loop_run(struct tui_loop *l)
{
	while (!l->stop)
		if (lws_service(l->ctx, 0) < 0)
			break;
}

/* See tui.h.  Takes effect when the current callback returns. */
void tui_loop_stop(struct tui_loop *l)
{
	l->stop = true;
	lws_cancel_service(l->ctx);
}

/* lws_sul callback: run the timer's function. */
static void loop_timer_fire(lws_sorted_usec_list_t *sul)
{
	struct tui_timer *t = lws_container_of(sul, struct tui_timer, sul);

	t->fn(t->arg);
}

/* See tui.h. */
struct tui_timer *tui_timer_new(struct tui_loop *l, void (*fn)(void *), void *arg)
{
	struct tui_timer *t = xcalloc(1, sizeof *t);

	t->loop = l;
	t->fn = fn;
	t->arg = arg;
	return t;
}

/* See tui.h.  Re-arming an armed timer moves it. */
void tui_timer_start(struct tui_timer *t, uint64_t ms)
{
	lws_sul_schedule(t->loop->ctx, 0, &t->sul, loop_timer_fire,
	    (lws_usec_t)ms * LWS_US_PER_MS);
}

/* See tui.h. */
void tui_timer_stop(struct tui_timer *t)
{
	lws_sul_cancel(&t->sul);
}

/* See tui.h. */
void tui_timer_free(struct tui_timer *t)
{
	if (t == NULL)
		return;
	lws_sul_cancel(&t->sul);
	free(t);
}
