/*
 * timing_cost.c - what the hooks cost each thread (the overhead budget's
 * accounting, timing_account.c): per live thread, the timed and counted
 * calls it made since the last accounting times their per-call costs,
 * against the CPU time it used meanwhile, read by the reporter on the
 * thread's own CPU clock.  Two readers keep their own bases: the
 * accounting at each tick and the peek between ticks (timing_budget.c),
 * whose base the accounting moves too.
 * Reporter thread only.
 */
#include <time.h>

#include "collector.h"
#include "timing_int.h"

#define LOAD(p)  __atomic_load_n((p), __ATOMIC_RELAXED)

/* The CPU time of thread tid so far (ns), or 0. */
static uint64_t tm_cost_cpu(int32_t tid)
{
	struct timespec ts;

	if (clock_gettime(agent_tid_clock(tid), &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What threads that exited since each base's last look did after it
 * (tm_cost_retire): their CPU to their end and their calls. */
static struct tm_cost_base tm_cost_gone[TM_COST_BASES];

/* b's calls and counts now. */
static void tm_cost_calls(struct tm_block *b, uint64_t *calls, uint64_t *counts)
{
	uint32_t n = tm_block_count(b);

	*calls = *counts = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct tm_entry *e = tm_block_entry(b, k);

		if (e != NULL) {
			*calls += LOAD(&e->calls);
			*counts += LOAD(&b->counts[e - b->table]);
		}
	}
	*counts += tm_sc_sum(b);
}

/* b's CPU time and calls since base at, its CPU clock reading cpu: added
 * to *d; the base moves to now.  A thread seen the first time: its past
 * is not an interval's. */
static void tm_cost_since(struct tm_block *b, struct tm_cost_base *at, uint64_t cpu,
    struct tm_cost_base *d)
{
	uint64_t calls, counts;

	tm_cost_calls(b, &calls, &counts);
	if (at->cpu_ns != 0 && cpu > at->cpu_ns) {
		d->cpu_ns += cpu - at->cpu_ns;
		d->calls += calls - at->calls;
		d->counts += counts - at->counts;
	}
	if (cpu > at->cpu_ns)
		at->cpu_ns = cpu;
	at->calls = calls;
	at->counts = counts;
}

/* See timing_int.h. */
void tm_cost_threads(int base, double ct, double cc, double *cost_ps, double *cpu_ns)
{
	struct tm_cost_base d = tm_cost_gone[base];

	tm_cost_gone[base] = (struct tm_cost_base){ 0 };
	if (base == TM_COST_ACCOUNT)      /* the peek's base moves too */
		tm_cost_gone[TM_COST_PEEK] = (struct tm_cost_base){ 0 };
	for (struct tm_block *b = __atomic_load_n(&tm_head, __ATOMIC_ACQUIRE); b != NULL; b = b->next) {
		if (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == TM_DEAD)
			continue;         /* tm_cost_retire's at the next harvest */
		tm_cost_since(b, &b->cost[base], tm_cost_cpu(b->tid), &d);
		if (base == TM_COST_ACCOUNT)      /* a peek looks at the time since */
			b->cost[TM_COST_PEEK] = b->cost[base];
	}
	*cpu_ns = (double)d.cpu_ns;
	*cost_ps = (double)d.calls * ct + (double)d.counts * cc;
}

/* See timing_int.h. */
void tm_cost_retire(struct tm_block *b)
{
	uint64_t end = __atomic_load_n(&b->cpu_end, __ATOMIC_RELAXED);

	for (int base = 0; base < TM_COST_BASES; base++) {
		struct tm_cost_base at = b->cost[base];

		tm_cost_since(b, &at, end, &tm_cost_gone[base]);
	}
}
