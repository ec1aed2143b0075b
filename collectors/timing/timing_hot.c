/*
 * timing_hot.c - the -finstrument-functions hooks: the code that runs on every
 * call of the target.  Thread-local only: one TLS pointer to the thread's
 * tm_block, a hash lookup, a shadow-stack push or pop, relaxed stores (and
 * release stores of active, plain moves on x86-64).  The only syscall (mmap)
 * and the only shared write (one CAS) happen once per thread, on its first
 * hooked call.  See timing.h for the data.
 *
 * A call is counted when it returns (or is unwound by a longjmp).  While it
 * runs, its function's entry holds the outermost activation's start tick, so
 * the reporter can show the time so far of calls that have not returned.
 *
 * Signal handlers that run instrumented code may interrupt a hook on the same
 * thread: the shadow stack is updated in an order that keeps it consistent
 * (a frame is reserved before it is filled and read before it is released);
 * what such an interruption can cost is one call's figures, never the state.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "timing_int.h"
#include "timing_path.h"

#define HOT   __attribute__((no_instrument_function))
#define HOOK  __attribute__((no_instrument_function, visibility("default")))
#define LIKELY(x)   __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

struct tm_params tm_params;
struct tm_block *tm_head;
uint32_t tm_threads;
uint64_t tm_failed;

__thread struct tm_block *tm_tls __attribute__((tls_model("initial-exec")));
static pthread_key_t tm_key;
static bool tm_key_ok;

/* Orders the owner's own stores against a signal handler on the same thread
 * (compiler barrier only, no instruction). */
#define SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Relaxed atomic accessors: free on x86-64, and they keep TSan quiet. */
#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* Thread exit (pthread key destructor): stop timing this thread and hand the
 * block to the reporter, which folds it into the retired totals. */
static HOT void tm_thread_exit(void *p)
{
	struct tm_block *b = p;

	tm_tls_set(TM_OFF);
	__atomic_store_n(&b->state, TM_DEAD, __ATOMIC_RELEASE);
}

#if defined(__x86_64__)
#define TM_VEC_CALL(fn) ((struct tm_block *)tm_vec_call((void *(*)(void))(fn)))
#else
#define TM_VEC_CALL(fn) ((fn)())
#endif

/* Create the key whose destructor retires a dying thread's block. */
int tm_hot_init(void)
{
	tm_vec_init();
	if (!tm_key_ok && pthread_key_create(&tm_key, tm_thread_exit) != 0)
		return -1;
	tm_key_ok = true;
	return 0;
}

