/*
 * ipc_binder_hook.c - Binder transactions of the target: the agent's ioctl
 * wrapper passes every other request straight through; for
 * BINDER_WRITE_READ it decodes the write buffer before the call (a
 * synchronous BC_TRANSACTION starts the thread's clock), the part the
 * driver consumed after it (each BC_TRANSACTION goes to the observers,
 * ipc_binder_observe, once) and the read buffer (a BR_REPLY stops the
 * clock: one call on the endpoint "handle N", method "IFACE code N").
 * Memory named by the buffers is read with process_vm_readv (or through a
 * pipe where that call does not exist), so a bad
 * pointer is an error, never a fault.  Only exercised by unit tests here:
 * no binder device exists on Debian (doc/binder.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/android/binder.h>

#include "agent.h"
#include "ipc.h"
#include "ipc_int.h"

#define API __attribute__((visibility("default")))
#define IPC_BINDER_NEST 8

/* Synchronous transactions of this thread waiting for their reply
 * (nested: a thread serving a call may make one itself). */
static __thread struct {
	int      n;
	uint16_t ep[IPC_BINDER_NEST];
	uint64_t t0[IPC_BINDER_NEST];
} ipc_bwait;

/* Read size bytes of our own memory through a pipe: the kernel's copy
 * fails with EFAULT on an unmapped address.  For a kernel or emulator
 * without process_vm_readv (qemu user mode, a seccomp filter): chunks of
 * at most a pipe's buffer. */
static int ipc_binder_pipe_read(uint64_t addr, void *dst, size_t size)
{
	int p[2], rc = 0;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	for (size_t off = 0; off < size && rc == 0;) {
		size_t n = size - off < 4096 ? size - off : 4096;

		/* raw system calls: the agent's own write wrapper stays out */
		if (syscall(SYS_write, p[1], (const void *)(uintptr_t)(addr + off), n) != (long)n ||
		    syscall(SYS_read, p[0], (uint8_t *)dst + off, n) != (long)n)
			rc = -1;
		off += n;
	}
	close(p[0]);
	close(p[1]);
	return rc;
}

/* Read our own memory through the kernel: EFAULT instead of a crash. */
static int ipc_binder_self_read(void *ctx, uint64_t addr, void *dst, size_t size)
{
	struct iovec l = { dst, size }, r = { (void *)(uintptr_t)addr, size };
	ssize_t n;

	(void)ctx;
	n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	if (n < 0 && (errno == ENOSYS || errno == EPERM))
		return ipc_binder_pipe_read(addr, dst, size);
	return n == (ssize_t)size ? 0 : -1;
}

/* Decode len bytes of a BINDER_WRITE_READ buffer at addr (copied first:
 * the address came from the caller's struct). */
static void ipc_binder_scan(uint64_t addr, size_t len, bool is_read,
    void (*fn)(const struct ipc_binder_txn *t, void *arg))
{
	char err[128];
	uint8_t *copy;

	if (len > IPC_BINDER_MAX_DATA || (copy = malloc(len)) == NULL)
		return;
	if (ipc_binder_self_read(NULL, addr, copy, len) == 0)
		(void)ipc_binder_decode(copy, len, is_read, ipc_binder_self_read, NULL, fn, NULL, err,
		    sizeof err);
	free(copy);
}

/* A command the driver took: the observers see it (once, even when the
 * caller retries an interrupted ioctl). */
static void ipc_binder_taken(const struct ipc_binder_txn *t, void *arg)
{
	(void)arg;
	if (t->cmd == BC_TRANSACTION || t->cmd == BC_TRANSACTION_SG)
		ipc_binder_notify(t);
}

/* An outgoing synchronous transaction starts the thread's clock. */
static void ipc_binder_out(const struct ipc_binder_txn *t, void *arg)
{
	char name[32], method[160];

	(void)arg;
	if ((t->cmd != BC_TRANSACTION && t->cmd != BC_TRANSACTION_SG) || (t->flags & TF_ONE_WAY) ||
	    ipc_bwait.n >= IPC_BINDER_NEST)
		return;
	snprintf(name, sizeof name, "handle %u", t->handle);
	snprintf(method, sizeof method, "%s code %u", t->iface[0] ? t->iface : "?", t->code);
	ipc_bwait.ep[ipc_bwait.n] = ipc_ep_get(IPC_K_BINDER, name, method, 0, "");
	ipc_bwait.t0[ipc_bwait.n] = ipc_now();
	ipc_bwait.n++;
}

/* An incoming reply (or a dead, failed or frozen one) ends the innermost
 * waiting transaction. */
static void ipc_binder_in(const struct ipc_binder_txn *t, void *arg)
{
	(void)arg;
	if ((t->cmd != BR_REPLY && t->cmd != BR_DEAD_REPLY && t->cmd != BR_FAILED_REPLY &&
	    t->cmd != BR_FROZEN_REPLY) || ipc_bwait.n == 0)
		return;
	ipc_bwait.n--;
	ipc_count(ipc_bwait.ep[ipc_bwait.n], IPC_CALL, IPC_OP_BINDER, (long long)t->data_size,
	    ipc_bwait.t0[ipc_bwait.n], ipc_now());
}

/* The real ioctl (next after ours), looked up once. */
static int (*ipc_real_ioctl(void))(int, unsigned long, void *)
{
	static void *slot;

	return (int (*)(int, unsigned long, void *))AGENT_REAL(slot, "ioctl", false);
}

/* See ipc.h: the body of the agent's ioctl. */
int ipc_binder_ioctl(int fd, unsigned long req, void *arg)
{
	return ipc_binder_ioctl_via(ipc_real_ioctl(), fd, req, arg);
}

/* See ipc.h. */
int ipc_binder_ioctl_via(int (*real)(int, unsigned long, void *), int fd, unsigned long req,
    void *arg)
{
	struct binder_write_read *bwr;
	binder_size_t rc, wc;
	int r, e, waiting;

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (req != BINDER_WRITE_READ || arg == NULL)
		return real(fd, req, arg);
	bwr = arg;
	rc = bwr->read_consumed;
	wc = bwr->write_consumed;
	waiting = ipc_bwait.n;
	if (bwr->write_size > bwr->write_consumed)
		ipc_binder_scan(bwr->write_buffer + bwr->write_consumed,
		    bwr->write_size - bwr->write_consumed, false, ipc_binder_out);
	r = real(fd, req, arg);
	e = errno;
	/* Failed before the driver took any command (libbinder retries an
	 * EINTR with the same struct, from write_consumed on): no reply will
	 * come for what this call pushed. */
	if (r != 0 && bwr->write_consumed == wc)
		ipc_bwait.n = waiting;
	if (bwr->write_consumed > wc && bwr->write_consumed <= bwr->write_size)
		ipc_binder_scan(bwr->write_buffer + wc, bwr->write_consumed - wc, false,
		    ipc_binder_taken);
	if (r == 0 && bwr->read_consumed > rc)
		ipc_binder_scan(bwr->read_buffer + rc, bwr->read_consumed - rc, true, ipc_binder_in);
	errno = e;
	return r;
}

/* The exported ioctl: one pointer argument, as every ioctl request takes;
 * the agent's own calls and other requests go straight through. */
API int ioctl(int fd, unsigned long req, ...)
{
	int (*real)(int, unsigned long, void *);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == BINDER_WRITE_READ && !ipc_is_agent(__builtin_return_address(0)))
		return ipc_binder_ioctl(fd, req, arg);
	if ((real = ipc_real_ioctl()) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return real(fd, req, arg);
}
