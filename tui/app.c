/*
 * app.c - the interactive hookscope: wires the connection, the terminal,
 * the signals and the timers to the screen.
 *
 * Everything runs in lws' loop: the terminal and a signalfd (SIGWINCH,
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT blocked and read there) are adopted
 * fds, the clock tick is a timer.  Whatever ends the loop (q, :quit, a
 * signal, a lost terminal), the terminal is restored before we return.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "tui.h"
#include "panel-funcs.h"

#include <curses.h>

#define APP_TICK_MS 250

static int app_sigfd = -1;

/* See tui.h. */
void tui_app_message(struct tui_app *a, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof a->msg, fmt, ap);
	va_end(ap);
	a->msg_error = error;
	a->msg_ns = proto_now_ns();
}

/* See tui.h. */
void tui_app_overlay_close(struct tui_app *a)
{
	struct tui_overlay *o = &a->overlay;

	for (size_t i = 0; i < o->nitems; i++)
		free(o->items[i]);
	free(o->items);
	free(o->title);
	memset(o, 0, sizeof *o);
}

/* See tui.h: text split at newlines into the overlay box. */
void tui_app_overlay(struct tui_app *a, const char *title, const char *text)
{
	struct tui_overlay *o = &a->overlay;
	const char *p = text;

	tui_app_overlay_close(a);
	o->title = xstrdup(title);
	while (*p) {
		size_t n = strcspn(p, "\n");

		o->items = xrealloc(o->items, (o->nitems + 1) * sizeof *o->items);
		o->items[o->nitems++] = xstrndup(p, n);
		p += n + (p[n] == '\n');
	}
	o->active = true;
}

/* See tui.h. */
const struct proto_target *tui_app_targets(const struct tui_app *a, size_t *n)
{
	if (a->frame != NULL) {
		*n = a->frame->frame.ntargets;
		return a->frame->frame.targets;
	}
	if (a->hello != NULL) {
		*n = a->hello->ntargets;
		return a->hello->targets;
	}
	*n = 0;
	return NULL;
}

/* See tui.h. */
const struct proto_target *tui_app_target(const struct tui_app *a)
{
	return a->frame ? tui_frame_target(&a->frame->frame) : NULL;
}

/* How much of a reply the user sees. */
enum app_show {
	APP_SHOW_ALL,                     /* the reply, ok or not */
	APP_SHOW_ERRORS,                  /* only a failure */
	APP_SHOW_NONE,                    /* nothing (restoring state) */
};

/* A command in flight: who sent it, and what of the reply to show. */
struct app_req {
	struct tui_app *a;
	char            name[32];
	enum app_show   show;
};

/* Reply of a command: the message line, or an overlay when long. */
static void app_reply(void *arg, const struct proto_reply *r)
{
	struct app_req *q = arg;

	if (q->show == APP_SHOW_NONE) {
		/* nothing */
	} else if (r == NULL) {
		if (q->show == APP_SHOW_ALL)
			tui_app_message(q->a, true, "%s: no reply (connection lost)", q->name);
	} else if (r->ok && strchr(r->msg, '\n') != NULL) {
		char title[64];

		snprintf(title, sizeof title, " %s ", q->name);
		tui_app_overlay(q->a, title, r->msg);
	} else if (!r->ok || q->show == APP_SHOW_ALL) {
		tui_app_message(q->a, !r->ok, "%s: %s", q->name, r->msg[0] ? r->msg : "ok");
	}
	free(q);
}

/* Send with the generic reply handler.  View settings (sort, filter, ...)
 * wait for the connection quietly: app_restore sends them then. */
static int app_send(struct tui_app *a, int argc, const char *const *argv, enum app_show show)
{
	struct app_req *q;

	if (show != APP_SHOW_ALL && tui_conn_state(a->conn) != TUI_CONN_UP)
		return 0;
	q = xcalloc(1, sizeof *q);
	q->a = a;
	q->show = show;
	snprintf(q->name, sizeof q->name, "%s", argv[0]);
	if (tui_app_send_reply(a, argc, argv, app_reply, q) < 0) {
		free(q);
		return -1;
	}
	return 0;
}

/* See tui.h. */
int tui_app_send_reply(struct tui_app *a, int argc, const char *const *argv,
    tui_reply_fn fn, void *arg)
{
	char err[PROTO_ERR_LEN];

	if (tui_conn_send(a->conn, argc, argv, fn, arg, err, sizeof err) < 0) {
		tui_app_message(a, true, "%s: %s", argv[0], err);
		return -1;
	}
	return 0;
}

/* See tui.h. */
int tui_app_send(struct tui_app *a, int argc, const char *const *argv)
{
	return app_send(a, argc, argv, APP_SHOW_ALL);
}

