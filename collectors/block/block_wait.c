/*
 * block_wait.c - where the UI thread's messages begin and end, without
 * source changes: the agent exports poll, ppoll, __poll_chk, epoll_wait,
 * epoll_pwait, epoll_pwait2, select and pselect, and the loop annotations
 * hookscope_loop_begin/end of hookscope.h.  A wait call returning starts a
 * message; the next wait call ends it; waiting is idle.  GLib waits in
 * poll (through the PLT), libuv in epoll_wait/epoll_pwait.
 *
 * Hot path: a thread-local tid (one gettid per thread) compared with the
 * selected UI tid; only the UI thread goes on: one clock read, two stores
 * (the time, then seq with release).  Calls made by the agent itself are
 * skipped (their return address lies in the agent's text).
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#define HOOKSCOPE_BUILDING_AGENT
#include "agent.h"
#include "bind.h"
#include "hookscope.h"
#include "block_int.h"
#include "startup.h"

#define API __attribute__((visibility("default")))

static struct block_ui_state block_ui;
static int32_t block_ui_tid;              /* relaxed atomic: the selected UI thread */
static uintptr_t block_self_lo, block_self_hi;   /* the agent's text */
static __thread int32_t block_tls_tid __attribute__((tls_model("initial-exec")));

extern const struct bind_table block_bind;

/* Monotonic ns (vDSO: no system call). */
static inline uint64_t block_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Is the caller (return address ra) the target's UI thread? */
static inline bool block_is_ui(const void *ra)
{
	int32_t t = block_tls_tid, ui = __atomic_load_n(&block_ui_tid, __ATOMIC_RELAXED);

	if (ui == 0)
		return false;
	if (t == 0)
		block_tls_tid = t = (int32_t)gettid();
	return t == ui && !((uintptr_t)ra >= block_self_lo && (uintptr_t)ra < block_self_hi);
}

/* The UI thread ends its running message (idle from now). */
static void block_msg_end(uint64_t now)
{
	uint64_t s = block_ui.seq;

	if (!(s & 1))
		return;
	__atomic_store_n(&block_ui.end_ns[(s >> 1) % BLOCK_ENDS], now, __ATOMIC_RELAXED);
	__atomic_store_n(&block_ui.seq, s + 1, __ATOMIC_RELEASE);
}

/* The UI thread starts a message (ending one still running). */
static void block_msg_begin(uint64_t now)
{
	block_msg_end(now);
	__atomic_store_n(&block_ui.start_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&block_ui.seq, block_ui.seq + 1, __ATOMIC_RELEASE);
}

/* See block.h. */
void block_wait_init(void)
{
	agent_text(&block_self_lo, &block_self_hi);
	bind_add(&block_bind);
}

/* See block.h.  The old UI thread may still write for a moment: the
 * watchdog drops a block whose thread changed. */
void block_wait_set_tid(int32_t tid)
{
	__atomic_store_n(&block_ui_tid, tid, __ATOMIC_RELAXED);
}

/* See block.h. */
int32_t block_wait_tid(void)
{
	return __atomic_load_n(&block_ui_tid, __ATOMIC_RELAXED);
}

/* See block.h. */
void block_wait_read(uint64_t *seq, uint64_t *start_ns)
{
	uint64_t s, t;

	/* Acquire loads (plain moves on x86-64) keep the second read of seq
	 * after the data: what a fence would do, but TSan refuses fences. */
	do {
		s = __atomic_load_n(&block_ui.seq, __ATOMIC_ACQUIRE);
		t = __atomic_load_n(&block_ui.start_ns, __ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&block_ui.seq, __ATOMIC_RELAXED) != s);
	*seq = s;
	*start_ns = t;
}

/* See block.h. */
uint64_t block_wait_seq(void)
{
	return __atomic_load_n(&block_ui.seq, __ATOMIC_ACQUIRE);
}

