/*
 * timing_frame.h - the shadow-stack frames and the function table as the
 * hooks use them (included by the two hot files only: timing_hot.c, the
 * -finstrument-functions hooks, and timing_site.c, the hook engine's site
 * path).  Both files are built with -mgeneral-regs-only (Makefile): the
 * engine's stubs save the general registers only.
 *
 * Signal handlers that run instrumented code may interrupt a hook on the same
 * thread: the shadow stack is updated in an order that keeps it consistent
 * (a frame is reserved before it is filled and read before it is released);
 * what such an interruption can cost is one call's figures, never the state.
 */
#ifndef HOOKSCOPE_TIMING_FRAME_H
#define HOOKSCOPE_TIMING_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "timing_int.h"
#include "timing_path.h"

#define HOT   __attribute__((no_instrument_function))
#define HOOK  __attribute__((no_instrument_function, visibility("default")))
#define LIKELY(x)   __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Orders the owner's own stores against a signal handler on the same thread
 * (compiler barrier only, no instruction). */
#define SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Relaxed atomic accessors: free on x86-64, and they keep TSan quiet. */
#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* The one way from the hooks into other code (mmap, pthread): with the
 * vector state saved on x86-64, whose stubs do not save it. */
#if defined(__x86_64__)
#define TM_VEC_CALL(fn) ((struct tm_block *)tm_vec_call((void *(*)(void))(fn)))
#else
#define TM_VEC_CALL(fn) ((fn)())
#endif

/* First hooked call of a thread: give it a block (timing_hot.c); NULL when
 * it cannot have one.  Through TM_VEC_CALL only. */
struct tm_block *tm_thread_start(void);

/* Hash of a function address into the slot table. */
static inline HOT uint32_t tm_hash(uintptr_t fn)
{
	return (uint32_t)(((uint64_t)fn * 0x9E3779B97F4A7C15ull) >> (64 - 12)) & (TM_SLOTS - 1);
}

