/*
 * hook_x86.c - relocation of a function's first instructions (x86-64).
 *
 * The 5-byte jmp that diverts a function overwrites whole instructions, the
 * first n >= 5 bytes; those are copied to the site's block, fixed for their
 * new address, and followed by a jmp back to fn + n.  Zydis decodes them:
 *   - RIP-relative memory operands get their displacement adjusted;
 *   - jmp/jcc rel8 and rel32 are re-emitted as rel32 forms aimed at the
 *     original target;
 *   - a direct call (it can only end the patched bytes) becomes a call
 *     whose pushed address is replaced by the original return address,
 *     then a jmp, so the callee returns to fn + n in the original code: an
 *     unwinder walking through the callee's caller finds unwind
 *     information there, never the block (which has none), and the return
 *     stack buffer stays in step with the stack (hook_x86_emit);
 *   - loop/jrcxz/xbegin and anything undecodable are refused, and so is a
 *     call that does not end the patched bytes (a thread inside its callee at
 *     patch time would return into the middle of the jmp) and an indirect
 *     call (its operand may be relative to rsp);
 *   - the whole function (size from the symbol table) is checked for direct
 *     branches into the patched bytes.  Offset 0 counts too: a loop back to
 *     the entry (tail recursion turned into a jump) would run the hook once
 *     per iteration and count iterations as calls.  Decoding every
 *     instruction of a program's thousand exported functions would cost more
 *     than the rest of the patch, so a byte filter runs first
 *     (hook_x86_candidates): read at every byte offset, as if an instruction
 *     started there, the direct-branch encodings give a superset of the
 *     function's branch targets.  Only when one lands in the patched bytes is
 *     the function decoded, and only up to that candidate; a call of the
 *     entry is allowed (a recursive call through the hook), so it is none.
 * Indirect branches (jump tables) cannot be checked; gcc never aims one at
 * the first bytes of a function, whose entry is before any dispatch.
 */
#include <emmintrin.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "hook_x86.h"

/* What the relocator needs of one decoded instruction. */
struct x86_insn {
	uint64_t       address;
	const uint8_t *bytes;
	uint8_t        size;
	ZydisMnemonic  id;
	bool           direct;        /* a branch or call with a relative immediate */
	uint64_t       target;        /* its target */
	int8_t         rip_disp;      /* offset of a RIP-relative disp32, -1: none */
	bool           odd_ip;        /* memory relative to eip (0x67), or rip without a disp32 */
};

/* The decoders, set up once (plans are made one at a time, under the
 * engine's lock): full for the instructions a patch covers, minimal (the
 * length, mnemonic and raw fields) for the sweep. */
static ZydisDecoder x86_full, x86_minimal;
static bool x86_ready;

static bool x86_decoders(void)
{
	if (!x86_ready) {
		if (!ZYAN_SUCCESS(ZydisDecoderInit(&x86_full, ZYDIS_MACHINE_MODE_LONG_64,
		    ZYDIS_STACK_WIDTH_64)))
			return false;
		x86_minimal = x86_full;
		if (!ZYAN_SUCCESS(ZydisDecoderEnableMode(&x86_minimal, ZYDIS_DECODER_MODE_MINIMAL,
		    ZYAN_TRUE)))
			return false;
		x86_ready = true;
	}
	return true;
}

/* Decode the instruction at code (left bytes readable) that runs at addr;
 * with operands, its memory operand's base when the ModRM byte can make it
 * relative to the instruction pointer (the operands are decoded only
 * then).  False when it does not decode. */
