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
 * once).  Calls on other fds (files, ttys...) cost one load of the cache.
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

#include "agent.h"
#include "ipc_int.h"
#include "net.h"

#define API __attribute__((visibility("default")))
#define RA  __builtin_return_address(0)

static __thread int ipc_busy;         /* inside our bookkeeping */

/* Declare the real function pointer real_NAME of type T and fetch it;
 * without it the call fails with ENOSYS. */
#define IPC_REAL(name, fail, ...)                                        \
	static void *real_slot_;                                           \
	__typeof__(__VA_ARGS__) real_ = (__typeof__(__VA_ARGS__))agent_real(&real_slot_, name, false); \
	if (real_ == NULL) {                                               \
		errno = ENOSYS;                                            \
		return fail;                                               \
	}

/* Is fd a watched IPC descriptor for a call from ra?  Its endpoint in *ep. */
static bool ipc_watch(int fd, const void *ra, uint16_t *ep, uint8_t *kind)
{
	uint8_t k;

	if (ipc_fd_not_ipc(fd) || ipc_busy || ipc_is_agent(ra))
		return false;
	ipc_busy = 1;
	k = ipc_fd_class(fd, ep);
	ipc_busy = 0;
	if (kind)
		*kind = k;
	return (k >= IPC_K_UNIX && k <= IPC_K_FIFO) || k == IPC_K_NET;
}

/* Count a finished call on fd of kind (a network one goes to net.h), errno kept. */
static void ipc_done(int fd, uint8_t kind, uint16_t ep, enum ipc_dir dir, enum ipc_op op,
    long long r, uint64_t t0)
{
	int e = errno;
	uint64_t t1 = ipc_now();

	ipc_busy = 1;
	if (kind == IPC_K_NET)
		net_io(fd, ep, dir == IPC_OUT, r, e, t0, t1);
	else
		ipc_count(ep, dir, op, r, t0, t1);
	ipc_busy = 0;
	errno = e;
}

/* The same call as a timed IPC operation on fd: CALL is the real call. */
#define IPC_TIMED(fd, dir, op, CALL)                                    \
	do {                                                               \
		uint16_t ep_;                                              \
		uint8_t k_;                                                \
		uint64_t t0_;                                              \
		__typeof__(CALL) r_;                                       \
		if (!ipc_watch((fd), RA, &ep_, &k_))                       \
			return CALL;                                       \
		t0_ = ipc_now();                                           \
		r_ = CALL;                                                 \
		ipc_done((fd), k_, ep_, (dir), (op), (long long)r_, t0_);  \
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

/* A send with an explicit unix destination (an unconnected datagram socket). */
static ssize_t ipc_send_to(int fd, const struct sockaddr *to, socklen_t tolen, ssize_t (*call)(
    int, const void *, size_t, int, const struct sockaddr *, socklen_t), const void *buf,
    size_t n, int flags, const void *ra)
{
	uint16_t ep;
	uint8_t kind;
	uint64_t t0;
	ssize_t r;

	if (!ipc_watch(fd, ra, &ep, &kind))
		return call(fd, buf, n, flags, to, tolen);
	if (kind == IPC_K_NET) {
		ep = net_dest_ep(ep, to, tolen);
	} else if (to != NULL && to->sa_family == AF_UNIX) {
		ipc_busy = 1;
		ep = ipc_fd_addr_ep(kind, to, tolen);
		ipc_busy = 0;
	}
	t0 = ipc_now();
	r = call(fd, buf, n, flags, to, tolen);
	ipc_done(fd, kind, ep, IPC_OUT, IPC_OP_SEND, r, t0);
	return r;
}

/* A connect to an IPv4/IPv6 address: the fd becomes a network one of that
 * endpoint, and the network collector times it. */
static int ipc_connect_net(int (*call)(int, const struct sockaddr *, socklen_t), int fd,
    const struct sockaddr *addr, socklen_t len)
{
	int type = 0, r, e;
	socklen_t l = sizeof type;
	uint64_t t0 = ipc_now(), t1;
	uint16_t ep;

	r = call(fd, addr, len);
	e = errno;
	t1 = ipc_now();
	ipc_busy = 1;
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l);
	ep = net_addr_ep(type, addr, len);
	ipc_fd_set_net(fd, ep);
	net_connect(fd, ep, r, e, t0, t1);
	ipc_busy = 0;
	errno = e;
	return r;
}

