/*
 * hook_a64.h - the arm64 back-end's instruction encoders (the few forms the
 * blocks and the relocator write) and its relocator (hook_a64.c), the
 * back-end's plan and sweep ops; the unit test calls them directly.
 */
#ifndef HOOKSCOPE_HOOK_A64_H
#define HOOKSCOPE_HOOK_A64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hook.h"

#define A64_NOP     0xd503201fu
#define A64_ADR_X16_SELF 0x10000010u       /* adr x16, . */
#define A64_BRK0         0xd4200000u       /* brk #0 */
#define A64_MRS_X16_TP   0xd53bd050u       /* mrs x16, tpidr_el0 */
#define A64_X16     16
#define A64_X17     17

/* Relocate the first instruction(s) of the function at addr (size bytes,
 * code = a readable copy or the function itself) so they run at dst (a
 * block's HOOK_BLK_HEAD) and then go on at addr + n: the first instruction
 * for the near entry (a B), the first four for the far one (16 bytes),
 * which is used when far is set or the block is out of the B's reach of
 * addr (p->entry says which): the back-end's plan op.  HOOK_OK or the
 * refusal reason. */
enum hook_why hook_a64_relocate(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    bool far, struct hook_plan *p);
/* Scan the whole function for direct branches into its first n bytes (the
 * back-end's sweep op).  HOOK_OK or HOOK_R_INTO. */
enum hook_why hook_a64_sweep(const uint8_t *code, size_t size, uint64_t addr, size_t n);

/* May insn use x16 or x17 (w16, w17), which the far entry and the
 * relocated forms take as scratch?  Read from the register fields of its
 * class, all of them for a class not known (so never a false no). */
bool a64_may_use_ip(uint32_t insn);

/* Does a signed distance fit in bits (a multiple of 4, as imm bits - 2)? */
static inline bool a64_fits(int64_t d, unsigned bits)
{
	return d >= -((int64_t)1 << (bits - 1)) && d < ((int64_t)1 << (bits - 1));
}

static inline void a64_put(uint8_t *out, uint32_t insn)
{
	memcpy(out, &insn, 4);
}

/* b / bl from pc to to (within +/-128 MB, checked by the caller). */
static inline uint32_t a64_b(uint64_t pc, uint64_t to, bool link)
{
	return (link ? 0x94000000u : 0x14000000u) | (((uint32_t)((int64_t)(to - pc) >> 2)) & 0x3ffffff);
}

/* adrp xd, the page of to (within +/-4 GB of pc's page). */
static inline uint32_t a64_adrp(unsigned rd, uint64_t pc, uint64_t to)
{
	uint32_t pages = (uint32_t)(((int64_t)(to & ~0xfffull) - (int64_t)(pc & ~0xfffull)) >> 12);

	return 0x90000000u | ((pages & 3) << 29) | (((pages >> 2) & 0x7ffff) << 5) | rd;
}

/* ldr xt, [xn, #(to & 0xfff)] (to 8-byte aligned). */
static inline uint32_t a64_ldr_lo12(unsigned rt, unsigned rn, uint64_t to)
{
	return 0xf9400000u | (uint32_t)(((to & 0xfff) >> 3) << 10) | (rn << 5) | rt;
}

/* add xd, xn, #(to & 0xfff) */
static inline uint32_t a64_add_lo12(unsigned rd, unsigned rn, uint64_t to)
{
	return 0x91000000u | (uint32_t)((to & 0xfff) << 10) | (rn << 5) | rd;
}

/* add xd, xn, #imm12, lsl #12 (imm12 < 4096) */
static inline uint32_t a64_add_hi12(unsigned rd, unsigned rn, uint32_t imm12)
{
	return 0x91400000u | ((imm12 & 0xfff) << 10) | (rn << 5) | rd;
}

/* ldr xt, [xn, #off] and str xt, [xn, #off] (off a multiple of 8 below 32 KB) */
static inline uint32_t a64_ldr_off(unsigned rt, unsigned rn, uint32_t off)
{
	return 0xf9400000u | ((off >> 3) << 10) | (rn << 5) | rt;
}

static inline uint32_t a64_str_off(unsigned rt, unsigned rn, uint32_t off)
{
	return 0xf9000000u | ((off >> 3) << 10) | (rn << 5) | rt;
}

/* cbz xt from pc to to (within +/-1 MB) */
static inline uint32_t a64_cbz(unsigned rt, uint64_t pc, uint64_t to)
{
	return 0xb4000000u | (((uint32_t)((int64_t)(to - pc) >> 2) & 0x7ffff) << 5) | rt;
}

/* br xn */
static inline uint32_t a64_br(unsigned rn)
{
	return 0xd61f0000u | (rn << 5);
}

/* ldr xt, pc + off (literal, off a multiple of 4 within +/-1 MB) */
static inline uint32_t a64_ldr_lit(unsigned rt, int32_t off)
{
	return 0x58000000u | (((uint32_t)(off >> 2) & 0x7ffff) << 5) | rt;
}

/* ldr xn, #8; br xn; .quad to: a jump anywhere, 16 bytes (the far entry,
 * an import site's jump, a relocated branch out of B reach). */
static inline void a64_jump_far(uint8_t out[16], unsigned rn, uint64_t to)
{
	a64_put(out, a64_ldr_lit(rn, 8));
	a64_put(out + 4, a64_br(rn));
	memcpy(out + 8, &to, 8);
}

/* Is [a, b) within adrp reach (+/-4 GB, pages)? */
static inline bool a64_adrp_fits(uint64_t pc, uint64_t to)
{
	return a64_fits(((int64_t)(to & ~0xfffull) - (int64_t)(pc & ~0xfffull)) >> 12, 21);
}

#endif
