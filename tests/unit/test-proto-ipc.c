/*
 * test-proto-ipc.c - the agent's "ipc" record (protocol/ipc.c): a record
 * with an endpoint and a slow call with its stack comes back field for
 * field; one without its map, with a map of the wrong type, an endpoint
 * that is not a map, a negative peer pid or more endpoints than the cap is
 * refused with a reason.
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
static void test_ipc_fields(void **state)
{
	struct proto_block_frame fr[2] = {
		{ .addr = 0x401100, .func = "fetch_reply", .off = 0x21, .module = "ipcpeer",
		  .file = "ipcpeer.c", .line = 99 },
		{ .addr = 0x401300, .func = "main", .off = 0x40, .module = "ipcpeer", .file = "",
		  .line = 0 },
	};
	struct proto_ipc_ep ep = { .id = 3, .kind = "dbus", .name = "org.example.Svc",
		.method = "org.example.Iface.Get", .peer_pid = 77, .peer_comm = "svc", .sends = 1,
		.recvs = 2, .calls = 30, .connects = 4, .bytes_out = 500, .bytes_in = 600,
		.total_ns = 7000, .max_ns = 800, .ui_calls = 9, .ui_ns = 100, .slow = 1,
		.ops_per_s = 2.5 };
	struct proto_ipc_slow sl = { .id = 5, .ep = 3, .op = "recv", .tid = 4242, .ui = true,
		.start_ns = 123, .time_ms = 456, .dur_ns = 150000000,
		.stack = { .samples = 1, .nframes = 2, .frames = fr } };
	struct proto_agent_rec in = { .type = PROTO_AG_IPC, .time_ns = 99, .ipc = {
		.threshold_ns = 100000000, .slow_count = 6, .neps = 1, .eps = &ep, .nslow = 1,
		.slow = &sl } };
	struct proto_agent_rec out;
	char err[PROTO_ERR_LEN];

	(void)state;
	assert_int_equal(agent_roundtrip(&in, &out, err, sizeof err), 0);
	assert_int_equal(out.type, PROTO_AG_IPC);
	assert_int_equal(out.time_ns, 99);
	assert_int_equal(out.ipc.threshold_ns, 100000000);
	assert_int_equal(out.ipc.slow_count, 6);
	assert_int_equal(out.ipc.neps, 1);
	assert_int_equal(out.ipc.eps[0].id, 3);
	assert_string_equal(out.ipc.eps[0].kind, "dbus");
	assert_string_equal(out.ipc.eps[0].name, "org.example.Svc");
	assert_string_equal(out.ipc.eps[0].method, "org.example.Iface.Get");
	assert_int_equal(out.ipc.eps[0].peer_pid, 77);
	assert_string_equal(out.ipc.eps[0].peer_comm, "svc");
	assert_int_equal(out.ipc.eps[0].sends, 1);
	assert_int_equal(out.ipc.eps[0].recvs, 2);
	assert_int_equal(out.ipc.eps[0].calls, 30);
	assert_int_equal(out.ipc.eps[0].connects, 4);
	assert_int_equal(out.ipc.eps[0].bytes_out, 500);
	assert_int_equal(out.ipc.eps[0].bytes_in, 600);
	assert_int_equal(out.ipc.eps[0].total_ns, 7000);
	assert_int_equal(out.ipc.eps[0].max_ns, 800);
	assert_int_equal(out.ipc.eps[0].ui_calls, 9);
	assert_int_equal(out.ipc.eps[0].ui_ns, 100);
	assert_int_equal(out.ipc.eps[0].slow, 1);
	assert_true(out.ipc.eps[0].ops_per_s == 2.5);
	assert_int_equal(out.ipc.nslow, 1);
	assert_int_equal(out.ipc.slow[0].id, 5);
	assert_int_equal(out.ipc.slow[0].ep, 3);
	assert_string_equal(out.ipc.slow[0].op, "recv");
	assert_int_equal(out.ipc.slow[0].tid, 4242);
	assert_true(out.ipc.slow[0].ui);
	assert_int_equal(out.ipc.slow[0].dur_ns, 150000000);
	assert_int_equal(out.ipc.slow[0].stack.nframes, 2);
	assert_string_equal(out.ipc.slow[0].stack.frames[0].func, "fetch_reply");
	assert_string_equal(out.ipc.slow[0].stack.frames[0].file, "ipcpeer.c");
	assert_int_equal(out.ipc.slow[0].stack.frames[0].line, 99);
	assert_string_equal(out.ipc.slow[0].stack.frames[1].func, "main");
	proto_agent_rec_free(&out);
}

/* Malformed "ipc" records are refused with a reason. */
static void test_ipc_malformed(void **state)
{
	char err[PROTO_ERR_LEN];

	(void)state;
	for (int k = 0; k < 5; k++) {
		struct proto_agent_rec out;
		msgpack_sbuffer sb;
		msgpack_packer pk;
		int rc;

		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, k == 0 ? 2 : 3);
		proto_pack_kv_u64(&pk, "v", PROTO_VERSION);
		proto_pack_kv_str(&pk, "t", "ipc");
		if (k == 1) {                         /* not a map */
			proto_pack_str(&pk, "ipc");
			msgpack_pack_int(&pk, 7);
		} else if (k >= 2) {
			proto_pack_str(&pk, "ipc");
			msgpack_pack_map(&pk, 1);
			proto_pack_str(&pk, "endpoints");
			if (k == 2) {                 /* an endpoint that is not a map */
				msgpack_pack_array(&pk, 1);
				msgpack_pack_int(&pk, 5);
			} else if (k == 3) {          /* a negative peer pid */
				msgpack_pack_array(&pk, 1);
				msgpack_pack_map(&pk, 2);
				proto_pack_kv_u64(&pk, "id", 1);
				proto_pack_kv_i64(&pk, "peer_pid", -4);
			} else {                      /* more endpoints than the cap */
				msgpack_pack_array(&pk, PROTO_MAX_IPC_EPS + 1);
				for (int i = 0; i <= PROTO_MAX_IPC_EPS; i++) {
					msgpack_pack_map(&pk, 1);
					proto_pack_kv_u64(&pk, "id", (uint64_t)i);
				}
			}
		}
		err[0] = '\0';
		rc = proto_agent_decode(sb.data, sb.size, &out, err, sizeof err);
		msgpack_sbuffer_destroy(&sb);
		assert_int_equal(rc, -1);
		assert_true(err[0] != '\0');
		proto_agent_rec_free(&out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipc_fields),
		cmocka_unit_test(test_ipc_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
