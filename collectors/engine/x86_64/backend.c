/*
 * backend.c - the hook engine's x86-64 back-end ops (engine/backend.h):
 * the relocator (hook_x86.c), jmp rel32 patches, the absolute jump of
 * import sites, the NOPs compilers reserve at function entry, int3, rip in
 * a ucontext, and code copies past the sanitizers.  The trampoline blocks
 * and the stubs are hook_tramp.c's; the calibration block hook_cal.c's.
 */
#include <assert.h>
#include <elf.h>
#include <string.h>
#include <ucontext.h>

#include "backend.h"
#include "hook_x86.h"

/* jmp rel32 from 'from' to 'to' (the only entry form). */
static void x86_branch(uint8_t *out, uintptr_t from, uintptr_t to, size_t len)
{
	int32_t rel = (int32_t)((intptr_t)to - (intptr_t)(from + HOOK_PATCH_LEN));

	assert(len == HOOK_PATCH_LEN);
	out[0] = 0xe9;
	memcpy(out + 1, &rel, 4);
}

/* jmp *0(%rip); .quad to */
static size_t x86_jump_abs(uint8_t *out, uintptr_t to)
{
	out[0] = 0xff;
	out[1] = 0x25;
	memset(out + 2, 0, 4);
	memcpy(out + 6, &to, sizeof to);
	return 14;
}

/* clang -fpatchable-function-entry=5, gcc -pg -mfentry -mnop-mcount:
 * nopl disp8(%rax,%rax,1), 0f 1f 44 00 xx. */
static bool x86_entry_nop(const uint8_t *p)
{
	static const uint8_t nop5[4] = { 0x0f, 0x1f, 0x44, 0x00 };   /* + any disp8 */

	return memcmp(p, nop5, sizeof nop5) == 0;
}

/* gcc -fpatchable-function-entry=5: five 1-byte NOPs. */
static bool x86_entry_nops(const uint8_t *p)
{
	static const uint8_t nop1x5[5] = { 0x90, 0x90, 0x90, 0x90, 0x90 };

	return memcmp(p, nop1x5, sizeof nop1x5) == 0;
}

static uintptr_t x86_uc_pc(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
}

static void x86_uc_set_pc(void *uc, uintptr_t pc)
{
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
}

/* The XSAVE area the kernel put in the frame: 512 bytes of FXSAVE, or
 * the extended size its software-reserved bytes give (magic1 first). */
static void x86_uc_vec(const void *uc, uintptr_t *lo, uintptr_t *hi)
{
	const uint8_t *fp = (const uint8_t *)((const ucontext_t *)uc)->uc_mcontext.fpregs;
	uint32_t magic, size = 512;

	*lo = *hi = (uintptr_t)fp;
	if (fp == NULL)
		return;
	memcpy(&magic, fp + 464, 4);            /* struct _fpx_sw_bytes */
	if (magic == 0x46505853u)               /* FP_XSTATE_MAGIC1 */
		memcpy(&size, fp + 468, 4);     /* extended_size */
	*hi = *lo + size;
}

/* rep movsb: no call the compiler could turn into memcpy. */
static void x86_code_copy(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/* A plain store is a release on x86-64 (TSO); the asm is the compiler
 * barrier and keeps the sanitizers off it. */
static void x86_code_store1(void *dst, uint8_t v)
{
	__asm__ volatile("movb %1, (%0)" : : "r"(dst), "q"(v) : "memory");
}

const struct hook_backend hook_backend = {
	.arch          = "x86-64",
	.plan          = hook_x86_relocate,
	.sweep         = hook_x86_check,
	.branch        = x86_branch,
	.jump_abs      = x86_jump_abs,
	.entry_nop     = x86_entry_nop,
	.entry_nops    = x86_entry_nops,
	.trap          = 0xcc,             /* int3 */
	.code_swap     = NULL,             /* 5 bytes: the trap protocol */
	.uc_pc         = x86_uc_pc,
	.uc_set_pc     = x86_uc_set_pc,
	.uc_vec        = x86_uc_vec,
	.code_copy     = x86_code_copy,
	.code_store1   = x86_code_store1,
	.cal_fn        = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3 },   /* nopl 0(%rax,%rax,1); ret */
	.cal_fn_len    = 6,
	.rel_jump_slot = R_X86_64_JUMP_SLOT,
	.rel_glob_dat  = R_X86_64_GLOB_DAT,
};
