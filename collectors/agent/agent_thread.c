/*
 * agent_thread.c - the agent's own threads: marked, named, and with their
 * file descriptors out of the program's table.
 *
 * A new descriptor is the lowest free number, and programs count on it
 * between a close and the open or dup2 that refills the number: dash runs
 * `printf x >file` as open(file) = 3, close(1), dup2(3, 1), write(1).  An
 * agent thread that opened anything in that window (its socket, a /proc
 * file) would take number 1: the program's dup2 silently closes the agent's
 * file and the agent's close then closes the program's (its output is
 * lost), or, with the socket, the program writes into the daemon's stream.
 * So each agent thread starts by unsharing its descriptor table
 * (close_range(CLOSE_RANGE_UNSHARE), else unshare(CLONE_FILES)) and closing
 * its copies of the program's descriptors: a copy would keep a pipe's write
 * end open (its reader would never see EOF).  Closing a copy releases none of
 * the program's locks: POSIX record locks belong to the table, flock and OFD
 * locks to the open file.  0, 1 and 2 of the private table are /dev/null, so
 * nothing an agent thread (or a library it calls) writes to "stderr" can land
 * in the daemon's socket; the agent's own messages reach the program's
 * stderr through pidfd_getfd (agent_thread_stderr).  A sanitizer build keeps
 * the program's stderr as 2 instead, for the sanitizer's reports.
 *
 * The name is set with the prctl system call itself: pthread_setname_np on
 * another thread opens a /proc file (a descriptor, on the creator's table),
 * and the libc prctl is interposed by the threads collector and by
 * sanitizers (ASan's takes its thread registry lock, which a fork child of a
 * threaded process may have inherited locked: the child's reporter hung).
 *
 * agent_thread_start returns once the new thread runs: a program that forks
 * right after the agent started a thread then never forks while that thread
 * is still being set up (a sanitizer's runtime registers it under a lock a
 * fork child would inherit held; GCC 12's libasan does not take it around
 * fork).  A fork child's reporter is not waited for: if the parent forked
 * while one of its own threads held that lock, the child's new thread never
 * runs, and waiting would only delay the program.
 *
 * Descriptor numbers are per table from then on: the wrappers' bookkeeping
 * keyed by descriptor (ipc, net, power) ignores the agent's threads
 * (agent_own_thread), and a descriptor an agent thread made is used on that
 * thread only (the reporter's link: a fork child forgets it, see
 * agent_reporter.c).  A thread an agent thread creates shares its table.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "collector.h"
#include "engine.h"
#include "protocol.h"

#ifndef SYS_close_range
#define SYS_close_range 436     /* the same number on every Linux architecture */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open  434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#define THREAD_START_WAIT_NS 1000000000ull   /* a thread that has not run by then: go on */
#define AGENT_FD_SPAN 32                     /* agent_fd_high: the top numbers it may take */

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1u << 1)
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FDS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FDS_SANITIZED 1
#endif
#endif

__thread int agent_own_thread __attribute__((tls_model("initial-exec")));
static __thread int fds_private __attribute__((tls_model("initial-exec")));

static int fds_close_range(unsigned lo, unsigned hi, unsigned flags)
{
	return (int)syscall(SYS_close_range, lo, hi, flags);
}

/* A descriptor of the program (its table, through the pidfd of the
 * process) in this thread's table, or -1. */
static int fds_program_fd(int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0), r;

	if (pidfd < 0)
		return -1;
	r = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return r;
}

/* After unshare(CLONE_FILES) (kernels before close_range): close every
 * descriptor of the private table but keep, as /proc lists them. */
static void fds_close_listed(int keep)
{
	DIR *d = opendir("/proc/thread-self/fd");
	struct dirent *e;

	if (d == NULL) {
		for (int fd = 0; fd < 4096; fd++)       /* no /proc: the usual range */
			if (fd != keep)
				close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end == '\0' && end != e->d_name && fd != keep && fd != dirfd(d))
			close((int)fd);
	}
	closedir(d);
}

/* Unshare the table and close the copies but keep; 0 or -1 (still shared). */
static int fds_unshare(int keep)
{
	int r;

	if (keep < 0)
		r = fds_close_range(0, ~0u, CLOSE_RANGE_UNSHARE);
	else if (keep == 0)
		r = fds_close_range(1, ~0u, CLOSE_RANGE_UNSHARE);
	else if ((r = fds_close_range(0, (unsigned)keep - 1, CLOSE_RANGE_UNSHARE)) == 0)
		r = fds_close_range((unsigned)keep + 1, ~0u, 0);
	if (r == 0)
		return 0;
	if (unshare(CLONE_FILES) != 0)
		return -1;
	fds_close_listed(keep);
	return 0;
}

