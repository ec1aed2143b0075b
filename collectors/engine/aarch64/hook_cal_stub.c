/*
 * hook_cal_stub.c - the arm64 calibration stub (the engine's hook_cal.c runs
 * it): a block laid out word for word as hook_layout.h's (through a switch
 * to hook_enter_common, the relocated prologue, back through
 * hook_exit_common) whose relocated prologue is hook_cal_body, a bare ret.
 * hook_cal_count enters its counted path with x16 set as a block's switch
 * leaves it.
 */
#define HOOK_CAL_IND(reg, word) \
	"	adrp " reg ", " word "\n" \
	"	ldr " reg ", [" reg ", #:lo12:" word "]\n" \
	"	br " reg "\n"

__asm__(
	".text\n"
	".p2align 4\n"
	".globl hook_cal_stub, hook_cal_on, hook_cal_body, hook_cal_count\n"
	".hidden hook_cal_stub, hook_cal_on, hook_cal_body, hook_cal_count\n"
	".type hook_cal_stub, %function\n"
	"hook_cal_stub:\n"
	HOOK_CAL_IND("x16", "hook_cal_sw")
	".org hook_cal_stub + 12\n"            /* the block's offsets (hook_layout.h) */
	"hook_cal_on:\n"
	"	adr x16, hook_cal_on\n"
	HOOK_CAL_IND("x17", "hook_cal_common")
	".org hook_cal_stub + 28\n"
	HOOK_CAL_IND("x17", "hook_cal_common+8")
	".org hook_cal_stub + 40\n"
	".type hook_cal_body, %function\n"
	"hook_cal_body:\n"
	"	ret\n"
	".size hook_cal_body, .-hook_cal_body\n"
	".org hook_cal_stub + 64\n"
	"hook_cal_count:\n"
	"	adr x16, hook_cal_count\n"
	HOOK_CAL_IND("x17", "hook_cal_common+16")
	"	.word 0\n"
	".size hook_cal_stub, .-hook_cal_stub\n"
);
