/*
 * ipc_hooks.c - the libc wrappers of the IPC collector (exported through
 * ipc/exports): unix sockets (connect, send, sendto, sendmsg, recv,
 * recvfrom, recvmsg and read/write on a socket, plus the _chk variants
 * that _FORTIFY_SOURCE builds call), pipes and FIFOs (read, write), and
 * POSIX message queues (mq_send, mq_receive, mq_timedsend,
 * mq_timedreceive).  close, dup2, dup3, socket, socketpair, accept,
 * accept4, pipe and pipe2 only tell the fd cache that an fd changed.
 *
 * IPv4 and IPv6 sockets are classified here too and their calls handed
 * to the network collector (net.h).
 *
 * Every wrapper calls the real function (dlsym(RTLD_NEXT), looked up
 * once).  Calls on other fds (files, TCP...) cost one load of the cache.
 * Calls from the agent itself (its daemon link) are not counted, nor calls
 * made while the same thread is inside the collector's own bookkeeping (a
 * signal handler writing to a self-pipe while we count: no lock is ever
 * taken twice).
 */
#include <dlfcn.h>
#include <errno.h>
#include <mqueue.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bind.h"
#include "collector.h"
#include "ipc_int.h"
#include "net.h"
#include "timing.h"

#define API __attribute__((visibility("default")))
#define RA  __builtin_return_address(0)

static __thread int ipc_busy;         /* inside our bookkeeping */

/* Is a call from ra none of ours to count: made inside our bookkeeping,
 * from the agent's code, under the agent's guard (a library the agent
 * calls on a program thread), or on an agent thread (whose descriptors are numbered in a
 * table of their own: collector.h)? */
static bool ipc_skip(const void *ra)
{
	return ipc_busy || agent_own_thread || ipc_is_agent(ra) || timing_guarded();
}

/* The descriptor-keyed state forgets fd (closed or reused), unless the call
 * came from an agent thread (another table's number). */
static void ipc_forget(int fd)
{
	if (!agent_own_thread)
		ipc_fd_forget(fd);
}

/* The wrapped functions, once: each one's real-function slot
 * (ipc_real_NAME) and the bind table derive from this list. */
#define IPC_HOOKS(X) \
	X(connect) X(send) X(sendto) X(sendmsg) X(recv) X(__recv_chk) X(recvfrom)        \
	X(__recvfrom_chk) X(recvmsg) X(read) X(__read_chk) X(write) X(close) X(dup2)      \
	X(dup3) X(socket) X(socketpair) X(accept) X(accept4) X(pipe) X(pipe2) X(mq_send)  \
	X(mq_timedsend) X(mq_receive) X(mq_timedreceive)
#define IPC_SLOT(name) static void *ipc_real_##name;
IPC_HOOKS(IPC_SLOT)

/* Fetch the real function real_ of type T for wrapper name; without it
 * the call fails with ENOSYS. */
#define IPC_REAL(name, fail, ...)                                        \
	__typeof__(__VA_ARGS__) real_ = (__typeof__(__VA_ARGS__))AGENT_REAL(ipc_real_##name, #name, false); \
	if (real_ == NULL) {                                               \
		errno = ENOSYS;                                            \
		return fail;                                               \
	}

/* Is fd a watched IPC descriptor for a call from ra?  Its kind << 16 |
 * endpoint, or -1.  (A value, not out-parameters: a wrapper whose locals'
 * addresses never escape can end in a tail call, see BIND_BLOCKING.) */
static int ipc_watch(int fd, const void *ra)
{
	uint16_t ep;
	uint8_t k;

	if (ipc_fd_not_ipc(fd) || ipc_skip(ra))
		return -1;
	ipc_busy = 1;
	k = ipc_fd_class(fd, &ep);
	ipc_busy = 0;
	return (k >= IPC_K_UNIX && k <= IPC_K_FIFO) || k == IPC_K_NET ? (int)k << 16 | ep : -1;
}

/* Count a finished call on fd, w as ipc_watch gave it (a network one goes
 * to net.h), errno kept. */
static void ipc_done(int fd, int w, enum ipc_dir dir, enum ipc_op op, long long r, uint64_t t0)
{
	int e = errno;
	uint64_t t1 = ipc_now();

	ipc_busy = 1;
	if (w >> 16 == IPC_K_NET)
		net_io(fd, (uint16_t)w, dir == IPC_OUT, r, e, t0, t1);
	else
		ipc_count((uint16_t)w, dir, op, r, t0, t1);
	ipc_busy = 0;
	errno = e;
}

/* The same call as a timed IPC operation on fd: CALL is the real call. */
#define IPC_TIMED(fd, dir, op, CALL)                                    \
	do {                                                               \
		int w_ = ipc_watch((fd), RA);                              \
		uint64_t t0_;                                              \
		__typeof__(CALL) r_;                                       \
		if (w_ < 0)                                                \
			return CALL;                                       \
		t0_ = ipc_now();                                           \
		BIND_BLOCKING(r_, CALL);                                   \
		ipc_done((fd), w_, (dir), (op), (long long)r_, t0_);       \
		return r_;                                                 \
	} while (0)

/* Socket kind of fd for an address-level endpoint. */
static uint8_t ipc_sock_kind(int fd)
{
	int type = 0;
	socklen_t l = sizeof type;

	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l);
	return type == SOCK_DGRAM ? IPC_K_UNIX_DGRAM : IPC_K_UNIX;
}

