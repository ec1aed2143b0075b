/*
 * test-hook-x86.c - the prologue relocator of the hook engine
 * (collectors/hook_x86.c) on hand-written x86-64 byte sequences: a
 * RIP-relative load, a rel8 jcc turned into rel32, a call rel32 made a call
 * with the original return address put over the pushed one and a jmp, and
 * the refusals (a branch back into the patched bytes, a call in their middle,
 * jrcxz, too short, out of reach), plus relocated prologues that really run;
 * every direct-branch encoding aimed into the patched bytes found however far
 * into the function, and on the exported functions of libc and Debian's
 * python3 the relocator's verdict equal to a plain sweep of every
 * instruction, and its plans decoded as capstone (an independent decoder)
 * decodes them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>
#include <capstone/capstone.h>

#include "elf-funcs.h"
#include "hook_x86.h"

/* The engine's two steps at once: the relocation (planned for every
 * function) and the sweep (asked before a site's first branch). */
static enum hook_why test_plan(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    struct hook_plan *p)
{
	enum hook_why why = hook_x86_relocate(code, size, addr, dst, p);

	return why == HOOK_OK ? hook_x86_check(code, size, addr, p->n) : why;
}

#define FN   0x400000ull          /* where the fake function "is" */
#define DST  0x401010ull          /* where its relocated prologue runs */

/* The rel32 at out[at], as the absolute address it aims at (next = end of
 * the instruction in the relocated copy). */
static uint64_t test_target(const struct hook_plan *p, size_t at, size_t next)
{
	int32_t rel;

	memcpy(&rel, p->out + at, 4);
	return DST + next + (int64_t)rel;
}

/* mov rax, [rip+0x10]; ret: the displacement follows the move. */
static void test_rip_relative(void **state)
{
	static const uint8_t code[] = { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00, 0xc3 };
	struct hook_plan p;

	(void)state;
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
	assert_int_equal(p.n, 7);
	assert_int_equal(p.len, 7 + 5);
	assert_memory_equal(p.out, code, 3);
	/* same memory operand: FN + 7 + 0x10 */
	assert_true(test_target(&p, 3, 7) == FN + 7 + 0x10);
	assert_int_equal(p.out[7], 0xe9);
	assert_true(test_target(&p, 8, 12) == FN + 7);
}

/* test edi,edi; je +0x10; xor eax,eax; ...: the je becomes 0f 84 rel32. */
static void test_jcc_rel8(void **state)
{
	uint8_t code[0x20];
	struct hook_plan p;

	(void)state;
	memset(code, 0x90, sizeof code);
	memcpy(code, (const uint8_t[]){ 0x85, 0xff, 0x74, 0x10, 0x31, 0xc0, 0xc3 }, 7);
	code[0x14] = 0xc3;
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
	assert_int_equal(p.n, 6);
	assert_int_equal(p.len, 2 + 6 + 2 + 5);
	assert_int_equal(p.out[2], 0x0f);
	assert_int_equal(p.out[3], 0x84);
	assert_true(test_target(&p, 4, 8) == FN + 4 + 0x10);
	assert_int_equal(p.out[8], 0x31);
	assert_true(test_target(&p, 11, 15) == FN + 6);
}

/* call rel32 as the whole patched region: a call of the byte past an int3
 * (the return stack buffer's entry), the original return address (FN + 5)
 * over the pushed one, a jmp to the same callee, and no jmp back. */
static void test_call_rel32(void **state)
{
	static const uint8_t code[] = { 0xe8, 0x00, 0x01, 0x00, 0x00, 0xc3 };
	static const uint8_t call_next[] = { 0xe8, 0x01, 0x00, 0x00, 0x00, 0xcc };
	struct hook_plan p;
	uint32_t lo, hi;

	(void)state;
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
	assert_int_equal(p.n, 5);
	assert_memory_equal(p.out, call_next, sizeof call_next);     /* call 1f; int3; 1: */
	assert_memory_equal(p.out + 6, ((const uint8_t[]){ 0xc7, 0x04, 0x24 }), 3);
	memcpy(&lo, p.out + 9, 4);                                    /* movl $lo, (%rsp) */
	assert_int_equal(lo, (uint32_t)(FN + 5));
	assert_memory_equal(p.out + 13, ((const uint8_t[]){ 0xc7, 0x44, 0x24, 0x04 }), 4);
	memcpy(&hi, p.out + 17, 4);                                   /* movl $hi, 4(%rsp) */
	assert_int_equal(hi, (uint32_t)((uint64_t)(FN + 5) >> 32));
	assert_int_equal(p.out[21], 0xe9);
	assert_true(test_target(&p, 22, 26) == FN + 5 + 0x100);
	assert_int_equal(p.len, 26);
}

