/*
 * hook_cal_stub.c - the x86-64 calibration stub (the engine's hook_cal.c
 * runs it): a block laid out byte for byte as hook_layout.h's (jmp through a
 * switch, call hook_enter_common, pop the slot, call the "relocated
 * prologue", jmp to hook_exit_common, the index) whose relocated prologue is
 * hook_cal_body, a bare ret; the call returns through hook_exit_common like
 * any timed site.  hook_cal_count is its counted path.
 */
__asm__(
	".text\n"
	".globl hook_cal_stub, hook_cal_on, hook_cal_body, hook_cal_count\n"
	".hidden hook_cal_stub, hook_cal_on, hook_cal_body, hook_cal_count\n"
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
	"hook_cal_count:\n"
	"	call *hook_cal_common+16(%rip)\n"
	"	.byte 0xe9\n"
	"	.long hook_cal_body - . - 4\n"
	".size hook_cal_stub, .-hook_cal_stub\n"
	".if hook_cal_on - hook_cal_stub - 6 || hook_cal_body - hook_cal_stub - 32 || "
	"hook_cal_count - hook_cal_stub - 64\n"
	".error \"hook_cal_stub is not laid out as a block (hook_layout.h)\"\n"
	".endif\n"
);
