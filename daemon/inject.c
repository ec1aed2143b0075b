/*
 * inject.c - make one thread of another process call a function, with
 * ptrace, and leave it exactly as it was (used by attach.c: dlopen of the
 * agent, dlerror, hookscope_detach).
 *
 * No code is written into the target: other threads may be running the
 * very bytes at this thread's PC.  Only the stack below the red zone is
 * used: the data (a path), 16-byte aligned, then a return address of 0, so
 * the call "returns" into a fault the tracer sees before any handler
 * (signal-delivery-stop, SIGSEGV at RIP 0); its RAX is the result.
 *
 * A thread stopped inside a system call keeps its restart state: the call
 * runs with orig_rax = -1 (no restart applied to it), and when the saved
 * registers (orig_rax, rax = -ERESTARTSYS...) are put back at the end, the
 * kernel restarts the interrupted call as it would after any stop.  The
 * general registers, the whole xsave area (x87/SSE/AVX) and the stack
 * bytes written are restored; a signal that arrived meanwhile for the
 * program is passed on to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "daemon.h"
#include "attach.h"

#if defined(__x86_64__)

#define INJECT_RED_ZONE  128
#define INJECT_RET_ADDR  0ull        /* the call returns into a fault here */

/* Is the wait status a ptrace event stop (PTRACE_INTERRUPT, group stop)? */
static bool
inject_event_stop(int status)
{
	return (status >> 16) == PTRACE_EVENT_STOP;
}

/* Wait for a state change of t->tid within ms; 0 with *status, -1 with err
 * (timeout: errno ETIMEDOUT, or the thread is gone). */
static int
inject_wait(struct inject_thread *t, unsigned ms, int *status, char *err, size_t errlen)
{
	uint64_t end = proto_now_ns() + (uint64_t)ms * 1000000u;
	struct timespec nap = { 0, 500000 };

	for (;;) {
		pid_t r = waitpid(t->tid, status, __WALL | WNOHANG);

		if (r == t->tid) {
			if (WIFEXITED(*status) || WIFSIGNALED(*status)) {
				t->gone = true;
				snprintf(err, errlen, "process %d exited during the attach", (int)t->pid);
				errno = ESRCH;
				return -1;
			}
			return 0;
		}
		if (r < 0 && errno != EINTR) {
			t->gone = errno == ECHILD;
			snprintf(err, errlen, "process %d exited during the attach", (int)t->pid);
			return -1;
		}
		if (proto_now_ns() > end) {
			snprintf(err, errlen, "thread %d of %d did not stop within %u ms",
			    (int)t->tid, (int)t->pid, ms);
			errno = ETIMEDOUT;
			return -1;
		}
		nanosleep(&nap, NULL);
	}
}

/* Read or write target memory through /proc/PID/mem: 0 or -1. */
static int
inject_mem(struct inject_thread *t, bool write, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = write ? pwrite(t->memfd, buf, len, (off_t)addr) :
	    pread(t->memfd, buf, len, (off_t)addr);

	return n == (ssize_t)len ? 0 : -1;
}

/* See daemon.h. */
int
inject_read(struct inject_thread *t, uint64_t addr, void *buf, size_t len)
{
	return inject_mem(t, false, addr, buf, len);
}

/* Save the general and the extended registers of the stopped thread. */
static int
inject_save_regs(struct inject_thread *t, char *err, size_t errlen)
{
	struct iovec iov = { .iov_base = t->xstate, .iov_len = sizeof t->xstate };

	if (ptrace(PTRACE_GETREGS, t->tid, NULL, &t->regs) < 0 ||
	    ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE, &iov) < 0) {
		snprintf(err, errlen, "cannot read the registers of thread %d: %s",
		    (int)t->tid, strerror(errno));
		return -1;
	}
	t->xstate_len = iov.iov_len;
	return 0;
}

