/*
 * test-hook-x86.c - the prologue relocator of the hook engine
 * (collectors/hook_x86.c) on hand-written x86-64 byte sequences: a
 * RIP-relative load, a rel8 jcc turned into rel32, a call rel32 made a push
 * of the original return address and a jmp, and
 * the refusals (a branch back into the patched bytes, a call in their middle,
 * jrcxz, too short, out of reach), plus relocated prologues that really run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>

#include "hook_x86.h"

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
	assert_int_equal(hook_x86_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
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
	assert_int_equal(hook_x86_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
	assert_int_equal(p.n, 6);
	assert_int_equal(p.len, 2 + 6 + 2 + 5);
	assert_int_equal(p.out[2], 0x0f);
	assert_int_equal(p.out[3], 0x84);
	assert_true(test_target(&p, 4, 8) == FN + 4 + 0x10);
	assert_int_equal(p.out[8], 0x31);
	assert_true(test_target(&p, 11, 15) == FN + 6);
}

/* call rel32 as the whole patched region: push of the original return
 * address (FN + 5) and a jmp to the same callee. */
static void test_call_rel32(void **state)
{
	static const uint8_t code[] = { 0xe8, 0x00, 0x01, 0x00, 0x00, 0xc3 };
	static const uint8_t movl[] = { 0xc7, 0x44, 0x24, 0x04, 0, 0, 0, 0 };
	struct hook_plan p;
	uint32_t lo;

	(void)state;
	assert_int_equal(hook_x86_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
	assert_int_equal(p.n, 5);
	assert_int_equal(p.out[0], 0x68);               /* push $lo32 */
	memcpy(&lo, p.out + 1, 4);
	assert_int_equal(lo, FN + 5);
	assert_memory_equal(p.out + 5, movl, sizeof movl); /* movl $0, 4(%rsp) */
	assert_int_equal(p.out[13], 0xe9);
	assert_true(test_target(&p, 14, 18) == FN + 5 + 0x100);
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
	assert_int_equal(hook_x86_plan(code, sizeof code, FN, DST, &p), HOOK_R_INTO);
	/* a loop back to the entry is refused too (it would count iterations) */
	code[0x11] = (uint8_t)(0x00 - 0x12);
	assert_int_equal(hook_x86_plan(code, sizeof code, FN, DST, &p), HOOK_R_INTO);
	/* a recursive call to the entry is fine */
	memcpy(code + 0x10, (const uint8_t[]){ 0xe8, 0xeb, 0xff, 0xff, 0xff, 0xc3 }, 6);
	assert_int_equal(hook_x86_plan(code, sizeof code, FN, DST, &p), HOOK_OK);
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
	assert_int_equal(hook_x86_plan(call_mid, sizeof call_mid, FN, DST, &p), HOOK_R_CALL);
	assert_int_equal(hook_x86_plan(jrcxz, sizeof jrcxz, FN, DST, &p), HOOK_R_INSN);
	assert_int_equal(hook_x86_plan(shorty, sizeof shorty, FN, DST, &p), HOOK_R_SHORT);
	/* callee 1.75 GB above FN, block 2.5 GB below FN: out of rel32 reach */
	assert_int_equal(hook_x86_plan(far_call, sizeof far_call, 0x100000000ull, 0x60000000ull, &p),
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
	assert_int_equal(hook_x86_plan(m, sizeof fn, (uintptr_t)m, (uintptr_t)m + 0x200, &p), HOOK_OK);
	assert_int_equal(p.n, 7);
	memcpy(m + 0x200, p.out, p.len);
	f = (int (*)(void))(uintptr_t)m;
	assert_int_equal(f(), 4242);
	f = (int (*)(void))(uintptr_t)(m + 0x200);   /* relocated lea, jmp back to mov */
	assert_int_equal(f(), 4242);

	/* call callee; ret -- relocated as push m+5 / jmp: the callee returns
	 * into the original code (m + 5: ret), never into the block */
	static const uint8_t caller[] = { 0xe8, 0xfb, 0x00, 0x00, 0x00, 0xc3 }; /* call m+0x100 */
	static const uint8_t callee[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3 }; /* mov $42,%eax; ret */
	memcpy(m, caller, sizeof caller);
	memcpy(m + 0x100, callee, sizeof callee);
	assert_int_equal(hook_x86_plan(m, sizeof caller, (uintptr_t)m, (uintptr_t)m + 0x200, &p), HOOK_OK);
	memcpy(m + 0x200, p.out, p.len);
	assert_int_equal(f(), 42);
	munmap(m, 8192);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
