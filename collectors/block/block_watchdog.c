/*
 * block_watchdog.c - the agent's "hookscope-block" thread.  It watches the
 * UI state of block_wait.c: a message running past the threshold becomes a
 * block (BEGIN, with the message's own start time), its stack is sampled
 * at once and then every sample interval until the message ends (END, with
 * the message's own end time).  Events go to the reporter through a
 * bounded queue under a mutex (both are agent threads; the UI thread never
 * touches it); samples are dropped, and counted, when it is full.
 *
 * A sample of a thread waiting in a system call is a walk from outside
 * (block_unwind.c), otherwise a signal (block_signal.c).  A sample taken
 * after the message ended (its seq moved) is not counted.  A signal that
 * lands in the agent's own code (a hook's stub and its C half, a few ns of
 * every timed call) is taken again, a few times: the stubs have no unwind
 * tables, so the walk from there stops at the stub, and the program's
 * frames are what a block is about.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "block_int.h"
#include "collector.h"
#include "timing.h"

#define BLOCK_IDLE_NAP_NS  50000000ull   /* idle poll, at most */
#define BLOCK_ANSWER_MS    100           /* a signal's answer, at most */
#define BLOCK_STOP_SIG     (SIGRTMAX - 3) /* hook_stop.c: must stay deliverable */
#define BLOCK_AGENT_TRIES  8             /* signals while the pc is the agent's */

static uintptr_t wd_self_lo, wd_self_hi;  /* the agent's text */

static struct {
	pthread_mutex_t lock;
	struct block_ev q[BLOCK_QUEUE];
	size_t   head, n;
	uint64_t dropped;
	struct block_cfg cfg;
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER,
	 .cfg = { BLOCK_THRESHOLD_NS, BLOCK_SAMPLE_NS } };

static pthread_t wd_thread;
static int wd_running, wd_stop;          /* relaxed atomics */
static int32_t wd_tid;
static uint32_t wd_next_id = 1;

/* The block being watched (watchdog thread only). */
static struct {
	bool     on;
	uint32_t id;
	int32_t  tid;
	uint64_t seq;
	uint32_t lost;
} cur;

/* Monotonic ns. */
static uint64_t wd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep ns (bounded by the caller), or until block_watchdog_stop wakes
 * the thread: the target's exit joins it and must not wait out a nap. */
