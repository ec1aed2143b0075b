/*
 * test-proto-threads.c - the agent's "threads" record (protocol/threads.c):
 * a record with a thread, a creation site with its stack and a pool comes
 * back field for field; a truncated or mistyped one is refused with a
 * reason (the decoder is in front of everything an agent sends).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "protocol.h"

#include "agent-roundtrip.h"

/* Every field of a full record survives the trip. */
static void test_thr_fields(void **state)
{
	struct proto_thr_frame stack[2] = {
		{ .addr = 0x401100, .name = "make", .module = "threads", .off = 0x12 },
		{ .addr = 0x401300, .name = "run_pool", .module = "threads", .off = 0x40 },
	};
	struct proto_thr_thread th = { .id = 3, .tid = 4242, .creator = 4240, .site = 1, .pool = 2,
		.name = "pool-0", .state = "running", .start_ns = 1000, .end_ns = 0,
		.cpu_ns = 77777, .cpu_pct = 12.5 };
	struct proto_thr_site site = { .id = 1, .start = { .addr = 0x401000,
		.name = "pool_worker", .module = "threads", .off = 0 }, .created = 3, .live = 2,
		.nstack = 2, .stack = stack };
	struct proto_thr_pool pool = { .id = 2, .kind = "gthreadpool", .func = { .addr = 0x401500,
		.name = "task", .module = "gpool", .off = 0 }, .size = -1, .workers = 2,
		.pushed = 20, .done = 19, .wait_ns = 4510, .wait_max_ns = 451, .run_ns = 1002,
		.run_max_ns = 50, .freed = true };
	struct proto_agent_rec in = { .type = PROTO_AG_THREADS, .thr = { .time_ns = 9,
		.created = 15, .exited = 13, .live = 3, .other_live = 0, .agent_created = 2,
		.agent_live = 2, .agent_cpu_ns = 123, .dropped = 1, .nthreads = 1, .threads = &th,
		.nsites = 1, .sites = &site, .npools = 1, .pools = &pool } };
	struct proto_agent_rec out;
	char err[PROTO_ERR_LEN];

	(void)state;
	assert_int_equal(agent_roundtrip(&in, &out, err, sizeof err), 0);
	assert_int_equal(out.type, PROTO_AG_THREADS);
	assert_int_equal(out.thr.created, 15);
	assert_int_equal(out.thr.exited, 13);
	assert_int_equal(out.thr.live, 3);
	assert_int_equal(out.thr.agent_created, 2);
	assert_int_equal(out.thr.agent_cpu_ns, 123);
	assert_int_equal(out.thr.dropped, 1);
	assert_int_equal(out.thr.nthreads, 1);
	assert_int_equal(out.thr.threads[0].tid, 4242);
	assert_int_equal(out.thr.threads[0].creator, 4240);
	assert_string_equal(out.thr.threads[0].name, "pool-0");
	assert_string_equal(out.thr.threads[0].state, "running");
	assert_int_equal(out.thr.threads[0].cpu_ns, 77777);
	assert_int_equal(out.thr.nsites, 1);
	assert_string_equal(out.thr.sites[0].start.name, "pool_worker");
	assert_int_equal(out.thr.sites[0].created, 3);
	assert_int_equal(out.thr.sites[0].nstack, 2);
	assert_string_equal(out.thr.sites[0].stack[1].name, "run_pool");
	assert_int_equal(out.thr.sites[0].stack[1].off, 0x40);
	assert_int_equal(out.thr.npools, 1);
	assert_string_equal(out.thr.pools[0].kind, "gthreadpool");
	assert_int_equal(out.thr.pools[0].size, -1);
	assert_int_equal(out.thr.pools[0].pushed, 20);
	assert_int_equal(out.thr.pools[0].done, 19);
	assert_int_equal(out.thr.pools[0].wait_max_ns, 451);
	assert_true(out.thr.pools[0].freed);
	proto_agent_rec_free(&out);
}

/* A threads record whose "threading" is missing or not a map, or whose
 * threads are not maps, is refused with a reason. */
static void test_thr_malformed(void **state)
{
	static const char *const bodies[] = { "none", "int", "threads-int" };
	char err[PROTO_ERR_LEN];

	(void)state;
	for (size_t k = 0; k < sizeof bodies / sizeof bodies[0]; k++) {
		struct proto_agent_rec out;
		msgpack_sbuffer sb;
		msgpack_packer pk;
		int rc;

		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, k == 0 ? 2 : 3);
		proto_pack_kv_u64(&pk, "v", PROTO_VERSION);
		proto_pack_kv_str(&pk, "t", "threads");
		if (k == 1) {
			proto_pack_str(&pk, "threading");
			msgpack_pack_int(&pk, 7);
		} else if (k == 2) {
			proto_pack_str(&pk, "threading");
			msgpack_pack_map(&pk, 1);
			proto_pack_str(&pk, "threads");
			msgpack_pack_array(&pk, 1);
			msgpack_pack_int(&pk, 5);
		}
		err[0] = '\0';
		rc = proto_agent_decode(sb.data, sb.size, &out, err, sizeof err);
		msgpack_sbuffer_destroy(&sb);
		assert_int_equal(rc, -1);
		assert_true(err[0] != '\0');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thr_fields),
		cmocka_unit_test(test_thr_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
