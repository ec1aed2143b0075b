/*
 * backend.c - the hook engine's arm64 back-end ops (engine/backend.h): the
 * relocator (hook_a64.c), the entries (a B imm26, or the 16-byte far form
 * ldr x16, #8; br x16; .quad, which is also the absolute jump of import
 * sites), pc in a ucontext, and code copies that keep the instruction
 * cache coherent.
 *
 * HOOKSCOPE_A64_FAR=1 in the target's environment gives every relocated
 * site the far entry even where a B reaches its block: the far path's
 * test (tests/arm64/engine-far.sh), and a way round a suspected problem
 * with the near one.  The trampoline blocks
 * and the stubs are hook_tramp.c's; the calibration block hook_cal.c's.
 *
 * A compiler-reserved entry (-fpatchable-function-entry's first NOP) is
 * swapped live with one aligned 4-byte store (code_swap): the architecture
 * lets a core run a NOP or a B while another rewrites it into the other
 * (ARM ARM, concurrent modification and execution of instructions), so no
 * trap is needed.
 */
#include <assert.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "backend.h"
#include "hook_a64.h"

/* The relocator, with the far entry forced by HOOKSCOPE_A64_FAR=1. */
static enum hook_why a64_plan(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    struct hook_plan *p)
{
	static int forced = -1;

	if (forced < 0) {
		const char *e = getenv("HOOKSCOPE_A64_FAR");

		forced = e != NULL && strcmp(e, "1") == 0;
	}
	return hook_a64_relocate(code, size, addr, dst, forced == 1, p);
}

/* The near entry, b from 'from' to 'to' (within reach: the plan chose it),
 * or the far one through x16 (free at a function's entry, hook_layout.h). */
static void a64_branch(uint8_t *out, uintptr_t from, uintptr_t to, size_t len)
{
	assert(len == HOOK_PATCH_LEN || len == HOOK_PATCH_MAX);
	if (len == HOOK_PATCH_MAX)
		a64_jump_far(out, A64_X16, to);
	else
		a64_put(out, a64_b(from, to, false));
}

/* ldr x16, #8; br x16; .quad to.  x16 is free where import sites jump
 * (a PLT entry uses it the same way). */
static size_t a64_jump_abs(uint8_t *out, uintptr_t to)
{
	a64_jump_far(out, A64_X16, to);
	return 16;
}

static bool a64_entry_nop(const uint8_t *p)
{
	uint32_t insn;

	memcpy(&insn, p, 4);
	return insn == A64_NOP && ((uintptr_t)p & 3) == 0;
}

/* Every reserved entry is one instruction. */
static bool a64_entry_nops(const uint8_t *p)
{
	(void)p;
	return false;
}

/* NOP <-> B in one single-copy-atomic store, then the caches (the engine's
 * membarrier(SYNC_CORE) follows for every core). */
static void a64_code_swap(void *dst, const uint8_t code[HOOK_PATCH_LEN])
{
	uint32_t insn;

	memcpy(&insn, code, 4);
	__atomic_store_n((uint32_t *)dst, insn, __ATOMIC_RELEASE);
	__builtin___clear_cache((char *)dst, (char *)dst + 4);
}

static uintptr_t a64_uc_pc(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc;
}

static void a64_uc_set_pc(void *uc, uintptr_t pc)
{
	((ucontext_t *)uc)->uc_mcontext.pc = pc;
}

/* The records after the general registers (FP/SIMD, SVE: all vector
 * state, and the extension records' headers). */
static void a64_uc_vec(const void *uc, uintptr_t *lo, uintptr_t *hi)
{
	const mcontext_t *m = &((const ucontext_t *)uc)->uc_mcontext;

	*lo = (uintptr_t)m->__reserved;
	*hi = *lo + sizeof m->__reserved;
}

/* A byte loop (no call the compiler could turn into memcpy), then the
 * caches: written code must be cleaned to the point of unification and the
 * stale instructions invalidated before any thread runs it (a copy out of
 * code pays the same maintenance on its buffer, harmlessly). */
static void a64_code_copy(void *dst, const void *src, size_t n)
{
	volatile uint8_t *d = dst;
	const volatile uint8_t *s = src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	__builtin___clear_cache((char *)dst, (char *)dst + n);
}

static void a64_code_store1(void *dst, uint8_t v)
{
	__atomic_store_n((uint8_t *)dst, v, __ATOMIC_RELEASE);
	__builtin___clear_cache((char *)dst, (char *)dst + 1);
}

const struct hook_backend hook_backend = {
	.arch          = "arm64",
	.plan          = a64_plan,
	.sweep         = hook_a64_sweep,
	.branch        = a64_branch,
	.jump_abs      = a64_jump_abs,
	.entry_nop     = a64_entry_nop,
	.entry_nops    = a64_entry_nops,
	.trap          = 0,                /* unused: code_swap */
	.code_swap     = a64_code_swap,
	.uc_pc         = a64_uc_pc,
	.uc_set_pc     = a64_uc_set_pc,
	.uc_vec        = a64_uc_vec,
	.code_copy     = a64_code_copy,
	.code_store1   = a64_code_store1,
	.cal_fn        = { 0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6 },   /* nop; ret */
	.cal_fn_len    = 8,
	.rel_jump_slot = R_AARCH64_JUMP_SLOT,
	.rel_glob_dat  = R_AARCH64_GLOB_DAT,
};
