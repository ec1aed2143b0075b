/*
 * hook_x86.c - relocation of a function's first instructions (x86-64).
 *
 * The 5-byte jmp that diverts a function overwrites whole instructions, the
 * first n >= 5 bytes; those are copied to the site's block, fixed for their
 * new address, and followed by a jmp back to fn + n.  With capstone:
 *   - RIP-relative memory operands get their displacement adjusted;
 *   - jmp/jcc rel8 and rel32 are re-emitted as rel32 forms aimed at the
 *     original target;
 *   - a direct call (it can only end the patched bytes) becomes push of the
 *     original return address + jmp, so the callee returns to fn + n in the
 *     original code: an unwinder walking through the callee's caller finds
 *     unwind information there, never the block (which has none);
 *   - loop/jrcxz/xbegin and anything undecodable are refused, and so is a
 *     call that does not end the patched bytes (a thread inside its callee at
 *     patch time would return into the middle of the jmp) and an indirect
 *     call (its operand may be relative to rsp);
 *   - the whole function (size from the symbol table) is checked for direct
 *     branches into the patched bytes.  Offset 0 counts too: a loop back to
 *     the entry (tail recursion turned into a jump) would run the hook once
 *     per iteration and count iterations as calls.  Disassembling every
 *     instruction costs ~0.3 us each (capstone formats its text), which for
 *     a program's thousand exported functions was most of the agent's start
 *     up; so a byte filter runs first (hook_x86_candidates): read at every
 *     byte offset, as if an instruction started there, the direct-branch
 *     encodings give a superset of the function's branch targets.  Only when
 *     one lands in the patched bytes does capstone sweep the function, and
 *     only up to that candidate.
 * Indirect branches (jump tables) cannot be checked; gcc never aims one at
 * the first bytes of a function, whose entry is before any dispatch.
 */
#include <string.h>
#include <capstone/capstone.h>

#include "hook_x86.h"

/* A signed 64-bit distance as rel32; false when out of range. */
static bool hook_x86_rel32(int64_t d, int32_t *out)
{
	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*out = (int32_t)d;
	return true;
}

/* Is this a direct branch or call with an immediate target? */
static bool hook_x86_direct(const cs_insn *in, uint64_t *target)
{
	const cs_x86 *x = &in->detail->x86;
	bool branch = false;

	for (uint8_t i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == CS_GRP_JUMP || in->detail->groups[i] == CS_GRP_CALL)
			branch = true;
	if (!branch)
		return false;
	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)x->operands[0].imm;
	return true;
}

/* The longest x86 instruction. */
#define X86_INSN_MAX 15

/*
 * The byte filter: read every offset of the function as the opcode of a
 * direct branch with a relative immediate (jmp/call rel32, jmp rel8,
 * jcc rel8/rel32, loop/jrcxz rel8, xbegin rel32; prefixes only precede the
 * opcode, and the immediate ends the instruction, so a prefixed form is
 * found at its opcode) and compute its target, as an offset into the
 * function.  Every real direct branch is
 * among these candidates.  Returns the offset just past the furthest
 * candidate aimed into the first n bytes, 0 when there is none: the exact
 * sweep need not look further.
 */
