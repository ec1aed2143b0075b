/*
 * agent_link.c - the agent's end of the unix stream socket to the daemon.
 *
 * The target must never suffer for the link: connect does not block, a send
 * blocks at most AGENT_SNDTIMEO_MS per call and the caller's deadline in all,
 * MSG_NOSIGNAL keeps a dead daemon from raising SIGPIPE, reads never block.
 * Any error closes the link; the reporter reconnects and resends everything.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent.h"

#define LINK_CONNECT_MS 200       /* wait for a connect in progress */
#define LINK_READ_CHUNK 4096

/* See agent.h. */
void agent_link_init(struct agent_link *l)
{
	memset(l, 0, sizeof *l);
	l->fd = -1;
}

/* Wait for a non-blocking connect to finish; 0 if it succeeded. */
static int link_connect_wait(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int err = 0;
	socklen_t len = sizeof err;

	if (poll(&pfd, 1, LINK_CONNECT_MS) != 1)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0)
		return -1;
	return 0;
}

/* See agent.h: 0 when connected, -1 (daemon absent, busy or path bad). */
int agent_link_connect(struct agent_link *l, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 0, .tv_usec = AGENT_SNDTIMEO_MS * 1000 };
	int fd, flags;

	if (path[0] == '\0' || strlen(path) >= sizeof sa.sun_path)
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 &&
	    (errno != EINPROGRESS || link_connect_wait(fd) < 0))
		goto fail;
	/* Blocking from now on, but each send bounded by SO_SNDTIMEO. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0)
		goto fail;
	l->fd = fd;
	l->rlen = 0;
	return 0;
fail:
	close(fd);
	return -1;
}

/* See agent.h. */
void agent_link_close(struct agent_link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	agent_link_forget(l);
}

/* See agent.h. */
void agent_link_forget(struct agent_link *l)
{
	l->fd = -1;
	l->rlen = 0;
}

/* See agent.h. */
int agent_link_send(struct agent_link *l, const void *buf, size_t len,
    uint64_t deadline_ns)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n;

		if (l->fd < 0)
			return -1;
		n = send(l->fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    proto_now_ns() < deadline_ns)
			continue;
		agent_log("send to the daemon failed: %s", n < 0 ? strerror(errno) : "no progress");
		return -1;
	}
	return 0;
}

/* Decode and apply every whole record in the read buffer; keep the rest.
 * -1 on a length no valid record can have (the stream is out of step). */
static int link_dispatch(struct agent_link *l)
{
	size_t off = 0;
	int ret = 0;

	while (l->rlen - off >= PROTO_AGENT_HDR) {
		uint32_t len = proto_agent_len(l->rbuf + off);
		struct proto_agent_rec rec;
		char err[PROTO_ERR_LEN];

		if (len == 0 || len > PROTO_MAX_MSG) {
			agent_log("daemon sent a record of %u bytes; reconnecting", len);
			ret = -1;
			break;
		}
		if (l->rlen - off - PROTO_AGENT_HDR < len)
			break;
		if (proto_agent_decode(l->rbuf + off + PROTO_AGENT_HDR, len, &rec,
		    err, sizeof err) < 0) {
			agent_log("ignoring a bad record from the daemon: %s", err);
		} else {
			agent_apply(&rec);
			proto_agent_rec_free(&rec);
		}
		off += PROTO_AGENT_HDR + len;
	}
	memmove(l->rbuf, l->rbuf + off, l->rlen - off);
	l->rlen -= off;
	return ret;
}

/* Make room for at least one more chunk, or for the whole pending record. */
static void link_reserve(struct agent_link *l)
{
	size_t need = l->rlen + LINK_READ_CHUNK;

	if (l->rlen >= PROTO_AGENT_HDR) {
		size_t rec = PROTO_AGENT_HDR + (size_t)proto_agent_len(l->rbuf);

		if (rec > need)
			need = rec;
	}
	if (need <= l->rcap)
		return;
	l->rcap = need;
	l->rbuf = xrealloc(l->rbuf, l->rcap);
}

/* See agent.h. */
int agent_link_receive(struct agent_link *l)
{
	for (;;) {
		ssize_t n;

		if (l->fd < 0)
			return -1;
		link_reserve(l);
		n = recv(l->fd, l->rbuf + l->rlen, l->rcap - l->rlen, MSG_DONTWAIT);
		if (n > 0) {
			l->rlen += (size_t)n;
			if (link_dispatch(l) < 0)
				return -1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		agent_log("daemon closed the connection%s%s", n < 0 ? ": " : "",
		    n < 0 ? strerror(errno) : "");
		return -1;
	}
}
