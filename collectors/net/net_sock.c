/*
 * net_sock.c - TCP and UDP sockets: what ipc's wrappers hand over for an
 * IPv4/IPv6 fd (net.h), the connect state of non-blocking connects, and the
 * getsockopt wrapper that sees their completion (SO_ERROR, what curl and
 * most event loops ask once the socket is writable).
 *
 * A non-blocking connect is remembered in a small direct-mapped table
 * (fd -> endpoint, start); it ends at getsockopt(SO_ERROR) (its result;
 * 0 counts only once getpeername agrees the socket is connected), at the
 * first send or receive on the fd, or at its close (abandoned: neither
 * established nor failed, as a happy-eyeballs loser is).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "collector.h"
#include "net_int.h"

#define API __attribute__((visibility("default")))
#define NET_PENDING 256

static struct { int fd1; uint16_t ep; uint64_t t0; } net_pend[NET_PENDING];   /* fd1 = fd + 1 */
static int net_npending;                   /* slots in use: the fast path's one check */
static __thread uint16_t net_last_ep;      /* endpoint + 1 of this thread's last socket call */

/* "127.0.0.1:80", "[::1]:443" of a. */
static void net_addr_text(const struct sockaddr *a, char *out, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)a;

		inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof ip);
		snprintf(out, len, "[%s]:%u", ip, ntohs(s->sin6_port));
	} else {
		const struct sockaddr_in *s = (const struct sockaddr_in *)a;

		inet_ntop(AF_INET, &s->sin_addr, ip, sizeof ip);
		snprintf(out, len, "%s:%u", ip, ntohs(s->sin_port));
	}
}

static const char *net_proto(int type)
{
	return type == SOCK_DGRAM ? "udp" : type == SOCK_STREAM ? "tcp" : "raw";
}

/* See net.h. */
uint16_t net_addr_ep(int type, const struct sockaddr *a, socklen_t len)
{
	char addr[64];

	if (!net_is_inet(a, len))
		return net_ep_get(net_proto(type), "(unknown)");
	net_addr_text(a, addr, sizeof addr);
	return net_ep_get(net_proto(type), addr);
}

/* See net.h. */
uint16_t net_dest_ep(uint16_t fd_ep, const struct sockaddr *a, socklen_t len)
{
	if (fd_ep >= NET_MAX_EP || !net_is_inet(a, len) || strcmp(net_tab.ep[fd_ep].proto, "udp") != 0)
		return fd_ep;
	return net_addr_ep(SOCK_DGRAM, a, len);
}

/* See net.h. */
uint16_t net_fd_ep(int fd, int type, bool accepted)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	char addr[64] = "<- ";

	memset(&ss, 0, sizeof ss);
	if (accepted) {
		if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
		    !net_is_inet((struct sockaddr *)&ss, len))
			return net_ep_get(net_proto(type), "<- (unknown)");
		net_addr_text((struct sockaddr *)&ss, addr + 3, sizeof addr - 3);
		return net_ep_get(net_proto(type), addr);
	}
	if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return net_ep_get(net_proto(type), "(unconnected)");
	return net_addr_ep(type, (struct sockaddr *)&ss, len);
}

/* See net_int.h. */
uint16_t net_fd_peer_ep(int fd)
{
	int type = 0;
	socklen_t l = sizeof type;

	if (fd < 0 && net_last_ep != 0)
		return net_last_ep - 1;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0)
		return net_ep_get("tcp", "(unknown)");
	return net_fd_ep(fd, type, false);
}

/* An event for an operation on endpoint ep. */
static void net_ep_event(enum net_op op, uint16_t ep, int err, uint64_t t0, uint64_t t1)
{
	char what[80], why[128];

	net_event(&(struct net_event_in){ .op = op, .what = net_ep_text(ep, what, sizeof what),
	    .error = err ? net_errno_text(err, why, sizeof why) : NULL, .t0 = t0, .t1 = t1 });
}

/* A connect to ep that ended at t1 with err (0: established). */
static void net_connect_end(uint16_t ep, int err, uint64_t t0, uint64_t t1)
{
	struct net_ep *e = &net_tab.ep[ep];
	uint64_t d = t1 > t0 ? t1 - t0 : 0;

	if (err != 0) {
		NET_ADD(&e->c[NE_CONNECT_FAILS], 1);
		NET_ADD(&e->c[NE_ERRORS], 1);
		NET_STORE(&e->last_err, err);
		net_ep_event(NET_OP_CONNECT, ep, err, t0, t1);
		return;
	}
	NET_ADD(&e->c[NE_CONNECT_NS], d);
	net_max(&e->connect_max_ns, d);
	if (d >= net_threshold_ns()) {
		NET_ADD(&e->c[NE_SLOW], 1);
		net_ep_event(NET_OP_CONNECT, ep, 0, t0, t1);
	}
}

