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
 * The far entry (16 bytes, four instructions relocated): every class as the
 * fourth instruction and some as the first three, relocated 1 MB, 256 MB
 * (out of B reach: the relocated branches and the way back jump through
 * x17) and 5 GB away (out of ADRP reach too), the function's entry
 * overwritten with the far entry and RUN, and each relocated instruction
 * entered where a stopped thread would be moved (the plan's bounds); its
 * refusals (a branch into bytes 4..15, shorter than 16 bytes, a call that
 * does not end them, x16/x17 used), and on arm64 libc's exported functions
 * no far entry over an instruction capstone (an independent decoder) sees
 * x16 or x17 in.
 * Runs on arm64 only (under qemu-aarch64 on an x86-64 machine).
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
#include "hook_a64.h"

/* The engine's two steps at once: the relocation (planned for every
 * function) and the sweep (asked before a site's first branch). */
static enum hook_why test_plan(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    bool far, struct hook_plan *p)
{
	enum hook_why why = hook_a64_relocate(code, size, addr, dst, far, p);

	return why == HOOK_OK ? hook_a64_sweep(code, size, addr, p->n) : why;
}

#define MAP_LEN   (4u << 20)
#define DST_OFF   ((1u << 20) + 4096)   /* the relocated entry, from the function */
#define COPY_OFF  (512u << 10)          /* a pristine copy of the function */
#define FAR_LEN   (64u << 10)
#define FAR_B     (256ull << 20)        /* beyond the B's 128 MB */
#define FAR_ADRP  (5ull << 30)          /* beyond the ADRP's 4 GB */

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

static uint8_t *map, *far_b, *far_adrp;

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* len bytes of rwx memory exactly at a (NULL: anywhere), or NULL. */
static uint8_t *test_map(uint8_t *a, size_t len)
{
	void *p = mmap(a, len, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS | (a != NULL ? MAP_FIXED_NOREPLACE : 0), -1, 0);

	return p == MAP_FAILED || (a != NULL && p != a) ? NULL : p;
}

static int setup(void **state)
{
	(void)state;
	map = test_map(NULL, MAP_LEN);
	if (map == NULL)
		return -1;
	far_b = test_map(map + FAR_B, FAR_LEN);
	far_adrp = test_map(map + FAR_ADRP, FAR_LEN);
	return far_b == NULL || far_adrp == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(map, MAP_LEN);
	munmap(far_b, FAR_LEN);
	munmap(far_adrp, FAR_LEN);
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
	why = test_plan(fn, f->n * 4, (uintptr_t)fn, (uintptr_t)dst, false, p);
	if (why == HOOK_OK) {
		assert_true(p->n == HOOK_PATCH_LEN && p->entry == HOOK_PATCH_LEN);
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
	/* bl: the callee returns to the original code, whose add runs; the
	 * copy starts with a bl over a brk (the return address stack's entry) */
	assert_int_equal(test_place(&fns[1], &p, &entry), HOOK_OK);
	assert_true(test_call(entry, 10) == 16);
	{
		uint32_t w[2];

		memcpy(w, p.out, sizeof w);
		assert_int_equal(w[0], 0x94000002u);    /* bl .+8 */
		assert_int_equal(w[1], 0xd4200000u);    /* brk #0 */
	}
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
	assert_int_equal(test_plan((const uint8_t *)fns[0].words, 3, 0x400000, 0x500000, false,
	    &p), HOOK_R_SHORT);
	assert_int_equal(test_plan((const uint8_t *)&undef, 4, 0x400000, 0x500000, false, &p),
	    HOOK_R_DECODE);
	/* a block out of the B's reach takes the far entry: b +12 then
	 * branches into its bytes 4..15 */
	assert_int_equal(test_plan((const uint8_t *)fns[0].words, 20, 0x400000,
	    0x400000 + (200u << 20), false, &p), HOOK_R_INTO);
	assert_true(p.entry == HOOK_PATCH_MAX);
}

/* The far entry's functions: fns[] with three NOPs first (the class is
 * the fourth instruction, the last one the entry covers; the adrp
 * function's add follows its literal), then classes among the first three
 * (their targets past the 16 bytes). */
#define ADD1   0x91000400u                     /* add x0, x0, #1 */
static const struct test_fn far_fns[] = {
	/* b.eq +24; add x0, x0, #1 x3; br x9; nop; mov x0, #2; br x9 */
	{ "b.eq 1st",  { 0x540000c0, ADD1, ADD1, ADD1, BR_X9, A64_NOP, MOV0(2), BR_X9 }, 8 },
	/* nop; cbz x0, +20; add x0, x0, #1 x3; br x9; mov x0, #2; br x9 */
	{ "cbz 2nd",   { A64_NOP, 0xb40000a0, ADD1, ADD1, ADD1, BR_X9, MOV0(2), BR_X9 }, 8 },
	/* nop; nop; adr x0, +24; ldr x0, [x0]; br x9; nop x3; .quad */
	{ "adr 3rd",   { A64_NOP, A64_NOP, 0x100000c0, 0xf9400000, BR_X9, A64_NOP, A64_NOP,
	    A64_NOP, 0x55667788, 0x11223344 }, 10 },
	/* ldr x0, +32; add x0, x0, #1; nop; nop; br x9; nop x3; .quad */
	{ "ldr x 1st", { 0x58000100, ADD1, A64_NOP, A64_NOP, BR_X9, A64_NOP, A64_NOP, A64_NOP,
	    0x50607080, 0x10203040 }, 10 },
	/* tbnz x0, #33, +20; add x0, x0, #1 x3; br x9; mov x0, #2; br x9 */
	{ "tbnz 1st",  { 0xb70800a0, ADD1, ADD1, ADD1, BR_X9, MOV0(2), BR_X9 }, 7 },
};

/* f with three NOPs first (see far_fns). */
static struct test_fn test_padded(const struct test_fn *f)
{
	struct test_fn g = { f->name, { A64_NOP, A64_NOP, A64_NOP }, f->n + 3 };

	assert_true(g.n <= sizeof g.words / sizeof g.words[0]);
	memcpy(g.words + 3, f->words, f->n * 4);
	if (strcmp(f->name, "adrp") == 0)
		g.words[4] = 0x91007000;        /* add x0, x0, #28 */
	return g;
}

/* Relocate f's first 16 bytes with the far entry to dst, write that entry
 * at the function (as the engine does, to dst directly) and run it against
 * a pristine copy of f; with mid (the instructions before the class are
 * NOPs), the relocated copy entered at each instruction's bounds too, as
 * a thread stopped there is moved, against the copy entered there. */
static void test_far_run(const struct test_fn *f, uint8_t *dst, bool mid)
{
	static const uint64_t args[] = { 0, 3, 4, 5, (uint64_t)1 << 33 };
	uint8_t *fn = map, *copy = map + COPY_OFF;
	struct hook_plan p;

	memset(map, 0, COPY_OFF + 4096);
	memcpy(fn, f->words, f->n * 4);
	memcpy(copy, f->words, f->n * 4);
	assert_int_equal(test_plan(fn, f->n * 4, (uintptr_t)fn, (uintptr_t)dst, true, &p), HOOK_OK);
	assert_true(p.entry == HOOK_PATCH_MAX && p.n == HOOK_PATCH_MAX);
	assert_true(p.len <= HOOK_RELOC_MAX && p.bounds.n >= 1 && p.bounds.n <= 4);
	memcpy(dst, p.out, p.len);
	a64_jump_far(fn, A64_X16, (uintptr_t)dst);
	__builtin___clear_cache((char *)map, (char *)map + COPY_OFF + 4096);
	__builtin___clear_cache((char *)dst, (char *)dst + p.len);
	for (size_t a = 0; a < 5; a++) {
		uint64_t want = test_call((uintptr_t)copy, args[a]);

		if (test_call((uintptr_t)fn, args[a]) != want)
			fail_msg("%s at %+lld: arg %#llx: far entry %#llx, original %#llx", f->name,
			    (long long)(dst - fn), (unsigned long long)args[a],
			    (unsigned long long)test_call((uintptr_t)fn, args[a]),
			    (unsigned long long)want);
		for (size_t k = 1; k < p.bounds.n; k++) {
			assert_int_equal(p.bounds.orig[k], 4 * k);
			assert_true(p.bounds.reloc[k] > p.bounds.reloc[k - 1]);
			if (!mid)
				continue;
			want = test_call((uintptr_t)copy + 4 * k, args[a]);
			if (test_call((uintptr_t)dst + p.bounds.reloc[k], args[a]) != want)
				fail_msg("%s at %+lld: arg %#llx: entered at instruction %zu: %#llx, "
				    "original %#llx", f->name, (long long)(dst - fn),
				    (unsigned long long)args[a], k,
				    (unsigned long long)test_call((uintptr_t)dst + p.bounds.reloc[k],
				    args[a]), (unsigned long long)want);
		}
	}
}

/* Every class through the far entry, 1 MB, 256 MB and 5 GB away. */
static void test_far_classes_run(void **state)
{
	uint8_t *dsts[] = { map + DST_OFF, far_b + 4096, far_adrp + 4096 };

	(void)state;
	for (size_t d = 0; d < 3; d++) {
		for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
			struct test_fn g = test_padded(&fns[i]);

			test_far_run(&g, dsts[d], true);
		}
		for (size_t i = 0; i < sizeof far_fns / sizeof far_fns[0]; i++)
			test_far_run(&far_fns[i], dsts[d], false);
	}
}

/* The far entry's refusals; the near one takes the same functions. */
static void test_far_refusals(void **state)
{
	/* nop x4; cbz x0, (entry + 4); br x9: a branch into bytes 4..15 */
	static const struct test_fn into = { "into", { A64_NOP, A64_NOP, A64_NOP, A64_NOP,
	    0xb4ffffa0, BR_X9 }, 6 };
	/* add x0, x0, #1; add x0, x0, #1; br x9: 12 bytes */
	static const struct test_fn shorty = { "short", { ADD1, ADD1, BR_X9 }, 3 };
	/* bl +16; nop x3; br x9: the callee would return into the far entry */
	static const struct test_fn call = { "bl", { 0x94000004, A64_NOP, A64_NOP, A64_NOP,
	    BR_X9 }, 5 };
	/* blr x1; nop x3; br x9 */
	static const struct test_fn blr = { "blr", { 0xd63f0020, A64_NOP, A64_NOP, A64_NOP,
	    BR_X9 }, 5 };
	/* mov x16, x0; add x0, x16, #1; nop; nop; br x9: x16 is the entry's */
	static const struct test_fn ip = { "x16", { 0xaa0003f0, 0x91000600, A64_NOP, A64_NOP,
	    BR_X9 }, 5 };
	static const struct { const struct test_fn *f; enum hook_why far; } cases[] = {
		{ &into, HOOK_R_INTO }, { &shorty, HOOK_R_SHORT }, { &call, HOOK_R_CALL },
		{ &blr, HOOK_R_CALL }, { &ip, HOOK_R_INSN },
	};
	struct hook_plan p;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct test_fn *f = cases[i].f;

		if (test_plan((const uint8_t *)f->words, f->n * 4, 0x400000, 0x500000, true, &p) !=
		    cases[i].far)
			fail_msg("%s: far entry: %s, not %s", f->name,
			    hook_why_name(test_plan((const uint8_t *)f->words, f->n * 4, 0x400000,
			    0x500000, true, &p)), hook_why_name(cases[i].far));
		assert_int_equal(test_plan((const uint8_t *)f->words, f->n * 4, 0x400000,
		    0x500000, false, &p), HOOK_OK);
	}
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

/* What a binary's functions met. */
struct test_ip {
	csh    h;
	size_t funcs, insns, uses, over, far_refused;
};

/* Does capstone see x16 or x17 (w16, w17) in in, as an operand or used
 * implicitly? */
static bool test_cs_uses_ip(const cs_insn *in)
{
	const cs_arm64 *a = &in->detail->arm64;
	unsigned regs[2 * 20 + 2 * 8];
	size_t n = 0;

	for (uint8_t i = 0; i < in->detail->regs_read_count; i++)
		regs[n++] = in->detail->regs_read[i];
	for (uint8_t i = 0; i < in->detail->regs_write_count; i++)
		regs[n++] = in->detail->regs_write[i];
	for (uint8_t i = 0; i < a->op_count; i++) {
		if (a->operands[i].type == ARM64_OP_REG) {
			regs[n++] = a->operands[i].reg;
		} else if (a->operands[i].type == ARM64_OP_MEM) {
			regs[n++] = a->operands[i].mem.base;
			regs[n++] = a->operands[i].mem.index;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (regs[i] == ARM64_REG_X16 || regs[i] == ARM64_REG_X17 ||
		    regs[i] == ARM64_REG_W16 || regs[i] == ARM64_REG_W17)
			return true;
	return false;
}

/* One function: every instruction capstone sees x16 or x17 in,
 * a64_may_use_ip says may use them (those it says of that capstone does
 * not are counted: the price of reading fields, not decoding); and its far
 * plan is refused when one is among the instructions the far entry covers
 * (up to a B or BL, which ends them). */
static void test_func_ip(const uint8_t *code, size_t size, uint64_t addr, void *arg)
{
	struct test_ip *t = arg;
	bool covered = true, under_entry = false;
	struct hook_plan p;

	t->funcs++;
	for (size_t off = 0; off + 4 <= size; off += 4) {
		bool uses = false;
		cs_insn *in;
		uint32_t w;

		memcpy(&w, code + off, 4);
		if (cs_disasm(t->h, code + off, 4, addr + off, 1, &in) == 1) {
			uses = test_cs_uses_ip(in);
			cs_free(in, 1);
		}
		if (uses && !a64_may_use_ip(w))
			fail_msg("%#lx: %08x uses x16/x17, a64_may_use_ip says not",
			    (unsigned long)(addr + off), w);
		t->insns++;
		t->uses += uses;
		t->over += !uses && a64_may_use_ip(w);
		covered = covered && off < HOOK_PATCH_MAX;
		under_entry |= covered && uses;
		if ((w & 0x7c000000u) == 0x14000000u)
			covered = false;
	}
	if (under_entry && test_plan(code, size, addr, addr + 0x100000, true, &p) == HOOK_OK)
		fail_msg("function at %#lx: x16/x17 under the far entry, plan made",
		    (unsigned long)addr);
	t->far_refused += under_entry;
}

/* arm64 libc's exported functions, held to capstone (an independent
 * decoder): no instruction uses x16 or x17 that a64_may_use_ip says does
 * not, and no far entry is planned over one. */
static void test_libc_ip(void **state)
{
	static const char *const libc[] = { "/lib/aarch64-linux-gnu/libc.so.6",
	    "/usr/aarch64-linux-gnu/lib/libc.so.6" };
	struct test_ip t = { 0 };

	(void)state;
	assert_true(cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &t.h) == CS_ERR_OK);
	cs_option(t.h, CS_OPT_DETAIL, CS_OPT_ON);
	test_elf_funcs(libc, 2, HOOK_PATCH_MAX, test_func_ip, &t);
	cs_close(&t.h);
	/* libc's thousands of functions, and its own uses of x16/x17 (PLT-like
	 * stubs, ifunc resolvers): the comparison was real */
	assert_true(t.funcs > 1000);
	assert_true(t.uses > 100);
	print_message("libc: %zu functions, %zu instructions: %zu use x16/x17 (capstone), %zu more "
	    "read as if they might; %zu far plans refused for them\n", t.funcs, t.insns, t.uses,
	    t.over, t.far_refused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_run),
		cmocka_unit_test(test_literal_values),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_far_classes_run),
		cmocka_unit_test(test_far_refusals),
		cmocka_unit_test(test_blk_switch),
		cmocka_unit_test(test_libc_ip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