API int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	IPC_REAL("connect", -1,
	    int (*)(int, const struct sockaddr *, socklen_t));
	uint16_t ep = 0;
	uint64_t t0;
	int r, e;

	if (net_is_inet(addr, len) && !ipc_busy && !ipc_is_agent(RA))
		return ipc_connect_net(real_, fd, addr, len);
	if (addr == NULL || addr->sa_family != AF_UNIX || ipc_busy || ipc_is_agent(RA))
		return real_(fd, addr, len);
	t0 = ipc_now();
	r = real_(fd, addr, len);
	e = errno;
	ipc_busy = 1;
	ipc_fd_forget(fd);
	if (r != 0 || ipc_fd_class(fd, &ep) < IPC_K_UNIX)
		ep = ipc_fd_addr_ep(ipc_sock_kind(fd), addr, len);
	ipc_busy = 0;
	errno = e;
	ipc_done(fd, IPC_K_UNIX, ep, IPC_CONNECT, IPC_OP_CONNECT, r, t0);
	return r;
}

API ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	IPC_REAL("send", -1,
	    ssize_t (*)(int, const void *, size_t, int));
	IPC_TIMED(fd, IPC_OUT, IPC_OP_SEND, real_(fd, buf, n, flags));
}

API ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to,
    socklen_t tolen)
{
	IPC_REAL("sendto", -1,
	    ssize_t (*)(int, const void *, size_t, int, const struct sockaddr *, socklen_t));
	return ipc_send_to(fd, to, tolen, real_, buf, n, flags, RA);
}

API ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	IPC_REAL("sendmsg", -1,
	    ssize_t (*)(int, const struct msghdr *, int));
	uint16_t ep;
	uint8_t kind;
	uint64_t t0;
	ssize_t r;

	if (!ipc_watch(fd, RA, &ep, &kind))
		return real_(fd, m, flags);
	if (kind == IPC_K_NET && m != NULL) {
		ep = net_dest_ep(ep, m->msg_name, m->msg_namelen);
	} else if (m != NULL && m->msg_name != NULL && m->msg_namelen > sizeof(sa_family_t) &&
	    ((const struct sockaddr *)m->msg_name)->sa_family == AF_UNIX) {
		ipc_busy = 1;
		ep = ipc_fd_addr_ep(kind, m->msg_name, m->msg_namelen);
		ipc_busy = 0;
	}
	t0 = ipc_now();
	r = real_(fd, m, flags);
	ipc_done(fd, kind, ep, IPC_OUT, IPC_OP_SEND, r, t0);
	return r;
}

API ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	IPC_REAL("recv", -1,
	    ssize_t (*)(int, void *, size_t, int));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, buf, n, flags));
}

API ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	IPC_REAL("__recv_chk", -1,
	    ssize_t (*)(int, void *, size_t, size_t, int));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, buf, n, buflen, flags));
}

API ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
    socklen_t *fromlen)
{
	IPC_REAL("recvfrom", -1,
	    ssize_t (*)(int, void *, size_t, int, struct sockaddr *, socklen_t *));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, buf, n, flags, from, fromlen));
}

API ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
    struct sockaddr *from, socklen_t *fromlen)
{
	IPC_REAL("__recvfrom_chk", -1,
	    ssize_t (*)(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, buf, n, buflen, flags, from, fromlen));
}

API ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	IPC_REAL("recvmsg", -1,
	    ssize_t (*)(int, struct msghdr *, int));
	IPC_TIMED(fd, IPC_IN, IPC_OP_RECV, real_(fd, m, flags));
}

API ssize_t read(int fd, void *buf, size_t n)
{
	IPC_REAL("read", -1,
	    ssize_t (*)(int, void *, size_t));
	IPC_TIMED(fd, IPC_IN, IPC_OP_READ, real_(fd, buf, n));
}

API ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	IPC_REAL("__read_chk", -1,
	    ssize_t (*)(int, void *, size_t, size_t));
	IPC_TIMED(fd, IPC_IN, IPC_OP_READ, real_(fd, buf, n, buflen));
}

API ssize_t write(int fd, const void *buf, size_t n)
{
	IPC_REAL("write", -1,
	    ssize_t (*)(int, const void *, size_t));
	IPC_TIMED(fd, IPC_OUT, IPC_OP_WRITE, real_(fd, buf, n));
}

API int close(int fd)
{
	IPC_REAL("close", -1,
	    int (*)(int));
	ipc_fd_forget(fd);
	net_fd_closed(fd);
	return real_(fd);
}

API int dup2(int fd, int fd2)
{
	IPC_REAL("dup2", -1,
	    int (*)(int, int));
	int r = real_(fd, fd2);

	if (r >= 0)
		ipc_fd_forget(r);
	return r;
}

API int dup3(int fd, int fd2, int flags)
{
	IPC_REAL("dup3", -1,
	    int (*)(int, int, int));
	int r = real_(fd, fd2, flags);

	if (r >= 0)
		ipc_fd_forget(r);
	return r;
}