static bool x86_decode(const uint8_t *code, size_t left, uint64_t addr, bool operands,
    struct x86_insn *in)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!x86_decoders() || !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
	    operands ? &x86_full : &x86_minimal, &ctx, code, left, &zi)))
		return false;
	in->address = addr;
	in->bytes = code;
	in->size = zi.length;
	in->id = zi.mnemonic;
	in->direct = zi.raw.imm[0].is_relative;
	in->target = addr + zi.length + (uint64_t)zi.raw.imm[0].value.s;
	in->rip_disp = -1;
	in->odd_ip = false;
	/* mod 00, r/m 101: [rip + disp32] (or [eip + disp32] after 0x67) */
	if (!operands || !(zi.attributes & ZYDIS_ATTRIB_HAS_MODRM) || zi.raw.modrm.mod != 0 ||
	    zi.raw.modrm.rm != 5)
		return true;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&x86_full, &ctx, &zi, ops, zi.operand_count)))
		return false;
	for (uint8_t i = 0; i < zi.operand_count; i++) {
		if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		if (ops[i].mem.base == ZYDIS_REGISTER_RIP && zi.raw.disp.size == 32)
			in->rip_disp = (int8_t)zi.raw.disp.offset;
		else if (ops[i].mem.base == ZYDIS_REGISTER_RIP || ops[i].mem.base == ZYDIS_REGISTER_EIP)
			in->odd_ip = true;
	}
	return true;
}

/* A signed 64-bit distance as rel32; false when out of range. */
static bool hook_x86_rel32(int64_t d, int32_t *out)
{
	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*out = (int32_t)d;
	return true;
}

/* The longest x86 instruction. */
#define X86_INSN_MAX 15

/* The byte filter's reading of offset j as a direct branch's opcode (see
 * hook_x86_candidates): last, or the offset just past the branch when it
 * is one aimed into the first n bytes. */
static inline size_t hook_x86_candidate(const uint8_t *code, size_t size, size_t n, size_t j,
    size_t last)
{
	uint8_t op = code[j];
	size_t imm_at, imm_len;
	int64_t rel;
	uint64_t off;

	if (op == 0xe8 || op == 0xe9) {
		imm_at = j + 1, imm_len = 4;
	} else if (op == 0xeb || (op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) {
		imm_at = j + 1, imm_len = 1;
	} else if (op == 0x0f && j + 1 < size && code[j + 1] >= 0x80 && code[j + 1] <= 0x8f) {
		imm_at = j + 2, imm_len = 4;
	} else if (op == 0xc7 && j + 1 < size && code[j + 1] == 0xf8) {
		imm_at = j + 2, imm_len = 4;
	} else {
		return last;
	}
	if (imm_at + imm_len > size)
		return last;
	if (imm_len == 1) {
		rel = (int8_t)code[imm_at];
	} else {
		int32_t r32;

		memcpy(&r32, code + imm_at, 4);
		rel = r32;
	}
	/* unsigned wrap: a target below addr compares as huge.  A call of
	 * offset 0 is a recursive call, which the sweep allows: real or
	 * misread, it needs no sweep (most candidates of a program's text). */
	off = (uint64_t)((int64_t)(imm_at + imm_len) + rel);
	if (off < n && !(op == 0xe8 && off == 0))
		return imm_at + imm_len;
	return last;
}

/*
 * The byte filter: read every offset of the function as the opcode of a
 * direct branch with a relative immediate (jmp/call rel32, jmp rel8,
 * jcc rel8/rel32, loop/jrcxz rel8, xbegin rel32; prefixes only precede the
 * opcode, and the immediate ends the instruction, so a prefixed form is
 * found at its opcode) and compute its target, as an offset into the
 * function.  Every real direct branch is among these candidates.  Returns
 * the offset just past the furthest candidate aimed into the first n bytes,
 * 0 when there is none: the exact sweep need not look further.
 *
 * A rel8 form reaches back at most 126 bytes past its own offset, so past
 * n + 126 only the rel32 forms' opcodes (e8, e9, 0f, c7) can be
 * candidates: there sixteen bytes are compared at once (SSE2, in every
 * x86-64) and only their matches read.  A program's whole text goes
 * through here when the engine starts (python3: 3 MB), where a byte at a
 * time was the largest part of planning.
 */
static size_t hook_x86_candidates(const uint8_t *code, size_t size, size_t n)
{
	const __m128i e8 = _mm_set1_epi8((char)0xe8), e9 = _mm_set1_epi8((char)0xe9);
	const __m128i of = _mm_set1_epi8(0x0f), c7 = _mm_set1_epi8((char)0xc7);
	size_t last = 0, j = 0, near = n + 128 < size ? n + 128 : size;

	for (; j < near; j++)
		last = hook_x86_candidate(code, size, n, j, last);
	for (; j + 16 <= size; j += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(code + j));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(v, e8), _mm_cmpeq_epi8(v, e9)),
		    _mm_or_si128(_mm_cmpeq_epi8(v, of), _mm_cmpeq_epi8(v, c7))));

		for (; m != 0; m &= m - 1)
			last = hook_x86_candidate(code, size, n, j + (size_t)__builtin_ctz(m), last);
	}
	for (; j < size; j++)
		last = hook_x86_candidate(code, size, n, j, last);
	return last;
}

