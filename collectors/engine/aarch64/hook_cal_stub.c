/*
 * hook_cal_stub.c - the arm64 calibration stub (the engine's hook_cal.c runs
 * it): a block laid out word for word as hook_layout.h's (through a switch
 * to hook_enter_common, the relocated prologue, back through
 * hook_exit_common) whose relocated prologue is hook_cal_body, a bare ret.
 * hook_cal_count enters its counted path with x16 set as a block's switch
 * leaves it.
 */
#include "hook_layout.h"

#define HOOK_CAL_STR(x) HOOK_CAL_STR_(x)
#define HOOK_CAL_STR_(x) #x
#define HOOK_CAL_AT(off) ".org hook_cal_stub + " HOOK_CAL_STR(off) "\n"
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
	HOOK_CAL_AT(HOOK_BLK_ON)               /* the block's offsets (hook_layout.h) */
	"hook_cal_on:\n"
	"	adr x16, hook_cal_on\n"
	HOOK_CAL_IND("x17", "hook_cal_common")
	HOOK_CAL_AT(HOOK_BLK_RET)
	HOOK_CAL_IND("x17", "hook_cal_common+8")
	HOOK_CAL_AT(HOOK_BLK_COUNT)
	"hook_cal_count:\n"
	"	adr x16, hook_cal_count\n"
	HOOK_CAL_IND("x17", "hook_cal_common+16")
	HOOK_CAL_AT(HOOK_BLK_INDEX)
	"	.word 0\n"
	HOOK_CAL_AT(HOOK_BLK_HEAD)
	".type hook_cal_body, %function\n"
	"hook_cal_body:\n"
	"	ret\n"
	".size hook_cal_body, .-hook_cal_body\n"
	".size hook_cal_stub, .-hook_cal_stub\n"
);