API int socket(int domain, int type, int proto)
{
	IPC_REAL("socket", -1,
	    int (*)(int, int, int));
	int r = real_(domain, type, proto);

	ipc_fd_forget(r);
	return r;
}

/* A call that made two fds (r == 0): both are new. */
static int ipc_forget_pair(int r, const int fds[2])
{
	if (r == 0) {
		ipc_fd_forget(fds[0]);
		ipc_fd_forget(fds[1]);
	}
	return r;
}

API int socketpair(int domain, int type, int proto, int sv[2])
{
	IPC_REAL("socketpair", -1,
	    int (*)(int, int, int, int *));
	return ipc_forget_pair(real_(domain, type, proto, sv), sv);
}

API int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	IPC_REAL("accept", -1,
	    int (*)(int, struct sockaddr *, socklen_t *));
	int r = real_(fd, addr, len);

	ipc_fd_accepted(r);
	return r;
}

API int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	IPC_REAL("accept4", -1,
	    int (*)(int, struct sockaddr *, socklen_t *, int));
	int r = real_(fd, addr, len, flags);

	ipc_fd_accepted(r);
	return r;
}

API int pipe(int fds[2])
{
	IPC_REAL("pipe", -1,
	    int (*)(int *));
	return ipc_forget_pair(real_(fds), fds);
}

API int pipe2(int fds[2], int flags)
{
	IPC_REAL("pipe2", -1,
	    int (*)(int *, int));
	return ipc_forget_pair(real_(fds, flags), fds);
}

/* Is a message-queue call from ra watched?  The queue's endpoint in *ep. */
static bool ipc_mq_watch(mqd_t mq, const void *ra, uint16_t *ep)
{
	if (ipc_busy || ipc_is_agent(ra))
		return false;
	ipc_busy = 1;
	*ep = ipc_fd_mq_ep((int)mq);
	ipc_busy = 0;
	return true;
}

API int mq_send(mqd_t mq, const char *msg, size_t n, unsigned prio)
{
	IPC_REAL("mq_send", -1,
	    int (*)(mqd_t, const char *, size_t, unsigned));
	uint16_t ep;
	uint64_t t0;
	int r;

	if (!ipc_mq_watch(mq, RA, &ep))
		return real_(mq, msg, n, prio);
	t0 = ipc_now();
	r = real_(mq, msg, n, prio);
	ipc_done((int)mq, IPC_K_MQ, ep, IPC_OUT, IPC_OP_MQ_SEND, r == 0 ? (long long)n : -1, t0);
	return r;
}

API int mq_timedsend(mqd_t mq, const char *msg, size_t n, unsigned prio,
    const struct timespec *abst)
{
	IPC_REAL("mq_timedsend", -1,
	    int (*)(mqd_t, const char *, size_t, unsigned, const struct timespec *));
	uint16_t ep;
	uint64_t t0;
	int r;

	if (!ipc_mq_watch(mq, RA, &ep))
		return real_(mq, msg, n, prio, abst);
	t0 = ipc_now();
	r = real_(mq, msg, n, prio, abst);
	ipc_done((int)mq, IPC_K_MQ, ep, IPC_OUT, IPC_OP_MQ_SEND, r == 0 ? (long long)n : -1, t0);
	return r;
}

API ssize_t mq_receive(mqd_t mq, char *msg, size_t n, unsigned *prio)
{
	IPC_REAL("mq_receive", -1,
	    ssize_t (*)(mqd_t, char *, size_t, unsigned *));
	uint16_t ep;
	uint64_t t0;
	ssize_t r;

	if (!ipc_mq_watch(mq, RA, &ep))
		return real_(mq, msg, n, prio);
	t0 = ipc_now();
	r = real_(mq, msg, n, prio);
	ipc_done((int)mq, IPC_K_MQ, ep, IPC_IN, IPC_OP_MQ_RECV, r, t0);
	return r;
}

API ssize_t mq_timedreceive(mqd_t mq, char *msg, size_t n, unsigned *prio,
    const struct timespec *abst)
{
	IPC_REAL("mq_timedreceive", -1,
	    ssize_t (*)(mqd_t, char *, size_t, unsigned *, const struct timespec *));
	uint16_t ep;
	uint64_t t0;
	ssize_t r;

	if (!ipc_mq_watch(mq, RA, &ep))
		return real_(mq, msg, n, prio, abst);
	t0 = ipc_now();
	r = real_(mq, msg, n, prio, abst);
	ipc_done((int)mq, IPC_K_MQ, ep, IPC_IN, IPC_OP_MQ_RECV, r, t0);
	return r;
}