/* Find fn's entry, adding it if new; NULL when the table is full. */
static inline HOT struct tm_entry *tm_lookup(struct tm_block *b, uintptr_t fn)
{
	uint32_t i = tm_hash(fn);

	for (;;) {
		struct tm_entry *e = &b->table[i];

		if (LIKELY(e->fn == fn))
			return e;
		if (e->fn == 0) {
			uintptr_t none = 0;
			uint32_t n;

			if (UNLIKELY(LOAD(&b->nentries) >= TM_MAX_FUNCS))
				return NULL;
			/* A signal handler on this thread may insert between any
			 * two of these steps: the slot is claimed and the order[]
			 * place taken each in one atomic instruction (first calls
			 * only), or two insertions would share a place. */
			if (!__atomic_compare_exchange_n(&e->fn, &none, fn, false,
			    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
				continue;       /* taken meanwhile: look again */
			n = __atomic_fetch_add(&b->nentries, 1, __ATOMIC_RELAXED);
			if (LIKELY(n < TM_MAX_FUNCS))
				__atomic_store_n(&b->order[n], (uint16_t)(i + 1), __ATOMIC_RELEASE);
			return e;
		}
		i = (i + 1) & (TM_SLOTS - 1);
	}
}

/* Count one call of entry e of b (the counted state: no frame, no clock). */
static inline HOT void tm_count(struct tm_block *b, const struct tm_entry *e)
{
	uint64_t *c = &b->counts[e - b->table];

	STORE(c, *c + 1);
}

/* Close the top frame at time now: charge its self time, its inclusive time
 * if it is the outermost activation of its function, and tell the parent.
 * Inlined into the exit fast paths, out of line (tm_pop_out) in the loops
 * that close several frames. */
static inline __attribute__((always_inline)) HOT void tm_pop(struct tm_block *b, uint64_t now)
{
	uint32_t d = b->depth - 1;
	struct tm_frame *f = &b->stack[d];
	struct tm_entry *e = f->e;
	uint64_t raw = now > f->start ? now - f->start : 0;
	/* Per path (timing.c calibrates both): an engine frame has a slot. */
	bool site = f->slot != NULL;
	uint64_t in = LOAD(site ? &tm_params.o_in_site : &tm_params.o_in);
	uint64_t out = LOAD(site ? &tm_params.o_out_site : &tm_params.o_out);
	uint64_t cost = in + f->child_cost;
	uint64_t self = raw > cost ? raw - cost : 0;
	uint64_t incl = self + f->child_corr;

	if (LIKELY(e != NULL)) {
		uint32_t a = e->active - 1;

		/* total before self (release): a reporter that reads self
		 * first (acquire) never sees self > total for a leaf.  The
		 * figures before active (release): a reporter that sees the
		 * activation gone sees its call counted (timing.h). */
		STORE(&e->calls, e->calls + 1);
		if (LIKELY(a == 0))   /* not recursive: the common case */
			STORE(&e->total, e->total + incl);
		__atomic_store_n(&e->self, e->self + self, __ATOMIC_RELEASE);
		if (incl > LOAD(&e->max))
			STORE(&e->max, incl);
		if (incl > LOAD(&tm_params.slow_ticks))
			STORE(&e->slow, e->slow + 1);
		__atomic_store_n(&e->active, a, __ATOMIC_RELEASE);
	}
	tm_path_exit(b, d, incl, self);
	SIGNAL_FENCE();           /* frame read before it is released */
	b->depth = d;
	if (d > 0) {
		struct tm_frame *p = &b->stack[d - 1];

		p->child_cost += raw + out;
		p->child_corr += incl;
	}
}

/* tm_pop where several frames may close (kept out of the fast paths). */
static HOT __attribute__((noinline, unused)) void tm_pop_out(struct tm_block *b, uint64_t now)
{
	tm_pop(b, now);
}

/* Open frame d (known free) for fn, whose entry is e (NULL: the table is
 * full) and whose call-path node + 1 is pn: fill the frame, mark the
 * activation.  slot, ret and tramp are the hook engine's (NULL, 0, 0
 * otherwise). */
static inline __attribute__((always_inline)) HOT void tm_push_node(struct tm_block *b, uint32_t d,
    uintptr_t fn, struct tm_entry *e, uint32_t pn, uintptr_t *slot, uintptr_t ret, uintptr_t tramp)
{
	struct tm_frame *f;
	uint32_t a = 0;
	uint64_t now;

	if (LIKELY(e != NULL))
		a = e->active;
	else
		STORE(&b->dropped, b->dropped + 1);
	/* Reserve the frame before filling it: a signal handler running
	 * instrumented code here then pushes above it, not over it (a handler
	 * in between takes the frame below as its path's parent: its own
	 * call's path may be wrong, never the state). */
	b->depth = d + 1;
	SIGNAL_FENCE();
	b->pnode[d] = pn;
	f = &b->stack[d];
	f->e = e;
	f->fn = fn;
	f->child_cost = 0;
	f->child_corr = 0;
	f->slot = slot;
	f->ret = ret;
	f->tramp = tramp;
	f->start = now = tm_ticks();
	/* The outermost activation's start before active (release), so the
	 * reporter never pairs active > 0 with an older start (timing.h).  A
	 * signal handler calling this same function in between costs that
	 * call's figures only. */
	if (LIKELY(e != NULL)) {
		if (LIKELY(a == 0))
			STORE(&e->start, now);
		__atomic_store_n(&e->active, a + 1, __ATOMIC_RELEASE);
	}
}

/* tm_push_node with the call's path node found here. */
static inline HOT void tm_push(struct tm_block *b, uint32_t d, uintptr_t fn,
    struct tm_entry *e, uintptr_t *slot, uintptr_t ret, uintptr_t tramp)
{
	tm_push_node(b, d, fn, e, tm_path_enter(b, d, fn), slot, ret, tramp);
}

/* The calling thread's block for a new frame, or NULL when timing is off,
 * agent code is running on this thread, or the thread has no block and
 * cannot get one. */
static inline HOT struct tm_block *tm_enter_block(void)
{
	struct tm_block *b = tm_tls;

	if (!LOAD(&tm_params.enabled))
		return NULL;
	if (LIKELY(TM_REAL(b)))
		return b;
	return b == NULL ? TM_VEC_CALL(tm_thread_start) : NULL;
}

#endif
