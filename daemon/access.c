/*
 * access.c - who may use the daemon (doc/protocol.md, "Access control").
 *
 * Loopback only by default.  `--listen ADDR` beyond 127.0.0.0/8 needs an
 * access token (--token or --token-file): every websocket upgrade (and plain
 * HTTP request), whatever subprotocol it asks for, must carry
 * "Authorization: Bearer TOKEN", checked before the connection is accepted,
 * so a client without it gets no byte of data.
 * Commands that run or read code and files on the device (attach, detach,
 * ps, dump) are refused from a client not on loopback unless the daemon runs
 * with --allow-remote-control.  Agents: the unix socket is created 0600 and
 * an agent whose uid is neither ours nor root's is refused (SO_PEERCRED).
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "daemon.h"
#include "daemon_cmd.h"

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

/*
 * Answer an HTTP request we refuse, then let the caller drop the connection.
 * Written by hand: lws_return_http_status() answers a websocket upgrade with
 * "HTTP/1.0" (it has not parsed the request version there) and an HTML body.
 */
static void
access_answer(struct lws *wsi, int status, const char *phrase, const char *body)
{
	unsigned char buf[LWS_PRE + 512];
	char *p = (char *)buf + LWS_PRE;
	int n;

	n = snprintf(p, sizeof buf - LWS_PRE, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s\n",
	    status, phrase, strlen(body) + 1, body);
	assert(n > 0 && (size_t)n < sizeof buf - LWS_PRE);
	lws_write(wsi, (unsigned char *)p, (size_t)n, LWS_WRITE_HTTP_HEADERS);
}

/* Does the Authorization header carry our token?  The scheme is
 * case-insensitive (RFC 9110), the token is not. */
static bool
access_token_ok(struct lws *wsi, const char *token, int *n)
{
	char got[PROTO_TOKEN_MAX + 16];
	const char *t = got + 6;

	*n = lws_hdr_copy(wsi, got, sizeof got, WSI_TOKEN_HTTP_AUTHORIZATION);
	if (*n <= 7 || strncasecmp(got, "Bearer", 6) != 0 || *t != ' ')
		return false;
	while (*t == ' ')
		t++;
	return proto_token_equal(token, t, strlen(t));
}

/*
 * The subprotocol lws would pick: the first offered name it knows (its own
 * rule).  Only "hookscope" is for clients; "hs-raw" serves descriptors the
 * daemon adopts itself.  Offering none is accepted as "hookscope".
 */
static int
access_subprotocol(struct lws *wsi, char *why, size_t whylen)
{
	char list[256], offered[256], *save = NULL;
	int n = lws_hdr_copy(wsi, list, sizeof list, WSI_TOKEN_PROTOCOL);

	if (n <= 0)
		return 0;
	memcpy(offered, list, (size_t)n + 1);
	for (char *name = strtok_r(list, ",", &save); name != NULL;
	    name = strtok_r(NULL, ",", &save)) {
		name += strspn(name, " \t");
		name[strcspn(name, " \t")] = '\0';
		if (strcmp(name, "hookscope") == 0)
			return 0;
		if (strcmp(name, "hs-raw") == 0)
			break;
	}
	snprintf(why, whylen, "no supported websocket subprotocol offered: this server speaks "
	    "\"hookscope\" (Sec-WebSocket-Protocol: hookscope), not \"%.120s\"",
	    offered);
	return -1;
}

/* See daemon.h.  Returning non-zero makes lws drop the connection before
 * the upgrade completes. */
int
daemon_access_filter(struct lws *wsi)
{
	struct daemon_state *d = lws_context_user(lws_get_context(wsi));
	char peer[64] = "?", why[PROTO_ERR_LEN];
	int n = 0;

	if (d != NULL && d->opts->token != NULL &&
	    !access_token_ok(wsi, d->opts->token, &n)) {
		lws_get_peer_simple(wsi, peer, sizeof peer);
		daemon_log(DLOG_WARN, "client from %s refused: %s access token", peer,
		    n != 0 ? "wrong" : "no");   /* -1: too long to be ours */
		/* 401 and nothing else: the client can say why it was refused. */
		access_answer(wsi, 401, "Unauthorized", "access token required: send "
		    "the header \"Authorization: Bearer TOKEN\"");
		return -1;
	}
	if (lws_hdr_total_length(wsi, WSI_TOKEN_UPGRADE) > 0 &&
	    access_subprotocol(wsi, why, sizeof why) < 0) {
		lws_get_peer_simple(wsi, peer, sizeof peer);
		daemon_log(DLOG_INFO, "client from %s refused: %s", peer, why);
		access_answer(wsi, 400, "Bad Request", why);
		return -1;
	}
	return 0;
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
