/*
 * loop.c - the demo's event loop (--loop MS): a thread named "demo-loop"
 * waiting in poll() on a timer that fires every MS ms; each firing runs one
 * callback of 300 ms, alternately one that sleeps (loop_sleep_cb) and one
 * that burns the CPU (loop_spin_cb): UI-thread blocks on demand when the
 * daemon watches it (hookscoped run --ui-thread demo-loop, or :ui-thread
 * demo-loop).
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "hookscope.h"
#include "../apptime.h"

#define LOOP_BLOCK_MS 300

volatile uint64_t loop_sink;

/* The sleeping callback. */
__attribute__((noinline)) void loop_sleep_cb(void)
{
	app_sleep_until(app_now_ns() + LOOP_BLOCK_MS * 1000000ull);
}

/* The spinning callback. */
__attribute__((noinline)) void loop_spin_cb(void)
{
	uint64_t end = app_now_ns() + LOOP_BLOCK_MS * 1000000ull;

	while (app_now_ns() < end)
		loop_sink++;
}

/* The loop thread: one callback per timer firing, alternating. */
static HOOKSCOPE_NO_INSTRUMENT void *loop_main(void *arg)
{
	long ms = *(long *)arg;
	struct itimerspec it = { { ms / 1000, (ms % 1000) * 1000000L },
	    { ms / 1000, (ms % 1000) * 1000000L } };
	int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct pollfd p = { .fd = tfd, .events = POLLIN };
	uint64_t ticks, n = 0;

	if (tfd < 0 || timerfd_settime(tfd, 0, &it, NULL) < 0)
		return NULL;
	for (;;) {
		if (poll(&p, 1, -1) <= 0 || read(tfd, &ticks, sizeof ticks) != sizeof ticks)
			continue;
		if (n++ % 2 == 0)
			loop_sleep_cb();
		else
			loop_spin_cb();
	}
	return NULL;
}

/* Start the loop thread (--loop MS); 0 or -1. */
int demo_loop_start(long *ms)
{
	pthread_t t;

	if (pthread_create(&t, NULL, loop_main, ms) != 0)
		return -1;
	pthread_setname_np(t, "demo-loop");
	return 0;
}