/* push rbp; mov rbp,rsp; nop; ...; jmp back to byte 1: refused. */
static void test_jump_into_prologue(void **state)
{
	uint8_t code[0x20];
	struct hook_plan p;

	(void)state;
	memset(code, 0x90, sizeof code);
	memcpy(code, (const uint8_t[]){ 0x55, 0x48, 0x89, 0xe5 }, 4);
	code[0x10] = 0xeb;                  /* jmp rel8 from 0x12 to 0x01 */
	code[0x11] = (uint8_t)(0x01 - 0x12);
	code[0x12] = 0xc3;
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_R_INTO);
	/* a loop back to the entry is refused too (it would count iterations) */
	code[0x11] = (uint8_t)(0x00 - 0x12);
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_R_INTO);
	/* a recursive call to the entry is fine */
	memcpy(code + 0x10, (const uint8_t[]){ 0xe8, 0xeb, 0xff, 0xff, 0xff, 0xc3 }, 6);
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
}

/* The other refusals, each with its reason. */
static void test_refusals(void **state)
{
	static const uint8_t call_mid[] = { 0xff, 0xd0, 0x90, 0x90, 0x90, 0xc3 };
	static const uint8_t jrcxz[] = { 0x31, 0xc0, 0xe3, 0x10, 0x90, 0x90, 0x90, 0x90,
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3 };
	static const uint8_t shorty[] = { 0x31, 0xc0, 0xc3 };
	static const uint8_t far_call[] = { 0xe8, 0x00, 0x00, 0x00, 0x70, 0xc3 };
	struct hook_plan p;

	(void)state;
	assert_int_equal(test_plan(call_mid, sizeof call_mid, FN, DST, &p), HOOK_R_CALL);
	assert_int_equal(test_plan(jrcxz, sizeof jrcxz, FN, DST, &p), HOOK_R_INSN);
	assert_int_equal(test_plan(shorty, sizeof shorty, FN, DST, &p), HOOK_R_SHORT);
	/* callee 1.75 GB above FN, block 2.5 GB below FN: out of rel32 reach */
	assert_int_equal(test_plan(far_call, sizeof far_call, 0x100000000ull, 0x60000000ull, &p),
	    HOOK_R_RANGE);
	assert_string_equal(hook_why_name(HOOK_R_INTO), "branch into the patched bytes");
}

/* A real prologue relocated into executable memory and run:
 *   lea rax, [rip+k] (pointing at a value); mov eax, [rax]; ret
 * The relocated copy must read the same value. */
static void test_runs(void **state)
{
	uint8_t *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const uint8_t fn[] = { 0x48, 0x8d, 0x05, 0xf9, 0x0f, 0x00, 0x00, /* lea rax,[rip+0xff9] */
		0x8b, 0x00, 0xc3 };                                          /* mov eax,[rax]; ret */
	struct hook_plan p;
	int (*f)(void);

	(void)state;
	assert_true(m != MAP_FAILED);
	memcpy(m, fn, sizeof fn);
	*(int32_t *)(m + 7 + 0xff9) = 4242;          /* at m + 0x1000 */
	assert_int_equal(test_plan(m, sizeof fn, (uintptr_t)m, (uintptr_t)m + 0x200, &p), HOOK_OK);
	assert_int_equal(p.n, 7);
	memcpy(m + 0x200, p.out, p.len);
	f = (int (*)(void))(uintptr_t)m;
	assert_int_equal(f(), 4242);
	f = (int (*)(void))(uintptr_t)(m + 0x200);   /* relocated lea, jmp back to mov */
	assert_int_equal(f(), 4242);

	/* call callee; ret -- relocated as call / m+5 over its address / jmp:
	 * the callee returns into the original code (m + 5: ret), never into
	 * the block */
	static const uint8_t caller[] = { 0xe8, 0xfb, 0x00, 0x00, 0x00, 0xc3 }; /* call m+0x100 */
	static const uint8_t callee[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3 }; /* mov $42,%eax; ret */
	memcpy(m, caller, sizeof caller);
	memcpy(m + 0x100, callee, sizeof callee);
	assert_int_equal(test_plan(m, sizeof caller, (uintptr_t)m, (uintptr_t)m + 0x200, &p), HOOK_OK);
	memcpy(m + 0x200, p.out, p.len);
	assert_int_equal(f(), 42);
	munmap(m, 8192);
}

/* Each direct-branch encoding, far into a function, aimed at byte 2 of
 * the patched ones: refused, whatever its prefixes. */
