/*
 * agent.h - the agent core (internal): configuration, the link to the daemon
 * and the reporter thread.  Collectors see only collector.h.
 */
#ifndef HOOKSCOPE_AGENT_H
#define HOOKSCOPE_AGENT_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>

#include "protocol.h"

#define AGENT_LEVEL_DEFAULT     2
#define AGENT_INTERVAL_MS       100     /* harvest period (HOOKSCOPE_INTERVAL_MS) */
#define AGENT_RETRY_MS          1000    /* reconnect period while no daemon */
#define AGENT_SNDTIMEO_MS       200     /* one send() may block this long */
#define AGENT_SEND_BUDGET_MS    1000    /* one cycle's records, at most */
#define AGENT_EXIT_BUDGET_MS    1500    /* final report at exit, at most */
#define AGENT_SOCKET_MAX        108     /* sizeof sockaddr_un.sun_path */
#define AGENT_GRACE_MS          60000   /* attached: self-detach after the daemon is gone this long */

/* Read from the environment once, at start (agent.c). */
struct agent_config {
	char     socket_path[AGENT_SOCKET_MAX]; /* "" = never connect */
	int      level;                         /* HOOKSCOPE_LEVEL */
	unsigned interval_ms;                   /* HOOKSCOPE_INTERVAL_MS */
	bool     debug;                         /* HOOKSCOPE_DEBUG: log to stderr */
};
extern struct agent_config agent_cfg;

/* ---- agent.c ---- */
int  agent_level(void);
void agent_set_level(int level);
/* Apply a daemon -> agent record (level, reset, threshold). */
void agent_apply(const struct proto_agent_rec *r);
/* Diagnostics on stderr, only with HOOKSCOPE_DEBUG set. */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A problem the user must know about (bad configuration), always shown. */
void agent_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- agent_info.c ---- */
void agent_info_init(void);             /* exe, build-id, cmdline */
void agent_info_hello(msgpack_sbuffer *sb); /* append the hello record */
/* Read /proc/self/task/TID/NAME (a small text file) into buf, terminated;
 * its length, or -1. */
ssize_t agent_task_read(int32_t tid, const char *name, char *buf, size_t len);
/* The state of thread tid's system call (/proc/self/task/TID/syscall, which
 * the kernel fills only while the thread is off its CPU): AGENT_TASK_WAITING
 * with its stack pointer and resume pc when it sleeps in one,
 * AGENT_TASK_RUNNING when it is on a CPU, -1 otherwise (not in a system
 * call, or gone).  Allocates nothing. */
enum { AGENT_TASK_WAITING, AGENT_TASK_RUNNING };
int agent_task_syscall(int32_t tid, uintptr_t *sp, uintptr_t *pc);
/* 0 with where tid sleeps in a system call, else -1.  A thread on its way
 * into a sleep reads as running, and a signal then would end the sleep at
 * once with EINTR: one that runs is looked at again, AGENT_TASK_LOOKS
 * times AGENT_TASK_NAP_NS apart, before the caller signals it. */
#define AGENT_TASK_LOOKS   10
#define AGENT_TASK_NAP_NS  20000
int agent_task_waiting(int32_t tid, uintptr_t *sp, uintptr_t *pc);
/* Does thread tid block signal sig now (its SigBlk)?  false when that
 * cannot be read (the thread is gone).  Allocates nothing. */
bool agent_task_blocks(int32_t tid, int sig);
/* The agent's own code: the executable segment of libhookscope.so, [*lo, *hi). */
void agent_text(uintptr_t *lo, uintptr_t *hi);

/* ---- agent_scratch.c: large blocks the agent frees again ---- */
/* A zeroed block of n bytes mapped by the agent, not malloc's: freeing a
 * chunk malloc mapped raises glibc's mmap threshold for the whole program
 * (agent_scratch.c).  For tables that may reach 128 KB; aborts when out of
 * memory, like xmalloc. */
void *agent_scratch_new(size_t n);
/* Block p of old bytes (NULL: none) grown or shrunk to n, moved if need be. */
void *agent_scratch_grow(void *p, size_t old, size_t n);
void agent_scratch_free(void *p, size_t n);

/* ---- agent_stack.c: the calling thread's stack ---- */
/* Look libgcc_s's unwinder up (loading it) and walk once; 0, or -1 (then
 * every walk is empty).  Before a signal handler may walk. */
int  agent_stack_init(void);
/* glibc's backtrace(), done the same way wherever the agent is and
 * whatever the program links: return addresses into bt, innermost first
 * from the caller's frame; the count. */
int  agent_backtrace(void **bt, int max);

/* ---- agent_link.c: one connection to the daemon ---- */
struct agent_link {
	int      fd;                    /* -1 when not connected */
	char    *rbuf;                  /* daemon -> agent bytes not yet decoded */
	size_t   rlen, rcap;
};
void agent_link_init(struct agent_link *l);
int  agent_link_connect(struct agent_link *l, const char *path);
void agent_link_close(struct agent_link *l);
/* Forget a connection made on another descriptor table (a fork child of a
 * private one): nothing to close here. */
void agent_link_forget(struct agent_link *l);
/* Send all of buf (MSG_NOSIGNAL), giving up at deadline_ns; 0 or -1. */
int  agent_link_send(struct agent_link *l, const void *buf, size_t len,
    uint64_t deadline_ns);