static size_t hook_x86_candidates(const uint8_t *code, size_t size, size_t n)
{
	size_t last = 0;

	for (size_t j = 0; j < size; j++) {
		uint8_t op = code[j];
		size_t imm_at, imm_len;
		int64_t rel;

		if (op == 0xe8 || op == 0xe9) {
			imm_at = j + 1, imm_len = 4;
		} else if (op == 0xeb || (op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) {
			imm_at = j + 1, imm_len = 1;
		} else if (op == 0x0f && j + 1 < size && code[j + 1] >= 0x80 && code[j + 1] <= 0x8f) {
			imm_at = j + 2, imm_len = 4;
		} else if (op == 0xc7 && j + 1 < size && code[j + 1] == 0xf8) {
			imm_at = j + 2, imm_len = 4;
		} else {
			continue;
		}
		if (imm_at + imm_len > size)
			continue;
		if (imm_len == 1) {
			rel = (int8_t)code[imm_at];
		} else {
			int32_t r32;

			memcpy(&r32, code + imm_at, 4);
			rel = r32;
		}
		/* unsigned wrap: a target below addr compares as huge */
		if ((uint64_t)((int64_t)(imm_at + imm_len) + rel) < n)
			last = imm_at + imm_len;
	}
	return last;
}

/* Sweep the function's first size bytes for direct branches into
 * [addr, addr + n); decoding stops at limit (an instruction that starts
 * before limit is decoded whole: size reaches X86_INSN_MAX past it). */
static enum hook_why hook_x86_sweep(csh h, cs_insn *in, const uint8_t *code, size_t size,
    size_t limit, uint64_t addr, size_t n)
{
	const uint8_t *p = code;
	size_t left = size;
	uint64_t a = addr, t;
	enum hook_why why = HOOK_OK;

	while (left > 0 && a - addr < limit) {
		if (!cs_disasm_iter(h, &p, &left, &a, in)) {
			why = HOOK_R_DECODE;
			break;
		}
		/* a call to the function's own start is a real recursive
		 * call through the hook, not a loop: allowed */
		if (hook_x86_direct(in, &t) && t >= addr && t < addr + n &&
		    !(t == addr && in->id == X86_INS_CALL)) {
			why = HOOK_R_INTO;
			break;
		}
	}
	return why;
}

/* Append one relocated instruction (originally at in->address) to p->out,
 * where it will run at dst + p->len. */
static enum hook_why hook_x86_emit(const cs_insn *in, uint64_t dst, size_t n_end, uint64_t addr,
    struct hook_plan *p)
{
	const cs_x86 *x = &in->detail->x86;
	uint64_t here = dst + p->len, target;
	uint8_t buf[32];
	size_t len = 0;
	int32_t rel;

	switch (in->id) {
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
	case X86_INS_JRCXZ: case X86_INS_JECXZ: case X86_INS_JCXZ:
	case X86_INS_XBEGIN:
		return HOOK_R_INSN;
	default:
		break;
	}
	if (in->id == X86_INS_CALL && in->address + in->size != addr + n_end)
		return HOOK_R_CALL;
	if (in->id == X86_INS_CALL && hook_x86_direct(in, &target)) {
		/* push the original return address (fn + n, code with unwind
		 * info), then jmp: unwinders and returns never see the block */
		uint64_t ret = in->address + in->size;
		uint32_t lo = (uint32_t)ret, hi = (uint32_t)(ret >> 32);

		buf[len++] = 0x68;              /* push $lo (sign-extended) */
		memcpy(buf + len, &lo, 4);
		len += 4;
		memcpy(buf + len, (const uint8_t[]){ 0xc7, 0x44, 0x24, 0x04 }, 4);
		len += 4;                       /* movl $hi, 4(%rsp) */
		memcpy(buf + len, &hi, 4);
		len += 4;
		buf[len++] = 0xe9;              /* jmp target */
		if (!hook_x86_rel32((int64_t)(target - (here + len + 4)), &rel))
			return HOOK_R_RANGE;
		memcpy(buf + len, &rel, 4);
		len += 4;
	} else if (in->id == X86_INS_CALL) {
		return HOOK_R_CALL;             /* indirect: its operand may use rsp */
	} else if (hook_x86_direct(in, &target)) {
		if (in->id == X86_INS_JMP) {
			buf[len++] = 0xe9;
		} else {
			/* jcc: condition code from either encoding */
			uint8_t op = in->bytes[0] == 0x0f ? in->bytes[1] : in->bytes[0];

			if (!((op >= 0x70 && op <= 0x7f) || (op >= 0x80 && op <= 0x8f)))
				return HOOK_R_INSN;
			buf[len++] = 0x0f;
			buf[len++] = (uint8_t)(0x80 | (op & 0x0f));
		}
		if (!hook_x86_rel32((int64_t)(target - (here + len + 4)), &rel))
			return HOOK_R_RANGE;
		memcpy(buf + len, &rel, 4);
		len += 4;
	} else {
		memcpy(buf, in->bytes, in->size);
		len = in->size;
		for (int i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];
			int64_t d;

			if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP)
				continue;
			/* same length, so the end moves as the start does */
			d = (int64_t)op->mem.disp + (int64_t)(in->address - here);
			if (x->encoding.disp_size != 4 || !hook_x86_rel32(d, &rel))
				return HOOK_R_RANGE;
			memcpy(buf + x->encoding.disp_offset, &rel, 4);
		}
	}
	if (p->len + len > sizeof p->out)
		return HOOK_R_BIG;
	memcpy(p->out + p->len, buf, len);
	p->len += len;
	return HOOK_OK;
}

