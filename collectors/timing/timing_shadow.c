/*
 * timing_shadow.c - the shadow stack as code other than the hooks sees it:
 * unwinders (the engine's libgcc_s wrappers put the real return addresses
 * back before a walk; an outside walk asks for them address by address),
 * the engine's detach, calibration's private block, fork.
 *
 * A timed engine call's return address is its site block's return point
 * (tramp); the real one is in the call's shadow frame, found by the slot it
 * was read from.  Nothing here runs on the hooks' hot path.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "timing_int.h"

/* Threads reading another thread's block outside the reporter (an outside
 * unwinder, timing_shadow_pin): while any does, the reporter keeps the
 * blocks it retires mapped (tm_shadow_retire). */
static uint32_t tm_pins;
static struct tm_block *tm_graves;        /* reporter only */

/* See timing.h.  Top down, so of two frames sharing a slot (a tail call)
 * the upper one writes first (its "real" address is the lower one's tramp)
 * and the lower one's real address stays. */
static size_t tm_unhook_block(struct tm_block *b, bool detach, uint32_t *done, size_t max)
{
	size_t n = 0;

	for (uint32_t i = b->depth; i-- > 0;) {
		struct tm_frame *f = &b->stack[i];
		uintptr_t s = (uintptr_t)f->slot;

		if (s == 0 || (s & TM_DETACHED))
			continue;
		if (*f->slot == f->tramp) {
			*f->slot = f->ret;
			if (n < max)
				done[n++] = i;
		}
		if (detach)
			f->slot = (uintptr_t *)(s | TM_DETACHED);
	}
	return n;
}

/* See timing.h. */
size_t tm_site_unhook(bool detach, uint32_t *done, size_t max)
{
	struct tm_block *b = tm_tls;

	return TM_REAL(b) ? tm_unhook_block(b, detach, done, max) : 0;
}

/* See timing.h. */
size_t tm_site_unhook_all(void)
{
	size_t n = 0;

	for (struct tm_block *b = __atomic_load_n(&tm_head, __ATOMIC_ACQUIRE); b != NULL; b = b->next)
		if (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == TM_LIVE)
			n += tm_unhook_block(b, true, NULL, 0);
	return n;
}

/* See timing.h. */
void tm_site_rehook(const uint32_t *done, size_t n)
{
	struct tm_block *b = tm_tls;

	if (!TM_REAL(b))
		return;
	for (size_t k = n; k-- > 0;)
		*b->stack[done[k]].slot = b->stack[done[k]].tramp;
}


/* See timing.h.  The pin comes before the list is read (seq_cst): a block
 * the reporter unlinked after seeing no pin is out of reach. */
const struct tm_block *timing_shadow_pin(int32_t tid)
{
	__atomic_add_fetch(&tm_pins, 1, __ATOMIC_SEQ_CST);
	for (struct tm_block *b = __atomic_load_n(&tm_head, __ATOMIC_ACQUIRE); b != NULL;
	    b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE))
		if (__atomic_load_n(&b->tid, __ATOMIC_RELAXED) == tid &&
		    __atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == TM_LIVE)
			return b;
	return NULL;
}

/* See timing.h. */
void timing_shadow_unpin(void)
{
	__atomic_sub_fetch(&tm_pins, 1, __ATOMIC_RELEASE);
}

/* See timing.h.  From the top: of two frames sharing a slot (a tail call)
 * the upper one's tramp is what the slot holds.  The owner is stopped in a
 * system call, so its frames hold still; if it woke up, the walk reads a
 * changed stack and fails on its own. */
uintptr_t timing_shadow_real(const struct tm_block *b, uintptr_t slot, uintptr_t val)
{
	uint32_t d;

	if (b == NULL)
		return val;
	d = __atomic_load_n(&b->depth, __ATOMIC_RELAXED);
	if (d > TM_STACK)
		d = TM_STACK;
	while (d-- > 0) {
		const struct tm_frame *f = &b->stack[d];

		if ((uintptr_t)__atomic_load_n(&f->slot, __ATOMIC_RELAXED) == slot &&
		    __atomic_load_n(&f->tramp, __ATOMIC_RELAXED) == val)
			return __atomic_load_n(&f->ret, __ATOMIC_RELAXED);
	}
	return val;
}

/* See timing_int.h (reporter thread).  A block unlinked while a walk had
 * one pinned waits on the graves list until none does. */
void tm_shadow_retire(struct tm_block *b)
{
	if (b != NULL) {
		b->next = tm_graves;
		tm_graves = b;
	}
	if (__atomic_load_n(&tm_pins, __ATOMIC_SEQ_CST) != 0)
		return;
	while (tm_graves != NULL) {
		b = tm_graves;
		tm_graves = b->next;
		tm_block_free(b);
	}
}

/* Swap the calling thread's block (calibration runs on a private one). */
struct tm_block *tm_tls_swap(struct tm_block *b)
{
	struct tm_block *old = tm_tls;

	tm_tls_set(b);
	return old;
}

/* Fork child (single-threaded): the other threads' blocks belong to threads
 * that do not exist here, and the figures are the parent's.  Keep only the
 * caller's block (its shadow stack still matches the calls in flight) with
 * zeroed counters (its call paths' too), so the child starts a fresh
 * session. */
void tm_hot_atfork_child(void)
{
	struct tm_block *own = TM_REAL(tm_tls) ? tm_tls : NULL;
	struct tm_block *b = tm_head;

	while (b != NULL) {
		struct tm_block *next = b->next;

		if (b != own)
			tm_block_free(b);
		b = next;
	}
	tm_head = own;
	tm_threads = own != NULL;
	tm_failed = 0;
	tm_sc_atfork_child();
	if (own == NULL)
		return;
	tm_sc_zero(own);
	own->next = NULL;
	own->dropped = 0;
	own->ip_on = false;       /* timers are not inherited */
	own->born = tm_ticks();   /* the child's running time counts from here */
	own->tid = (int32_t)gettid();     /* the parent's is another process's thread */
	/* its CPU clock starts again: seen the first time */
	memset(own->cost, 0, sizeof own->cost);
	for (uint32_t k = 0; k < tm_block_count(own); k++) {
		struct tm_entry *e = tm_block_entry(own, k);

		if (e != NULL)
			e->calls = e->total = e->self = e->max = e->slow = own->counts[e - own->table] = 0;
	}
	own->paths_dropped = 0;
	for (uint32_t k = 0; k < tm_block_npaths(own); k++) {
		struct tm_node *n = tm_block_node(own, k);

		if (n != NULL)
			n->calls = n->incl = n->self = 0;
	}
}
