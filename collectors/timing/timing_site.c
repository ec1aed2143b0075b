/*
 * timing_site.c - the hook engine's site path: the C half of its stubs
 * (hook_hot.c calls in), run on every timed call of a patched function.
 * The same table, stack and figures as the -finstrument-functions hooks
 * (timing_hot.c, timing_frame.h), with the engine's frames: each holds the
 * slot of the call's return address, the address itself and what the stub
 * put there instead.
 *
 * The common enter and exit (a live block, the top frame the call's, the
 * function and its call path in their home slots) call nothing: every
 * other case is a separate function, reached by a tail call, that decides
 * it all again.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "timing_frame.h"

/* Frames detached by tm_site_unhook (an exception was thrown through them)
 * return without the trampoline; a new call whose slot is at or above
 * theirs proves they have returned: close them now.  Returns the depth. */
static HOT uint32_t tm_site_prune(struct tm_block *b, uintptr_t *slot)
{
	uint64_t now = tm_ticks();

	while (b->depth > 0) {
		uintptr_t s = (uintptr_t)b->stack[b->depth - 1].slot;

		if (!(s & TM_DETACHED) || (s & ~TM_DETACHED) > (uintptr_t)slot)
			break;
		tm_pop_out(b, now);
	}
	return b->depth;
}

/* tm_site_enter's every case: a thread's first call, frames to prune, a
 * full stack, a function not yet in the table or behind a collision. */
static HOT __attribute__((noinline)) bool tm_site_enter_slow(uintptr_t fn, uintptr_t *slot,
    uintptr_t tramp)
{
	struct tm_block *b = tm_enter_block();
	uint32_t d;

	if (b == NULL)
		return false;
	d = b->depth;
	if (UNLIKELY(d > 0 && ((uintptr_t)b->stack[d - 1].slot & TM_DETACHED)))
		d = tm_site_prune(b, slot);
	if (UNLIKELY(d >= TM_STACK)) {
		STORE(&b->dropped, b->dropped + 1);
		return false;
	}
	tm_push(b, d, fn, tm_lookup(b, fn), slot, *slot, tramp);
	SIGNAL_FENCE();
	return true;
}

/* See timing.h.  A call not timed keeps its return address: no frame, no
 * exit.  The frame is complete before the stub replaces the address.  The
 * common case (a live block, a free frame above a frame not detached, fn
 * in its home slot, its path's node in its home slot) only checks before it
 * writes; the rest is tm_site_enter_slow. */
HOT bool tm_site_enter(uintptr_t fn, uintptr_t *slot, uintptr_t tramp)
{
	struct tm_block *b = tm_tls;
	struct tm_entry *e;
	uint32_t d, pn = 0;

	if (UNLIKELY(!LOAD(&tm_params.enabled) || !TM_REAL(b)))
		goto slow;
	d = b->depth;
	if (UNLIKELY(d >= TM_STACK))
		goto slow;
	e = &b->table[tm_hash(fn)];
	if (UNLIKELY(e->fn != fn))
		goto slow;
	if (LIKELY(LOAD(&tm_params.paths))) {
		uint32_t parent = 0;

		/* A parent frame detached, or without a node (opened while
		 * paths were off): the slow way. */
		if (LIKELY(d > 0)) {
			parent = b->pnode[d - 1];
			if (UNLIKELY(((uintptr_t)b->stack[d - 1].slot & TM_DETACHED) || parent == 0))
				goto slow;
		}
		if (UNLIKELY(parent == TM_PATH_DROP)) {
			STORE(&b->paths_dropped, b->paths_dropped + 1);
			pn = TM_PATH_DROP;
		} else {
			uint32_t i = tm_path_hash(fn, parent);
			const struct tm_node *n = &b->nodes[i];

			if (UNLIKELY(n->fn != fn || n->parent != parent))
				goto slow;
			pn = i + 1;
		}
	} else if (d > 0 && UNLIKELY((uintptr_t)b->stack[d - 1].slot & TM_DETACHED)) {
		goto slow;
	}
	tm_push_node(b, d, fn, e, pn, slot, *slot, tramp);
	SIGNAL_FENCE();
	return true;
slow:
	return tm_site_enter_slow(fn, slot, tramp);
}

/* See timing.h.  Like tm_site_enter's fast path: the home slot or the
 * slow lookup; a thread's first call gets its block here too. */
HOT void tm_site_count(uintptr_t fn)
{
	struct tm_block *b = tm_tls;
	struct tm_entry *e;

	if (UNLIKELY(!TM_REAL(b))) {
		if (b != NULL || (b = TM_VEC_CALL(tm_thread_start)) == NULL)
			return;
	}
	e = &b->table[tm_hash(fn)];
	if (UNLIKELY(e->fn != fn) && (e = tm_lookup(b, fn)) == NULL) {
		STORE(&b->dropped, b->dropped + 1);
		return;
	}
	tm_count(b, e);
}

/* A site return with no frame for its slot: the real return address is
 * unknown, so the thread cannot go on.  Never expected (see timing.h). */
static HOT __attribute__((noreturn, cold)) void tm_site_lost(uintptr_t *slot)
{
	static const char msg[] = "hookscope: a hooked call returned with no shadow frame "
	    "(return address lost); aborting\n";

	(void)slot;
	(void)!write(2, msg, sizeof msg - 1);
	abort();
}

/* tm_site_exit when the top frame is not the call's.  The frame is found by
 * its slot from the top: frames above it belong to calls a longjmp skipped
 * (closed now, like tm_unwind); a tail call's frame shares its caller's
 * slot and is the upper one, so it is closed first and its "return
 * address" is the trampoline again. */
static HOT __attribute__((noinline)) uintptr_t tm_site_exit_slow(struct tm_block *b,
    uintptr_t *slot, uint64_t now)
{
	uintptr_t ret;
	uint32_t i;

	if (UNLIKELY(!TM_REAL(b)))
		tm_site_lost(slot);
	for (i = b->depth; i > 0 && b->stack[i - 1].slot != slot; i--)
		;
	if (UNLIKELY(i == 0))
		tm_site_lost(slot);
	ret = b->stack[i - 1].ret;
	while (b->depth > i)
		tm_pop_out(b, now);
	tm_pop_out(b, now);
	return ret;
}

/* See timing.h.  The common case: the top frame is the call's (its address
 * is read before tm_pop releases the frame). */
HOT uintptr_t tm_site_exit(uintptr_t *slot)
{
	struct tm_block *b = tm_tls;
	uint64_t now = tm_ticks();
	uint32_t d;

	if (LIKELY(TM_REAL(b)) && (d = b->depth) > 0 && b->stack[d - 1].slot == slot) {
		uintptr_t ret = b->stack[d - 1].ret;

		tm_pop(b, now);
		return ret;
	}
	return tm_site_exit_slow(b, slot, now);
}
