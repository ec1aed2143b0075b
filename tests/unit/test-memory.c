/*
 * test-memory.c - the memory collector's tables and sampler
 * (collectors/memory/memory_table.c, memory_sample.c), driven directly:
 * a stack is stored once and found again by its frames; blocks add to and
 * leave their site's counters; frees of blocks never kept change nothing;
 * big blocks are listed apart; and the byte sampler's weights are unbiased
 * (a million allocations of 1..8192 bytes at a 4 KiB interval: the summed
 * weights within 1% of the bytes allocated, where the standard error is
 * about 0.1%); the frame-pointer walk stops at a frame pointer that is a
 * stale register, whatever its value (one just below 2^64 must not wrap
 * the bounds check).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "memory_int.h"

static int setup(void **state)
{
	(void)state;
	if (!mem.live)
		assert_int_equal(mem_table_init(), 0);
	return 0;
}

/* The same frames are one stack; other frames another. */
static void test_stacks(void **state)
{
	uintptr_t a[3] = { 0x1000, 0x2000, 0x3000 }, b[3] = { 0x1000, 0x2000, 0x3001 };
	uint32_t ia, ib;

	(void)state;
	ia = mem_stack_id(a, 3);
	ib = mem_stack_id(b, 3);
	assert_true(ia != 0 && ib != 0 && ia != ib);
	assert_int_equal(mem_stack_id(a, 3), ia);
	assert_int_equal(mem_stack_id(a, 2), mem_stack_id(a, 2));
	assert_true(mem_stack_id(a, 2) != ia);
	assert_int_equal(mem.stacks[ia].depth, 3);
	assert_int_equal(mem.stacks[ia].pc[2], 0x3000);
}

/* A chain of frames on this stack: each {next frame, return address}.  The
 * walk follows it and stops at the bogus link, never reading through it. */
static void test_stack_walk_bounds(void **state)
{
	static const uintptr_t bogus[] = { (uintptr_t)-8, (uintptr_t)-16, 0, 1, 4096 };
	uintptr_t chain[8], pc[8];

	(void)state;
	mem_unwind_fallback = false;
	for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
		chain[0] = (uintptr_t)&chain[2];
		chain[1] = 0x401000;
		chain[2] = (uintptr_t)&chain[4];
		chain[3] = 0x402000;
		chain[4] = bogus[i];             /* a register value, not a frame */
		chain[5] = 0x403000;
		assert_int_equal(mem_stack_capture(chain, pc, 8), 3);
		assert_int_equal(pc[0], 0x401000);
		assert_int_equal(pc[2], 0x403000);
	}
	mem_unwind_fallback = true;
}

static void big_count(uintptr_t addr, size_t size, uint32_t id, void *arg)
{
	(void)addr;
	(void)id;
	*(size_t *)arg += size;
}

/* Blocks move their site's monotonic counters; unknown frees do not. */
static void test_blocks(void **state)
{
	uintptr_t f[1] = { 0x4242 };
	uint32_t id = mem_stack_id(f, 1);
	const struct mem_stack *st = &mem.stacks[id];
	char x[3];
	size_t big = 0;

	(void)state;
	mem.mode = MEM_FULL;
	mem_block_add(&x[0], 100, id, 100, 1000);
	mem_block_add(&x[1], 200, id, 200, 1000);
	mem_block_add(&x[2], 128 << 10, id, 128 << 10, 1000);
	assert_int_equal(st->allocs, 3);
	assert_int_equal(st->alloc_bytes - st->free_bytes, 300 + (128 << 10));
	assert_int_equal(mem_block_size(&x[1]), 200);
	mem_big_each(big_count, &big);
	assert_int_equal(big, 128 << 10);             /* only the big one is listed apart */
	assert_int_equal(mem_block_del(&x[1]), 200);
	assert_int_equal(mem_block_del(&x[1]), 0);    /* a double free: not listed any more */
	assert_int_equal(mem_block_del(&x[2]), 128 << 10);
	big = 0;
	mem_big_each(big_count, &big);
	assert_int_equal(big, 0);
	assert_int_equal(st->frees, 2);
	assert_int_equal(st->alloc_bytes - st->free_bytes, 100);
	assert_int_equal((st->alloc_mblocks - st->free_mblocks) / 1000, 1);
	assert_int_equal(mem_block_size(&x[0]), 100);
	assert_int_equal(mem_block_del(&x[0]), 100);
	assert_int_equal(mem_block_size(&x[0]), 0);
	mem.mode = MEM_OFF;
}