/* Take fd's pending connect, if any: its endpoint and start. */
static bool net_pend_take(int fd, uint16_t *ep, uint64_t *t0)
{
	unsigned i = (unsigned)fd % NET_PENDING;

	if (NET_LOAD(&net_npending) == 0 || fd < 0 || NET_LOAD(&net_pend[i].fd1) != fd + 1)
		return false;
	*ep = net_pend[i].ep;
	*t0 = net_pend[i].t0;
	if (!__atomic_compare_exchange_n(&net_pend[i].fd1, &(int){ fd + 1 }, 0, false,
	    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;                    /* another thread ended it */
	NET_ADD(&net_npending, -1);
	return true;
}

/* See net.h. */
void net_connect(int fd, uint16_t ep, int r, int err, uint64_t t0, uint64_t t1)
{
	uint16_t old_ep;
	uint64_t old_t0;

	if (ep >= NET_MAX_EP)
		return;
	net_last_ep = ep + 1;
	net_pend_take(fd, &old_ep, &old_t0);     /* a connect again on the fd replaces it */
	NET_ADD(&net_tab.ep[ep].c[NE_CONNECTS], 1);
	if (r == 0 || err == EISCONN) {
		net_connect_end(ep, 0, t0, t1);
	} else if (err == EINPROGRESS || err == EINTR || err == EALREADY) {
		unsigned i = (unsigned)fd % NET_PENDING;
		int had = NET_LOAD(&net_pend[i].fd1);

		net_pend[i].ep = ep;
		net_pend[i].t0 = t0;
		__atomic_store_n(&net_pend[i].fd1, fd + 1, __ATOMIC_RELEASE);
		if (had == 0)
			NET_ADD(&net_npending, 1);
	} else {
		net_connect_end(ep, err, t0, t1);
	}
}

/* See net.h. */
void net_io(int fd, uint16_t ep, bool out, long long r, int err, uint64_t t0, uint64_t t1)
{
	struct net_ep *e;
	uint64_t d = t1 > t0 ? t1 - t0 : 0, pt0;
	uint16_t pep;

	if (ep >= NET_MAX_EP)
		return;
	net_last_ep = ep + 1;
	if (net_pend_take(fd, &pep, &pt0))       /* the first I/O ends a pending connect */
		net_connect_end(pep, r >= 0 || !net_errno_fails(err) ? 0 : err, pt0, t0);
	e = &net_tab.ep[ep];
	NET_ADD(&e->c[out ? NE_SENDS : NE_RECVS], 1);
	if (r > 0)
		NET_ADD(&e->c[out ? NE_BYTES_OUT : NE_BYTES_IN], (uint64_t)r);
	NET_ADD(&e->c[NE_IO_NS], d);
	if (r < 0 && net_errno_fails(err)) {
		NET_ADD(&e->c[NE_ERRORS], 1);
		NET_STORE(&e->last_err, err);
		net_ep_event(out ? NET_OP_SEND : NET_OP_RECV, ep, err, t0, t1);
	} else if (d >= net_threshold_ns()) {
		NET_ADD(&e->c[NE_SLOW], 1);
		net_ep_event(out ? NET_OP_SEND : NET_OP_RECV, ep, 0, t0, t1);
	}
}

/* See net.h. */
void net_fd_closed(int fd)
{
	uint16_t ep;
	uint64_t t0;

	net_pend_take(fd, &ep, &t0);
}

API int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	static void *slot;
	int (*real)(int, int, int, void *, socklen_t *) =
	    (int (*)(int, int, int, void *, socklen_t *))AGENT_REAL(slot, "getsockopt", false);
	int r, e;

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	r = real(fd, level, name, val, len);
	if (r == 0 && level == SOL_SOCKET && name == SO_ERROR && NET_LOAD(&net_npending) != 0 &&
	    !agent_own_thread &&
	    val != NULL && len != NULL && *len >= sizeof(int)) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		int err = *(int *)val;
		uint64_t t1 = net_now(), t0;
		uint16_t ep;

		e = errno;
		/* 0 before the handshake ended is not "connected" yet. */
		if ((err != 0 || getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) &&
		    net_pend_take(fd, &ep, &t0))
			net_connect_end(ep, err, t0, t1);
		errno = e;
	}
	return r;
}