/* The endpoint of a send to an explicit address (an unconnected datagram
 * socket), else w's. */
static uint16_t ipc_to_ep(int w, const struct sockaddr *to, socklen_t tolen)
{
	uint16_t ep = (uint16_t)w;

	if (w >> 16 == IPC_K_NET)
		return net_dest_ep(ep, to, tolen);
	if (to != NULL && tolen > sizeof(sa_family_t) && to->sa_family == AF_UNIX) {
		ipc_busy = 1;
		ep = ipc_fd_addr_ep((uint8_t)(w >> 16), to, tolen);
		ipc_busy = 0;
	}
	return ep;
}

/* The endpoint of a connect that returned r, errno kept. */
static uint16_t ipc_connect_ep(int fd, const struct sockaddr *addr, socklen_t len, int r)
{
	uint16_t ep = 0;
	int e = errno;

	ipc_busy = 1;
	ipc_fd_forget(fd);
	if (r != 0 || ipc_fd_class(fd, &ep) < IPC_K_UNIX)
		ep = ipc_fd_addr_ep(ipc_sock_kind(fd), addr, len);
	ipc_busy = 0;
	errno = e;
	return ep;
}

/* A connect to an IPv4/IPv6 address that returned r at t1: the fd
 * becomes a network one of that endpoint, and the network collector
 * times it; errno kept. */
static void ipc_connect_net(int fd, const struct sockaddr *addr, socklen_t len, int r,
    uint64_t t0)
{
	int type = 0, e = errno;
	socklen_t l = sizeof type;
	uint64_t t1 = ipc_now();
	uint16_t ep;

	ipc_busy = 1;
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l);
	ep = net_addr_ep(type, addr, len);
	ipc_fd_set_net(fd, ep);
	net_connect(fd, ep, r, e, t0, t1);
	ipc_busy = 0;
	errno = e;
}

API int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	IPC_REAL(connect, -1,
	    int (*)(int, const struct sockaddr *, socklen_t));
	uint64_t t0;
	int r;

	if (net_is_inet(addr, len) && !ipc_skip(RA)) {
		t0 = ipc_now();
		BIND_BLOCKING(r, real_(fd, addr, len));
		ipc_connect_net(fd, addr, len, r, t0);
		return r;
	}
	if (addr == NULL || addr->sa_family != AF_UNIX || ipc_skip(RA))
		return real_(fd, addr, len);
	t0 = ipc_now();
	BIND_BLOCKING(r, real_(fd, addr, len));
	ipc_done(fd, IPC_K_UNIX << 16 | ipc_connect_ep(fd, addr, len, r), IPC_CONNECT,
	    IPC_OP_CONNECT, r, t0);
	return r;
}

API ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	IPC_REAL(send, -1,
	    ssize_t (*)(int, const void *, size_t, int));
	IPC_TIMED(fd, IPC_OUT, IPC_OP_SEND, real_(fd, buf, n, flags));
}

API ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to,
    socklen_t tolen)
{
	IPC_REAL(sendto, -1,
	    ssize_t (*)(int, const void *, size_t, int, const struct sockaddr *, socklen_t));
	int w = ipc_watch(fd, RA);
	uint64_t t0;
	ssize_t r;

	if (w < 0)
		return real_(fd, buf, n, flags, to, tolen);
	w = (w & ~0xffff) | ipc_to_ep(w, to, tolen);
	t0 = ipc_now();
	BIND_BLOCKING(r, real_(fd, buf, n, flags, to, tolen));
	ipc_done(fd, w, IPC_OUT, IPC_OP_SEND, r, t0);
	return r;
}

API ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	IPC_REAL(sendmsg, -1,
	    ssize_t (*)(int, const struct msghdr *, int));
	int w = ipc_watch(fd, RA);
	uint64_t t0;
	ssize_t r;

	if (w < 0)
		return real_(fd, m, flags);
	if (m != NULL)
		w = (w & ~0xffff) | ipc_to_ep(w, m->msg_name, m->msg_namelen);
	t0 = ipc_now();
	BIND_BLOCKING(r, real_(fd, m, flags));
	ipc_done(fd, w, IPC_OUT, IPC_OP_SEND, r, t0);
	return r;
}

API ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	IPC_REAL(recv, -1,
	    ssize_t (*)(int, void *, size_t, int));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, buf, n, flags));
}

API ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	IPC_REAL(__recv_chk, -1,
	    ssize_t (*)(int, void *, size_t, size_t, int));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, buf, n, buflen, flags));
}

API ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
    socklen_t *fromlen)
{
	IPC_REAL(recvfrom, -1,
	    ssize_t (*)(int, void *, size_t, int, struct sockaddr *, socklen_t *));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, buf, n, flags, from, fromlen));
}

API ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
    struct sockaddr *from, socklen_t *fromlen)
{
	IPC_REAL(__recvfrom_chk, -1,
	    ssize_t (*)(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, buf, n, buflen, flags, from, fromlen));
}

API ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	IPC_REAL(recvmsg, -1,
	    ssize_t (*)(int, struct msghdr *, int));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, m, flags));
}

API ssize_t read(int fd, void *buf, size_t n)
{
	IPC_REAL(read, -1,
	    ssize_t (*)(int, void *, size_t));
	IPC_TIMED(fd, IPC_IN, IPC_OP_READ, real_(fd, buf, n));
}

API ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	IPC_REAL(__read_chk, -1,
	    ssize_t (*)(int, void *, size_t, size_t));
	IPC_TIMED(fd, IPC_IN, IPC_OP_READ, real_(fd, buf, n, buflen));
}

API ssize_t write(int fd, const void *buf, size_t n)
{
	IPC_REAL(write, -1,
	    ssize_t (*)(int, const void *, size_t));
	IPC_TIMED(fd, IPC_OUT, IPC_OP_WRITE, real_(fd, buf, n));
}

API int close(int fd)
{
	IPC_REAL(close, -1,
	    int (*)(int));
	int r;

	if (!agent_own_thread) {
		ipc_fd_forget(fd);
		net_fd_closed(fd);
	}
	BIND_CALL(r = real_(fd));
	return r;
}

API int dup2(int fd, int fd2)
{
	IPC_REAL(dup2, -1,
	    int (*)(int, int));
	int r;

	BIND_CALL(r = real_(fd, fd2));
	if (r >= 0)
		ipc_forget(r);
	return r;
}

API int dup3(int fd, int fd2, int flags)
{
	IPC_REAL(dup3, -1,
	    int (*)(int, int, int));
	int r;

	BIND_CALL(r = real_(fd, fd2, flags));
	if (r >= 0)
		ipc_forget(r);
	return r;
}

API int socket(int domain, int type, int proto)
{
	IPC_REAL(socket, -1,
	    int (*)(int, int, int));
	int r;

	BIND_CALL(r = real_(domain, type, proto));
	ipc_forget(r);
	return r;
}

/* A call that made two fds (r == 0): both are new.  Made by agent code on
 * a program thread (libunwind's first stack walk makes a pipe), they move
 * out of the program's low numbers. */
static int ipc_forget_pair(int r, int fds[2])
{
	if (r == 0) {
		if (timing_guarded() && !agent_own_thread) {
			fds[0] = agent_fd_high(fds[0]);
			fds[1] = agent_fd_high(fds[1]);
		}
		ipc_forget(fds[0]);
		ipc_forget(fds[1]);
	}
	return r;
}

API int socketpair(int domain, int type, int proto, int sv[2])
{
	IPC_REAL(socketpair, -1,
	    int (*)(int, int, int, int *));
	int r;

	BIND_CALL(r = real_(domain, type, proto, sv));
	return ipc_forget_pair(r, sv);
}

API int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	IPC_REAL(accept, -1,
	    int (*)(int, struct sockaddr *, socklen_t *));
	int r;

	BIND_BLOCKING(r, real_(fd, addr, len));
	if (!agent_own_thread)
		ipc_fd_accepted(r);
	return r;
}

