/*
 * hook_a64.c - relocation of a function's first instructions (arm64).
 *
 * The entry's branch overwrites the first instruction (the near entry, a
 * 4-byte B) or the first four (the far entry, 16 bytes: ldr x16, #8;
 * br x16; .quad blk).  Those are copied to the site's block, fixed for
 * their new address, and followed by the way back to fn + n.  A64 has
 * fixed-width encodings and few PC-relative classes, so no disassembler is
 * needed: every instruction runs the same at another address except those,
 * which are re-encoded from their fields:
 *   - B keeps its form aimed at the original target, or jumps there through
 *     x17 (ldr x17, #8; br x17; .quad target) out of its +/-128 MB; BL
 *     becomes "bl 1f; brk #0; 1: ldr x30, =fn+n; b target" (the same
 *     through x17 out of reach), so the callee returns to the original code
 *     (where unwind information is) rather than into the block, and the
 *     return address stack stays in step (a64_reloc_one);
 *   - B.cond, CBZ/CBNZ and TBZ/TBNZ become the inverted test skipping over
 *     the jump to the target (b.ne over; b target; over:);
 *   - ADR becomes adrp + add, ADRP is re-encoded for its new page (+/-4 GB);
 *     out of that reach both load the address from a literal of the block;
 *   - LDR/LDRSW literal load the address from a literal of the block, then
 *     through it; the SIMD LDR literal does so through x17 (free at a
 *     function's entry, hook_layout.h); PRFM literal, a hint, is dropped.
 * The way back is a B, or the jump through x17 out of its reach.
 * A call (BL, BLR) that does not end the patched bytes is refused: a thread
 * inside its callee while the entry is written would return into the middle
 * of the far entry.  So is a far entry over an instruction that may use x16
 * or x17 (the entry and the relocated forms use them as scratch): a
 * register field holds 16 or 17 (a64_may_use_ip), or a hint uses them
 * implicitly (PACIA1716 and its kin).  A UDF (a zero top half: padding or
 * data, not code) is refused.  The whole
 * function (size from the symbol table) is swept for direct branches into
 * the patched bytes.  Offset 0 counts too: a loop back to the entry (tail
 * recursion turned into a jump) would run the hook once per iteration and
 * count iterations as calls; a BL to it is a real call.  Indirect branches
 * (jump tables) cannot be checked; a compiler never aims one at a
 * function's first instructions.
 */
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

/* See hook_a64.h: the whole function, for direct branches into
 * [addr, addr + n). */
enum hook_why hook_a64_sweep(const uint8_t *code, size_t size, uint64_t addr, size_t n)
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

#define A64_FORM_MAX 36          /* the longest relocated form (bl out of reach) */

/* Emit a jump from q to 'to' at o: a B, or through x17 out of its reach.
 * Its length. */
static size_t a64_jump(uint8_t *o, uint64_t q, uint64_t to)
{
	if (a64_fits((int64_t)(to - q) >> 2, 26)) {
		a64_put(o, a64_b(q, to, false));
		return 4;
	}
	a64_jump_far(o, A64_X17, to);
	return 16;
}

/* BL, BLR, BLRAA(Z), BLRAB(Z)? */
static bool a64_is_call(uint32_t insn)
{
	return (insn & 0xfc000000u) == 0x94000000u || (insn & 0xfefff000u) == 0xd63f0000u;
}

/* The register fields of A64 instructions: Rt/Rd [4:0], Rn [9:5],
 * Rt2/Ra [14:10], Rm/Rs [20:16]. */
#define A64_F_D  (1u << 0)
#define A64_F_N  (1u << 5)
#define A64_F_A  (1u << 10)
#define A64_F_M  (1u << 16)
#define A64_F_ALL (A64_F_D | A64_F_N | A64_F_A | A64_F_M)
#define A64_F_IMPLIED (1u << 31)   /* x16 and x17 used whatever the fields hold */

/* Which fields name a general register, for the classes a function's first
 * instructions are mostly made of (their immediates overlap the other
 * fields); any other instruction is read as if all four did.  First match. */