/* See collector.h. */
bool agent_thread_begin(const char *name, int keep)
{
	agent_own_thread = 1;
	syscall(SYS_prctl, PR_SET_NAME, name, 0, 0, 0);
	if (fds_unshare(keep) < 0) {
		agent_log("agent thread shares the program's descriptors (unshare: %s)",
		    strerror(errno));
		return false;
	}
	fds_private = 1;
	for (int i = 0; i <= STDERR_FILENO; i++) {
		int fd = -1;

		if (i == keep || fcntl(i, F_GETFD) >= 0)
			continue;
#ifdef FDS_SANITIZED
		if (i == STDERR_FILENO)
			fd = fds_program_fd(STDERR_FILENO);
#endif
		if (fd < 0)
			fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0 && fd != i) {
			dup2(fd, i);
			close(fd);
		}
	}
	return true;
}

/* See collector.h. */
int agent_thread_stderr(void)
{
	return fds_private ? fds_program_fd(STDERR_FILENO) : STDERR_FILENO;
}

/* See collector.h.  A program counts on its low numbers: a closed 0, 1 or
 * 2 it means to leave closed (a child spawned with stdin closed checks
 * fstat(0) fails), the lowest free number as its next.  The top is the
 * soft limit, or 1024 (select's FD_SETSIZE) when higher: a table that
 * large costs the kernel nothing worth counting. */
int agent_fd_high(int fd)
{
	struct rlimit rl;
	rlim_t top = 1024;
	int hi, fl;

	if (fd < 0 || (fl = fcntl(fd, F_GETFD)) < 0)
		return fd;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < top)
		top = rl.rlim_cur;
	if (top <= AGENT_FD_SPAN + 3 || (hi = fcntl(fd, (fl & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD,
	    (int)(top - AGENT_FD_SPAN))) < 0)
		return fd;
	close(fd);
	return hi;
}

/* A thread being started: the creator waits for begun; whichever of the
 * two lets go of it last frees it (the creator may stop waiting first). */
struct thread_start {
	void *(*fn)(void *);
	void *arg;
	bool  exempt;      /* every signal blocked: the engine's stop passes it by */
	int   begun;       /* futex word */
	int   refs;
};

static void thread_start_put(struct thread_start *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(s);
}

static void *thread_trampoline(void *p)
{
	struct thread_start *s = p;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg, *ret;
	int tid = (int)syscall(SYS_gettid);

	/* Before the creator goes on: a thread that can take no signal would
	 * make a stop of the world right after (a dlopen first thing in main
	 * patches the module it loads) wait for it in vain and patch nothing. */
	if (s->exempt)
		hook_stop_exempt();
	agent_tid_note(tid, true);      /* not the program's (agent_last.c) */
	__atomic_store_n(&s->begun, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s->begun, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	thread_start_put(s);
	ret = fn(arg);
	agent_tid_note(tid, false);
	return ret;
}

/* See collector.h. */
int agent_thread_start(pthread_t *t, size_t stack, int unblocked, bool wait,
    void *(*fn)(void *), void *arg)
{
	struct thread_start *s = xmalloc(sizeof *s);
	sigset_t all, old;
	pthread_attr_t attr;
	uint64_t end;
	int err;

	*s = (struct thread_start){ .fn = fn, .arg = arg, .exempt = unblocked <= 0, .refs = 2 };
	sigfillset(&all);
	if (unblocked > 0)
		sigdelset(&all, unblocked);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(t, &attr, thread_trampoline, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err != 0) {
		free(s);
		errno = err;
		return -1;
	}
	end = proto_now_ns() + THREAD_START_WAIT_NS;
	while (wait && !__atomic_load_n(&s->begun, __ATOMIC_ACQUIRE)) {
		uint64_t t_ns = proto_now_ns();
		struct timespec left;

		if (t_ns >= end) {
			agent_log("agent thread has not started after %llu ms; going on",
			    (unsigned long long)(THREAD_START_WAIT_NS / 1000000));
			break;
		}
		left.tv_sec = (time_t)((end - t_ns) / 1000000000ull);
		left.tv_nsec = (long)((end - t_ns) % 1000000000ull);
		syscall(SYS_futex, &s->begun, FUTEX_WAIT_PRIVATE, 0, &left, NULL, 0);
	}
	thread_start_put(s);
	return 0;
}