/* See tui.h: ask the daemon, and re-sort what we have at once. */
void tui_app_set_sort(struct tui_app *a, const char *key)
{
	const char *argv[] = { "sort", key };

	free(a->want_sort);
	a->want_sort = xstrdup(key);
	if (a->frame != NULL) {
		struct proto_frame *f = &a->frame->frame;

		tui_funcs_sort(f->funcs, f->nfuncs, key);
		free(f->sort);
		f->sort = xstrdup(key);
		tui_panel_funcs_follow(a);
	}
	app_send(a, 2, argv, APP_SHOW_ERRORS);
}

/* See tui.h: the daemon filters before its top-N cut, so it does it. */
void tui_app_set_filter(struct tui_app *a, const char *text)
{
	const char *argv[] = { "filter", text };
	bool clear = text == NULL || text[strspn(text, " \t")] == '\0';

	free(a->want_filter);
	a->want_filter = clear ? NULL : xstrdup(text);
	if (app_send(a, clear ? 1 : 2, argv, APP_SHOW_ERRORS) == 0)
		tui_app_message(a, false, clear ? "filter cleared" : "filter \"%s\"", text);
}

/* After (re)connecting: the daemon forgot this client; ask again.  The
 * target may not be back yet (its agent reconnects on its own): that is
 * retried when a frame lists it (app_retarget). */
static void app_restore(struct tui_app *a)
{
	char num[24];
	const char *argv[2];

	a->retarget_sent = false;
	if (a->want_target > 0) {
		snprintf(num, sizeof num, "%d", (int)a->want_target);
		argv[0] = "target";
		argv[1] = num;
		app_send(a, 2, argv, APP_SHOW_NONE);
	}
	if (a->want_sort != NULL) {
		argv[0] = "sort";
		argv[1] = a->want_sort;
		app_send(a, 2, argv, APP_SHOW_ERRORS);
	}
	if (a->want_top > 0) {
		snprintf(num, sizeof num, "%ld", a->want_top);
		argv[0] = "top";
		argv[1] = num;
		app_send(a, 2, argv, APP_SHOW_ERRORS);
	}
	if (a->want_filter != NULL) {
		argv[0] = "filter";
		argv[1] = a->want_filter;
		app_send(a, 2, argv, APP_SHOW_ERRORS);
	}
}

/* The wanted target is listed but not shown: ask once more (per connection). */
static void app_retarget(struct tui_app *a, const struct proto_frame *f)
{
	char num[24];
	const char *argv[] = { "target", num };

	if (a->want_target <= 0 || f->pid == a->want_target || a->retarget_sent)
		return;
	for (size_t i = 0; i < f->ntargets; i++) {
		if (f->targets[i].pid == a->want_target) {
			a->retarget_sent = true;
			snprintf(num, sizeof num, "%d", (int)a->want_target);
			app_send(a, 2, argv, APP_SHOW_ERRORS);
			return;
		}
	}
}

/* conn: state changed. */
static void app_conn_state(void *owner)
{
	struct tui_app *a = owner;

	if (tui_conn_state(a->conn) == TUI_CONN_UP)
		app_restore(a);
	tui_screen_draw(a);
}

/* conn: a hello, frame or error. */
static void app_conn_message(void *owner, struct proto_server_msg *m)
{
	struct tui_app *a = owner;

	switch (m->type) {
	case PROTO_MSG_HELLO:
		tui_msg_free(a->hello);
		a->hello = m;
		if (!(a->msg[0] && a->msg_error))   /* a startup error (bad theme) stays */
			tui_app_message(a, false, "connected to hookscoped %s at %s", m->version,
			    a->opts->url.text);
		break;
	case PROTO_MSG_FRAME:
		/* Shown when the refresh period allows, unless paused (refresh.c). */
		tui_msg_free(a->pending);
		a->pending = m;
		a->frame_rx_ns = proto_now_ns();   /* the status bar's age: data flow */
		app_retarget(a, &m->frame);
		tui_app_show_pending(a, a->frame == NULL);
		break;
	default:
		tui_app_message(a, true, "hookscoped: %s", m->error ? m->error : "error");
		tui_msg_free(m);
		break;
	}
	tui_screen_draw(a);
}

/* conn: something to tell the user. */
static void app_conn_warn(void *owner, const char *text)
{
	struct tui_app *a = owner;

	tui_app_message(a, true, "%s", text);
	tui_screen_draw(a);
}

static const struct tui_conn_ops app_conn_ops = {
	.state = app_conn_state,
	.message = app_conn_message,
	.warn = app_conn_warn,
};

/* Stop the loop at the end of this callback. */
static void app_quit(struct tui_app *a, int status)
{
	a->quit = true;
	a->status = status;
	tui_loop_stop(a->loop);
}

