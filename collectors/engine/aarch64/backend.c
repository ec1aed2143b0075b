/*
 * backend.c - the hook engine's arm64 back-end ops (engine/backend.h): the
 * relocator (hook_a64.c), B imm26 patches, the 16-byte absolute jump
 * (ldr x16, #8; br x16; .quad) of import sites, pc in a ucontext, and code
 * copies that keep the instruction cache coherent.  The trampoline blocks
 * and the stubs are hook_tramp.c's, the calibration stub hook_cal.c's.
 *
 * A compiler-reserved entry (-fpatchable-function-entry's first NOP) is
 * swapped live with one aligned 4-byte store (code_swap): the architecture
 * lets a core run a NOP or a B while another rewrites it into the other
 * (ARM ARM, concurrent modification and execution of instructions), so no
 * trap is needed.
 */
#include <elf.h>
#include <string.h>
#include <ucontext.h>

#include "backend.h"
#include "hook_a64.h"

/* b from 'from' to 'to' (the region is within reach: hook_tramp_map). */
static void a64_branch(uint8_t out[HOOK_PATCH_LEN], uintptr_t from, uintptr_t to)
{
	a64_put(out, a64_b(from, to, false));
}

/* ldr x16, #8; br x16; .quad to.  x16 is free where import sites jump
 * (a PLT entry uses it the same way). */
static size_t a64_jump_abs(uint8_t *out, uintptr_t to)
{
	a64_put(out, 0x58000000u | (2u << 5) | A64_X16);
	a64_put(out + 4, a64_br(A64_X16));
	memcpy(out + 8, &to, sizeof to);
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
	.plan          = hook_a64_plan,
	.branch        = a64_branch,
	.jump_abs      = a64_jump_abs,
	.entry_nop     = a64_entry_nop,
	.entry_nops    = a64_entry_nops,
	.trap          = 0,                /* unused: code_swap */
	.code_swap     = a64_code_swap,
	.uc_pc         = a64_uc_pc,
	.uc_set_pc     = a64_uc_set_pc,
	.code_copy     = a64_code_copy,
	.code_store1   = a64_code_store1,
	.rel_jump_slot = R_AARCH64_JUMP_SLOT,
	.rel_glob_dat  = R_AARCH64_GLOB_DAT,
};
