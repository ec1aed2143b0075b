/*
 * agent.c - the agents' unix socket: listening, accepting, and one
 * connection per agent, all adopted into the lws loop as raw descriptors.
 *
 * A connection carries records framed by a 4-byte big-endian length.  Bytes
 * are reassembled here; a record over PROTO_MAX_MSG, a malformed one, or a
 * protocol violation (data before hello, a changed pid) closes that one
 * connection with a log line, and everyone else carries on.  Records to the
 * agent (level, reset, threshold) go through a bounded output buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "daemon.h"
#include "daemon_lines.h"

#define AGENT_READ_CHUNK  65536
#define AGENT_READ_BUDGET (4u << 20)  /* per callback, so others get a turn */

struct daemon_agent {
	struct daemon_fd h;             /* DAEMON_FD_AGENT; the wsi's opaque */
	struct daemon_state *d;
	struct lws *wsi;
	int      fd;
	pid_t    peer_pid;              /* SO_PEERCRED, 0 if unknown */
	unsigned char *in;              /* received, not yet a whole record */
	size_t   in_len, in_cap;
	unsigned char *out;             /* to send: out[out_off..out_len) */
	size_t   out_off, out_len, out_cap;
	struct daemon_session *session; /* after hello */
	bool     closing;
};

/* "pid N" or "new agent" for log lines. */
static const char *
agent_who(const struct daemon_agent *a, char *buf, size_t len)
{
	if (a->session != NULL)
		snprintf(buf, len, "agent of pid %d", (int)a->session->pid);
	else if (a->peer_pid > 0)
		snprintf(buf, len, "agent (peer pid %d)", (int)a->peer_pid);
	else
		snprintf(buf, len, "agent");
	return buf;
}

/* Try to connect: is a live daemon behind this socket file? */
static int
agent_probe(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int rc, e;

	if (fd < 0)
		return -1;
	rc = connect(fd, (const struct sockaddr *)sa, sizeof *sa);
	e = errno;
	close(fd);
	/* A full backlog (EAGAIN) also means someone is listening. */
	if (rc < 0 && e == EAGAIN)
		rc = 0;
	errno = e;
	return rc;
}

/* Bind and listen on the agent socket (see daemon.h). */
int
daemon_agent_listen(struct daemon_state *d, char *err, size_t errlen)
{
	const char *path = d->opts->socket_path;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int fd;

	if (strlen(path) >= sizeof sa.sun_path) {
		snprintf(err, errlen, "agent socket path too long (%zu bytes, at "
		    "most %zu): %s; use --socket", strlen(path),
		    sizeof sa.sun_path - 1, path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket; "
			    "remove it or use --socket", path);
			return -1;
		}
		if (agent_probe(&sa) == 0) {
			snprintf(err, errlen, "another hookscoped is using %s "
			    "(stop it, or use --socket)", path);
			return -1;
		}
		if (errno != ECONNREFUSED) {
			snprintf(err, errlen, "cannot use agent socket %s: %s",
			    path, strerror(errno));
			return -1;
		}
		daemon_log(DLOG_INFO, "replacing stale agent socket %s", path);
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create the agent socket: %s",
		    strerror(errno));
		return -1;
	}
	/* Only our user may connect (and thereby feed us records). */
	old = umask(0077);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		umask(old);
		snprintf(err, errlen, "cannot bind agent socket %s: %s (use "
		    "--socket)", path, strerror(errno));
		close(fd);
		return -1;
	}
	umask(old);
	if (listen(fd, 64) < 0 || stat(sa.sun_path, &st) < 0) {
		snprintf(err, errlen, "cannot listen on agent socket %s: %s",
		    sa.sun_path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	d->listen_fd = fd;
	d->sock_dev = st.st_dev;
	d->sock_ino = st.st_ino;
	d->sock_bound = true;
	return 0;
}

/* Remove the socket file, unless another daemon has replaced it since. */
void
daemon_agent_unlink(struct daemon_state *d)
{
	struct stat st;

	if (!d->sock_bound)
		return;
	if (stat(d->opts->socket_path, &st) == 0 && st.st_dev == d->sock_dev &&
	    st.st_ino == d->sock_ino)
		unlink(d->opts->socket_path);
	d->sock_bound = false;
}

/* Close a connection from outside its own callback. */
static void
agent_close_async(struct daemon_agent *a)
{
	if (a->closing)
		return;
	a->closing = true;
	/* The peer sees EOF at once; our next callback on it returns -1. */
	shutdown(a->fd, SHUT_RDWR);
	lws_callback_on_writable(a->wsi);
}

/* Accept every pending agent and adopt it into the loop. */
void
daemon_agent_accept(struct daemon_state *d)
{
	for (;;) {
		int fd = accept4(d->listen_fd, NULL, NULL,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct daemon_agent *a;
		struct ucred cred;
		socklen_t clen = sizeof cred;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				daemon_log(DLOG_WARN, "cannot accept an agent: %s",
				    strerror(errno));
			return;
		}
		if (daemon_access_agent(fd) < 0) {
			close(fd);
			continue;
		}
		if (d->nagents >= DAEMON_MAX_AGENTS) {
			daemon_log(DLOG_WARN, "too many agents (%d); refusing one",
			    DAEMON_MAX_AGENTS);
			close(fd);
			continue;
		}
		a = xcalloc(1, sizeof *a);
		a->h.kind = DAEMON_FD_AGENT;
		a->d = d;
		a->fd = fd;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0)
			a->peer_pid = cred.pid;
		a->wsi = lws_adopt_descriptor_vhost_via_info(&(lws_adopt_desc_t){
			.vh = d->vhost, .type = LWS_ADOPT_RAW_FILE_DESC,
			.fd.filefd = fd, .vh_prot_name = "hs-raw", .opaque = &a->h,
		});
		if (a->wsi == NULL) {   /* lws closed fd */
			daemon_log(DLOG_WARN, "cannot adopt an agent connection");
			free(a);
			continue;
		}
		d->nagents++;
		daemon_log(DLOG_DEBUG, "agent connected (peer pid %d)",
		    (int)a->peer_pid);
	}
}

