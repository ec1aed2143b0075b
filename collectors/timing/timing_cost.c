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

/* See timing_int.h. */
void tm_cost_threads(int base, double ct, double cc, double *cost_ps, double *cpu_ns)
{
	*cost_ps = *cpu_ns = 0;
	for (struct tm_block *b = __atomic_load_n(&tm_head, __ATOMIC_ACQUIRE); b != NULL; b = b->next) {
		uint32_t n = tm_block_count(b);
		struct tm_cost_base *at = &b->cost[base];
		uint64_t calls = 0, counts = 0, cpu;

		if (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == TM_DEAD)
			continue;
		for (uint32_t k = 0; k < n; k++) {
			const struct tm_entry *e = tm_block_entry(b, k);

			if (e != NULL) {
				calls += LOAD(&e->calls);
				counts += LOAD(&b->counts[e - b->table]);
			}
		}
		counts += tm_sc_sum(b);
		cpu = tm_cost_cpu(b->tid);
		/* A thread seen the first time: its past is not a window's. */
		if (at->cpu_ns != 0 && cpu > at->cpu_ns) {
			*cpu_ns += (double)(cpu - at->cpu_ns);
			*cost_ps += (double)(calls - at->calls) * ct + (double)(counts - at->counts) * cc;
		}
		if (cpu > at->cpu_ns)
			at->cpu_ns = cpu;
		at->calls = calls;
		at->counts = counts;
		if (base == TM_COST_ACCOUNT)      /* a peek looks at the time since */
			b->cost[TM_COST_PEEK] = *at;
	}
}
