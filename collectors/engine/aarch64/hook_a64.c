/*
 * hook_a64.c - relocation of a function's first instruction (arm64).
 *
 * The 4-byte B that diverts a function overwrites its first instruction;
 * that one is copied to the site's block, fixed for its new address, and
 * followed by a B back to fn + 4.  Capstone decodes it (an instruction it
 * cannot decode is refused); the PC-relative classes are re-encoded from
 * their fields:
 *   - B and BL keep their form aimed at the original target (the region is
 *     within their +/-128 MB of the whole module); BL becomes
 *     "ldr x30, =fn+4; b target", so the callee returns to the original code
 *     (where unwind information is) rather than into the block;
 *   - B.cond, CBZ/CBNZ and TBZ/TBNZ are inverted into a skip over
 *     "b fn+4; b target";
 *   - ADR becomes adrp + add, ADRP is re-encoded for its new page (+/-4 GB);
 *   - LDR/LDRSW literal load the address from a literal of the block, then
 *     through it; the SIMD LDR literal does so through x17 (free at a
 *     function's entry, hook_layout.h); PRFM literal, a hint, is dropped.
 * The whole function (size from the symbol table) is swept for direct
 * branches into the patched bytes.  Offset 0 counts too: a loop back to the
 * entry (tail recursion turned into a jump) would run the hook once per
 * iteration and count iterations as calls; a BL to it is a real call.
 * Indirect branches (jump tables) cannot be checked; a compiler never aims
 * one at a function's entry.
 */
#include <capstone/capstone.h>

#include "hook_a64.h"

/* Sign-extend the bits-wide field of insn at lsb, times 4. */
static int64_t a64_imm(uint32_t insn, unsigned lsb, unsigned bits)
{
	int64_t v = (int64_t)((insn >> lsb) & ((1u << bits) - 1));

	return ((int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits)) * 4;
}

/* The target of a direct branch (B, BL, B.cond, CB(N)Z, TB(N)Z) at pc. */
static bool a64_branch_target(uint32_t insn, uint64_t pc, uint64_t *t, bool *link)
{
	*link = false;
	if ((insn & 0x7c000000u) == 0x14000000u) {             /* b, bl */
		*link = (insn >> 31) != 0;
		*t = pc + (uint64_t)a64_imm(insn, 0, 26);
	} else if ((insn & 0xff000010u) == 0x54000000u ||       /* b.cond */
	    (insn & 0x7e000000u) == 0x34000000u) {              /* cbz, cbnz */
		*t = pc + (uint64_t)a64_imm(insn, 5, 19);
	} else if ((insn & 0x7e000000u) == 0x36000000u) {       /* tbz, tbnz */
		*t = pc + (uint64_t)a64_imm(insn, 5, 14);
	} else
		return false;
	return true;
}

/* Sweep the whole function for direct branches into [addr, addr + n). */
static enum hook_why a64_sweep(const uint8_t *code, size_t size, uint64_t addr, size_t n)
{
	for (size_t off = 0; off + 4 <= size; off += 4) {
		uint32_t insn;
		uint64_t t;
		bool link;

		memcpy(&insn, code + off, 4);
		if (a64_branch_target(insn, addr + off, &t, &link) && t >= addr && t < addr + n &&
		    !(t == addr && link))
			return HOOK_R_INTO;
	}
	return HOOK_OK;
}

/* Emit the relocated form of insn (from pc) at dst + p->len; *ends when it
 * already branched back to back.  HOOK_OK or the refusal reason. */
static enum hook_why a64_reloc_one(uint32_t insn, uint64_t pc, uint64_t dst, uint64_t back,
    struct hook_plan *p, bool *ends)
{
	uint8_t *o = p->out + p->len;
	uint64_t q = dst + p->len, t;
	unsigned rt = insn & 31;
	bool link;

