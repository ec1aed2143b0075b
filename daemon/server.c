/*
 * server.c - the daemon's event loop: one lws context owns everything.
 *
 * lws 4.1.6 as Debian builds it (see the field notes): IPv6 must be disabled
 * or "127.0.0.1" listens on every interface; the loop is lws's own, so the
 * signalfd and the agent listener are adopted as raw file descriptors (dups:
 * lws closes what it adopted), and periodic work runs from an lws_sul timer.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "daemon.h"
#include "issue.h"
#include "daemon_startup.h"
#include "attach.h"

#define SERVER_ALIVE_CHECK_NS 1000000000ull

static int server_raw_callback(struct lws *wsi, enum lws_callback_reasons reason,
    void *user, void *in, size_t len);

static const struct lws_protocols server_protocols[] = {
	/* First: also serves connections that ask for no subprotocol. */
	{
		.name = "hookscope",
		.callback = daemon_http_callback,    /* + GET /metrics (metrics.c) */
		.per_session_data_size = sizeof(struct daemon_client),
		.rx_buffer_size = 65536,
	},
	{ .name = "hs-raw", .callback = server_raw_callback },
	{ 0 }   /* terminator (no LWS_PROTOCOL_LIST_TERM in 4.1) */
};

/* Ping idle clients; hang up on ones that stay silent. */
static const lws_retry_bo_t server_retry = {
	.secs_since_valid_ping = 30,
	.secs_since_valid_hangup = 70,
};

/* Reap exited children; record the target's exit status. */
static void
server_reap(struct daemon_state *d)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct daemon_session *s = daemon_sessions_find(&d->sessions, pid);
		char how[96];

		daemon_run_status_str(status, how, sizeof how);
		if (pid == d->child) {
			daemon_log(DLOG_NOTICE, "target pid %d ended: %s (still "
			    "serving its figures; Ctrl-C to stop)", (int)pid, how);
			d->child = 0;
		}
		if (s == NULL)
			continue;
		s->exit_status = status;
		if (s->state == PROTO_TARGET_LOST)
			s->state = PROTO_TARGET_EXITED;
	}
}

/* Drain the signalfd. */
static void
server_signals(struct daemon_state *d)
{
	struct signalfd_siginfo si;

	while (read(d->sig_fd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD) {
			server_reap(d);
			continue;
		}
		daemon_log(DLOG_INFO, "%s: shutting down", strsignal((int)si.ssi_signo));
		daemon_attach_shutdown(d);      /* --detach-on-exit */
		/* A target we started ends with us (not yet reaped, so the pid
		 * is still ours).  SIGKILL of the daemon leaves it running. */
		if (d->child > 0 && kill(d->child, SIGTERM) == 0)
			daemon_log(DLOG_INFO, "stopping target pid %d", (int)d->child);
		d->child = 0;
		d->stop = true;
		lws_cancel_service(d->ctx);
	}
}

/* Raw descriptors: the agent listener, agents, the signalfd. */
static int
server_raw_callback(struct lws *wsi, enum lws_callback_reasons reason,
    void *user, void *in, size_t len)
{
	struct daemon_state *d;
	struct daemon_fd *h;

	(void)user;
	(void)in;
	(void)len;
	/* Not for clients, but a listener protocol all the same: access first. */
	if (reason == LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION ||
	    reason == LWS_CALLBACK_FILTER_HTTP_CONNECTION)
		return wsi == NULL ? -1 : daemon_access_filter(wsi);
	if (wsi == NULL || (h = lws_get_opaque_user_data(wsi)) == NULL)
		return 0;
	d = lws_context_user(lws_get_context(wsi));
	switch (h->kind) {
	case DAEMON_FD_LISTENER:
		if (reason == LWS_CALLBACK_RAW_RX_FILE)
			daemon_agent_accept(d);
		return 0;
	case DAEMON_FD_SIGNAL:
		if (reason == LWS_CALLBACK_RAW_RX_FILE)
			server_signals(d);
		return 0;
	case DAEMON_FD_AGENT:
		return daemon_agent_callback(d, wsi, (int)reason, h);
	}
	return 0;
}