/* mmap a zeroed block (not on the list yet). */
HOT struct tm_block *tm_block_new(void)
{
	struct tm_block *b = mmap(NULL, sizeof(struct tm_block), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (b == MAP_FAILED)
		return NULL;
	tm_sc_alloc(b);
	return b;
}

/* Unmap a block nobody uses any more. */
void tm_block_free(struct tm_block *b)
{
	tm_sc_free(b);
	munmap(b, sizeof *b);
}

/* See timing.h. */
void tm_blocks_free_all(void)
{
	struct tm_block *b;

	tm_ip_set(false);         /* no sample signal may outlive the agent */
	tm_shadow_retire(NULL);   /* no outside walk runs any more */
	b = __atomic_exchange_n(&tm_head, NULL, __ATOMIC_ACQ_REL);

	while (b != NULL) {
		struct tm_block *next = b->next;

		tm_block_free(b);
		b = next;
	}
}

/* First hooked call of a thread: give it a block and publish it.  The TLS
 * holds TM_GUARD meanwhile, so hooks reached from mmap or pthread code (an
 * instrumented malloc, say) return at once. */
static HOT struct tm_block *tm_thread_start(void)
{
	struct tm_block *b, *old;

	if (!tm_key_ok)
		return NULL;
	tm_tls_set(TM_GUARD);
	b = tm_block_new();
	if (b == NULL || pthread_setspecific(tm_key, b) != 0) {
		if (b != NULL)
			tm_block_free(b);
		__atomic_add_fetch(&tm_failed, 1, __ATOMIC_RELAXED);
		tm_tls_set(TM_OFF);
		return NULL;
	}
	b->tid = (int32_t)gettid();
	b->born = tm_ticks();
	old = __atomic_load_n(&tm_head, __ATOMIC_RELAXED);
	do
		b->next = old;
	while (!__atomic_compare_exchange_n(&tm_head, &old, b, true,
	    __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	__atomic_add_fetch(&tm_threads, 1, __ATOMIC_RELAXED);
	tm_tls_set(b);
	return b;
}

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

/* fn's entry without adding one; NULL if absent. */
static inline HOT struct tm_entry *tm_find(struct tm_block *b, uintptr_t fn)
{
	uint32_t i = tm_hash(fn);

	for (;;) {
		struct tm_entry *e = &b->table[i];

		if (e->fn == fn)
			return e;
		if (e->fn == 0)
			return NULL;
		i = (i + 1) & (TM_SLOTS - 1);
	}
}

/* The selection or the budget's states moved since e was decided: decide
 * again (both are published before the generation). */
static HOT __attribute__((noinline)) uint32_t tm_sel_refresh(struct tm_entry *e, uintptr_t fn)
{
	uint32_t gen = __atomic_load_n(&tm_params.sel_gen, __ATOMIC_ACQUIRE);
	const struct tm_sel *s = __atomic_load_n(&tm_sel_now, __ATOMIC_ACQUIRE);
	const struct tm_modes *m = __atomic_load_n(&tm_modes_now, __ATOMIC_ACQUIRE);
	uint32_t st = s != NULL && !tm_sel_find(s, fn) ? TM_ST_OFF :
	    tm_modes_find(m, fn, LOAD(&tm_st_default));

	e->sel = gen | st;
	return st;
}

/* fn's state (entry e) at the current level and budget (TM_ST_*): the
 * -finstrument path's per-function switch, one load and compare while
 * nothing moved. */
static inline HOT uint32_t tm_fn_state(struct tm_entry *e, uintptr_t fn)
{
	uint32_t gen = LOAD(&tm_params.sel_gen);

	if (LIKELY((e->sel & ~(uint32_t)TM_ST_MASK) == gen))
		return e->sel & TM_ST_MASK;
	return tm_sel_refresh(e, fn);
}

/* Count one call of entry e of b (the counted state: no frame, no clock). */
static inline HOT void tm_count(struct tm_block *b, const struct tm_entry *e)
{
	uint64_t *c = &b->counts[e - b->table];

	STORE(c, *c + 1);
}

/* Close the top frame at time now: charge its self time, its inclusive time
 * if it is the outermost activation of its function, and tell the parent.
 * Inlined into the engine's exit fast path (tm_site_exit), out of line
 * (tm_pop_out) in the loops that close several frames. */
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
static HOT __attribute__((noinline)) void tm_pop_out(struct tm_block *b, uint64_t now)
{
	tm_pop(b, now);
}

/* An exit that does not match the top frame: a longjmp skipped some exits.
 * Close the skipped frames if fn is close below; false if fn is not there
 * (an exit whose enter we never saw) and the exit must be ignored. */
static HOT bool tm_unwind(struct tm_block *b, uintptr_t fn, uint64_t now)
{
	uint32_t d = b->depth, lim = d > TM_SCAN ? d - TM_SCAN : 0;

	for (uint32_t i = d - 1; i-- > lim;) {
		if (b->stack[i].fn == fn) {
			while (b->depth > i + 1)
				tm_pop_out(b, now);
			return true;
		}
	}
	return false;
}

/* Open frame d (known free) for fn, whose entry is e (NULL: the table is
 * full): fill the frame, mark the activation.  slot, ret and tramp are the
 * hook engine's (NULL, 0, 0 otherwise). */
static inline HOT void tm_push(struct tm_block *b, uint32_t d, uintptr_t fn,
    struct tm_entry *e, uintptr_t *slot, uintptr_t ret, uintptr_t tramp)
{
	struct tm_frame *f;
	uint32_t a = 0, pn = tm_path_enter(b, d, fn);
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

/* Called by -finstrument-functions code on entry to every function. */
HOOK void __cyg_profile_func_enter(void *fn, void *site)
{
	struct tm_block *b = tm_enter_block();
	struct tm_entry *e;
	uint32_t d;

	(void)site;
	if (b == NULL)
		return;
	e = tm_lookup(b, (uintptr_t)fn);
	if (e != NULL) {
		uint32_t st = tm_fn_state(e, (uintptr_t)fn);

		if (UNLIKELY(st != TM_ST_TIMED)) {
			if (st == TM_ST_COUNTED)
				tm_count(b, e);
			return;
		}
	}
	d = b->depth;
	if (UNLIKELY(d >= TM_STACK)) {
		b->lost++;
		STORE(&b->dropped, b->dropped + 1);
		return;
	}
	tm_push(b, d, (uintptr_t)fn, e, NULL, 0, 0);
}

/* Called by -finstrument-functions code on return from every function. */
HOOK void __cyg_profile_func_exit(void *fn, void *site)
{
	struct tm_block *b = tm_tls;
	uint64_t now;

	(void)site;
	if (UNLIKELY(!TM_REAL(b)))
		return;
	if (UNLIKELY(b->lost > 0)) {
		/* This exit's enter was lost to a full stack, unless fn is
		 * not timed (its enter pushed nothing). */
		struct tm_entry *e = tm_find(b, (uintptr_t)fn);

		if (e == NULL || tm_fn_state(e, (uintptr_t)fn) == TM_ST_TIMED)
			b->lost--;
		return;
	}
	if (UNLIKELY(b->depth == 0))
		return;
	if (UNLIKELY(b->stack[b->depth - 1].fn != (uintptr_t)fn)) {
		/* A function not timed has no frame; else a longjmp skipped
		 * some exits. */
		struct tm_entry *e = tm_find(b, (uintptr_t)fn);

		if (e != NULL && tm_fn_state(e, (uintptr_t)fn) != TM_ST_TIMED)
			return;
		now = tm_ticks();
		if (!tm_unwind(b, (uintptr_t)fn, now))
			return;
	} else {
		now = tm_ticks();
	}
	tm_pop(b, now);
}

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
 * in its home slot) calls nothing, so it needs no callee-saved register;
 * the rest is tm_site_enter_slow, which decides it all again. */
HOT bool tm_site_enter(uintptr_t fn, uintptr_t *slot, uintptr_t tramp)
{
	struct tm_block *b = tm_tls;
	struct tm_entry *e;
	uint32_t d;

	if (UNLIKELY(!LOAD(&tm_params.enabled) || !TM_REAL(b)))
		return tm_site_enter_slow(fn, slot, tramp);
	d = b->depth;
	if (UNLIKELY(d >= TM_STACK || (d > 0 && ((uintptr_t)b->stack[d - 1].slot & TM_DETACHED))))
		return tm_site_enter_slow(fn, slot, tramp);
	e = &b->table[tm_hash(fn)];
	if (UNLIKELY(e->fn != fn))
		return tm_site_enter_slow(fn, slot, tramp);
	tm_push(b, d, fn, e, slot, *slot, tramp);
	SIGNAL_FENCE();
	return true;
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

/* A self-time sample on this thread (timing_ipsample.c's signal handler):
 * the interrupted pc into the thread's own ring.  Agent code running here
 * (the guard) is not the target's: no sample. */
HOT void tm_ip_record(uintptr_t pc)
{
	struct tm_block *b = tm_tls;
	uint32_t h;

	if (!TM_REAL(b))
		return;
	h = b->ip_head;
	STORE(&b->ips[h % TM_IPS], pc);
	__atomic_store_n(&b->ip_head, h + 1, __ATOMIC_RELEASE);
}

/* See timing.h. */
HOT struct tm_block *timing_guard_enter(void)
{
	struct tm_block *saved = tm_tls;

	if (saved != TM_OFF)
		tm_tls_set(TM_GUARD);
	return saved;
}

/* See timing.h. */
HOT void timing_guard_leave(struct tm_block *saved)
{
	if (tm_tls == TM_GUARD)
		tm_tls_set(saved);
}

/* See timing.h. */
HOT bool timing_guarded(void)
{
	struct tm_block *b = tm_tls;

	return b == TM_GUARD || b == TM_OFF;
}

/* See timing.h. */
HOT void timing_guard_forever(void)
{
	tm_tls_set(TM_OFF);
}
