/*
 * test-hook-arm64.c - the arm64 relocator of the hook engine
 * (collectors/engine/aarch64/hook_a64.c) on hand-assembled arm64 functions,
 * one per PC-relative class (B, BL, B.cond, CBZ, CBNZ, TBZ, TBNZ, ADR, ADRP,
 * LDR/LDRSW/PRFM literal and the SIMD LDR literal of S, D and Q) plus a
 * plain instruction: each function is copied to a page, its first
 * instruction relocated 1 MB + 4 KB away (out of ADR and LDR-literal reach,
 * in another page for ADRP) and the relocated entry RUN; its result must be
 * the original function's, on every path of a conditional branch.  Then the
 * refusals (a branch back into the patched bytes, too short, undecodable,
 * out of reach) and the block's switch decoding (hook_blk_switch).
 * Runs on arm64 only (under qemu-aarch64 on an x86-64 machine).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>

#include "hook_a64.h"

#define MAP_LEN   (4u << 20)
#define DST_OFF   ((1u << 20) + 4096)   /* the relocated entry, from the function */

/* Call fn with x0 = arg, flags from "cmp arg, #3" and x9 = the return
 * address (the test functions end in br x9; x30 is theirs to use). */
uint64_t test_call(uint64_t fn, uint64_t arg);
__asm__(
	".text\n"
	".type test_call, %function\n"
	"test_call:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x16, x0\n"
	"	mov x0, x1\n"
	"	cmp x0, #3\n"
	"	adr x9, 1f\n"
	"	br x16\n"
	"1:	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size test_call, .-test_call\n"
);

struct test_fn {
	const char *name;
	uint32_t words[12];
	size_t n;                       /* words used */
};

#define BR_X9  0xd61f0120u
#define MOV0(i) (0xd2800000u | ((i) << 5))    /* mov x0, #i */

/* Each: the first word is the class under test (aarch64-linux-gnu-as). */
static const struct test_fn fns[] = {
	{ "b",      { 0x14000003, MOV0(1), BR_X9, MOV0(7), BR_X9 }, 5 },             /* b +12 */
	{ "bl",     { 0x94000003, 0x91000400, BR_X9, 0x91001400, 0xd65f03c0 }, 5 },  /* bl +12; add x0,x0,#1 ... add x0,x0,#5; ret */
	{ "b.eq",   { 0x54000060, MOV0(1), BR_X9, MOV0(2), BR_X9 }, 5 },
	{ "cbz",    { 0xb4000060, MOV0(1), BR_X9, MOV0(2), BR_X9 }, 5 },
	{ "cbnz",   { 0x35000060, MOV0(1), BR_X9, MOV0(2), BR_X9 }, 5 },             /* cbnz w0 */
	{ "tbz",    { 0x36100060, MOV0(1), BR_X9, MOV0(2), BR_X9 }, 5 },             /* tbz w0, #2 */
	{ "tbnz",   { 0xb7080060, MOV0(1), BR_X9, MOV0(2), BR_X9 }, 5 },             /* tbnz x0, #33 */
	{ "adr",    { 0x10000080, 0xf9400000, BR_X9, A64_NOP, 0x55667788, 0x11223344 }, 6 },
	/* adrp x0, (this page); add x0, x0, #16; ldr x0, [x0]; br x9; .quad */
	{ "adrp",   { 0x90000000, 0x91004000, 0xf9400000, BR_X9, 0x05060708, 0x01020304 }, 6 },
	{ "ldr x",  { 0x58000080, BR_X9, A64_NOP, A64_NOP, 0x50607080, 0x10203040 }, 6 },
	{ "ldr w",  { 0x18000080, BR_X9, A64_NOP, A64_NOP, 0xfffffff2, 0xfffffff3 }, 6 },
	{ "ldrsw",  { 0x98000080, BR_X9, A64_NOP, A64_NOP, 0xfffffff2, 0xfffffff3 }, 6 },
	{ "prfm",   { 0xd8000080, MOV0(9), BR_X9, A64_NOP, 0, 0 }, 6 },
	{ "ldr s",  { 0x1c000080, 0x1e260000, BR_X9, A64_NOP, 0xaabbccdd, 0x11111111 }, 6 },   /* fmov w0, s0 */
	{ "ldr d",  { 0x5c000080, 0x9e660000, BR_X9, A64_NOP, 0x66778899, 0x22334455 }, 6 },   /* fmov x0, d0 */
	{ "ldr q",  { 0x9c000080, 0x4e183c00, BR_X9, A64_NOP, 1, 0, 0x77889900, 0x33445566 }, 8 },  /* mov x0, v0.d[1] */
	{ "plain",  { 0x91000c00, BR_X9 }, 2 },                                     /* add x0, x0, #3 */
};

static uint8_t *map;

static int setup(void **state)
{
	(void)state;
	map = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return map == MAP_FAILED ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(map, MAP_LEN);
	return 0;
}

/* Put f at the start of the map, relocate its entry to DST_OFF: the plan's
 * verdict, the entry's address in *entry. */
static enum hook_why test_place(const struct test_fn *f, struct hook_plan *p, uint64_t *entry)
{
	uint8_t *fn = map, *dst = map + DST_OFF;
	enum hook_why why;

	memset(map, 0, 2 * DST_OFF);
	memcpy(fn, f->words, f->n * 4);
	why = hook_a64_plan(fn, f->n * 4, (uintptr_t)fn, (uintptr_t)dst, p);
	if (why == HOOK_OK) {
		assert_true(p->n == HOOK_PATCH_LEN);
		assert_true(p->len <= HOOK_RELOC_MAX);
		memcpy(dst, p->out, p->len);
	}
	__builtin___clear_cache((char *)map, (char *)map + 2 * DST_OFF);
	*entry = (uintptr_t)dst;
	return why;
}