/* hello: find or create the session; take over from a stale connection. */
static int
agent_hello(struct daemon_agent *a, const struct proto_ag_hello *h, uint64_t now)
{
	struct daemon_state *d = a->d;
	struct daemon_session *s;

	if (a->session != NULL) {
		if (h->pid != a->session->pid) {
			daemon_log(DLOG_WARN, "agent of pid %d said hello again as "
			    "pid %d; closing it", (int)a->session->pid, (int)h->pid);
			return -1;
		}
		daemon_session_hello(a->session, h, now);
		return 0;
	}
	if (h->pid <= 0) {
		daemon_log(DLOG_WARN, "agent hello with bad pid %d; closing it",
		    (int)h->pid);
		return -1;
	}
	if (a->peer_pid > 0 && a->peer_pid != h->pid)
		daemon_log(DLOG_INFO, "agent says pid %d, its socket peer is pid "
		    "%d (pid namespace?)", (int)h->pid, (int)a->peer_pid);
	s = daemon_sessions_attach(&d->sessions, h, now);
	if (s->agent != NULL && s->agent != a) {
		daemon_log(DLOG_INFO, "pid %d: new agent connection replaces the "
		    "old one", (int)s->pid);
		s->agent->session = NULL;
		agent_close_async(s->agent);
	}
	s->agent = a;
	a->session = s;
	daemon_log(DLOG_INFO, "pid %d (%s) connected: %s, level %u",
	    (int)s->pid, s->name, s->exe ? s->exe : "?", (unsigned)s->level);
	daemon_fps_greet(a, d->opts->refresh_hz);
	daemon_budget_greet(a, d->opts);
	return 0;
}

/* Act on one decoded record; -1 closes the connection. */
static int
agent_record(struct daemon_agent *a, const struct proto_agent_rec *r, uint64_t now)
{
	char who[64];

	if (r->type == PROTO_AG_HELLO)
		return agent_hello(a, &r->hello, now);
	if (a->session == NULL) {
		daemon_log(DLOG_WARN, "%s sent a record before its hello; closing "
		    "it", agent_who(a, who, sizeof who));
		return -1;
	}
	if (r->type == PROTO_AG_BYE) {
		a->session->bye = true;
		daemon_log(DLOG_INFO, "pid %d: target is exiting", (int)a->session->pid);
		return 0;
	}
	if (daemon_session_record(a->session, r, now) < 0) {
		daemon_log(DLOG_WARN, "%s sent an unexpected record (type %d); "
		    "closing it", agent_who(a, who, sizeof who), (int)r->type);
		return -1;
	}
	return 0;
}

/* Decode and handle every whole record in the input buffer. */
static int
agent_parse(struct daemon_agent *a)
{
	size_t off = 0;
	char err[PROTO_ERR_LEN], who[64];
	int rc = 0;

	while (rc == 0 && a->in_len - off >= PROTO_AGENT_HDR) {
		uint32_t len = proto_agent_len(a->in + off);
		struct proto_agent_rec r;

		if (len == 0 || len > PROTO_MAX_MSG) {
			daemon_log(DLOG_WARN, "%s sent a record of %u bytes (limit "
			    "%u); closing it", agent_who(a, who, sizeof who), len,
			    PROTO_MAX_MSG);
			return -1;
		}
		if (a->in_len - off - PROTO_AGENT_HDR < len)
			break;
		memset(&r, 0, sizeof r);
		if (proto_agent_decode(a->in + off + PROTO_AGENT_HDR, len, &r,
		    err, sizeof err) < 0) {
			daemon_log(DLOG_WARN, "%s sent a malformed record (%s); "
			    "closing it", agent_who(a, who, sizeof who), err);
			return -1;
		}
		if (a->session != NULL)
			daemon_lines_fill(a->session, a->peer_pid > 0 ? a->peer_pid : a->session->pid, &r);
		rc = agent_record(a, &r, proto_now_ns());
		proto_agent_rec_free(&r);
		off += PROTO_AGENT_HDR + len;
	}
	memmove(a->in, a->in + off, a->in_len - off);
	a->in_len -= off;
	if (rc == 0 && off > 0 && a->session != NULL)
		daemon_server_push(a->d, a->session);
	return rc;
}

