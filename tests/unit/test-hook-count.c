/*
 * test-hook-count.c - the counted path a site's block runs itself (the
 * back-end's hook_tramp.c, hook_layout.h), on this machine's back-end: a
 * small function (x86-64: lea 1(%rdi), %rax; nop; ret; arm64: add x0, x0,
 * #1; ret) is planned, given a block and its entry branch like a site, its
 * switch set to the counted path, and RUN: every call returns the
 * function's result and adds one to the thread's count of its site index
 * (TLS tm_sc), at indexes that need each form of the block's offsets (0,
 * past the 32 KB of one load's offset, the last one the blocks count);
 * with no counts (tm_sc NULL, as on an agent thread) the block takes the
 * general way and still returns the result; an index past TM_SC_MAX gets no
 * count of its own in the block.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend.h"
#include "hook.h"
#include "timing_int.h"

#if defined(__x86_64__)
static const uint8_t test_body[] = { 0x48, 0x8d, 0x47, 0x01, 0x90, 0xc3 };
#elif defined(__aarch64__)
static const uint8_t test_body[] = { 0x00, 0x04, 0x00, 0x91, 0xc0, 0x03, 0x5f, 0xd6 };
#endif

/* A patched copy of test_body with its block for site index idx, its
 * switch on the counted path; region r holds both. */
static uint64_t (*test_site(struct hook_region *r, uint32_t idx, struct hook_site *s))(uint64_t)
{
	uint8_t *fn;
	struct hook_plan p;

	assert_int_equal(hook_tramp_map_any(2, r), 0);
	fn = hook_tramp_blk(r, 1);
	memcpy(fn, test_body, sizeof test_body);
	assert_int_equal(hook_backend.plan(fn, sizeof test_body, (uintptr_t)fn,
	    (uintptr_t)hook_tramp_blk(r, 0) + HOOK_BLK_HEAD, &p), HOOK_OK);
	memset(s, 0, sizeof *s);
	s->fn = (uintptr_t)fn;
	hook_tramp_fill(r, 0, idx, s, &p);
	hook_backend.branch(fn, (uintptr_t)fn, (uintptr_t)s->blk, p.entry);
	assert_int_equal(hook_tramp_seal(r), 0);
	__atomic_store_n(s->sw, s->count_addr, __ATOMIC_RELAXED);
	return (uint64_t (*)(uint64_t))(uintptr_t)fn;
}

/* 1000 calls at index idx count 1000 there and nowhere else; none without
 * counts. */
static void test_count_at(uint32_t idx)
{
	uint64_t *counts = calloc(TM_SC_MAX, sizeof *counts);
	struct hook_region r;
	struct hook_site s;
	uint64_t (*f)(uint64_t) = test_site(&r, idx, &s);
	struct tm_block *saved = tm_tls;

	assert_non_null(counts);
	assert_ptr_equal((void *)s.count_addr, s.blk + HOOK_BLK_COUNT);
	tm_sc = counts;
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(f(i), i + 1);
	tm_sc = NULL;
	assert_int_equal(counts[idx], 1000);
	for (uint32_t k = 0; k < TM_SC_MAX; k++)
		if (k != idx && counts[k] != 0)
			fail_msg("index %u counted %llu calls of index %u's site", k,
			    (unsigned long long)counts[k], idx);
	/* No counts: the general way (the count stub), which counts nothing
	 * on a thread the agent does not time. */
	tm_tls = TM_OFF;
	for (uint64_t i = 0; i < 100; i++)
		assert_int_equal(f(i), i + 1);
	tm_tls = saved;
	assert_int_equal(counts[idx], 1000);
	munmap(r.base, r.len);
	free(counts);
}

static void test_count_first(void **state)
{
	(void)state;
	test_count_at(0);
}

static void test_count_far_index(void **state)
{
	(void)state;
	test_count_at(5000);            /* 40,000 bytes in: past one load's offset */
}

static void test_count_last(void **state)
{
	(void)state;
	test_count_at(TM_SC_MAX - 1);
}

/* Past TM_SC_MAX the block has no count of its own: the general way. */
static void test_count_beyond(void **state)
{
	struct hook_region r;
	struct hook_site s;
	uint64_t (*f)(uint64_t) = test_site(&r, TM_SC_MAX, &s);
	struct tm_block *saved = tm_tls;

	(void)state;
	assert_ptr_equal((void *)s.count_addr, s.blk + HOOK_BLK_COUNT_STUB);
	tm_tls = TM_OFF;
	assert_int_equal(f(41), 42);
	tm_tls = saved;
	munmap(r.base, r.len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_first),
		cmocka_unit_test(test_count_far_index),
		cmocka_unit_test(test_count_last),
		cmocka_unit_test(test_count_beyond),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
