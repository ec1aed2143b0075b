/*
 * memory_stack.c - the allocating stack, taken on the allocating thread
 * as cheaply as it can be: a walk of the frame-pointer chain from the
 * wrapper's own frame (this module is built with frame pointers), each
 * frame checked to lie above the last and inside the thread's stack (a
 * module built without frame pointers leaves a register value there; it
 * ends the walk, it never faults).  The stack's top is glibc's thread
 * descriptor (pthread_self(), which sits at the top of every thread's
 * stack) or, for the main thread, __libc_stack_end.  A walk that ends at
 * the first frame (the caller keeps no frame pointer) falls back to
 * libunwind's unw_backtrace when mem_unwind_fallback is set (a frame
 * pointer that is a stale register can pass the checks once: two frames
 * are not trusted either).  Names are
 * resolved later, on the reporter thread.
 *
 * libunwind here and nowhere else in the agent (agent_stack.c says why):
 * its walk caches what it parsed, and an allocation-heavy program pays for
 * every stack (Debian's sqlite3 with every allocation tracked: 4.3 s of CPU
 * against 30.4 s with libgcc_s's walk, 1.6 s alone).  Only on a program
 * thread: libunwind's first walk opens the pipe it checks addresses
 * through, so no agent thread ever walks with it and the pipe's numbers
 * are the program's table's; an agent thread (a table of its own) walks
 * with agent_backtrace.
 */
#include <pthread.h>
#include <stdint.h>

#include <libunwind.h>

#include "agent.h"
#include "collector.h"
#include "memory_int.h"

#define STACK_SPAN (1ull << 30)           /* a thread's stack is below 1 GiB */

extern void *__libc_stack_end;

bool mem_unwind_fallback = true;

/* The top of the stack holding sp, 0 if unknown. */
static uintptr_t mem_stack_top(uintptr_t sp)
{
	uintptr_t self = (uintptr_t)pthread_self(), main_top = (uintptr_t)__libc_stack_end;

	if (self > sp && self - sp < STACK_SPAN)
		return self;
	if (main_top > sp && main_top - sp < STACK_SPAN)
		return main_top;
	return 0;
}

/* See memory_int.h. */
uint32_t mem_stack_capture(void *frame, uintptr_t *pc, uint32_t max)
{
	const uintptr_t *fp = frame;
	uintptr_t lo = (uintptr_t)frame, hi = mem_stack_top(lo);
	uint32_t n = 0;

	while (n < max && hi != 0) {
		const uintptr_t *next;

		/* [fp, fp + 2 words) inside [lo, hi), written so that no sum wraps */
		if ((uintptr_t)fp < lo || (uintptr_t)fp >= hi || hi - (uintptr_t)fp < 2 * sizeof *fp ||
		    ((uintptr_t)fp & 7))
			break;
		if (fp[1] < 4096)
			break;
		pc[n++] = fp[1];
		next = (const uintptr_t *)fp[0];
		if (next <= fp)
			break;
		lo = (uintptr_t)fp;
		fp = next;
	}
	if (n <= 2 && mem_unwind_fallback) {
		void *buf[MEM_FRAMES + 4];
		int k = agent_own_thread ? agent_backtrace(buf, MEM_FRAMES + 4) :
		    unw_backtrace(buf, MEM_FRAMES + 4), from = -1;

		/* The walk starts in this function: keep what follows the
		 * wrapper's return address (the frame walk's first pc). */
		for (int i = 0; i < k && i < 8 && n >= 1 && from < 0; i++)
			if ((uintptr_t)buf[i] == pc[0])
				from = i;
		if (from >= 0) {
			n = 0;
			for (int i = from; i < k && n < max; i++)
				pc[n++] = (uintptr_t)buf[i];
		}
	}
	return n;
}
