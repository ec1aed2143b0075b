/*
 * timing.h - the timing collector as the rest of the agent sees it: the
 * hook engine's site path (its stubs time calls with the same tables and
 * stack as the -finstrument-functions hooks), the agent's re-entrancy
 * guard, calibration, the functions seen (the sites record) and freeing
 * every thread's block (detach).  Internals: collectors/timing/timing_int.h.
 */
#ifndef HOOKSCOPE_TIMING_H
#define HOOKSCOPE_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tm_block;

#define TM_STACK      512                     /* shadow stack frames per thread */

/* The hook engine's site path (hook_hot.c calls these from its stubs): the
 * same table, stack and figures as the hooks above.  enter opens a frame for
 * fn whose return address is at *slot, which the stub then replaces with
 * tramp, and returns true; false when the call is not timed (level 0, stack
 * full, agent thread).  exit is called from tramp with the slot it returned
 * from, closes that frame (and any above it, skipped by a longjmp) and
 * returns the real return address.  Both run under the stubs' register
 * rules (hook.h): general registers only. */
bool tm_site_enter(uintptr_t fn, uintptr_t *slot, uintptr_t tramp);
/* A counted site's call of fn: count it (no frame, no clock). */
void tm_site_count(uintptr_t fn);
/* The counted path done by a site's block itself (timing_count.c): the
 * offset from the thread pointer of the TLS word that holds the calling
 * thread's counts by site index (an array of uint64_t, or NULL: then the
 * block calls the count stub), false where the block cannot reach it.
 * Site index idx of function fn is counted there from now on: note it
 * (any thread, the engine's lock held; once per site; idx < TM_SC_MAX). */
#define TM_SC_MAX     (1u << 19)
bool tm_sc_tpoff(intptr_t *off);
void tm_sc_note(uint32_t idx, uintptr_t fn);
uintptr_t tm_site_exit(uintptr_t *slot);
/* Before an unwinder walks this thread's stack: put the real return address
 * back into every slot that holds its frame's tramp; the indexes of those frames go to
 * done (up to max), for tm_site_rehook after a walk that returns
 * (backtrace).  With detach (an exception: the walk does not come back) the
 * frames are marked TM_DETACHED in their slot pointer: no trampoline return
 * will match them; they are closed when a later call at or above their slot
 * shows they have returned, or when a frame below them returns. */
#define TM_DETACHED ((uintptr_t)1)
size_t tm_site_unhook(bool detach, uint32_t *done, size_t max);
/* The same, detaching, for every live thread's frames: only while every
 * other thread is stopped (the engine's detach).  How many were put back. */
size_t tm_site_unhook_all(void);
void tm_site_rehook(const uint32_t *done, size_t n);
/* An unwinder walking thread tid's stack from outside (the block watchdog,
 * while tid sleeps in a system call): pin tid's block (NULL when it has
 * none; unpin in any case) so it stays mapped, and for each word the walk
 * reads, ask what it was: real returns the call's real return address when
 * val, read at address slot, is the block return point of one of tid's
 * timed calls, else val. */
const struct tm_block *timing_shadow_pin(int32_t tid);
uintptr_t timing_shadow_real(const struct tm_block *b, uintptr_t slot, uintptr_t val);
void timing_shadow_unpin(void);

/* The calling thread's TLS pointer doubles as the agent's re-entrancy guard:
 * while agent code runs on a target thread it holds a sentinel, so the hooks
 * return at once.  enter returns the value leave must restore. */
struct tm_block *timing_guard_enter(void);
void timing_guard_leave(struct tm_block *saved);
/* Is agent code running on this thread (guard held, or an agent thread)? */
bool timing_guarded(void);
/* Mark the calling thread as never timed (the reporter thread). */
void timing_guard_forever(void);
/* Unmap every thread's timing block (detach: no hook runs any more and
 * the key whose destructor would touch them is gone). */
void tm_blocks_free_all(void);

uint64_t timing_overhead_ps(void);
/* Calibrate the hook engine's site path (called once, before any site is
 * enabled): call is a stub that runs a call of fn through the engine's
 * entry stub and return trampoline, plain an empty function called the same
 * way without them.  Sets o_in_site/o_out_site (they default to the
 * -finstrument-functions figures). */
void tm_calibrate_site(void (*call)(void), void (*plain)(void), uintptr_t fn);
/* The same for the counted path: call makes per calls of counted sites,
 * plain as many of their plain copies. */
void tm_calibrate_count(void (*call)(void), void (*plain)(void), unsigned per);

/* The overhead budget (timing_budget.c; reporter thread, cycle lock held):
 * set it (ppm of the target's CPU, 0 = off: every function timed again), and
 * its tick: harvest, account, decide, sampling windows; returns when the
 * next tick is due (agent clock, ns). */
void timing_budget_set(uint32_t ppm);
uint32_t timing_budget_ppm(void);         /* the budget now, 0 = off */
uint64_t timing_budget_tick(uint64_t now_ns);

/* The functions the timing collector has seen (reporter thread). */
size_t tm_report_count(void);             /* functions seen (reporter thread) */
uintptr_t tm_report_fn(size_t k);         /* the k-th one, in the order seen */
/* Is fn timed at the current selection?  (Reporter side.) */
bool tm_select_on(uintptr_t fn);

#endif