/* Mark a frame due for c (latest frame wins); the tick leaves c alone
 * until next_ns. */
static void
server_frame_due(struct daemon_client *c, uint64_t next_ns)
{
	if (c->frame_due)
		c->frames_skipped++;
	c->frame_due = true;
	c->next_frame_ns = next_ns;
	lws_callback_on_writable(c->wsi);
}

/*
 * See daemon.h.  A report reaches the clients when it arrives, not at the
 * next tick, so the event-to-client latency is the agent's report period
 * (doc/performance.md).  Frames of a reporting target follow its reports:
 * the tick stays away for 1.5 ticks after a push; pushes are half a tick
 * apart at least, so a flooding agent cannot drive more than twice --rate.
 */
void
daemon_server_push(struct daemon_state *d, const struct daemon_session *s)
{
	uint64_t now = proto_now_ns(), tick = d->tick_us * 1000;

	for (struct daemon_client *c = d->clients; c != NULL; c = c->next)
		if (daemon_sessions_pick(&d->sessions, c->view.target) == s &&
		    (c->push_ns == 0 || now - c->push_ns >= tick / 2)) {
			c->push_ns = now;
			server_frame_due(c, now + tick * 3 / 2);
		}
}

/* Lost (or detached) sessions whose process has since gone become exited. */
static void
server_check_alive(struct daemon_state *d)
{
	for (size_t i = 0; i < d->sessions.n; i++) {
		struct daemon_session *s = d->sessions.v[i];

		if ((s->state == PROTO_TARGET_LOST || s->state == PROTO_TARGET_DETACHED) &&
		    !daemon_process_alive(s->pid)) {
			s->state = PROTO_TARGET_EXITED;
			daemon_log(DLOG_INFO, "pid %d (%s): process gone, target "
			    "exited", (int)s->pid, s->name);
		}
	}
}

/* The --rate timer: age the rates, send frames, re-arm. */
static void
server_tick(lws_sorted_usec_list_t *sul)
{
	struct daemon_state *d = (struct daemon_state *)
	    ((char *)sul - offsetof(struct daemon_state, tick_sul));
	uint64_t now = proto_now_ns();

	for (size_t i = 0; i < d->sessions.n; i++)
		daemon_session_tick(d->sessions.v[i], now);
	if (now - d->alive_check_ns >= SERVER_ALIVE_CHECK_NS) {
		d->alive_check_ns = now;
		server_check_alive(d);
	}
	/* A quarter tick of slack: timer jitter must not skip an idle client. */
	for (struct daemon_client *c = d->clients; c != NULL; c = c->next)
		if (now + d->tick_us * 1000 / 4 >= c->next_frame_ns)
			server_frame_due(c, now + d->tick_us * 1000);
	lws_sul_schedule(d->ctx, 0, &d->tick_sul, server_tick, (lws_usec_t)d->tick_us);
}

/* Can we bind the websocket address?  lws would only log a failure. */
static int
server_check_port(const struct daemon_opts *o, char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
	int fd, one = 1, e;

	if (inet_pton(AF_INET, o->address, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "bad address %s", o->address);
		return -1;
	}
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "cannot create a socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
		close(fd);
		return 0;
	}
	e = errno;
	close(fd);
	if (e == EADDRINUSE)
		snprintf(err, errlen, "cannot bind %s:%d: address in use (is "
		    "another hookscoped running? use --port)", o->address, o->port);
	else if (e == EACCES)
		snprintf(err, errlen, "cannot bind %s:%d: permission denied (use "
		    "--port with a port above 1023)", o->address, o->port);
	else
		snprintf(err, errlen, "cannot bind %s:%d: %s (use --address or "
		    "--port)", o->address, o->port, strerror(e));
	return -1;
}