/* See daemon.h: seize, interrupt, wait for the stop, save the registers. */
int
inject_seize(struct inject_thread *t, pid_t pid, pid_t tid, char *err, size_t errlen)
{
	char path[64];
	int status;

	memset(t, 0, sizeof *t);
	t->pid = pid;
	t->tid = tid;
	t->memfd = -1;
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
		snprintf(err, errlen, "ptrace: %s", strerror(errno));
		return -1;
	}
	t->seized = true;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
		snprintf(err, errlen, "ptrace interrupt: %s", strerror(errno));
		goto fail;
	}
	for (;;) {
		if (inject_wait(t, 2000, &status, err, errlen) < 0)
			goto fail;
		if (WIFSTOPPED(status) && inject_event_stop(status))
			break;
		/* A signal for the program arrived first: hold it back and
		 * pass it on when we let go; the interrupt stop follows. */
		if (WIFSTOPPED(status)) {
			t->pending_sig = WSTOPSIG(status);
			ptrace(PTRACE_CONT, tid, NULL, NULL);
		}
	}
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	if ((t->memfd = open(path, O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	if (inject_save_regs(t, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	inject_release(t);
	return -1;
}

/* Wait until the call returns to INJECT_RET_ADDR; other stops are passed
 * through.  0 with the return value, -1 with err. */
static int
inject_run(struct inject_thread *t, unsigned ms, uint64_t *ret, char *err, size_t errlen)
{
	struct user_regs_struct r;
	int status, sig;

	for (;;) {
		if (inject_wait(t, ms, &status, err, errlen) < 0)
			return -1;
		if (!WIFSTOPPED(status))
			continue;
		sig = WSTOPSIG(status);
		if (inject_event_stop(status)) {
			ptrace(PTRACE_CONT, t->tid, NULL, NULL);
			continue;
		}
		if (sig == SIGSEGV && ptrace(PTRACE_GETREGS, t->tid, NULL, &r) == 0 &&
		    r.rip == INJECT_RET_ADDR) {
			*ret = r.rax;
			return 0;
		}
		if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) {
			snprintf(err, errlen, "the injected call faulted (signal %d) in "
			    "process %d; its registers were put back", sig, (int)t->pid);
			return -1;
		}
		ptrace(PTRACE_CONT, t->tid, NULL, (void *)(long)sig);  /* the program's */
	}
}

/* Take the thread back from a call that did not return: interrupt it. */
static void
inject_abandon(struct inject_thread *t)
{
	char err[64];
	int status;

	if (t->gone || ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) < 0)
		return;
	while (inject_wait(t, 1000, &status, err, sizeof err) == 0 &&
	    !(WIFSTOPPED(status) && inject_event_stop(status)))
		if (WIFSTOPPED(status))
			ptrace(PTRACE_CONT, t->tid, NULL, (void *)(long)WSTOPSIG(status));
}

/* See daemon.h. */
int
inject_call(struct inject_thread *t, const struct inject_req *q, uint64_t *ret,
    char *err, size_t errlen)
{
	struct user_regs_struct r = t->regs;
	unsigned long long *argreg[6] = { &r.rdi, &r.rsi, &r.rdx, &r.rcx, &r.r8, &r.r9 };
	uint64_t sp = (t->regs.rsp - INJECT_RED_ZONE - q->datalen) & ~15ull;
	uint64_t data = sp, zero = INJECT_RET_ADDR;
	size_t span;
	unsigned char *saved;
	int rc = -1;

	sp -= 8;
	span = (size_t)(t->regs.rsp - INJECT_RED_ZONE - sp);
	saved = xmalloc(span);
	if (inject_mem(t, false, sp, saved, span) < 0 ||
	    (q->datalen && inject_mem(t, true, data, (void *)q->data, q->datalen) < 0) ||
	    inject_mem(t, true, sp, &zero, sizeof zero) < 0) {
		snprintf(err, errlen, "cannot write the stack of thread %d: %s", (int)t->tid,
		    strerror(errno));
		goto out;
	}
	for (int i = 0; i < q->nargs && i < 6; i++)
		*argreg[i] = q->args[i] == INJECT_ARG_DATA ? data : q->args[i];
	r.rip = q->fn;
	r.rsp = sp;
	r.rax = 0;                    /* no vector registers (variadic rule) */
	r.orig_rax = (unsigned long long)-1;    /* not in a system call: no restart */
	if (ptrace(PTRACE_SETREGS, t->tid, NULL, &r) < 0 ||
	    ptrace(PTRACE_CONT, t->tid, NULL, NULL) < 0) {
		snprintf(err, errlen, "ptrace: cannot start the call: %s", strerror(errno));
		goto out;
	}
	t->dirty = true;
	if ((rc = inject_run(t, q->timeout_ms, ret, err, errlen)) < 0 && errno == ETIMEDOUT)
		inject_abandon(t);
out:
	if (!t->gone) {
		inject_mem(t, true, sp, saved, span);
		ptrace(PTRACE_SETREGS, t->tid, NULL, &t->regs);
	}
	free(saved);
	return rc;
}

/* See daemon.h: registers back, then let go of the thread. */
void
inject_release(struct inject_thread *t)
{
	if (t->seized && !t->gone) {
		if (t->dirty) {
			struct iovec iov = { .iov_base = t->xstate, .iov_len = t->xstate_len };

			ptrace(PTRACE_SETREGS, t->tid, NULL, &t->regs);
			ptrace(PTRACE_SETREGSET, t->tid, (void *)NT_X86_XSTATE, &iov);
		}
		ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)t->pending_sig);
	}
	if (t->memfd >= 0)
		close(t->memfd);
	t->memfd = -1;
	t->seized = false;
}

#else
/* The injector is x86-64 only: on another architecture attach refuses
 * (doc/android.md says what an arm64 injector needs; qemu user mode, where
 * arm64 is tested, has no ptrace to check one with). */
int
inject_seize(struct inject_thread *t, pid_t pid, pid_t tid, char *err, size_t errlen)
{
	(void)t;
	(void)tid;
	snprintf(err, errlen, "attaching to a running process (pid %d) is not implemented on this "
	    "architecture; start the program under hookscoped run (LD_PRELOAD) instead", (int)pid);
	errno = ENOSYS;
	return -1;
}

int
inject_call(struct inject_thread *t, const struct inject_req *q, uint64_t *ret,
    char *err, size_t errlen)
{
	(void)t;
	(void)q;
	(void)ret;
	snprintf(err, errlen, "attach is not implemented on this architecture");
	errno = ENOSYS;
	return -1;
}

int
inject_read(struct inject_thread *t, uint64_t addr, void *buf, size_t len)
{
	(void)t;
	(void)addr;
	(void)buf;
	(void)len;
	errno = ENOSYS;
	return -1;
}

void
inject_release(struct inject_thread *t)
{
	(void)t;
}
#endif
