/*
 * hook_cal.c - calibration of the hook engine's site path: what a timed call
 * through the stubs costs, inside and outside the call's measured interval,
 * so self times of engine sites are corrected with their own figures
 * (timing.c, tm_calibrate_site) rather than the -finstrument-functions ones.
 *
 * The measured call is a real one through the real stubs: hook_cal_stub is
 * a block laid out byte for byte as hook.h's (jmp through a switch, call
 * hook_enter_common, pop the slot, call the "relocated prologue", jmp to
 * hook_exit_common, the index) whose relocated prologue is hook_cal_body, a
 * bare ret; the call returns through hook_exit_common like any timed site.
 * The counted path is measured the same way, the switch pointing at the
 * block's counted entry (hook_cal_counted, +64).  It
 * runs once, before the first patching, while the engine has no site yet.
 */
#include <stdint.h>

#include "hook.h"
#include "hook_int.h"
#include "timing.h"

void hook_cal_stub(void);
void hook_cal_body(void);
void hook_cal_counted(void);

/* The switch the stub jumps through and the function after it, as a
 * block's (always "on"), and the region data's addresses of the common
 * stubs. */
__attribute__((used, visibility("hidden"))) uintptr_t hook_cal_sw[2];
__attribute__((used, visibility("hidden"))) uintptr_t hook_cal_common[3];

__asm__(
	".text\n"
	".type hook_cal_stub, @function\n"
	"hook_cal_stub:\n"
	"	jmp *hook_cal_sw(%rip)\n"
	"hook_cal_on:\n"
	"	call *hook_cal_common(%rip)\n"
	"	leaq 8(%rsp), %rsp\n"
	"	call hook_cal_body\n"
	"	jmp *hook_cal_common+8(%rip)\n"
	"	.long 0\n"
	".type hook_cal_body, @function\n"
	"hook_cal_body:\n"
	"	ret\n"
	".size hook_cal_body, .-hook_cal_body\n"
	"	.fill 31, 1, 0xcc\n"
	"hook_cal_counted:\n"
	"	call *hook_cal_common+16(%rip)\n"
	"	.byte 0xe9\n"
	"	.long hook_cal_body - . - 4\n"
	".size hook_cal_stub, .-hook_cal_stub\n"
	".if hook_cal_on - hook_cal_stub - 6 || hook_cal_body - hook_cal_stub - 32 || "
	"hook_cal_counted - hook_cal_stub - 64\n"
	".error \"hook_cal_stub is not laid out as a block (hook.h)\"\n"
	".endif\n"
);

/* The address of the stub's "enabled" continuation (after its jmp). */
static uintptr_t hook_cal_on_addr(void)
{
	uintptr_t a;

	__asm__("leaq hook_cal_on(%%rip), %0" : "=r"(a));
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
	/* The counted path as a site takes it: through the block's switch. */
	hook_cal_sw[0] = (uintptr_t)hook_cal_counted;
	tm_calibrate_count(hook_cal_stub, hook_cal_body);
}
