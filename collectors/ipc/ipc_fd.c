/*
 * ipc_fd.c - what a file descriptor is, for the IPC wrappers: classified
 * once per fd (fstat; for a socket getsockopt SO_DOMAIN/SO_TYPE,
 * getpeername/getsockname and SO_PEERCRED; for a pipe or FIFO the
 * /proc/self/fd link) and cached in a shared array as kind + endpoint.
 * The wrappers of close, dup2, dup3, socket, accept and pipe forget an fd
 * whose meaning changes; a descriptor closed inside libc (fclose) and
 * reused by an open() the agent does not see keeps its old class, which is
 * why only sockets, pipes and FIFOs are ever cached as IPC.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc_int.h"
#include "net.h"

uint32_t ipc_fd_cache[IPC_FD_MAX];          /* (kind << 16 | ep), 0: not classified */

/* A unix address as text: the path, "@name" for an abstract one, "" unnamed. */
static void ipc_fd_sun_name(const struct sockaddr_un *a, socklen_t len, char *out, size_t cap)
{
	size_t n = 0, off = offsetof(struct sockaddr_un, sun_path);

	out[0] = '\0';
	if (len <= off || a->sun_family != AF_UNIX)
		return;
	len -= off;
	if (len > sizeof a->sun_path)
		len = sizeof a->sun_path;
	if (a->sun_path[0] == '\0') {            /* abstract: len bytes, NULs allowed */
		out[n++] = '@';
		for (socklen_t i = 1; i < len && n + 1 < cap; i++) {
			char c = a->sun_path[i];

			out[n++] = (c >= 0x20 && c < 0x7f) ? c : '@';
		}
		out[n] = '\0';
		return;
	}
	for (socklen_t i = 0; i < len && a->sun_path[i] && n + 1 < cap; i++)
		out[n++] = a->sun_path[i];
	out[n] = '\0';
}

/* The command name of pid ("" when gone), read without our wrappers. */
static void ipc_fd_comm(int32_t pid, char *out, size_t cap)
{
	char path[64];
	ssize_t n;
	int fd;

	out[0] = '\0';
	if (pid <= 0)
		return;
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = pread(fd, out, cap - 1, 0);
	close(fd);
	if (n <= 0) {
		out[0] = '\0';
		return;
	}
	out[n] = '\0';
	if (out[n - 1] == '\n')
		out[n - 1] = '\0';
}

/* Classify a unix socket: kind, peer name (or "<- local" for the accepting
 * side), peer process. */
static uint32_t ipc_fd_unix(int fd, int type)
{
	struct sockaddr_un a;
	socklen_t len = sizeof a;
	struct ucred cr = { 0 };
	socklen_t crlen = sizeof cr;
	char name[sizeof a.sun_path + 4] = "", comm[16] = "";
	uint8_t kind = type == SOCK_DGRAM ? IPC_K_UNIX_DGRAM : IPC_K_UNIX;

	memset(&a, 0, sizeof a);
	if (getpeername(fd, (struct sockaddr *)&a, &len) == 0)
		ipc_fd_sun_name(&a, len, name, sizeof name);
	if (name[0] == '\0') {
		char local[sizeof a.sun_path + 1] = "";

		len = sizeof a;
		memset(&a, 0, sizeof a);
		if (getsockname(fd, (struct sockaddr *)&a, &len) == 0)
			ipc_fd_sun_name(&a, len, local, sizeof local);
		snprintf(name, sizeof name, local[0] ? "<- %s" : "(unnamed)", local);
	}
	if (kind == IPC_K_UNIX && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) == 0)
		ipc_fd_comm(cr.pid, comm, sizeof comm);
	return (uint32_t)kind << 16 | ipc_ep_get(kind, name, "", cr.pid, comm);
}