static void wd_nap(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	syscall(SYS_futex, &wd_stop, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
}

/* Queue one event; a sample only while room is left for the BEGIN/END
 * events that must not be lost. */
static void wd_push(const struct block_ev *e)
{
	pthread_mutex_lock(&wd.lock);
	if (wd.n < BLOCK_QUEUE - (e->type == BLOCK_EV_SAMPLE ? 8 : 0))
		wd.q[(wd.head + wd.n++) % BLOCK_QUEUE] = *e;
	else
		wd.dropped++;
	pthread_mutex_unlock(&wd.lock);
}

/* Take one sample of the block's thread; false if the thread is gone. */
static bool wd_sample(void)
{
	struct block_ev e = { .type = BLOCK_EV_SAMPLE, .id = cur.id, .tid = cur.tid };
	int tries = 0;

	if (block_unwind_sleeping(cur.tid, &e.smp) == 0) {
		e.smp.seq = block_wait_seq();
	} else {
		do {
			if (block_signal_capture(cur.tid, &e.smp, BLOCK_ANSWER_MS) < 0) {
				if (errno == ESRCH)
					return false;
				cur.lost++;
				return true;
			}
		} while (++tries < BLOCK_AGENT_TRIES && e.smp.n > 0 &&
		    e.smp.pc[0] >= wd_self_lo && e.smp.pc[0] < wd_self_hi);
	}
	if (e.smp.seq != cur.seq)
		return true;              /* the message ended meanwhile */
	e.lost = cur.lost;
	cur.lost = 0;
	wd_push(&e);
	return true;
}

/* The block ended at end_ns. */
static void wd_end(uint64_t end_ns)
{
	struct block_ev e = { .type = BLOCK_EV_END, .id = cur.id, .tid = cur.tid,
	    .t_ns = end_ns, .lost = cur.lost };

	wd_push(&e);
	cur.on = false;
}

/* One look at the UI state; returns how long to sleep. */
static uint64_t wd_step(const struct block_cfg *c)
{
	int32_t tid = block_wait_tid();
	uint64_t seq, start, now = wd_now(), end, nap = c->threshold_ns / 2;

	if (nap > BLOCK_IDLE_NAP_NS)
		nap = BLOCK_IDLE_NAP_NS;
	block_wait_read(&seq, &start);
	if (cur.on) {
		if (tid != cur.tid)
			wd_end(now);      /* another UI thread was selected */
		else if (seq != cur.seq)
			wd_end(block_wait_end(cur.seq, &end) ? end : now);
		else if (!wd_sample())
			wd_end(now);      /* the thread is gone */
		return cur.on ? c->sample_ns : 0;
	}
	if (tid == 0 || !(seq & 1))
		return nap;
	if (now < start + c->threshold_ns)
		return start + c->threshold_ns - now < nap ? start + c->threshold_ns - now : nap;
	cur.on = true;
	cur.id = wd_next_id++;
	cur.tid = tid;
	cur.seq = seq;
	cur.lost = 0;
	wd_push(&(struct block_ev){ .type = BLOCK_EV_BEGIN, .id = cur.id, .tid = tid,
	    .t_ns = start });
	if (!wd_sample())
		wd_end(now);
	return cur.on ? c->sample_ns : 0;
}

/* The thread: agent code only, never timed. */
static void *wd_main(void *arg)
{
	(void)arg;
	timing_guard_forever();
	agent_thread_begin("hookscope-block", -1);
	agent_text(&wd_self_lo, &wd_self_hi);
	__atomic_store_n(&wd_tid, (int32_t)gettid(), __ATOMIC_RELAXED);
	while (!__atomic_load_n(&wd_stop, __ATOMIC_RELAXED)) {
		struct block_cfg c;
		uint64_t nap;

		pthread_mutex_lock(&wd.lock);
		c = wd.cfg;
		pthread_mutex_unlock(&wd.lock);
		nap = wd_step(&c);
		if (nap > 0)
			wd_nap(nap);
	}
	if (cur.on)
		wd_end(wd_now());
	return NULL;
}

/* See block.h.  Every signal blocked but the hook engine's stop signal. */
int block_watchdog_start(void)
{
	if (__atomic_load_n(&wd_running, __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&wd_stop, 0, __ATOMIC_RELAXED);
	if (agent_thread_start(&wd_thread, 256 * 1024, BLOCK_STOP_SIG, true, wd_main, NULL) < 0)
		return -1;
	__atomic_store_n(&wd_running, 1, __ATOMIC_RELAXED);
	return 0;
}

/* See block.h. */
void block_watchdog_stop(void)
{
	if (!__atomic_load_n(&wd_running, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&wd_stop, 1, __ATOMIC_RELAXED);
	syscall(SYS_futex, &wd_stop, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	pthread_join(wd_thread, NULL);
	__atomic_store_n(&wd_running, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&wd_tid, 0, __ATOMIC_RELAXED);
}

/* See block.h. */
bool block_watchdog_running(void)
{
	return __atomic_load_n(&wd_running, __ATOMIC_RELAXED);
}

/* See block.h. */
void block_watchdog_config(const struct block_cfg *c)
{
	pthread_mutex_lock(&wd.lock);
	wd.cfg = *c;
	pthread_mutex_unlock(&wd.lock);
}

/* See block.h. */
size_t block_watchdog_drain(struct block_ev *out, size_t max, uint64_t *dropped)
{
	size_t n = 0;

	pthread_mutex_lock(&wd.lock);
	while (n < max && wd.n > 0) {
		out[n++] = wd.q[wd.head];
		wd.head = (wd.head + 1) % BLOCK_QUEUE;
		wd.n--;
	}
	*dropped = wd.dropped;
	pthread_mutex_unlock(&wd.lock);
	return n;
}

/* See block.h. */
void block_watchdog_atfork_child(void)
{
	pthread_mutex_init(&wd.lock, NULL);
	wd.head = wd.n = 0;
	wd.dropped = 0;
	cur.on = false;
	wd_next_id = 1;
	__atomic_store_n(&wd_running, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&wd_tid, 0, __ATOMIC_RELAXED);
}

/* See block.h. */
int32_t block_watchdog_tid(void)
{
	return __atomic_load_n(&wd_tid, __ATOMIC_RELAXED);
}