static void test_branch_forms(void **state)
{
	static const struct { uint8_t op[3]; size_t oplen, immlen; } forms[] = {
		{ { 0xe9 }, 1, 4 },             /* jmp rel32 */
		{ { 0xf2, 0xe9 }, 2, 4 },       /* bnd jmp rel32 */
		{ { 0x0f, 0x85 }, 2, 4 },       /* jne rel32 */
		{ { 0x3e, 0x0f, 0x84 }, 3, 4 }, /* ds je rel32 */
		{ { 0x74 }, 1, 1 },             /* je rel8 */
		{ { 0xeb }, 1, 1 },             /* jmp rel8 */
	};
	uint8_t code[0x400];
	struct hook_plan p;

	(void)state;
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		/* rel8 forms sit within reach of the entry; rel32 ones far away */
		size_t at = forms[f].immlen == 1 ? 0x40 : 0x3f0 - forms[f].oplen;
		size_t end = at + forms[f].oplen + forms[f].immlen;
		int32_t rel = (int32_t)(2 - (int64_t)end);

		memset(code, 0x90, sizeof code);
		memcpy(code, (const uint8_t[]){ 0x55, 0x48, 0x89, 0xe5 }, 4);
		code[sizeof code - 1] = 0xc3;
		memcpy(code + at, forms[f].op, forms[f].oplen);
		if (forms[f].immlen == 1)
			code[at + forms[f].oplen] = (uint8_t)(int8_t)rel;
		else
			memcpy(code + at + forms[f].oplen, &rel, 4);
		assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_R_INTO);
		/* aimed past the patched bytes: fine */
		rel += 0x20;
		if (forms[f].immlen == 1)
			code[at + forms[f].oplen] = (uint8_t)(int8_t)rel;
		else
			memcpy(code + at + forms[f].oplen, &rel, 4);
		assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
	}
}

/* A rel8 branch at the furthest offset that reaches the patched bytes
 * (rel -128 aimed at their last byte) is found, wherever the filter stops
 * reading rel8 forms; one byte further on it lands past them. */
static void test_branch_rel8_reach(void **state)
{
	uint8_t code[0x400];
	struct hook_plan p;

	(void)state;
	memset(code, 0x90, sizeof code);
	memcpy(code, (const uint8_t[]){ 0x55, 0x48, 0x89, 0xe5 }, 4);  /* n = 5 with one nop */
	code[sizeof code - 1] = 0xc3;
	code[130] = 0x74;                     /* je: ends at 132, 132 - 128 = 4 */
	code[131] = 0x80;
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_R_INTO);
	memset(code + 130, 0x90, 2);
	code[131] = 0x74;                     /* ends at 133: 5, past the patched bytes */
	code[132] = 0x80;
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
}

/* Bytes that read as a jmp into the prologue but sit inside another
 * instruction's immediate (movabs rax, imm64) are no branch: accepted. */