/* Readable: read what is there (within a budget) and parse it. */
static int
agent_read(struct daemon_agent *a)
{
	size_t budget = AGENT_READ_BUDGET;
	char who[64];

	while (budget > 0) {
		ssize_t n;

		if (a->in_cap - a->in_len < AGENT_READ_CHUNK) {
			a->in_cap = a->in_len + AGENT_READ_CHUNK;
			a->in = xrealloc(a->in, a->in_cap);
		}
		n = read(a->fd, a->in + a->in_len, a->in_cap - a->in_len);
		if (n > 0) {
			a->in_len += (size_t)n;
			budget -= (size_t)n < budget ? (size_t)n : budget;
			if (agent_parse(a) < 0)
				return -1;
			continue;
		}
		if (n == 0)
			return -1;      /* EOF */
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		daemon_log(DLOG_WARN, "%s: read: %s", agent_who(a, who, sizeof who),
		    strerror(errno));
		return -1;
	}
	/* Do not keep a megabyte around after one large record. */
	if (a->in_len == 0 && a->in_cap > 4 * AGENT_READ_CHUNK) {
		free(a->in);
		a->in = NULL;
		a->in_cap = 0;
	}
	return 0;
}

/* Write what is queued; ask for POLLOUT if the socket is full. */
static int
agent_flush(struct daemon_agent *a)
{
	while (a->out_off < a->out_len) {
		ssize_t n = send(a->fd, a->out + a->out_off, a->out_len - a->out_off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			a->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			lws_callback_on_writable(a->wsi);
			return 0;
		}
		return -1;
	}
	a->out_off = a->out_len = 0;
	return 0;
}

/* Queue one record to the agent (see daemon.h). */
int
daemon_agent_send(struct daemon_agent *a, const struct proto_agent_rec *r)
{
	msgpack_sbuffer sb;
	char who[64];

	if (a == NULL || a->closing)
		return -1;
	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, r);
	if (a->out_len - a->out_off + sb.size > DAEMON_AGENT_OUT_MAX) {
		daemon_log(DLOG_WARN, "%s is not reading; closing it",
		    agent_who(a, who, sizeof who));
		msgpack_sbuffer_destroy(&sb);
		agent_close_async(a);
		return -1;
	}
	if (a->out_off > 0) {
		memmove(a->out, a->out + a->out_off, a->out_len - a->out_off);
		a->out_len -= a->out_off;
		a->out_off = 0;
	}
	if (a->out_cap < a->out_len + sb.size) {
		a->out_cap = a->out_len + sb.size + 256;
		a->out = xrealloc(a->out, a->out_cap);
	}
	memcpy(a->out + a->out_len, sb.data, sb.size);
	a->out_len += sb.size;
	msgpack_sbuffer_destroy(&sb);
	if (agent_flush(a) < 0) {
		daemon_log(DLOG_WARN, "%s: write: %s", agent_who(a, who, sizeof who),
		    strerror(errno));
		agent_close_async(a);
		return -1;
	}
	return 0;
}

/* The connection is gone: the session becomes lost or exited. */
static void
agent_closed(struct daemon_agent *a)
{
	struct daemon_session *s = a->session;

	a->d->nagents--;
	if (s != NULL && s->agent == a) {
		/* bye from an attached agent: detached, unless the process ended */
		bool gone = (s->bye && !s->attached) || !daemon_process_alive(s->pid);

		daemon_session_detach(s, gone);
		daemon_log(DLOG_INFO, "pid %d (%s): agent disconnected, target %s",
		    (int)s->pid, s->name, proto_target_state_name(s->state));
	}
	free(a->in);
	free(a->out);
	free(a);
}

/* lws raw-file events of one agent connection. */
int
daemon_agent_callback(struct daemon_state *d, struct lws *wsi, int reason,
    struct daemon_fd *h)
{
	struct daemon_agent *a = (struct daemon_agent *)h;

	(void)d;
	(void)wsi;
	switch (reason) {
	case LWS_CALLBACK_RAW_RX_FILE:
		if (a->closing)
			return -1;
		return agent_read(a);
	case LWS_CALLBACK_RAW_WRITEABLE_FILE:
		if (a->closing)
			return -1;
		return agent_flush(a);
	case LWS_CALLBACK_RAW_CLOSE_FILE:
		agent_closed(a);
		return 0;
	default:
		return 0;
	}
}