API int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	IPC_REAL(accept4, -1,
	    int (*)(int, struct sockaddr *, socklen_t *, int));
	int r;

	BIND_BLOCKING(r, real_(fd, addr, len, flags));
	if (!agent_own_thread)
		ipc_fd_accepted(r);
	return r;
}

API int pipe(int fds[2])
{
	IPC_REAL(pipe, -1,
	    int (*)(int *));
	int r;

	BIND_CALL(r = real_(fds));
	return ipc_forget_pair(r, fds);
}

API int pipe2(int fds[2], int flags)
{
	IPC_REAL(pipe2, -1,
	    int (*)(int *, int));
	int r;

	BIND_CALL(r = real_(fds, flags));
	return ipc_forget_pair(r, fds);
}

/* Is a message-queue call from ra watched?  The queue's endpoint, or -1. */
static int ipc_mq_watch(mqd_t mq, const void *ra)
{
	int ep;

	if (ipc_skip(ra))
		return -1;
	ipc_busy = 1;
	ep = ipc_fd_mq_ep((int)mq);
	ipc_busy = 0;
	return ep;
}

API int mq_send(mqd_t mq, const char *msg, size_t n, unsigned prio)
{
	IPC_REAL(mq_send, -1,
	    int (*)(mqd_t, const char *, size_t, unsigned));
	int ep = ipc_mq_watch(mq, RA), r;
	uint64_t t0;

	if (ep < 0)
		return real_(mq, msg, n, prio);
	t0 = ipc_now();
	BIND_BLOCKING(r, real_(mq, msg, n, prio));
	ipc_done((int)mq, IPC_K_MQ << 16 | ep, IPC_OUT, IPC_OP_MQ_SEND, r == 0 ? (long long)n : -1, t0);
	return r;
}

API int mq_timedsend(mqd_t mq, const char *msg, size_t n, unsigned prio,
    const struct timespec *abst)
{
	IPC_REAL(mq_timedsend, -1,
	    int (*)(mqd_t, const char *, size_t, unsigned, const struct timespec *));
	int ep = ipc_mq_watch(mq, RA), r;
	uint64_t t0;

	if (ep < 0)
		return real_(mq, msg, n, prio, abst);
	t0 = ipc_now();
	BIND_BLOCKING(r, real_(mq, msg, n, prio, abst));
	ipc_done((int)mq, IPC_K_MQ << 16 | ep, IPC_OUT, IPC_OP_MQ_SEND, r == 0 ? (long long)n : -1, t0);
	return r;
}

API ssize_t mq_receive(mqd_t mq, char *msg, size_t n, unsigned *prio)
{
	IPC_REAL(mq_receive, -1,
	    ssize_t (*)(mqd_t, char *, size_t, unsigned *));
	int ep = ipc_mq_watch(mq, RA);
	uint64_t t0;
	ssize_t r;

	if (ep < 0)
		return real_(mq, msg, n, prio);
	t0 = ipc_now();
	BIND_BLOCKING(r, real_(mq, msg, n, prio));
	ipc_done((int)mq, IPC_K_MQ << 16 | ep, IPC_IN, IPC_OP_MQ_RECV, r, t0);
	return r;
}

API ssize_t mq_timedreceive(mqd_t mq, char *msg, size_t n, unsigned *prio,
    const struct timespec *abst)
{
	IPC_REAL(mq_timedreceive, -1,
	    ssize_t (*)(mqd_t, char *, size_t, unsigned *, const struct timespec *));
	int ep = ipc_mq_watch(mq, RA);
	uint64_t t0;
	ssize_t r;

	if (ep < 0)
		return real_(mq, msg, n, prio, abst);
	t0 = ipc_now();
	BIND_BLOCKING(r, real_(mq, msg, n, prio, abst));
	ipc_done((int)mq, IPC_K_MQ << 16 | ep, IPC_IN, IPC_OP_MQ_RECV, r, t0);
	return r;
}

/* The wrappers, for the binder (bind.h): every call of the program's own
 * modules, and libc's socket calls made by the libraries that speak for it
 * (D-Bus, GLib's GIO). */
IPC_HOOKS(BIND_LOCAL)
#define IPC_BIND(name) { #name, BIND_WRAPPER(name), &ipc_real_##name, 0 },
static const struct bind_fn ipc_bind_fns[] = { IPC_HOOKS(IPC_BIND) };
const struct bind_table ipc_bind = {
	.who = "ipc", .libs = "libdbus-1.so*:libsystemd.so*:libgio-2.0.so*:libglib-2.0.so*",
	.fns = ipc_bind_fns, .n = sizeof ipc_bind_fns / sizeof ipc_bind_fns[0],
};