/* Block the signals we read from a signalfd. */
static int
server_signalfd(char *err, size_t errlen)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);    /* a report over RLIMIT_FSIZE: EFBIG, an error */
	if ((fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		snprintf(err, errlen, "cannot create a signalfd: %s", strerror(errno));
	return fd;
}

/* Adopt a dup of fd into the loop as a raw file; lws owns the dup. */
static int
server_adopt(struct daemon_state *d, int fd, struct daemon_fd *h)
{
	int dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	if (dupfd < 0)
		return -1;
	if (lws_adopt_descriptor_vhost_via_info(&(lws_adopt_desc_t){
		.vh = d->vhost, .type = LWS_ADOPT_RAW_FILE_DESC,
		.fd.filefd = dupfd, .vh_prot_name = "hs-raw", .opaque = h,
	}) == NULL)
		return -1;              /* lws closed dupfd */
	return 0;
}

/* Create the lws context listening on the websocket address. */
static int
server_context(struct daemon_state *d, char *err, size_t errlen)
{
	struct lws_context_creation_info info;
	const struct daemon_opts *o = d->opts;

	memset(&info, 0, sizeof info);
	info.port = o->port;
	info.iface = o->address;
	info.protocols = server_protocols;
	/* Without DISABLE_IPV6, lws 4.1.6 listens on every interface. */
	info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
	info.vhost_name = "default";
	info.user = d;
	info.uid = -1;
	info.gid = -1;
	info.retry_and_idle_policy = &server_retry;
	lws_set_log_level(daemon_log_lws_levels(), daemon_log_lws_emit);
	d->ctx = lws_create_context(&info);
	if (d->ctx == NULL || (d->vhost = lws_get_vhost_by_name(d->ctx, "default")) == NULL) {
		snprintf(err, errlen, "cannot start the websocket server on %s:%d",
		    o->address, o->port);
		return -1;
	}
	d->listen_h.kind = DAEMON_FD_LISTENER;
	d->sig_h.kind = DAEMON_FD_SIGNAL;
	if (server_adopt(d, d->sig_fd, &d->sig_h) < 0 ||
	    server_adopt(d, d->listen_fd, &d->listen_h) < 0) {
		snprintf(err, errlen, "cannot add descriptors to the event loop");
		return -1;
	}
	return 0;
}

/* Release everything (the context first: its close callbacks use d). */
static void
server_teardown(struct daemon_state *d)
{
	if (d->ctx != NULL)
		lws_context_destroy(d->ctx);
	d->ctx = NULL;
	daemon_agent_unlink(d);
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	daemon_sessions_free(&d->sessions);
}

/* Run the daemon (see daemon.h). */
int
daemon_server_run(const struct daemon_opts *o)
{
	struct daemon_state d = { .opts = o, .listen_fd = -1, .sig_fd = -1 };
	char err[PROTO_ERR_LEN], *agent = NULL;

	if (o->run && (agent = daemon_run_agent_path(o->agent, err, sizeof err)) == NULL)
		goto fail;
	daemon_startup_init();
	/* the sinks after the signalfd: the upload thread inherits the blocked signals */
	if ((d.sig_fd = server_signalfd(err, sizeof err)) < 0 ||
	    server_check_port(o, err, sizeof err) < 0 ||
	    daemon_issue_sinks_start(&o->issue, err, sizeof err) < 0 ||
	    daemon_agent_listen(&d, err, sizeof err) < 0 ||
	    server_context(&d, err, sizeof err) < 0)
		goto fail;
	if (o->run) {
		if ((d.child = daemon_run_spawn(o, agent, err, sizeof err)) < 0)
			goto fail;
		daemon_log(DLOG_INFO, "started %s (pid %d) with %s", o->run_argv[0],
		    (int)d.child, agent);
	}
	daemon_log(DLOG_NOTICE, "listening on ws://%s:%d, agent socket %s",
	    o->address, o->port, o->socket_path);
	d.tick_us = (uint64_t)(1e6 / o->rate_hz);
	lws_sul_schedule(d.ctx, 0, &d.tick_sul, server_tick, (lws_usec_t)d.tick_us);
	while (!d.stop)
		if (lws_service(d.ctx, 0) < 0)
			break;
	server_teardown(&d);
	daemon_issue_sinks_stop();
	free(agent);
	return 0;
fail:
	daemon_log(DLOG_ERROR, "%s", err);
	server_teardown(&d);
	daemon_issue_sinks_stop();
	free(agent);
	return 1;
}
