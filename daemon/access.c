/*
 * access.c - who may use the daemon (doc/protocol.md, "Access control").
 *
 * Loopback only by default.  `--listen ADDR` beyond 127.0.0.0/8 needs an
 * access token (--token or --token-file): every websocket upgrade (and plain
 * HTTP request) must carry "Authorization: Bearer TOKEN", checked before the
 * connection is accepted, so a client without it gets no byte of data.
 * Commands that run or read code and files on the device (attach, detach,
 * ps, dump) are refused from a client not on loopback unless the daemon runs
 * with --allow-remote-control.  Agents: the unix socket is created 0600 and
 * an agent whose uid is neither ours nor root's is refused (SO_PEERCRED).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "daemon.h"

/* Is the IPv4 literal in 127.0.0.0/8? */
static bool
access_loopback(const char *addr)
{
	struct in_addr ia;

	return inet_pton(AF_INET, addr, &ia) == 1 && (ntohl(ia.s_addr) >> 24) == 127;
}

/* See daemon.h. */
bool
daemon_access_peer_remote(const char *peer)
{
	if (strncmp(peer, "::ffff:", 7) == 0)
		peer += 7;
	return !access_loopback(peer) && strcmp(peer, "::1") != 0;
}

/* See daemon.h: --token, --token-file. */
int
daemon_access_opt(struct daemon_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	char tok[PROTO_TOKEN_MAX + 1], why[PROTO_ERR_LEN];

	if (c == DAEMON_OPT_TOKEN_FILE) {
		if (proto_token_read(arg, tok, sizeof tok, err, errlen) < 0)
			return -1;
	} else {
		if (proto_token_valid(arg, why, sizeof why) < 0) {
			snprintf(err, errlen, "bad --token: %s", why);
			return -1;
		}
		snprintf(tok, sizeof tok, "%s", arg);
	}
	free(o->token);
	o->token = xstrdup(tok);
	return 0;
}

/* See daemon.h. */
int
daemon_access_check_opts(const struct daemon_opts *o, char *err, size_t errlen)
{
	if (o->attach_pid || o->detach_pid || access_loopback(o->address) || o->token != NULL)
		return 0;
	snprintf(err, errlen, "--listen %s is not a loopback address: anyone who can "
	    "reach it could watch and command your programs; give an access token "
	    "with --token-file FILE (or --token TOKEN), or listen on 127.0.0.1 and use "
	    "an ssh tunnel", o->address);
	return -1;
}

/* See daemon.h.  Returning non-zero makes lws drop the connection before
 * the upgrade completes. */
int
daemon_access_filter(struct lws *wsi)
{
	struct daemon_state *d = lws_context_user(lws_get_context(wsi));
	char peer[64] = "?", got[PROTO_TOKEN_MAX + 16];
	int n;

	if (d == NULL || d->opts->token == NULL)
		return 0;
	n = lws_hdr_copy(wsi, got, sizeof got, WSI_TOKEN_HTTP_AUTHORIZATION);
	if (n > 7 && strncmp(got, "Bearer ", 7) == 0 &&
	    proto_token_equal(d->opts->token, got + 7, (size_t)n - 7))
		return 0;
	lws_get_peer_simple(wsi, peer, sizeof peer);
	daemon_log(DLOG_WARN, "client from %s refused: %s access token", peer,
	    n > 0 ? "wrong" : "no");
	/* 401 and nothing else: the client can say why it was refused. */
	lws_return_http_status(wsi, HTTP_STATUS_UNAUTHORIZED, "access token required");
	return -1;
}

/* See daemon.h. */
int
daemon_access_remote_cmd(struct daemon_cmdctx *x, const char *what)
{
	if (!x->view->remote || x->d->opts->allow_remote_control ||
	    x->d->opts->allow_remote_attach)
		return 0;
	return daemon_cmd_error(x, "%s is refused from a client that is not on loopback "
	    "(start hookscoped with --allow-remote-control to permit it)", what);
}

/* See daemon.h. */
int
daemon_access_agent(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		daemon_log(DLOG_WARN, "agent connection refused: cannot read its "
		    "credentials: %s", strerror(errno));
		return -1;
	}
	if (cred.uid == geteuid() || cred.uid == 0)
		return 0;
	daemon_log(DLOG_WARN, "agent connection from pid %d refused: it runs as uid %u, "
	    "hookscoped as uid %u (run the target as the same user)", (int)cred.pid,
	    (unsigned)cred.uid, (unsigned)geteuid());
	return -1;
}