/* See block.h: valid while fewer than BLOCK_ENDS messages followed. */
bool block_wait_end(uint64_t seq, uint64_t *end_ns)
{
	uint64_t now = __atomic_load_n(&block_ui.seq, __ATOMIC_ACQUIRE), e;

	if (now <= seq)
		return false;
	e = __atomic_load_n(&block_ui.end_ns[(seq >> 1) % BLOCK_ENDS], __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&block_ui.seq, __ATOMIC_RELAXED) - seq >= 2 * BLOCK_ENDS - 2)
		return false;
	*end_ns = e;
	return true;
}

/* See block.h: the forking thread keeps its TLS; its tid changed. */
void block_wait_atfork_child(void)
{
	block_tls_tid = 0;
	block_ui.seq = 0;
}

/* The body of every wrapper: end the message, wait, start the next one.
 * errno is the wait call's (clock_gettime through the vDSO keeps it).
 * Other threads' waits are tail calls; the UI thread's is a blocking call
 * a detach can let out of the wrapper (bind.h). */
#define BLOCK_WRAP(type, name, params, args)                                   \
	static void *block_real_##name;                                        \
	API type name params                                                   \
	{                                                                      \
		type (*fn) params = (type (*) params)AGENT_REAL(block_real_##name, #name, false); \
		type ret_;                                                     \
		if (fn == NULL) {                                              \
			errno = ENOSYS;                                        \
			return -1;                                             \
		}                                                              \
		startup_on_wait(#name, __builtin_return_address(0));          \
		if (!block_is_ui(__builtin_return_address(0)))                 \
			return fn args;                                        \
		block_msg_end(block_now());                                    \
		BIND_BLOCKING(ret_, fn args);                                  \
		block_msg_begin(block_now());                                  \
		return ret_;                                                   \
	}

BLOCK_WRAP(int, poll, (struct pollfd *fds, nfds_t n, int timeout), (fds, n, timeout))
BLOCK_WRAP(int, __poll_chk, (struct pollfd *fds, nfds_t n, int timeout, size_t len),
    (fds, n, timeout, len))
BLOCK_WRAP(int, ppoll, (struct pollfd *fds, nfds_t n, const struct timespec *t,
    const sigset_t *mask), (fds, n, t, mask))
BLOCK_WRAP(int, epoll_wait, (int ep, struct epoll_event *ev, int max, int timeout),
    (ep, ev, max, timeout))
BLOCK_WRAP(int, epoll_pwait, (int ep, struct epoll_event *ev, int max, int timeout,
    const sigset_t *mask), (ep, ev, max, timeout, mask))
BLOCK_WRAP(int, epoll_pwait2, (int ep, struct epoll_event *ev, int max,
    const struct timespec *t, const sigset_t *mask), (ep, ev, max, t, mask))
BLOCK_WRAP(int, select, (int n, fd_set *rd, fd_set *w, fd_set *e, struct timeval *t),
    (n, rd, w, e, t))
BLOCK_WRAP(int, pselect, (int n, fd_set *rd, fd_set *w, fd_set *e, const struct timespec *t,
    const sigset_t *mask), (n, rd, w, e, t, mask))

/* See hookscope.h. */
API void hookscope_loop_begin(void)
{
	if (block_is_ui(NULL))
		block_msg_begin(block_now());
}

/* See hookscope.h. */
API void hookscope_loop_end(void)
{
	if (block_is_ui(NULL))
		block_msg_end(block_now());
}

/* The wait calls, for the binder (bind.h): the program's own modules and
 * the event loops' libraries, which make the calls. */
#define BLOCK_WAITS(X) X(poll) X(__poll_chk) X(ppoll) X(epoll_wait) X(epoll_pwait) \
	X(epoll_pwait2) X(select) X(pselect)
BLOCK_WAITS(BIND_LOCAL)
#define BLOCK_BIND(name) { #name, BIND_WRAPPER(name), &block_real_##name, 0 },
static const struct bind_fn block_bind_fns[] = { BLOCK_WAITS(BLOCK_BIND) };
const struct bind_table block_bind = {
	.who = "block", .libs = "libglib-2.0.so*:libuv.so*:libQt5Core.so*:libQt6Core.so*",
	.fns = block_bind_fns, .n = sizeof block_bind_fns / sizeof block_bind_fns[0],
};