/* The capstone handle and instructions, made once and kept: a new handle
 * builds its instruction-id cache on its first instruction (tens of
 * microseconds, more than the rest of a plan).  ins[k] holds the k-th
 * instruction the patch covers (each is at least a byte), decoded once for
 * both the length and the emitting; ins[HOOK_PATCH_LEN] is the sweep's.
 * Plans are made one at a time, under the engine's lock. */
static bool hook_x86_handle(csh *h, cs_insn ***ins)
{
	static csh cs;
	static cs_insn *kept[HOOK_PATCH_LEN + 1];
	static bool open;

	if (!open) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
			return false;
		cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
		for (size_t k = 0; k <= HOOK_PATCH_LEN; k++)
			if ((kept[k] = cs_malloc(cs)) == NULL)
				return false;   /* capstone aborts on no memory: not reached */
		open = true;
	}
	*h = cs;
	*ins = kept;
	return true;
}

/* See hook.h. */
enum hook_why hook_x86_plan(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    struct hook_plan *p)
{
	csh h;
	cs_insn **ins;
	const uint8_t *c = code;
	size_t left = size, ninsn = 0, limit;
	uint64_t a = addr;
	enum hook_why why = HOOK_OK;
	int32_t rel;

	memset(p, 0, sizeof *p);
	p->entry = HOOK_PATCH_LEN;
	if (size < HOOK_PATCH_LEN)
		return HOOK_R_SHORT;
	if (!hook_x86_handle(&h, &ins))
		return HOOK_R_DECODE;
	/* The instructions the patch covers. */
	while (p->n < HOOK_PATCH_LEN) {
		if (!cs_disasm_iter(h, &c, &left, &a, ins[ninsn])) {
			why = HOOK_R_DECODE;
			goto out;
		}
		p->n += ins[ninsn++]->size;
	}
	limit = hook_x86_candidates(code, size, p->n);
	if (limit > 0) {
		size_t upto = limit + X86_INSN_MAX < size ? limit + X86_INSN_MAX : size;

		why = hook_x86_sweep(h, ins[HOOK_PATCH_LEN], code, upto, limit, addr, p->n);
	}
	if (why != HOOK_OK)
		goto out;
	/* Emit them. */
	for (size_t k = 0; k < ninsn; k++) {
		const cs_insn *in = ins[k];

		p->bounds.orig[k] = (uint8_t)(in->address - addr);
		p->bounds.reloc[k] = (uint8_t)p->len;
		p->bounds.n = (uint8_t)(k + 1);
		why = hook_x86_emit(in, dst, p->n, addr, p);
		if (why != HOOK_OK)
			goto out;
	}
	if (p->len + 5 > sizeof p->out) {
		why = HOOK_R_BIG;
		goto out;
	}
	if (!hook_x86_rel32((int64_t)((addr + p->n) - (dst + p->len + 5)), &rel)) {
		why = HOOK_R_RANGE;
		goto out;
	}
	p->out[p->len++] = 0xe9;
	memcpy(p->out + p->len, &rel, 4);
	p->len += 4;
out:
	if (why != HOOK_OK)
		p->len = 0;
	return why;
}
