/*
 * timing_count.c - the counted path's per-thread counts.
 *
 * A counted site's block (the engine's back-end, hook_layout.h) counts its
 * calls itself: it loads tm_sc, the calling thread's array of counts indexed
 * by site index, through the thread pointer at a constant offset (tm_sc is
 * initial-exec TLS), and increments entry index.  No call, no register
 * saved but the one it uses, no hash: the block goes on to the function.
 * tm_sc is NULL whenever the thread's block pointer (tm_tls) is not a real
 * block: before its first hooked call, while the agent's guard is held,
 * on agent threads and after the thread's exit; the block then takes the
 * general count stub (tm_site_count), which starts the thread or drops
 * the call as before.
 *
 * The array is a reservation of TM_SC_MAX entries beside each thread's
 * tm_block (MAP_NORESERVE: only the pages of counted sites' indexes are
 * ever touched; 4 MB of address space, half a default thread stack).  The
 * owner increments, the reporter reads with relaxed loads (a 64-bit aligned
 * word: never torn).
 *
 * Which function an index counts: the engine notes each site the first
 * time its switch is set to the counted path (tm_sc_note, under the
 * engine's lock, on any thread); the reporter reads the counts of the
 * noted sites only.  Site indexes are never reused.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "agent.h"
#include "timing_int.h"

#define LOAD(p)  __atomic_load_n((p), __ATOMIC_RELAXED)

__thread uint64_t *tm_sc __attribute__((tls_model("initial-exec")));

/* The noted sites: index and function, in the order noted. */
static pthread_mutex_t tm_sc_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t  *tm_sc_idx;
static uintptr_t *tm_sc_fns;
static size_t     tm_sc_n, tm_sc_cap;

#define TM_SC_BYTES ((size_t)TM_SC_MAX * sizeof(uint64_t))

/* The thread pointer: what the blocks' TLS access adds the offset to. */
static uintptr_t tm_sc_tp(void)
{
	uintptr_t tp;

#if defined(__x86_64__)
	__asm__("movq %%fs:0, %0" : "=r"(tp));
#elif defined(__aarch64__)
	__asm__("mrs %0, tpidr_el0" : "=r"(tp));
#else
	tp = 0;
#endif
	return tp;
}

/* See timing.h. */
bool tm_sc_tpoff(intptr_t *off)
{
#if defined(__x86_64__) || defined(__aarch64__)
	*off = (intptr_t)((uintptr_t)&tm_sc - tm_sc_tp());
	return true;
#else
	(void)off;
	return false;
#endif
}

/* See timing.h. */
void tm_sc_note(uint32_t idx, uintptr_t fn)
{
	pthread_mutex_lock(&tm_sc_lock);
	if (tm_sc_n == tm_sc_cap) {
		tm_sc_cap = tm_sc_cap ? tm_sc_cap * 2 : 256;
		tm_sc_idx = xrealloc(tm_sc_idx, tm_sc_cap * sizeof *tm_sc_idx);
		tm_sc_fns = xrealloc(tm_sc_fns, tm_sc_cap * sizeof *tm_sc_fns);
	}
	tm_sc_idx[tm_sc_n] = idx;
	tm_sc_fns[tm_sc_n++] = fn;
	pthread_mutex_unlock(&tm_sc_lock);
}

/* See timing_int.h. */
void tm_sc_alloc(struct tm_block *b)
{
	void *p = mmap(NULL, TM_SC_BYTES, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	b->sc = p == MAP_FAILED ? NULL : p;   /* none: the general stub counts */
}

/* See timing_int.h. */
void tm_sc_free(struct tm_block *b)
{
	if (b->sc != NULL)
		munmap(b->sc, TM_SC_BYTES);
	b->sc = NULL;
}

/* See timing_int.h. */
void tm_sc_zero(struct tm_block *b)
{
	if (b->sc != NULL)
		madvise(b->sc, TM_SC_BYTES, MADV_DONTNEED);   /* private anonymous: zeroes */
}

/* See timing_int.h. */
void tm_sc_each(const struct tm_block *b, void (*fn)(uintptr_t f, uint64_t n, void *arg), void *arg)
{
	if (b->sc == NULL)
		return;
	pthread_mutex_lock(&tm_sc_lock);
	for (size_t k = 0; k < tm_sc_n; k++) {
		uint64_t n = LOAD(&b->sc[tm_sc_idx[k]]);

		if (n != 0)
			fn(tm_sc_fns[k], n, arg);
	}
	pthread_mutex_unlock(&tm_sc_lock);
}

static void tm_sc_add_up(uintptr_t f, uint64_t n, void *sum)
{
	(void)f;
	*(uint64_t *)sum += n;
}

/* See timing_int.h. */
uint64_t tm_sc_sum(const struct tm_block *b)
{
	uint64_t sum = 0;

	tm_sc_each(b, tm_sc_add_up, &sum);
	return sum;
}

/* See timing_int.h: a thread of the parent may have held the lock at the
 * fork (noting a site it was patching); the list itself stays. */
void tm_sc_atfork_child(void)
{
	pthread_mutex_init(&tm_sc_lock, NULL);
}
