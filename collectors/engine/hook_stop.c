/*
 * hook_stop.c - stop every other thread of this process, in-process.
 *
 * Each thread listed in /proc/self/task (but the caller and the agent's
 * reporter thread, which blocks every signal and runs only agent code, so a
 * dlopen on another thread can patch) gets a real-time
 * signal; its handler notes the thread id and the interrupted PC (from the
 * ucontext) in a slot, then parks on a futex until the stopper releases it.
 * The list is read again after every round, so a thread created meanwhile
 * is stopped too; the stop is complete when a round finds no new thread.
 * A thread that does not answer within HOOK_STOP_WAIT_MS (it blocks the
 * signal, or is stuck in an uninterruptible sleep) fails the stop: every
 * parked thread is released and nothing is patched.
 *
 * Under a user-mode emulator (qemu-user, where arm64 builds are tested) the
 * list also holds the emulator's own threads, which block every signal and
 * never run the program's code: a thread whose executable is not the
 * process's (/proc/self/task/TID/exe, which the emulator does not remap)
 * and which blocks the signal is skipped.  Natively every thread's
 * executable is the process's, so none is.
 *
 * The handler also notes an address in its own frame: the kernel saved the
 * thread's registers in the signal frame above it, so that address up to
 * the end of the thread's stack covers its registers and its live stack
 * (the memory collector's leak scan reads them there).
 *
 * A stop may leave running the threads blocked in a system call whose
 * resume address a filter accepts (/proc/self/task/TID/syscall: the kernel
 * reads it only while the thread sleeps) and which take SIGTRAP: a signal
 * ends a pause, sigsuspend, nanosleep, poll, select or epoll_wait early
 * with EINTR (signal(7): never restarted after a handler), so a stop for
 * each sampling window of the overhead budget woke every sleeping thread.
 * Such a thread may wake while the world is stopped: a writer that leaves
 * threads running writes so that a thread running into its work traps
 * (hook_live.c's protocol), then stops again (hook_stop_again) whichever
 * left thread is no longer blocked there, and any new thread.
 *
 * The handler stays installed for good once installed: a signal that arrives
 * late (after a failed stop) finds no stop in progress and returns.  While
 * stopped, a thread runs only agent code, so the patcher may rewrite any
 * function whose bytes no stopped PC lies in.
 *
 * Nothing here allocates once a thread may be parked: a parked thread may
 * hold the allocator's lock (its arena's, which the stopper may share), so
 * the task list is read with getdents64 into a buffer on the stack and the
 * tables are static (one stop at a time: the engine's lock).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent.h"
#include "backend.h"
#include "hook.h"
#include "protocol.h"

#define HOOK_STOP_SIG      (SIGRTMAX - 3)
#define HOOK_STOP_MAX      4096          /* threads */
#define HOOK_STOP_WAIT_MS  1000

/* One stopped thread, written by its handler. */
struct hook_stop_slot {
	int       tid;                /* 0 until the slot is complete (release) */
	uintptr_t pc;
	uintptr_t sp;                 /* in the handler's frame: the saved registers lie above */
	uintptr_t vec_lo, vec_hi;     /* the frame's vector state (uc_vec) */
	uintptr_t to;                 /* resume there instead (0: where it was) */
};

static struct hook_stop_slot hook_stop_slots[HOOK_STOP_MAX];
static int hook_stop_sent[HOOK_STOP_MAX];           /* tids signalled */
static int hook_stop_nsent;
static uintptr_t hook_stop_pcs[HOOK_STOP_MAX];              /* st->pcs */
static struct hook_stopped_thread hook_stop_ts[HOOK_STOP_MAX]; /* st->ts */
static uint32_t hook_stop_arrived;        /* slots claimed */
static uint32_t hook_stop_left;           /* handlers that returned */
static uint32_t hook_stop_active;         /* futex word: 1 while stopped */
static int hook_stop_installed;
static const struct hook_stop_leave *hook_stop_leave_now;  /* this stop's filter, or NULL */
static int hook_stop_nleft;               /* threads left running by the last round */
static struct sigaction hook_stop_old;    /* put back by hook_stop_uninstall */

