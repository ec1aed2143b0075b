/*
 * startup.h - the startup collector as the rest of the agent sees it: the
 * three points other modules' wrappers see first and tell it (a frame
 * presented, a wait call, a dlopen).  Each costs one relaxed load once the
 * point has been seen (or was never wanted).  Internals:
 * collectors/startup/startup_int.h.
 */
#ifndef HOOKSCOPE_STARTUP_H
#define HOOKSCOPE_STARTUP_H

#include <stdbool.h>
#include <stdint.h>

/* Non-zero while the first frame / the main thread's first wait is still
 * to be seen. */
extern int startup_want_frame, startup_want_wait;

void startup_frame_first(void);
void startup_wait_first(const char *call, const void *ra);

/* A frame was presented (fps). */
static inline void startup_on_frame(void)
{
	if (__builtin_expect(__atomic_load_n(&startup_want_frame, __ATOMIC_RELAXED), 0))
		startup_frame_first();
}

/* A wait call (poll, epoll_wait, select, ...) is about to wait; ra is its
 * caller (block). */
static inline void startup_on_wait(const char *call, const void *ra)
{
	if (__builtin_expect(__atomic_load_n(&startup_want_wait, __ATOMIC_RELAXED), 0))
		startup_wait_first(call, ra);
}

/* The dlopen wrapper (engine): begin returns the start time, end records
 * the call (file as the program gave it, h what dlopen returned). */
uint64_t startup_dlopen_begin(void);
void startup_dlopen_end(uint64_t start_ns, const char *file, int mode, const void *h);

#endif