static const struct {
	uint32_t mask, value, fields;
} a64_reg_fields[] = {
	{ 0xffffff3fu, 0xd503211fu, A64_F_IMPLIED },      /* pacia1716, pacib1716, autia1716, autib1716 */
	{ 0xfffff01fu, 0xd503201fu, 0 },                  /* hints: nop, bti, paciasp, ... */
	{ 0xffd00000u, 0xd5100000u, A64_F_D },            /* mrs, msr (register) */
	{ 0x7c000000u, 0x14000000u, 0 },                  /* b, bl */
	{ 0xff000010u, 0x54000000u, 0 },                  /* b.cond */
	{ 0x7c000000u, 0x34000000u, A64_F_D },            /* cbz, cbnz, tbz, tbnz */
	{ 0xfe000000u, 0xd6000000u, A64_F_D | A64_F_N },  /* br, blr, ret (and their pac forms) */
	{ 0x1f000000u, 0x10000000u, A64_F_D },            /* adr, adrp */
	{ 0x1f000000u, 0x11000000u, A64_F_D | A64_F_N },  /* add, sub (immediate) */
	{ 0x1f800000u, 0x12000000u, A64_F_D | A64_F_N },  /* and, orr, eor (immediate) */
	{ 0x1f800000u, 0x12800000u, A64_F_D },            /* movn, movz, movk */
	{ 0x1f800000u, 0x13000000u, A64_F_D | A64_F_N },  /* bitfield */
	{ 0x3e000000u, 0x2c000000u, A64_F_N },            /* ldp, stp (SIMD) */
	{ 0x3a000000u, 0x28000000u, A64_F_D | A64_F_N | A64_F_A },  /* ldp, stp */
	{ 0x3b000000u, 0x39000000u, A64_F_D | A64_F_N },  /* ldr, str (unsigned offset) */
	{ 0x3b200000u, 0x38000000u, A64_F_D | A64_F_N },  /* ldr, str (imm9: unscaled, pre, post) */
	{ 0x3b000000u, 0x18000000u, A64_F_D },            /* ldr (literal) */
};

/* See hook_a64.h. */
bool a64_may_use_ip(uint32_t insn)
{
	static const unsigned lsb[] = { 0, 5, 10, 16 };
	uint32_t fields = A64_F_ALL;

	for (size_t i = 0; i < sizeof a64_reg_fields / sizeof a64_reg_fields[0]; i++)
		if ((insn & a64_reg_fields[i].mask) == a64_reg_fields[i].value) {
			fields = a64_reg_fields[i].fields;
			break;
		}
	if (fields & A64_F_IMPLIED)
		return true;
	for (size_t i = 0; i < sizeof lsb / sizeof lsb[0]; i++) {
		unsigned r = (insn >> lsb[i]) & 31;

		if ((fields & (1u << lsb[i])) && (r == A64_X16 || r == A64_X17))
			return true;
	}
	return false;
}

/* Emit the relocated form of insn (from pc) at dst + p->len; back is the
 * return address of a call that ends the patched bytes; *ends when the
 * form never falls through.  HOOK_OK or the refusal reason. */