/* Sweep the function's first size bytes for direct branches into
 * [addr, addr + n); decoding stops at limit (an instruction that starts
 * before limit is decoded whole: size reaches X86_INSN_MAX past it). */
static enum hook_why hook_x86_sweep(const uint8_t *code, size_t size, size_t limit, uint64_t addr,
    size_t n)
{
	struct x86_insn in;

	for (size_t off = 0; off < size && off < limit; off += in.size) {
		if (!x86_decode(code + off, size - off, addr + off, false, &in))
			return HOOK_R_DECODE;
		/* a call to the function's own start is a real recursive
		 * call through the hook, not a loop: allowed */
		if (in.direct && in.target >= addr && in.target < addr + n &&
		    !(in.target == addr && in.id == ZYDIS_MNEMONIC_CALL))
			return HOOK_R_INTO;
	}
	return HOOK_OK;
}

/* Append one relocated instruction (originally at in->address) to p->out,
 * where it will run at dst + p->len. */
static enum hook_why hook_x86_emit(const struct x86_insn *in, uint64_t dst, size_t n_end,
    uint64_t addr, struct hook_plan *p)
{
	uint64_t here = dst + p->len;
	uint8_t buf[32];
	size_t len = 0;
	int32_t rel;

	switch (in->id) {
	case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE: case ZYDIS_MNEMONIC_LOOPNE:
	case ZYDIS_MNEMONIC_JRCXZ: case ZYDIS_MNEMONIC_JECXZ: case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_XBEGIN:
		return HOOK_R_INSN;
	default:
		break;
	}
	if (in->odd_ip)
		return HOOK_R_INSN;
	if (in->id == ZYDIS_MNEMONIC_CALL && in->address + in->size != addr + n_end)
		return HOOK_R_CALL;
	if (in->id == ZYDIS_MNEMONIC_CALL && in->direct) {
		/* A call of the next-but-one byte, then the original return
		 * address (fn + n, code with unwind info) over the one it
		 * pushed, then a jmp: unwinders and returns never see the
		 * block, and the return stack buffer gets the entry the
		 * callee's ret pops.  A push + jmp would leave it one entry
		 * short: the callee's return, the function's own through the
		 * block and every one above it would each be mispredicted,
		 * where now only the callee's is.  The int3 after the call is
		 * where that prediction sends the callee's return: speculation
		 * stops there.  (A call of the very next byte is not taken
		 * for a call by the predictor on some cores.) */
		uint64_t ret = in->address + in->size;
		uint32_t lo = (uint32_t)ret, hi = (uint32_t)(ret >> 32);

		memcpy(buf + len, (const uint8_t[]){ 0xe8, 0x01, 0x00, 0x00, 0x00, 0xcc }, 6);
		len += 6;                       /* call 1f; int3; 1: */
		memcpy(buf + len, (const uint8_t[]){ 0xc7, 0x04, 0x24 }, 3);
		len += 3;                       /* movl $lo, (%rsp) */
		memcpy(buf + len, &lo, 4);
		len += 4;
		memcpy(buf + len, (const uint8_t[]){ 0xc7, 0x44, 0x24, 0x04 }, 4);
		len += 4;                       /* movl $hi, 4(%rsp) */
		memcpy(buf + len, &hi, 4);
		len += 4;
		buf[len++] = 0xe9;              /* jmp target */
		if (!hook_x86_rel32((int64_t)(in->target - (here + len + 4)), &rel))
			return HOOK_R_RANGE;
		memcpy(buf + len, &rel, 4);
		len += 4;
	} else if (in->id == ZYDIS_MNEMONIC_CALL) {
		return HOOK_R_CALL;             /* indirect: its operand may use rsp */
	} else if (in->direct) {
		if (in->id == ZYDIS_MNEMONIC_JMP) {
			buf[len++] = 0xe9;
		} else {
			/* jcc: condition code from either encoding (a prefix,
			 * such as a branch hint, is dropped) */
			size_t at = 0;
			uint8_t op;

			while (at + 1 < in->size && (in->bytes[at] == 0x2e || in->bytes[at] == 0x3e ||
			    in->bytes[at] == 0xf2))
				at++;
			op = in->bytes[at] == 0x0f ? in->bytes[at + 1] : in->bytes[at];
			if (!((op >= 0x70 && op <= 0x7f) || (op >= 0x80 && op <= 0x8f)))
				return HOOK_R_INSN;
			buf[len++] = 0x0f;
			buf[len++] = (uint8_t)(0x80 | (op & 0x0f));
		}
		if (!hook_x86_rel32((int64_t)(in->target - (here + len + 4)), &rel))
			return HOOK_R_RANGE;
		memcpy(buf + len, &rel, 4);
		len += 4;
	} else {
		memcpy(buf, in->bytes, in->size);
		len = in->size;
		if (in->rip_disp >= 0) {
			int32_t disp;

			/* same length, so the end moves as the start does */
			memcpy(&disp, in->bytes + in->rip_disp, 4);
			if (!hook_x86_rel32((int64_t)disp + (int64_t)(in->address - here), &rel))
				return HOOK_R_RANGE;
			memcpy(buf + in->rip_disp, &rel, 4);
		}
	}
	if (p->len + len > sizeof p->out)
		return HOOK_R_BIG;
	memcpy(p->out + p->len, buf, len);
	p->len += len;
	return HOOK_OK;
}