/* Every class: the relocated entry gives the original's result, for
 * arguments that take either way of a conditional branch. */
static void test_classes_run(void **state)
{
	static const uint64_t args[] = { 0, 3, 4, 5, (uint64_t)1 << 33 };
	struct hook_plan p;

	(void)state;
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		uint64_t entry, want[5], seen = 0;

		assert_int_equal(test_place(&fns[i], &p, &entry), HOOK_OK);
		for (size_t a = 0; a < 5; a++) {
			want[a] = test_call((uintptr_t)map, args[a]);
			uint64_t got = test_call(entry, args[a]);

			if (got != want[a])
				fail_msg("%s: arg %#llx: relocated %#llx, original %#llx", fns[i].name,
				    (unsigned long long)args[a], (unsigned long long)got,
				    (unsigned long long)want[a]);
			seen |= (uint64_t)1 << (want[a] & 63);
		}
		/* a conditional branch was seen both ways */
		if (strchr("bct", fns[i].name[0]) && strcmp(fns[i].name, "b") != 0 &&
		    strcmp(fns[i].name, "bl") != 0)
			assert_true(seen == ((1u << 1) | (1u << 2)));
	}
}

/* The literal classes load what the original loads (not a copy's bytes). */
static void test_literal_values(void **state)
{
	struct hook_plan p;
	uint64_t entry;

	(void)state;
	assert_int_equal(test_place(&fns[9], &p, &entry), HOOK_OK);
	assert_true(test_call(entry, 0) == 0x1020304050607080ull);
	assert_int_equal(test_place(&fns[10], &p, &entry), HOOK_OK);
	assert_true(test_call(entry, 0) == 0xfffffff2ull);
	assert_int_equal(test_place(&fns[11], &p, &entry), HOOK_OK);
	assert_true(test_call(entry, 0) == (uint64_t)(int64_t)(int32_t)0xfffffff2u);
	assert_int_equal(test_place(&fns[15], &p, &entry), HOOK_OK);
	assert_true(test_call(entry, 0) == 0x3344556677889900ull);
	assert_int_equal(test_place(&fns[7], &p, &entry), HOOK_OK);
	assert_true(test_call(entry, 0) == 0x1122334455667788ull);
	assert_int_equal(test_place(&fns[8], &p, &entry), HOOK_OK);
	assert_true(test_call(entry, 0) == 0x0102030405060708ull);
	/* bl: the callee returns to the original code, whose add runs */
	assert_int_equal(test_place(&fns[1], &p, &entry), HOOK_OK);
	assert_true(test_call(entry, 10) == 16);
}

/* The refusals. */
static void test_refusals(void **state)
{
	/* nop; sub x0, x0, #1; cbnz x0, (entry); br x9: a loop to the entry */
	static const struct test_fn loop = { "loop", { A64_NOP, 0xd1000400, 0xb5ffffc0, BR_X9 }, 4 };
	/* nop; bl (entry); br x9: a recursive call is a real call */
	static const struct test_fn rec = { "rec", { A64_NOP, 0x97ffffff, BR_X9 }, 3 };
	static const uint32_t undef = 0x00000000;       /* udf: no instruction */
	struct hook_plan p;
	uint64_t entry;

	(void)state;
	assert_int_equal(test_place(&loop, &p, &entry), HOOK_R_INTO);
	assert_int_equal(test_place(&rec, &p, &entry), HOOK_OK);
	assert_int_equal(hook_a64_plan((const uint8_t *)fns[0].words, 3, 0x400000, 0x500000, &p),
	    HOOK_R_SHORT);
	assert_int_equal(hook_a64_plan((const uint8_t *)&undef, 4, 0x400000, 0x500000, &p),
	    HOOK_R_DECODE);
	/* b +12 relocated 200 MB away: beyond the B's 128 MB */
	assert_int_equal(hook_a64_plan((const uint8_t *)fns[0].words, 20, 0x400000,
	    0x400000 + (200u << 20), &p), HOOK_R_RANGE);
	/* an adr relocated beyond the adrp's 4 GB */
	assert_int_equal(hook_a64_plan((const uint8_t *)fns[7].words, 24, 0x400000,
	    0x400000 + (8ull << 30), &p), HOOK_R_RANGE);
}

/* hook_blk_switch finds the switch that hook_tramp_fill aimed the block's
 * adrp + ldr at, below and above the block. */
static void test_blk_switch(void **state)
{
	uint8_t blk[16];
	uintptr_t sw[2] = { 0, 0 }, far = (uintptr_t)blk + (3ull << 30) + 0x5678;

	(void)state;
	a64_put(blk, a64_adrp(A64_X16, (uintptr_t)blk, (uintptr_t)&sw[1]));
	a64_put(blk + 4, a64_ldr_lo12(A64_X16, A64_X16, (uintptr_t)&sw[1]));
	assert_ptr_equal(hook_blk_switch(blk), &sw[1]);
	far &= ~(uintptr_t)7;
	a64_put(blk, a64_adrp(A64_X16, (uintptr_t)blk, far));
	a64_put(blk + 4, a64_ldr_lo12(A64_X16, A64_X16, far));
	assert_true((uintptr_t)hook_blk_switch(blk) == far);
	far -= 6ull << 30;
	a64_put(blk, a64_adrp(A64_X16, (uintptr_t)blk, far));
	a64_put(blk + 4, a64_ldr_lo12(A64_X16, A64_X16, far));
	assert_true((uintptr_t)hook_blk_switch(blk) == far);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_run),
		cmocka_unit_test(test_literal_values),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_blk_switch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