static enum hook_why a64_reloc_one(uint32_t insn, uint64_t pc, uint64_t dst, uint64_t back,
    bool last, struct hook_plan *p, bool *ends)
{
	uint8_t *o = p->out + p->len;
	uint64_t q = dst + p->len, t;
	unsigned rt = insn & 31;
	bool link;

	*ends = false;
	if (a64_is_call(insn) && !last)
		return HOOK_R_CALL;
	if (a64_branch_target(insn, pc, &t, &link)) {
		bool uncond = (insn & 0x7c000000u) == 0x14000000u ||
		    ((insn & 0xff000010u) == 0x54000000u && (insn & 0xe) == 0xe);  /* b.al, b.nv */

		if (uncond && link) {
			/* bl over a brk first: the return address stack gets the
			 * entry the callee's ret pops (x30 set by hand alone left
			 * it one short, and every return above mispredicted); the
			 * brk is where that prediction sends it: speculation stops */
			a64_put(o, a64_b(q, q + 8, true));
			a64_put(o + 4, A64_BRK0);
			o += 8;
			q += 8;
			if (a64_fits((int64_t)(t - (q + 4)) >> 2, 26)) {
				/* ldr x30, lit; b target; lit: .quad back */
				a64_put(o, a64_ldr_lit(30, 8));
				a64_put(o + 4, a64_b(q + 4, t, false));
				memcpy(o + 8, &back, 8);
				p->len += 8 + 16;
			} else {
				/* ldr x30, lit; ldr x17, lit + 8; br x17; lit: .quad back, target */
				a64_put(o, a64_ldr_lit(30, 12));
				a64_put(o + 4, a64_ldr_lit(A64_X17, 16));
				a64_put(o + 8, a64_br(A64_X17));
				memcpy(o + 12, &back, 8);
				memcpy(o + 20, &t, 8);
				p->len += 8 + 28;
			}
		} else if (uncond) {
			p->len += a64_jump(o, q, t);
		} else {
			/* the inverted test skips over the jump to the target */
			size_t jl = a64_jump(o + 4, q + 4, t);
			uint32_t skip = (uint32_t)(4 + jl) >> 2;

			if ((insn & 0xff000010u) == 0x54000000u)                /* b.cond */
				insn ^= 1;
			else                                                    /* cb(n)z, tb(n)z */
				insn ^= 1u << 24;
			if ((insn & 0x7e000000u) == 0x36000000u)                /* tb(n)z: imm14 */
				insn = (insn & ~(0x3fffu << 5)) | (skip << 5);
			else                                                    /* imm19 */
				insn = (insn & ~(0x7ffffu << 5)) | (skip << 5);
			a64_put(o, insn);
			p->len += 4 + jl;
			return HOOK_OK;
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
		if (!a64_adrp_fits(q, t)) {
			/* ldr rt, lit; b over; lit: .quad t; over: */
			a64_put(o, a64_ldr_lit(rt, 8));
			a64_put(o + 4, a64_b(q + 4, q + 16, false));
			memcpy(o + 8, &t, 8);
			p->len += 16;
			return HOOK_OK;
		}
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
		/* ldr base, lit; ldr rt, [base]; b over; lit: .quad t; over: */
		a64_put(o, a64_ldr_lit(base, 12));
		a64_put(o + 4, through[simd][opc] | (base << 5) | rt);
		a64_put(o + 8, a64_b(q + 8, q + 20, false));
		memcpy(o + 12, &t, 8);
		p->len += 20;
		return HOOK_OK;
	}
	a64_put(o, insn);                                         /* not PC-relative */
	p->len += 4;
	return HOOK_OK;
}

/* See hook_a64.h. */
enum hook_why hook_a64_relocate(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    bool far, struct hook_plan *p)
{
	enum hook_why why = HOOK_OK;
	bool ends = false;
	size_t k;

	memset(p, 0, sizeof *p);
	far = far || !a64_fits((int64_t)(dst - HOOK_BLK_HEAD - addr) >> 2, 26);
	p->entry = far ? HOOK_PATCH_MAX : HOOK_PATCH_LEN;
	if (size < p->entry || (addr & 3) || (dst & 3))
		return HOOK_R_SHORT;
	/* Each instruction the entry covers, while one can fall through to it
	 * (after an unconditional branch the rest is reached only by a branch
	 * into the patched bytes: refused below). */
	for (k = 0; why == HOOK_OK && k < p->entry / 4 && !ends; k++) {
		uint32_t insn;

		if (p->len + A64_FORM_MAX > HOOK_RELOC_MAX) {
			why = HOOK_R_BIG;
			break;
		}
		memcpy(&insn, code + 4 * k, 4);
		if ((insn >> 16) == 0) {
			why = HOOK_R_DECODE;            /* udf */
			break;
		}
		if (far && a64_may_use_ip(insn)) {
			why = HOOK_R_INSN;
			break;
		}
		p->bounds.orig[k] = (uint8_t)(4 * k);
		p->bounds.reloc[k] = (uint8_t)p->len;
		p->bounds.n = (uint8_t)(k + 1);
		why = a64_reloc_one(insn, addr + 4 * k, dst, addr + p->entry, k + 1 == p->entry / 4, p,
		    &ends);
	}
	p->n = p->entry;
	if (why == HOOK_OK && !ends) {
		if (p->len + 16 > HOOK_RELOC_MAX)
			return HOOK_R_BIG;
		p->len += a64_jump(p->out + p->len, dst + p->len, addr + p->n);
	}
	return why;
}