static void test_branch_lookalike(void **state)
{
	uint8_t code[0x40];
	int32_t rel = (int32_t)(1 - (0x12 + 5));  /* "jmp" at 0x12 aimed at byte 1 */
	struct hook_plan p;

	(void)state;
	memset(code, 0x90, sizeof code);
	memcpy(code, (const uint8_t[]){ 0x55, 0x48, 0x89, 0xe5 }, 4);
	memcpy(code + 0x10, (const uint8_t[]){ 0x48, 0xb8, 0xe9 }, 3);  /* movabs rax, ... */
	memcpy(code + 0x13, &rel, 4);
	memset(code + 0x17, 0, 3);
	code[sizeof code - 1] = 0xc3;
	assert_int_equal(test_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
}

/* The plain sweep the relocator's byte filter stands in for: every
 * instruction decoded, INTO at the first direct branch into [0, n) other
 * than a call to the entry; -1 when an instruction does not decode. */
static int test_plain_sweep(csh h, const uint8_t *code, size_t size, uint64_t addr, size_t n)
{
	cs_insn *in = cs_malloc(h);
	const uint8_t *c = code;
	uint64_t a = addr;
	int r = 0;

	while (size > 0 && r == 0) {
		if (!cs_disasm_iter(h, &c, &size, &a, in)) {
			r = -1;
			break;
		}
		for (uint8_t g = 0; g < in->detail->groups_count; g++) {
			const cs_x86 *x = &in->detail->x86;
			uint64_t t;

			if (in->detail->groups[g] != CS_GRP_JUMP && in->detail->groups[g] != CS_GRP_CALL)
				continue;
			if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
				break;
			t = (uint64_t)x->operands[0].imm;
			if (t >= addr && t < addr + n && !(t == addr && in->id == X86_INS_CALL))
				r = 1;
			break;
		}
	}
	cs_free(in, 1);
	return r;
}

/* Capstone's reading of the instructions a plan covers: their lengths
 * are the plan's bounds, and a RIP-relative operand, moved with its
 * instruction, still reaches the same address.  Returns how many
 * RIP-relative operands it checked. */
static size_t test_plan_decodes_as_capstone(csh h, const uint8_t *code, size_t size, uint64_t addr,
    uint64_t dst, const struct hook_plan *p)
{
	cs_insn *in = cs_malloc(h);
	const uint8_t *c = code;
	uint64_t a = addr;
	size_t rip = 0;

	for (size_t k = 0; k < p->bounds.n; k++) {
		const cs_x86 *x = &in->detail->x86;
		bool branch = false;

		assert_true(cs_disasm_iter(h, &c, &size, &a, in));
		if (p->bounds.orig[k] != in->address - addr)
			fail_msg("%#lx: instruction %zu at +%u, capstone +%lu", (unsigned long)addr, k,
			    p->bounds.orig[k], (unsigned long)(in->address - addr));
		for (uint8_t g = 0; g < in->detail->groups_count; g++)
			branch |= in->detail->groups[g] == CS_GRP_JUMP || in->detail->groups[g] == CS_GRP_CALL;
		if (branch)
			continue;       /* re-encoded: test_branch_forms */
		for (int i = 0; i < x->op_count; i++) {
			int32_t moved;

			if (x->operands[i].type != X86_OP_MEM || x->operands[i].mem.base != X86_REG_RIP)
				continue;
			/* always a disp32 (capstone 4 says 2 after a 0x66 prefix) */
			assert_true(x->encoding.disp_offset + 4u <= in->size);
			memcpy(&moved, p->out + p->bounds.reloc[k] + x->encoding.disp_offset, 4);
			if (dst + p->bounds.reloc[k] + in->size + (uint64_t)(int64_t)moved !=
			    in->address + in->size + (uint64_t)x->operands[i].mem.disp)
				fail_msg("%#lx: RIP-relative operand moved to the wrong address",
				    (unsigned long)in->address);
			rip++;
		}
	}
	cs_free(in, 1);
	return rip;
}

/* What the comparison over a binary's functions found. */
struct test_agree {
	csh    h;
	size_t compared, into, planned, rip;
};

/* One function: where the plain sweep decodes it whole, it and the
 * relocator agree on "branch into the patched bytes"; a plan made decodes
 * as capstone decodes it. */
static void test_func_agrees(const uint8_t *code, size_t size, uint64_t addr, void *arg)
{
	struct test_agree *t = arg;
	uint64_t dst = addr + 0x100000;
	struct hook_plan p;
	enum hook_why why = test_plan(code, size, addr, dst, &p);
	int plain;

	if (why == HOOK_OK) {
		t->rip += test_plan_decodes_as_capstone(t->h, code, size, addr, dst, &p);
		t->planned++;
	}
	if (why == HOOK_R_DECODE || why == HOOK_R_SHORT)
		return;
	plain = test_plain_sweep(t->h, code, size, addr, p.n);
	if (plain < 0)
		return;
	if ((plain == 1) != (why == HOOK_R_INTO))
		fail_msg("function at %#lx: plain sweep %d, relocator %s", (unsigned long)addr, plain,
		    hook_why_name(why));
	t->compared++;
	t->into += plain == 1;
}

/* The exported functions of the first of paths that opens, each held to
 * capstone (test_func_agrees): capstone is the independent reading, the
 * relocator uses Zydis. */
static void test_binary_agrees(const char *const *paths, size_t npaths, const char *label)
{
	struct test_agree t = { 0 };

	assert_true(cs_open(CS_ARCH_X86, CS_MODE_64, &t.h) == CS_ERR_OK);
	cs_option(t.h, CS_OPT_DETAIL, CS_OPT_ON);
	test_elf_funcs(paths, npaths, 5, test_func_agrees, &t);
	cs_close(&t.h);
	/* thousands of exported functions: the comparison was real */
	assert_true(t.compared > 1000);
	assert_true(t.planned > 1000);
	assert_true(t.rip > 100);
	print_message("%s: %zu functions compared, %zu with a branch into their first bytes; "
	    "%zu plans decode as capstone does (%zu RIP-relative operands)\n",
	    label, t.compared, t.into, t.planned, t.rip);
}

static void test_libc_agrees(void **state)
{
	static const char *const libc[] = { "/lib/x86_64-linux-gnu/libc.so.6",
	    "/usr/lib/x86_64-linux-gnu/libc.so.6" };

	(void)state;
	test_binary_agrees(libc, 2, "libc");
}

/* Debian's python3: a program nobody here wrote, 1,445 exported functions. */
static void test_python_agrees(void **state)
{
	static const char *const py[] = { "/usr/bin/python3.11" };

	(void)state;
	test_binary_agrees(py, 1, "python3.11");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rip_relative),
		cmocka_unit_test(test_jcc_rel8),
		cmocka_unit_test(test_call_rel32),
		cmocka_unit_test(test_jump_into_prologue),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_branch_forms),
		cmocka_unit_test(test_branch_rel8_reach),
		cmocka_unit_test(test_branch_lookalike),
		cmocka_unit_test(test_libc_agrees),
		cmocka_unit_test(test_python_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
