/*
 * hook_cal.c - calibration of the hook engine's site path: what a timed call
 * through the stubs costs, inside and outside the call's measured interval,
 * so self times of engine sites are corrected with their own figures
 * (timing.c, tm_calibrate_site) rather than the -finstrument-functions ones;
 * and what a counted call costs (tm_calibrate_count), the figure the
 * overhead budget charges for each.
 *
 * The measured calls are real calls of patched functions: in a region of
 * its own, HOOK_CAL_N copies of the back-end's calibration function (one
 * instruction to relocate, then a return) are planned, given a block
 * (hook_tramp_fill) and their entry branch, like sites; an unpatched copy
 * of each is the plain call the patched one is measured against.  So the
 * figures include the entry's branch and the way back, which a tiny
 * function's call pays on top of its block's work.  A timed call is
 * measured on the first function.  A counted call is measured over all of
 * them in a scattered order: on one function alone, called in a loop, a
 * core overlaps the counted path's few instructions with the loop's and
 * shows almost nothing, where a program calling many different small
 * functions pays each branch.  It runs once, before the first patching,
 * while the engine has no site yet (the blocks' site indexes count into
 * the private thread block tm_calibrate_count gives the thread).
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "agent.h"
#include "backend.h"
#include "hook.h"
#include "hook_int.h"
#include "timing.h"

#define HOOK_CAL_N 64           /* functions (a power of 2) */

/* The functions in their calling order, patched and plain. */
static void (*hook_cal_fns[HOOK_CAL_N])(void);
static void (*hook_cal_plains[HOOK_CAL_N])(void);

/* One call of every function, patched or plain. */
static void hook_cal_all(void)
{
	for (unsigned k = 0; k < HOOK_CAL_N; k++)
		hook_cal_fns[k]();
}

static void hook_cal_all_plain(void)
{
	for (unsigned k = 0; k < HOOK_CAL_N; k++)
		hook_cal_plains[k]();
}

/* Function i of region r: its block is block i, its two copies share
 * block slot HOOK_CAL_N + i (patched at its start, plain in its middle). */
static uint8_t *hook_cal_fn(const struct hook_region *r, unsigned i, bool plain)
{
	return hook_tramp_blk(r, HOOK_CAL_N + i) + (plain ? HOOK_BLK_SIZE / 2 : 0);
}

/* Write function i and its block; false if the back-end cannot plan it. */
static bool hook_cal_site(const struct hook_region *r, unsigned i, struct hook_site *s)
{
	const struct hook_backend *be = &hook_backend;
	uint8_t *fn = hook_cal_fn(r, i, false);
	struct hook_plan p;

	memcpy(fn, be->cal_fn, be->cal_fn_len);
	memcpy(hook_cal_fn(r, i, true), be->cal_fn, be->cal_fn_len);
	if (be->plan(fn, be->cal_fn_len, (uintptr_t)fn,
	    (uintptr_t)hook_tramp_blk(r, i) + HOOK_BLK_HEAD, &p) != HOOK_OK)
		return false;
	memset(s, 0, sizeof *s);
	s->fn = (uintptr_t)fn;
	hook_tramp_fill(r, i, i, s, &p);
	be->branch(fn, (uintptr_t)fn, (uintptr_t)s->blk, p.entry);
	return true;
}

/* See hook_int.h. */
void hook_cal_run(struct hook_engine *g)
{
	static struct hook_site sites[HOOK_CAL_N];
	struct hook_region r;

	if (g->nsites != 0)
		return;                 /* too late: sites may be running */
	if (hook_tramp_map_any(2 * HOOK_CAL_N, &r) < 0) {
		agent_warn("hook: no memory for the calibration blocks: sites use the "
		    "-finstrument-functions figures");
		return;
	}
	for (unsigned i = 0; i < HOOK_CAL_N; i++) {
		/* A fixed scattered order: 37 is odd, so i -> 37 i is a permutation. */
		unsigned at = (i * 37) & (HOOK_CAL_N - 1);

		if (!hook_cal_site(&r, at, &sites[at])) {
			agent_warn("hook: the calibration function cannot be planned: sites use "
			    "the -finstrument-functions figures");
			goto out;
		}
		hook_cal_fns[i] = (void (*)(void))sites[at].fn;
		hook_cal_plains[i] = (void (*)(void))(uintptr_t)hook_cal_fn(&r, at, true);
	}
	if (hook_tramp_seal(&r) == 0) {
		__atomic_store_n(sites[0].sw, sites[0].on_addr, __ATOMIC_RELAXED);
		tm_calibrate_site((void (*)(void))sites[0].fn,
		    (void (*)(void))(uintptr_t)hook_cal_fn(&r, 0, true), sites[0].fn);
		for (unsigned i = 0; i < HOOK_CAL_N; i++)
			__atomic_store_n(sites[i].sw, sites[i].count_addr, __ATOMIC_RELAXED);
		tm_calibrate_count(hook_cal_all, hook_cal_all_plain, HOOK_CAL_N);
	}
out:
	munmap(r.base, r.len);
}
