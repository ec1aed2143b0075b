/*
 * test-visit.c - proto_struct_visit (protocol/field.c), the walk the daemon
 * uses to fill file:line into every frame of a record: every struct of the
 * wanted table inside a part, through struct members and arrays, in table
 * order, and none in a part that has no frames.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "protocol.h"
#include "field.h"
#include "parts.h"

/* proto_struct_visit: every frame inside a part, in table order, nothing else. */
static void visit_count(void *elem, void *arg)
{
	uint64_t *seen = arg;

	seen[1 + seen[0]++] = ((struct proto_block_frame *)elem)->addr;
}

static void test_visit(void **state)
{
	struct proto_block_frame f[6] = { { .addr = 1 }, { .addr = 2 }, { .addr = 3 }, { .addr = 4 },
		{ .addr = 5 }, { .addr = 6 } };
	struct proto_block_stack st[3] = { { .nframes = 3, .frames = f }, { .nframes = 1, .frames = f + 3 },
		{ .nframes = 2, .frames = f + 4 } };
	struct proto_block bl[2] = { { .nstacks = 2, .stacks = st }, { .nstacks = 1, .stacks = st + 2 } };
	struct proto_blocks b = { .nblocks = 2, .blocks = bl };
	struct proto_mem_site site[2] = { { .stack = { .nframes = 2, .frames = f + 1 } }, { .id = 7 } };
	struct proto_memory m = { .nsites = 2, .sites = site };
	uint64_t seen[16] = { 0 };

	(void)state;
	proto_struct_visit(&proto_blocks_desc, &b, &proto_block_frame_desc, visit_count, seen);
	assert_int_equal(seen[0], 6);
	for (uint64_t i = 1; i <= 6; i++)
		assert_int_equal(seen[i], i);
	memset(seen, 0, sizeof seen);
	proto_struct_visit(&proto_memory_desc, &m, &proto_block_frame_desc, visit_count, seen);
	assert_int_equal(seen[0], 2);
	assert_int_equal(seen[1], 2);
	assert_int_equal(seen[2], 3);
	memset(seen, 0, sizeof seen);   /* a part without frames: none */
	proto_struct_visit(&proto_fps_desc, &(struct proto_fps){ 0 }, &proto_block_frame_desc, visit_count,
	    seen);
	assert_int_equal(seen[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