/* Classify fd (not cached yet). */
static uint32_t ipc_fd_classify(int fd)
{
	struct stat st;
	int dom = 0, type = 0;
	socklen_t l1 = sizeof dom, l2 = sizeof type;

	if (fstat(fd, &st) < 0)
		return 0;                         /* bad fd: ask again next time */
	if (S_ISSOCK(st.st_mode)) {
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l1) < 0 ||
		    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l2) < 0)
			return (uint32_t)IPC_K_OTHER << 16;
		if (dom == AF_INET || dom == AF_INET6)
			return (uint32_t)IPC_K_NET << 16 | net_fd_ep(fd, type, false);
		if (dom != AF_UNIX)
			return (uint32_t)IPC_K_OTHER << 16;
		return ipc_fd_unix(fd, type);
	}
	if (S_ISFIFO(st.st_mode)) {
		char link[64], name[256];
		ssize_t n;
		int acc;

		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		n = readlink(link, name, sizeof name - 1);
		if (n <= 0)
			snprintf(name, sizeof name, "pipe:[%lu]", (unsigned long)st.st_ino);
		else
			name[n] = '\0';
		acc = fcntl(fd, F_GETFL);
		acc = acc < 0 ? O_RDWR : acc & O_ACCMODE;
		if (strncmp(name, "pipe:[", 6) == 0)
			return (uint32_t)IPC_K_PIPE << 16 | ipc_ep_get_pipe(IPC_K_PIPE, name, acc);
		return (uint32_t)IPC_K_FIFO << 16 | ipc_ep_get_pipe(IPC_K_FIFO, name, acc);
	}
	return (uint32_t)IPC_K_OTHER << 16;
}

/* See ipc_int.h. */
uint8_t ipc_fd_class(int fd, uint16_t *ep)
{
	uint32_t v;

	if (fd < 0 || fd >= IPC_FD_MAX)
		return IPC_K_OTHER;
	v = __atomic_load_n(&ipc_fd_cache[fd], __ATOMIC_RELAXED);
	if (v == 0) {
		v = ipc_fd_classify(fd);
		if (v == 0)
			return IPC_K_OTHER;
		__atomic_store_n(&ipc_fd_cache[fd], v, __ATOMIC_RELAXED);
	}
	*ep = (uint16_t)(v & 0xffff);
	return (uint8_t)(v >> 16);
}

/* See ipc_int.h. */
void ipc_fd_forget(int fd)
{
	if (fd >= 0 && fd < IPC_FD_MAX)
		__atomic_store_n(&ipc_fd_cache[fd], 0, __ATOMIC_RELAXED);
}

/* See ipc_int.h. */
void ipc_fd_accepted(int fd)
{
	int dom = 0, type = 0;
	socklen_t l1 = sizeof dom, l2 = sizeof type;

	ipc_fd_forget(fd);
	if (fd < 0 || fd >= IPC_FD_MAX || getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l1) < 0 ||
	    (dom != AF_INET && dom != AF_INET6) || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l2) < 0)
		return;
	__atomic_store_n(&ipc_fd_cache[fd], (uint32_t)IPC_K_NET << 16 | net_fd_ep(fd, type, true),
	    __ATOMIC_RELAXED);
}

/* See ipc_int.h. */
void ipc_fd_set_net(int fd, uint16_t ep)
{
	if (fd >= 0 && fd < IPC_FD_MAX)
		__atomic_store_n(&ipc_fd_cache[fd], (uint32_t)IPC_K_NET << 16 | ep, __ATOMIC_RELAXED);
}

/* See ipc_int.h. */
uint16_t ipc_fd_addr_ep(uint8_t kind, const void *addr, unsigned addrlen)
{
	char name[sizeof ((struct sockaddr_un *)0)->sun_path + 2];

	ipc_fd_sun_name(addr, (socklen_t)addrlen, name, sizeof name);
	return ipc_ep_get(kind, name[0] ? name : "(unnamed)", "", 0, "");
}

/* See ipc_int.h: a message queue descriptor's name, from its /proc link. */
uint16_t ipc_fd_mq_ep(int fd)
{
	uint32_t v;
	char link[64], name[256];
	ssize_t n;

	if (fd >= 0 && fd < IPC_FD_MAX &&
	    (v = __atomic_load_n(&ipc_fd_cache[fd], __ATOMIC_RELAXED)) >> 16 == IPC_K_MQ)
		return (uint16_t)(v & 0xffff);
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, name, sizeof name - 1);
	if (n <= 0)
		snprintf(name, sizeof name, "mqd %d", fd);
	else
		name[n] = '\0';
	v = (uint32_t)IPC_K_MQ << 16 | ipc_ep_get(IPC_K_MQ, name, "", 0, "");
	if (fd >= 0 && fd < IPC_FD_MAX)
		__atomic_store_n(&ipc_fd_cache[fd], v, __ATOMIC_RELAXED);
	return (uint16_t)(v & 0xffff);
}