	*ends = false;
	if (a64_branch_target(insn, pc, &t, &link)) {
		bool uncond = (insn & 0x7c000000u) == 0x14000000u;
		size_t at = uncond ? (link ? 4 : 0) : 8;        /* where the b target goes */

		if (!a64_fits((int64_t)(t - (q + at)) >> 2, 26) || !a64_fits((int64_t)(back - (q + 4)) >> 2, 26))
			return HOOK_R_RANGE;
		if (uncond && link) {
			/* ldr x30, lit; b target; lit: .quad back */
			a64_put(o, 0x58000000u | (2u << 5) | 30);
			a64_put(o + 4, a64_b(q + 4, t, false));
			memcpy(o + 8, &back, 8);
			p->len += 16;
		} else if (uncond) {
			a64_put(o, a64_b(q, t, false));
			p->len += 4;
		} else {
			/* the same test skipping one instruction: taken -> b target */
			if ((insn & 0x7e000000u) == 0x36000000u)        /* tb(n)z: imm14 */
				insn = (insn & ~(0x3fffu << 5)) | (2u << 5);
			else                                            /* imm19 */
				insn = (insn & ~(0x7ffffu << 5)) | (2u << 5);
			a64_put(o, insn);
			a64_put(o + 4, a64_b(q + 4, back, false));
			a64_put(o + 8, a64_b(q + 8, t, false));
			p->len += 12;
		}
		*ends = true;
		return HOOK_OK;
	}
	if ((insn & 0x1f000000u) == 0x10000000u) {                /* adr, adrp */
		int64_t imm = (int64_t)((((insn >> 5) & 0x7ffff) << 2) | ((insn >> 29) & 3));

		imm = (int64_t)((uint64_t)imm << 43) >> 43;
		if (insn >> 31)
			t = (pc & ~0xfffull) + (uint64_t)(imm * 4096);
		else
			t = pc + (uint64_t)imm;
		if (!a64_adrp_fits(q, t))
			return HOOK_R_RANGE;
		a64_put(o, a64_adrp(rt, q, t));
		p->len += 4;
		if (!(insn >> 31)) {
			a64_put(o + 4, a64_add_lo12(rt, rt, t));
			p->len += 4;
		}
		return HOOK_OK;
	}
	if ((insn & 0x3b000000u) == 0x18000000u) {                /* ldr literal */
		unsigned opc = insn >> 30, simd = (insn >> 26) & 1, base = simd ? A64_X17 : rt;
		static const uint32_t through[2][3] = {
			{ 0xb9400000u, 0xf9400000u, 0xb9800000u },   /* ldr wt, ldr xt, ldrsw xt */
			{ 0xbd400000u, 0xfd400000u, 0x3dc00000u },   /* ldr st, dt, qt */
		};

		t = pc + (uint64_t)a64_imm(insn, 5, 19);
		if (opc == 3) {
			if (simd)
				return HOOK_R_INSN;
			return HOOK_OK;                         /* prfm: a hint, dropped */
		}
		/* ldr base, lit; ldr rt, [base]; b back; lit: .quad t */
		a64_put(o, 0x58000000u | (3u << 5) | base);
		a64_put(o + 4, through[simd][opc] | (base << 5) | rt);
		a64_put(o + 8, a64_b(q + 8, back, false));
		memcpy(o + 12, &t, 8);
		if (!a64_fits((int64_t)(back - (q + 8)) >> 2, 26))
			return HOOK_R_RANGE;
		p->len += 20;
		*ends = true;
		return HOOK_OK;
	}
	a64_put(o, insn);                                         /* not PC-relative */
	p->len += 4;
	return HOOK_OK;
}

/* See hook_a64.h. */
enum hook_why hook_a64_plan(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    struct hook_plan *p)
{
	enum hook_why why = HOOK_OK;
	bool ends = false;
	cs_insn *in = NULL;
	csh h;

	p->n = p->len = 0;
	/* one instruction: a stopped thread is at its start or outside it */
	memset(&p->bounds, 0, sizeof p->bounds);
	p->bounds.n = 1;
	if (size < HOOK_PATCH_LEN || (addr & 3) || (dst & 3))
		return HOOK_R_SHORT;
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &h) != CS_ERR_OK)
		return HOOK_R_DECODE;
	while (why == HOOK_OK && p->n < HOOK_PATCH_LEN) {
		uint32_t insn;

		if (cs_disasm(h, code + p->n, 4, addr + p->n, 1, &in) != 1) {
			why = HOOK_R_DECODE;
			break;
		}
		cs_free(in, 1);
		memcpy(&insn, code + p->n, 4);
		why = a64_reloc_one(insn, addr + p->n, dst, addr + HOOK_PATCH_LEN, p, &ends);
		p->n += 4;
	}
	cs_close(&h);
	if (why == HOOK_OK)
		why = a64_sweep(code, size, addr, p->n);
	if (why == HOOK_OK && !ends) {
		uint64_t q = dst + p->len;

		if (!a64_fits((int64_t)(addr + p->n - q) >> 2, 26))
			return HOOK_R_RANGE;
		a64_put(p->out + p->len, a64_b(q, addr + p->n, false));
		p->len += 4;
	}
	return why;
}
