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
 * The frames and the table, and the order that keeps them consistent under a
 * signal handler running instrumented code, are timing_frame.h's, shared
 * with the engine's site path (timing_site.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "timing_frame.h"

struct tm_params tm_params;
struct tm_block *tm_head;
uint32_t tm_threads;
uint64_t tm_failed;

__thread struct tm_block *tm_tls __attribute__((tls_model("initial-exec")));
static pthread_key_t tm_key;
static bool tm_key_ok;

/* Thread exit (pthread key destructor): stop timing this thread and hand the
 * block to the reporter, which folds it into the retired totals. */
static HOT void tm_thread_exit(void *p)
{
	struct tm_block *b = p;
	struct timespec ts;

	tm_tls_set(TM_OFF);
	/* Its CPU time to the end: the budget's last interval of it (the
	 * clock goes with the thread). */
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		__atomic_store_n(&b->cpu_end, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
		    __ATOMIC_RELAXED);
	__atomic_store_n(&b->state, TM_DEAD, __ATOMIC_RELEASE);
}


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
HOT struct tm_block *tm_thread_start(void)
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
