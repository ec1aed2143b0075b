/*
 * test-block-stacks.c - the aggregation of a block's samples into distinct
 * stacks (collectors/block/block_stacks.c): same functions merge whatever the pc
 * inside them, different ones do not, the ninth distinct stack counts as
 * "other", the order is most samples first (ties: first seen first).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "block_int.h"

/* Samples in the same functions at different pcs are one stack. */
static void test_merge_by_function(void **state)
{
	struct block_stacks a;
	uintptr_t pc1[3] = { 0x1010, 0x2020, 0x3030 }, pc2[3] = { 0x1044, 0x2020, 0x3030 };
	uintptr_t key[3] = { 0x1000, 0x2000, 0x3000 };

	(void)state;
	memset(&a, 0, sizeof a);
	assert_int_equal(block_stacks_add(&a, pc1, key, 3), 0);
	assert_int_equal(block_stacks_add(&a, pc2, key, 3), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.s[0].samples, 2);
	assert_int_equal(a.s[0].pc[0], 0x1010);      /* the first sample's pcs */
}

/* A different function anywhere, or a different depth, is another stack. */
static void test_distinct(void **state)
{
	struct block_stacks a;
	uintptr_t pc[3] = { 1, 2, 3 };
	uintptr_t k1[3] = { 0x10, 0x20, 0x30 }, k2[3] = { 0x10, 0x21, 0x30 };

	(void)state;
	memset(&a, 0, sizeof a);
	assert_int_equal(block_stacks_add(&a, pc, k1, 3), 0);
	assert_int_equal(block_stacks_add(&a, pc, k2, 3), 1);
	assert_int_equal(block_stacks_add(&a, pc, k1, 2), 2);
	assert_int_equal(block_stacks_add(&a, pc, k2, 3), 1);
	assert_int_equal(a.n, 3);
	assert_int_equal(a.s[1].samples, 2);
}

/* Past BLOCK_STACKS distinct stacks, samples count as other. */
static void test_overflow(void **state)
{
	struct block_stacks a;
	uintptr_t pc[1] = { 1 }, key[1];

	(void)state;
	memset(&a, 0, sizeof a);
	for (uintptr_t i = 0; i < BLOCK_STACKS; i++) {
		key[0] = 0x100 + i;
		assert_int_equal(block_stacks_add(&a, pc, key, 1), (int)i);
	}
	key[0] = 0x999;
	assert_int_equal(block_stacks_add(&a, pc, key, 1), -1);
	assert_int_equal(block_stacks_add(&a, pc, key, 1), -1);
	assert_int_equal(a.n, BLOCK_STACKS);
	assert_int_equal(a.other, 2);
	key[0] = 0x100;                         /* a known one still counts */
	assert_int_equal(block_stacks_add(&a, pc, key, 1), 0);
	assert_int_equal(a.s[0].samples, 2);
}

/* Most samples first; equal counts keep the order they were seen in. */
static void test_order(void **state)
{
	struct block_stacks a;
	uintptr_t pc[1] = { 1 }, key[1];
	uint32_t idx[BLOCK_STACKS];
	static const int adds[] = { 0, 1, 1, 2, 2, 2, 3, 1 };

	(void)state;
	memset(&a, 0, sizeof a);
	for (size_t i = 0; i < sizeof adds / sizeof adds[0]; i++) {
		key[0] = (uintptr_t)adds[i] + 1;
		block_stacks_add(&a, pc, key, 1);
	}
	block_stacks_order(&a, idx);
	/* samples: 0:1, 1:3, 2:3, 3:1 -> 1, 2, 0, 3 */
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 2);
	assert_int_equal(idx[2], 0);
	assert_int_equal(idx[3], 3);
}

/* More frames than BLOCK_FRAMES are cut, not overflowed. */
static void test_deep(void **state)
{
	struct block_stacks a;
	uintptr_t pc[BLOCK_FRAMES + 8], key[BLOCK_FRAMES + 8];

	(void)state;
	memset(&a, 0, sizeof a);
	for (size_t i = 0; i < BLOCK_FRAMES + 8; i++)
		pc[i] = key[i] = i + 1;
	assert_int_equal(block_stacks_add(&a, pc, key, BLOCK_FRAMES + 8), 0);
	assert_int_equal(a.s[0].n, BLOCK_FRAMES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_by_function),
		cmocka_unit_test(test_distinct),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