/* Read what the daemon sent without blocking and apply each whole record;
 * -1 when the connection is closed or broken. */
int  agent_link_receive(struct agent_link *l);

/* ---- agent_attach.c: injected into a running process (attach mode) ---- */
/* Read and delete the attach file of this pid; true if there was one (then
 * getenv() of agent code answers HOOKSCOPE_* names from it only). */
bool agent_attach_load(void);
bool agent_attached(void);
void agent_attach_defer_level(int level);  /* applied by the reporter thread */
int  agent_attach_take_level(void);        /* -1 when none is pending */
unsigned agent_attach_grace_ms(void);      /* 0 = never detach by itself */
void *agent_attach_handle(void);           /* our dlopen handle, NULL if none */

/* ---- agent_detach.c: unloading an attached agent (reporter thread) ---- */
/* Level 0 and every hook removed; 0, or -1 with err (the agent stays). */
int  agent_detach_begin(char *err, size_t errlen);
/* After the final report: keys, signals, blocks; start the thread that
 * dlcloses the agent.  -1 if it cannot start (the agent stays mapped). */
int  agent_detach_finish(void);
bool agent_detach_unloading(void);

/* ---- agent_last.c: the program's last thread ---- */
/* An agent thread began (alive) or ends (agent_thread_start's trampoline). */
void agent_tid_note(int tid, bool alive);
/* In a fork child, before its agent threads start. */
void agent_tids_forget(void);
/* Is tid one of the agent's own threads (started by agent_thread_start)? */
bool agent_tid_ours(int tid);
/* Every thread of the program has exited (only the agent's are left): the
 * exit(0) glibc's last thread would have made is the agent's to make. */
bool agent_program_gone(void);

/* ---- agent_reporter.c: the "hookscope" thread ---- */
int  agent_reporter_init(void);
/* in_child: a fork child's new reporter (its first report waits an
 * interval; the start is not waited for, see agent_thread_start). */
int  agent_reporter_start(bool in_child);
void agent_reporter_stop(unsigned budget_ms);
void agent_reporter_flush(unsigned timeout_ms);
void agent_reporter_atfork_prepare(void);
void agent_reporter_atfork_parent(void);
void agent_reporter_atfork_child(void);
/* Ask the reporter to detach the agent (async-signal-safe: a flag and an
 * eventfd write). */
void agent_reporter_detach(void);

/* The real function behind one of the agent's wrappers: the next
 * definition of name after the agent's (dlsym(RTLD_NEXT)), or with
 * anywhere any definition (RTLD_DEFAULT) when there is no next one; looked
 * up once into *slot, NULL if none.  Threads racing on the first call
 * store the same value.  The store is a release and the load an acquire so
 * that a thread calling through a pointer another thread found also sees
 * what that thread's dlsym did (a library loaded or bound for it); on
 * x86-64 both are plain moves.  Not instrumented by ThreadSanitizer: its
 * runtime calls the agent's sigaction (block_signal.c) while it
 * initializes, before instrumented code may run; the slot is touched here
 * only, so it hides no race.
 *
 * Code uses AGENT_REAL, which also lists the slot for agent_reals_resolve:
 * a dlsym on a target's thread inside one of its calls would end the
 * thread's pending dlerror state (glibc frees it at the next dl function),
 * and a target that reads dlerror() after a failed dlopen would get NULL,
 * or, when the call was inside dlerror itself (a sampled allocation of its
 * message whose stack walk makes a first call of a wrapper), freed memory.
 * So every listed slot is looked up at the agent's start and after each
 * dlopen that loaded something, and a wrapper's own lookup is only the
 * fallback. */
__attribute__((no_sanitize("thread")))
static inline void *agent_real(void **slot, const char *name, bool anywhere)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (p == NULL) {
		p = dlsym(RTLD_NEXT, name);
		if (p == NULL && anywhere)
			p = dlsym(RTLD_DEFAULT, name);
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

/* One listed lookup: n consecutive slots, named by name (n = 1) or by
 * names[0..n). */
struct agent_real_ref {
	void              **slot;
	const char         *name;
	const char *const  *names;
	unsigned            n;
};
#define AGENT_REAL_SECTION \
	__attribute__((section("hookscope_reals"), used, aligned(sizeof(void *))))
/* agent_real on slot (an object with static storage: its address is a
 * constant) with the slot listed. */
#define AGENT_REAL(slot_, name_, any_) __extension__ ({                        \
	static const struct agent_real_ref agent_ref_ AGENT_REAL_SECTION =     \
	    { .slot = (void **)&(slot_), .name = (name_), .n = 1 };               \
	(void)agent_ref_;                                                      \
	agent_real((void **)&(slot_), (name_), (any_)); })
/* List n slots at file scope, slot[i] named names[i]. */
#define AGENT_REALS(id, slots_, names_, n_)                                    \
	static const struct agent_real_ref agent_refs_##id AGENT_REAL_SECTION = \
	    { .slot = (slots_), .names = (names_), .n = (n_) }
/* Look up every listed slot still empty (agent_real.c): at the start, and
 * by the dlopen wrapper after a load (no error is pending then).  Leaves
 * no dlerror state behind. */
void agent_reals_resolve(void);

#endif
