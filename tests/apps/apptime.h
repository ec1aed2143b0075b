/*
 * apptime.h - the monotonic clock helpers the target apps share (demo,
 * frames): never timed (HOOKSCOPE_NO_INSTRUMENT), so they add no rows.
 */
#ifndef HOOKSCOPE_APPTIME_H
#define HOOKSCOPE_APPTIME_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "hookscope.h"

/* Monotonic clock in ns (called in busy loops). */
static inline HOOKSCOPE_NO_INSTRUMENT uint64_t app_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep until an absolute monotonic time (idle time is not timed). */
static inline HOOKSCOPE_NO_INSTRUMENT void app_sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u),
	    .tv_nsec = (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

#endif