/* See hook_x86.h. */
enum hook_why hook_x86_check(const uint8_t *code, size_t size, uint64_t addr, size_t n)
{
	size_t limit = hook_x86_candidates(code, size, n);

	if (limit == 0)
		return HOOK_OK;
	return hook_x86_sweep(code, limit + X86_INSN_MAX < size ? limit + X86_INSN_MAX : size,
	    limit, addr, n);
}

/* See hook_x86.h. */
enum hook_why hook_x86_relocate(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    struct hook_plan *p)
{
	/* the instructions the patch covers (each is at least a byte) */
	struct x86_insn ins[HOOK_PATCH_LEN];
	size_t ninsn = 0;
	enum hook_why why = HOOK_OK;
	int32_t rel;

	memset(p, 0, sizeof *p);
	p->entry = HOOK_PATCH_LEN;
	if (size < HOOK_PATCH_LEN)
		return HOOK_R_SHORT;
	while (p->n < HOOK_PATCH_LEN) {
		if (!x86_decode(code + p->n, size - p->n, addr + p->n, true, &ins[ninsn])) {
			why = HOOK_R_DECODE;
			goto out;
		}
		p->n += ins[ninsn++].size;
	}
	/* Emit them. */
	for (size_t k = 0; k < ninsn; k++) {
		p->bounds.orig[k] = (uint8_t)(ins[k].address - addr);
		p->bounds.reloc[k] = (uint8_t)p->len;
		p->bounds.n = (uint8_t)(k + 1);
		why = hook_x86_emit(&ins[k], dst, p->n, addr, p);
		if (why != HOOK_OK)
			goto out;
	}
	/* A relocated call ends the patched bytes and returns to fn + n
	 * itself: nothing comes back to the copy. */
	if (ins[ninsn - 1].id == ZYDIS_MNEMONIC_CALL)
		goto out;
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
