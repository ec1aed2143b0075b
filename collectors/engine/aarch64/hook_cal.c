/*
 * hook_cal.c - calibration of the hook engine's site path (arm64): what a
 * timed call through the stubs costs, inside and outside the call's
 * measured interval, so self times of engine sites are corrected with their
 * own figures (timing.c, tm_calibrate_site).
 *
 * The measured call is a real one through the real stubs: hook_cal_stub is
 * a block laid out word for word as hook_layout.h's (through a switch to
 * hook_enter_common, the relocated prologue, back through hook_exit_common)
 * whose relocated prologue is hook_cal_body, a bare ret.  It runs once,
 * before the first patching, while the engine has no site yet.
 */
#include <stdint.h>

#include "hook.h"
#include "hook_int.h"
#include "timing.h"

void hook_cal_stub(void);
void hook_cal_body(void);
void hook_cal_count_entry(void);

/* The switch the stub goes through and the function after it, as a
 * block's, and the region data's addresses of the common stubs. */
__attribute__((used, visibility("hidden"), aligned(16))) uintptr_t hook_cal_sw[2];
__attribute__((used, visibility("hidden"), aligned(16))) uintptr_t hook_cal_common[3];

#define HOOK_CAL_IND(reg, word) \
	"	adrp " reg ", " word "\n" \
	"	ldr " reg ", [" reg ", #:lo12:" word "]\n" \
	"	br " reg "\n"

__asm__(
	".text\n"
	".p2align 4\n"
	".type hook_cal_stub, %function\n"
	"hook_cal_stub:\n"
	HOOK_CAL_IND("x16", "hook_cal_sw")
	".org hook_cal_stub + 12\n"            /* the block's offsets (hook_layout.h) */
	"hook_cal_on:\n"
	HOOK_CAL_IND("x17", "hook_cal_common")
	HOOK_CAL_IND("x17", "hook_cal_common+8")
	"	.word 0\n"
	".org hook_cal_stub + 40\n"
	".type hook_cal_body, %function\n"
	"hook_cal_body:\n"
	"	ret\n"
	".size hook_cal_body, .-hook_cal_body\n"
	"	.fill 5, 4, 0xd4200000\n"
	".org hook_cal_stub + 64\n"
	"hook_cal_counted:\n"
	HOOK_CAL_IND("x17", "hook_cal_common+16")
	".size hook_cal_stub, .-hook_cal_stub\n"
	/* A block's switch leaves x16 = blk + 64 for the count stub. */
	".type hook_cal_count_entry, %function\n"
	"hook_cal_count_entry:\n"
	"	adr x16, hook_cal_counted\n"
	"	b hook_cal_counted\n"
	".size hook_cal_count_entry, .-hook_cal_count_entry\n"
);

/* The address of the stub's "enabled" continuation. */
static uintptr_t hook_cal_on_addr(void)
{
	uintptr_t a;

	__asm__("adr %0, hook_cal_on" : "=r"(a));
	return a;
}

/* See hook_int.h. */
void hook_cal_run(struct hook_engine *g)
{
	if (g->nsites != 0)
		return;                 /* too late: sites may be running */
	hook_cal_sw[0] = hook_cal_on_addr();
	hook_cal_sw[HOOK_SW_FN] = (uintptr_t)hook_cal_body;
	hook_cal_common[0] = (uintptr_t)hook_enter_common;
	hook_cal_common[1] = (uintptr_t)hook_exit_common;
	hook_cal_common[2] = (uintptr_t)hook_count_common;
	tm_calibrate_site(hook_cal_stub, hook_cal_body, (uintptr_t)hook_cal_body);
	tm_calibrate_count(hook_cal_count_entry, hook_cal_body);
}
