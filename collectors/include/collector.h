/*
 * collector.h - the interface every collector of the agent implements.
 *
 * A collector (timing, fps, block, threads, ipc, power) is one folder
 * exporting one const struct collector_ops NAME_collector, plus one line in
 * registry.c's COLLECTORS list.  The
 * agent core calls the ops; all of them except init and atfork_child run on
 * the reporter thread with the agent's cycle lock held, so a collector's
 * reporter-side state needs no locking of its own.  Hot-path code (hooks,
 * wrappers) is the collector's business and must follow the rules in
 * doc/architecture.md: thread-local memory only, no locks, no syscalls.
 *
 * Descriptors: an agent thread (the reporter, a collector's own thread)
 * calls agent_thread_begin first and then opens and closes what it likes in a
 * descriptor table of its own, never taking a number the program is about
 * to reuse (agent_thread.c); a descriptor it made is valid on that thread
 * only.  Wrappers keep no bookkeeping keyed by descriptor for calls made
 * on agent threads (agent_own_thread).
 */
#ifndef HOOKSCOPE_COLLECTOR_H
#define HOOKSCOPE_COLLECTOR_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <msgpack.h>

#include "protocol.h"

/* agent_thread.c: set on the agent's own threads. */
extern __thread int agent_own_thread __attribute__((tls_model("initial-exec")));
/* First thing on an agent thread: mark it, name it, and give it a descriptor
 * table of its own holding only keep (-1: none) and /dev/null as 0-2.  True
 * if the table is private; false if the kernel refused (the program's is
 * shared). */
bool agent_thread_begin(const char *name, int keep);
/* Start an agent thread running fn(arg) with every signal blocked but
 * unblocked (0: none, and the hook engine's stop of the world passes the
 * thread by: hook_stop_exempt) and a stack of stack bytes; if wait, return
 * once it runs (bounded).  0, or -1 with errno set. */
int agent_thread_start(pthread_t *t, size_t stack, int unblocked, bool wait,
    void *(*fn)(void *), void *arg);
/* The program's stderr as a descriptor usable on this thread (close it
 * after use unless it is STDERR_FILENO), or -1. */
int agent_thread_stderr(void);
/* A descriptor the agent keeps in the program's table, moved to the top of
 * the numbers the program uses (its close-on-exec flag kept): the number fd
 * had is free again.  fd itself if it cannot move. */
int agent_fd_high(int fd);
/* The CPU clock of thread tid of this process (glibc's
 * MAKE_THREAD_CPUCLOCK, CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD: the clockid
 * pthread_getcpuclockid gives, from a tid in the caller's thread group). */
static inline clockid_t agent_tid_clock(int32_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6);
}

struct collector_ops {
	const char *name;
	/* At agent start, before any other op.  0, or -1: the collector stays
	 * disabled and no other op of it is called. */
	int  (*init)(void);
	/* The monitoring level changed (0-4); also called once after init. */
	void (*set_level)(int level);
	/* A named threshold from the daemon (value in ns for times).  0 if
	 * applied, 1 if the name is not this collector's, -1 if the value is
	 * out of range. */
	int  (*set_threshold)(const char *name, int64_t value);
	/* A one-off job the daemon asks for by name ("leaks"): 0 if done (its
	 * result goes with the next encode), 1 if the name is not this
	 * collector's. */
	int  (*request)(const char *name);
	/* Zero all figures (the daemon's reset). */
	void (*reset)(void);
	/* Gather the per-thread data into the collector's totals. */
	void (*harvest)(void);
	/* Append whole records (proto_agent_encode) for what changed since the
	 * last encode, or everything when resend_all (a new connection). */
	void (*encode)(msgpack_sbuffer *sb, bool resend_all);
	/* Add the collector's fields to the hello record. */
	void (*hello)(struct proto_ag_hello *h);
	/* In the child after fork(), single-threaded: forget the parent's
	 * figures and other threads' data; the child is a new session. */
	void (*atfork_child)(void);
	/* At exit, after the final report; must leave hot paths safe to run. */
	void (*fini)(void);
};

/* registry.c: the collectors in the order their records are sent. */
int  collector_init_all(void);
void collector_set_level_all(int level);
int  collector_set_threshold(const char *name, int64_t value);
int  collector_request(const char *name);
void collector_reset_all(void);
void collector_harvest_all(void);
void collector_encode_all(msgpack_sbuffer *sb, bool resend_all);
void collector_hello_all(struct proto_ag_hello *h);
void collector_atfork_child_all(void);
void collector_fini_all(void);

#endif