/* The futex system call (glibc has no wrapper). */
static long hook_futex(uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

/* Signal handler: record where the thread was, park until released. */
static void hook_stop_handler(int sig, siginfo_t *si, void *ctx)
{
	int saved = errno;
	ucontext_t *uc = ctx;
	uint32_t i;

	(void)sig;
	(void)si;
	if (!__atomic_load_n(&hook_stop_active, __ATOMIC_ACQUIRE))
		goto out;
	i = __atomic_fetch_add(&hook_stop_arrived, 1, __ATOMIC_ACQ_REL);
	if (i < HOOK_STOP_MAX) {
		hook_stop_slots[i].pc = hook_backend.uc_pc(uc);
		hook_stop_slots[i].sp = (uintptr_t)&saved & ~(uintptr_t)7;
		hook_backend.uc_vec(uc, &hook_stop_slots[i].vec_lo, &hook_stop_slots[i].vec_hi);
		__atomic_store_n(&hook_stop_slots[i].tid, (int)syscall(SYS_gettid),
		    __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&hook_stop_active, __ATOMIC_ACQUIRE))
		hook_futex(&hook_stop_active, FUTEX_WAIT_PRIVATE, 1);
	/* the release store of hook_stop_active (resume) orders the move */
	if (i < HOOK_STOP_MAX && hook_stop_slots[i].to != 0)
		hook_backend.uc_set_pc(uc, hook_stop_slots[i].to);
	__atomic_fetch_add(&hook_stop_left, 1, __ATOMIC_RELEASE);
out:
	errno = saved;
}

/* Has tid parked in this stop? */
static bool hook_stop_seen(int tid)
{
	uint32_t n = __atomic_load_n(&hook_stop_arrived, __ATOMIC_ACQUIRE);

	if (n > HOOK_STOP_MAX)
		n = HOOK_STOP_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (__atomic_load_n(&hook_stop_slots[i].tid, __ATOMIC_ACQUIRE) == tid)
			return true;
	return false;
}

static int hook_stop_exempt_tid;        /* the agent's reporter thread */

/* See engine.h. */
void hook_stop_exempt(void)
{
	__atomic_store_n(&hook_stop_exempt_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
}

/* Is tid an emulator's own thread (see the top)? */
static bool hook_stop_emulator(int tid)
{
	char path[64], self[256], exe[256];
	ssize_t a, b;

	snprintf(path, sizeof path, "/proc/self/task/%d/exe", tid);
	a = readlink("/proc/self/exe", self, sizeof self);
	b = readlink(path, exe, sizeof exe);
	if (a <= 0 || b <= 0 || (a == b && memcmp(self, exe, (size_t)a) == 0))
		return false;
	return agent_task_blocks(tid, HOOK_STOP_SIG);
}

/* What a round does with thread tid. */
enum hook_stop_do { HOOK_STOP_SIGNAL, HOOK_STOP_LEAVE, HOOK_STOP_LOOK_AGAIN };

/* Leave tid running when it sleeps in a system call (not in a fault: "-1
 * sp pc") at a resume address the filter accepts and does not block SIGTRAP
 * (a trap on a thread that blocks it kills the process: the kernel forces
 * the default action); look again when it runs; else signal it. */
static enum hook_stop_do hook_stop_look(int tid)
{
	const struct hook_stop_leave *lv = hook_stop_leave_now;
	uintptr_t sp, pc;
	int r;

	if (lv == NULL)
		return HOOK_STOP_SIGNAL;
	r = agent_task_syscall(tid, &sp, &pc);
	if (r == AGENT_TASK_RUNNING)
		return HOOK_STOP_LOOK_AGAIN;
	if (r != AGENT_TASK_WAITING || !lv->ok(pc, lv->arg) || agent_task_blocks(tid, SIGTRAP))
		return HOOK_STOP_SIGNAL;
	return HOOK_STOP_LEAVE;
}

/* Signal every thread of /proc/self/task not yet parked or signalled, but
 * those the stop may leave running (hook_stop_nleft counts them).  A thread
 * that runs is looked at again (agent.h, AGENT_TASK_LOOKS: one on its way
 * into a sleep would have it ended with EINTR), all such threads together.
 * Returns how many were newly signalled, or -1. */
static int hook_stop_round(int *sent, int *nsent, int me, char *err, size_t errlen)
{
	static int cand[HOOK_STOP_MAX];   /* one stop at a time */
	const struct timespec nap = { 0, AGENT_TASK_NAP_NS };
	int d = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), fresh = 0, ncand = 0;
	char buf[4096];
	long n;

	if (d < 0) {
		snprintf(err, errlen, "cannot list /proc/self/task: %s", strerror(errno));
		return -1;
	}
	while ((n = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0) {
		for (long at = 0; at < n;) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			unsigned short reclen;
			int tid, k;

			memcpy(&reclen, buf + at + 16, sizeof reclen);
			tid = atoi(buf + at + 19);
			at += reclen;
			if (tid <= 0 || tid == me ||
			    tid == __atomic_load_n(&hook_stop_exempt_tid, __ATOMIC_ACQUIRE))
				continue;
			for (k = 0; k < *nsent && sent[k] != tid; k++)
				;
			if (k < *nsent || hook_stop_emulator(tid))
				continue;
			if (ncand + *nsent >= HOOK_STOP_MAX) {
				close(d);
				snprintf(err, errlen, "more than %d threads", HOOK_STOP_MAX);
				return -1;
			}
			cand[ncand++] = tid;
		}
	}
	close(d);
	hook_stop_nleft = 0;
	for (int look = 1; ncand > 0; look++) {
		int again = 0;

		for (int i = 0; i < ncand; i++) {
			enum hook_stop_do what = hook_stop_look(cand[i]);

			if (what == HOOK_STOP_LEAVE) {
				hook_stop_nleft++;
			} else if (what == HOOK_STOP_LOOK_AGAIN && look < AGENT_TASK_LOOKS) {
				cand[again++] = cand[i];
			} else if (syscall(SYS_tgkill, getpid(), cand[i], HOOK_STOP_SIG) == 0) {
				sent[(*nsent)++] = cand[i];
				fresh++;
			}       /* else it exited meanwhile */
		}
		if ((ncand = again) > 0)
			nanosleep(&nap, NULL);
	}
	return fresh;
}

/* Wait until every signalled thread parked (or exited). */
static int hook_stop_wait(const int *sent, int nsent, char *err, size_t errlen)
{
	uint64_t end = proto_now_ns() + HOOK_STOP_WAIT_MS * 1000000ull;
	struct timespec nap = { 0, 200000 };

	for (int k = 0; k < nsent;) {
		char path[64];

		if (hook_stop_seen(sent[k])) {
			k++;
			continue;
		}
		snprintf(path, sizeof path, "/proc/self/task/%d", sent[k]);
		if (access(path, F_OK) != 0) {
			k++;            /* gone */
			continue;
		}
		if (proto_now_ns() > end) {
			char comm[32] = "?";
			int fd;
			ssize_t n;

			snprintf(path, sizeof path, "/proc/self/task/%d/comm", sent[k]);
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
				if ((n = read(fd, comm, sizeof comm - 1)) > 0)
					comm[n - (comm[n - 1] == '\n')] = '\0';
				close(fd);
			}
			snprintf(err, errlen, "thread %d (%s) did not stop within %d ms "
			    "(signal %d blocked?)", sent[k], comm, HOOK_STOP_WAIT_MS, HOOK_STOP_SIG);
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	return 0;
}

/* Rounds until one finds no thread to signal, each waiting for the
 * signalled ones to park. */
static int hook_stop_rounds(char *err, size_t errlen)
{
	int me = (int)syscall(SYS_gettid), r;

	do {
		r = hook_stop_round(hook_stop_sent, &hook_stop_nsent, me, err, errlen);
		if (r > 0 && hook_stop_wait(hook_stop_sent, hook_stop_nsent, err, errlen) < 0)
			r = -1;
	} while (r > 0);
	return r;
}

/* The parked threads into st (slots are only appended: a thread keeps its
 * index across hook_stop_again). */
static void hook_stop_fill(struct hook_stopped *st)
{
	st->n = (int)__atomic_load_n(&hook_stop_arrived, __ATOMIC_ACQUIRE);
	if (st->n > HOOK_STOP_MAX)
		st->n = HOOK_STOP_MAX;
	st->left = hook_stop_nleft;
	st->pcs = hook_stop_pcs;
	st->ts = hook_stop_ts;
	for (int i = 0; i < st->n; i++) {
		if (hook_stop_slots[i].to != 0)
			continue;       /* moved: pcs has where it goes */
		st->pcs[i] = hook_stop_slots[i].pc;
		st->ts[i] = (struct hook_stopped_thread){ .sp = hook_stop_slots[i].sp,
			.vec_lo = hook_stop_slots[i].vec_lo, .vec_hi = hook_stop_slots[i].vec_hi };
	}
}

/* See hook.h. */
int hook_stop_world(struct hook_stopped *st, const struct hook_stop_leave *leave, char *err,
    size_t errlen)
{
	uint32_t used;

	memset(st, 0, sizeof *st);
	if (!hook_stop_installed) {
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = hook_stop_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigfillset(&sa.sa_mask);
		if (sigaction(HOOK_STOP_SIG, &sa, &hook_stop_old) != 0) {
			snprintf(err, errlen, "sigaction: %s", strerror(errno));
			return -1;
		}
		hook_stop_installed = 1;
	}
	/* Only the slots the last stop used: the table is 128 KB, and a
	 * stop comes with every sampling window of the budget. */
	used = __atomic_load_n(&hook_stop_arrived, __ATOMIC_ACQUIRE);
	memset(hook_stop_slots, 0, (used < HOOK_STOP_MAX ? used : HOOK_STOP_MAX) * sizeof hook_stop_slots[0]);
	__atomic_store_n(&hook_stop_arrived, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hook_stop_left, 0, __ATOMIC_RELAXED);
	hook_stop_nsent = 0;
	hook_stop_leave_now = leave;
	__atomic_store_n(&hook_stop_active, 1, __ATOMIC_RELEASE);
	if (hook_stop_rounds(err, errlen) < 0) {
		hook_stop_resume(st);
		return -1;
	}
	hook_stop_fill(st);
	return 0;
}

/* See hook.h. */
int hook_stop_again(struct hook_stopped *st, char *err, size_t errlen)
{
	if (hook_stop_rounds(err, errlen) < 0)
		return -1;
	hook_stop_fill(st);
	return 0;
}

/* See hook.h. */
void hook_stop_move(struct hook_stopped *st, int i, uintptr_t pc)
{
	assert(i >= 0 && i < st->n);
	hook_stop_slots[i].to = pc;
	st->pcs[i] = pc;
}

/* See hook.h.  A late signal of a failed stop may still be pending: it
 * meets the previous action, which for a signal nobody else used is
 * "ignore" rather than the default (terminate). */
void hook_stop_uninstall(void)
{
	struct sigaction sa = hook_stop_old;

	if (!hook_stop_installed)
		return;
	if (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL)
		sa.sa_handler = SIG_IGN;
	sigaction(HOOK_STOP_SIG, &sa, NULL);
	hook_stop_installed = 0;
}

/* See hook.h: release the parked threads and wait until they left the
 * handler (bounded), so the next stop starts clean. */
void hook_stop_resume(struct hook_stopped *st)
{
	uint64_t end = proto_now_ns() + HOOK_STOP_WAIT_MS * 1000000ull;
	uint32_t n;

	__atomic_store_n(&hook_stop_active, 0, __ATOMIC_RELEASE);
	hook_futex(&hook_stop_active, FUTEX_WAKE_PRIVATE, INT32_MAX);
	n = __atomic_load_n(&hook_stop_arrived, __ATOMIC_ACQUIRE);
	if (n > HOOK_STOP_MAX)
		n = HOOK_STOP_MAX;
	while (__atomic_load_n(&hook_stop_left, __ATOMIC_ACQUIRE) < n && proto_now_ns() < end)
		sched_yield();
	hook_stop_leave_now = NULL;
	st->pcs = NULL;
	st->ts = NULL;
	st->n = st->left = 0;
}
