/*
 * hook_cal.c - calibration of the hook engine's site path: what a timed call
 * through the stubs costs, inside and outside the call's measured interval,
 * so self times of engine sites are corrected with their own figures
 * (timing.c, tm_calibrate_site) rather than the -finstrument-functions ones;
 * and what a counted call costs (tm_calibrate_count).
 *
 * The measured calls are real ones through the real stubs: the back-end's
 * hook_cal_stub (hook_cal_stub.c) is a block laid out as its hook_layout.h
 * says, whose relocated prologue is hook_cal_body, a bare return; it goes
 * through hook_cal_sw like a site's block through its switch, and to the
 * stubs through hook_cal_common like a region's blocks; the counted path is
 * measured the same way, the switch pointing at the counted entry.  It runs once,
 * before the first patching, while the engine has no site yet.
 */
#include <stdint.h>

#include "hook.h"
#include "hook_int.h"
#include "timing.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* The back-end's (hook_cal_stub.c): the block, its enabled path, its
 * relocated prologue and its counted entry. */
HIDDEN void hook_cal_stub(void);
HIDDEN extern const uint8_t hook_cal_on[];
HIDDEN void hook_cal_body(void);
HIDDEN void hook_cal_count(void);

/* The switch the stub goes through and the function after it, as a
 * block's (always "on"), and the region data's addresses of the common
 * stubs. */
HIDDEN __attribute__((used, aligned(16))) uintptr_t hook_cal_sw[2];
HIDDEN __attribute__((used, aligned(16))) uintptr_t hook_cal_common[3];

/* See hook_int.h. */
void hook_cal_run(struct hook_engine *g)
{
	if (g->nsites != 0)
		return;                 /* too late: sites may be running */
	hook_cal_sw[0] = (uintptr_t)hook_cal_on;
	hook_cal_sw[HOOK_SW_FN] = (uintptr_t)hook_cal_body;
	hook_cal_common[0] = (uintptr_t)hook_enter_common;
	hook_cal_common[1] = (uintptr_t)hook_exit_common;
	hook_cal_common[2] = (uintptr_t)hook_count_common;
	tm_calibrate_site(hook_cal_stub, hook_cal_body, (uintptr_t)hook_cal_body);
	/* The counted path as a site takes it: through the block's switch. */
	hook_cal_sw[0] = (uintptr_t)hook_cal_count;
	tm_calibrate_count(hook_cal_stub, hook_cal_body);
}