/* The terminal has input (or went away). */
static void app_on_input(void *arg, bool hangup)
{
	struct tui_app *a = arg;

	if (hangup) {
		app_quit(a, 1);
		return;
	}
	while (!a->quit) {
		if (a->mode == TUI_MODE_NORMAL) {
			int ch = wgetch((WINDOW *)tui_screen_keypad());

			if (ch == ERR)
				break;
			if (ch != KEY_RESIZE)   /* SIGWINCH comes through the signalfd */
				tui_keys_handle(a, ch);
		} else if (!tui_cmdline_feed(a)) {
			break;
		}
	}
	if (a->quit)
		app_quit(a, a->status);
	else
		tui_screen_draw(a);
}

/* A blocked signal arrived on the signalfd. */
static void app_on_signal(void *arg, bool hangup)
{
	struct tui_app *a = arg;
	struct signalfd_siginfo si;

	if (hangup)
		return;
	while (read(app_sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
		switch (si.ssi_signo) {
		case SIGWINCH:
			tui_screen_resize(a);
			break;
		case SIGINT:
			/* ^C leaves the command line or the overlay, else quits. */
			if (a->mode != TUI_MODE_NORMAL)
				tui_cmdline_cancel(a);
			else if (a->overlay.active)
				tui_app_overlay_close(a);
			else
				app_quit(a, 0);
			break;
		default:
			app_quit(a, 128 + (int)si.ssi_signo);
			break;
		}
	}
	if (!a->quit)
		tui_screen_draw(a);
}

/* Every APP_TICK_MS: ages move on, messages fade. */
static void app_tick(void *arg)
{
	struct tui_app *a = arg;

	tui_app_show_pending(a, false);
	tui_screen_draw(a);
	tui_timer_start(a->tick, APP_TICK_MS);
}

/* Free what the app holds. */
static void app_free(struct tui_app *a)
{
	tui_app_overlay_close(a);
	tui_msg_free(a->frame);
	tui_msg_free(a->pending);
	tui_msg_free(a->hello);
	tui_paths_free(a);
	free(a->sel_name);
	free(a->want_sort);
	free(a->want_filter);
	memset(a, 0, sizeof *a);
}

/* See tui.h.  Signals stay blocked on return (a SIGTERM that came late
 * must not kill us after the terminal was restored): the caller exits. */
int tui_app_run(const struct tui_opts *o)
{
	struct tui_app a;
	sigset_t set;
	char err[PROTO_ERR_LEN + 256] = "", theme_err[PROTO_ERR_LEN + 256];
	int theme_rc, fl = fcntl(STDIN_FILENO, F_GETFL);

	memset(&a, 0, sizeof a);
	a.opts = o;
	a.status = 1;
	a.utf8 = !o->ascii && tui_locale_utf8();
	a.want_target = o->target ? o->target : o->wait_pid;
	a.want_sort = o->sort ? xstrdup(o->sort) : NULL;
	a.want_top = o->top;
	a.want_filter = o->filter && o->filter[0] ? xstrdup(o->filter) : NULL;
	a.refresh_ms = TUI_REFRESH_MS;
	theme_rc = tui_theme_load(&a.theme, o->theme, theme_err, sizeof theme_err);

	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	app_sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (app_sigfd < 0) {
		snprintf(err, sizeof err, "cannot read signals: signalfd: %s", strerror(errno));
		goto out;
	}
	a.loop = tui_loop_new(false, err, sizeof err);
	if (a.loop == NULL)
		goto out;
	a.conn = tui_conn_new(a.loop, &o->url, TUI_RETRY_MS, &app_conn_ops, &a);
	a.tick = tui_timer_new(a.loop, app_tick, &a);
	if (tui_screen_start(&a, err, sizeof err) < 0)
		goto out;
	tui_cmdline_init(&a);
	if (tui_loop_watch(a.loop, STDIN_FILENO, app_on_input, &a, err, sizeof err) < 0 ||
	    tui_loop_watch(a.loop, app_sigfd, app_on_signal, &a, err, sizeof err) < 0)
		goto out;
	if (theme_rc < 0)
		tui_app_message(&a, true, "using the built-in theme: %s", theme_err);
	a.status = 0;
	tui_conn_start(a.conn);
	tui_timer_start(a.tick, APP_TICK_MS);
	tui_screen_draw(&a);
	tui_loop_run(a.loop);
out:
	tui_cmdline_done();
	tui_screen_end();
	tui_conn_free(a.conn);
	tui_timer_free(a.tick);
	tui_loop_free(a.loop);
	if (app_sigfd >= 0)
		close(app_sigfd);
	app_sigfd = -1;
	if (fl >= 0)
		fcntl(STDIN_FILENO, F_SETFL, fl);
	if (err[0])
		fprintf(stderr, "hookscope: %s\n", err);
	else if (a.status == 1)
		fprintf(stderr, "hookscope: the terminal went away\n");
	int status = a.status;
	app_free(&a);
	return status;
}