/* Summed weights of the kept allocations estimate the bytes allocated. */
static void test_sampler_unbiased(void **state)
{
	uint64_t x = 88172645463325252ull, total = 0, est = 0, kept = 0;
	double mblocks = 0;

	(void)state;
	mem.sample_bytes = 4096;
	for (int i = 0; i < 1000000; i++) {
		uint64_t wb, wm;
		size_t s;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s = 1 + x % 8192;
		total += s;
		if (mem_sample_skip(s) || !mem_sample(s, &wb, &wm))
			continue;
		kept++;
		est += wb;
		mblocks += (double)wm;
	}
	print_message("sampler: %llu of 1000000 kept, %llu bytes estimated for %llu (%.3f%%), "
	    "%.0f blocks\n", (unsigned long long)kept, (unsigned long long)est,
	    (unsigned long long)total, 100.0 * ((double)est - (double)total) / (double)total,
	    mblocks / 1000);
	assert_true(kept > total / 4096 / 2 && kept < total / 4096 * 2);
	assert_true((double)est > 0.99 * (double)total && (double)est < 1.01 * (double)total);
	assert_true(mblocks / 1000 > 0.9e6 && mblocks / 1000 < 1.1e6);
}

/* The interval the budget picks: widened until the projected cost fits
 * the share, at most MEM_SAMPLE_MAX; narrowed back one step at a time
 * once well under it, never below the base; else kept. */
static void test_sample_adapt(void **state)
{
	const uint64_t d = MEM_SAMPLE_DEFAULT;

	(void)state;
	assert_true(mem_sample_adapt(d, d, 50000, 10000) == 8 * d);     /* 5% -> 0.63% */
	assert_true(mem_sample_adapt(d, d, 20000, 10000) == 2 * d);     /* 2% -> 1% */
	assert_true(mem_sample_adapt(d, d, 10000, 10000) == d);         /* at the share */
	assert_true(mem_sample_adapt(d, d, 1e6, 10000) == MEM_SAMPLE_MAX);
	assert_true(mem_sample_adapt(MEM_SAMPLE_MAX, d, 1e6, 10000) == MEM_SAMPLE_MAX);
	assert_true(mem_sample_adapt(8 * d, d, 2000, 10000) == 4 * d);  /* 0.2% < 0.25%: back */
	assert_true(mem_sample_adapt(8 * d, d, 3000, 10000) == 8 * d);  /* between: kept */
	assert_true(mem_sample_adapt(d, d, 0, 10000) == d);             /* never under the base */
	assert_true(mem_sample_adapt(3 * d, 2 * d, 0, 10000) == 2 * d);
}

/* Weights follow the interval each sample was drawn at: the estimate stays
 * unbiased when the interval changes halfway. */
static void test_sampler_interval_change(void **state)
{
	uint64_t x = 1442695040888963407ull, total = 0, est = 0;

	(void)state;
	mem.sample_bytes = 4096;
	for (int i = 0; i < 2000000; i++) {
		uint64_t wb, wm;
		size_t s;

		if (i == 1000000)
			mem.sample_bytes = 32768;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s = 1 + x % 8192;
		total += s;
		if (!mem_sample_skip(s) && mem_sample(s, &wb, &wm))
			est += wb;
	}
	print_message("interval 4096 then 32768: %llu bytes estimated for %llu (%.3f%%)\n",
	    (unsigned long long)est, (unsigned long long)total,
	    100.0 * ((double)est - (double)total) / (double)total);
	assert_true((double)est > 0.98 * (double)total && (double)est < 1.02 * (double)total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_stack_walk_bounds),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_sampler_unbiased),
		cmocka_unit_test(test_sample_adapt),
		cmocka_unit_test(test_sampler_interval_change),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
