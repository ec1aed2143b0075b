/*
 * test-proto.c - protocol round trips, and the strict decoder rejecting
 * malformed input of every kind it promises to reject.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "protocol.h"

static char err[PROTO_ERR_LEN];

/* Encode a frame with two targets and two functions. */
static void make_frame(msgpack_sbuffer *sb)
{
	struct proto_target t[2] = {
		{ .pid = 42, .name = "demo", .exe = "/bin/demo", .state = PROTO_TARGET_LIVE,
		  .level = 2, .started_ms = 1000 },
		{ .pid = 43, .name = "old", .exe = "/bin/old", .state = PROTO_TARGET_EXITED,
		  .level = 0, .started_ms = 10, .ended_ms = 20 },
	};
	struct proto_func fn[2] = {
		{ .name = "slow_work", .module = "demo", .addr = 0x1234, .calls = 200,
		  .calls_per_s = 10.5, .total_ns = 200000000, .self_ns = 199000000,
		  .avg_ns = 1000000, .max_ns = 1200000, .slow = 3, .share = 0.75,
		  .running_ns = 400000 },
		{ .name = "fast_hash", .module = "demo", .addr = 0x5678, .calls = 210000,
		  .calls_per_s = 10500, .total_ns = 5000000, .self_ns = 5000000,
		  .avg_ns = 23, .max_ns = 900, .share = 0.25 },
	};
	struct proto_site_reason why[2] = { { "short", 7 }, { "branch-in", 2 } };
	struct proto_sites sites[2] = {
		{ .backend = "patch", .active = 120, .disabled = 15, .skipped = 9,
		  .nreasons = 2, .reasons = why },
		{ .backend = "finstrument", .active = 4 },
	};
	struct proto_frame f = {
		.seq = 7, .time_ms = 123456, .pid = 42, .sort = "total", .agent_age_ms = 150,
		.nfuncs_seen = 5, .calls_total = 210200, .self_total_ns = 204000000,
		.dropped = 1, .overhead_ps = 21000, .threads = 2,
		.ntargets = 2, .targets = t, .nfuncs = 2, .funcs = fn,
		.nsites = 2, .sites = sites,
	};
	proto_encode_frame(sb, &f);
}

/* A frame survives encode/decode with every field intact. */
static void test_frame_round_trip(void **state)
{
	msgpack_sbuffer sb;
	struct proto_server_msg m;

	(void)state;
	msgpack_sbuffer_init(&sb);
	make_frame(&sb);
	assert_int_equal(proto_decode_server(sb.data, sb.size, &m, err, sizeof err), 0);
	assert_int_equal(m.type, PROTO_MSG_FRAME);
	assert_int_equal(m.frame.seq, 7);
	assert_int_equal(m.frame.pid, 42);
	assert_string_equal(m.frame.sort, "total");
	assert_int_equal(m.frame.overhead_ps, 21000);
	assert_int_equal(m.frame.threads, 2);
	assert_int_equal(m.frame.ntargets, 2);
	assert_string_equal(m.frame.targets[1].name, "old");
	assert_int_equal(m.frame.targets[1].state, PROTO_TARGET_EXITED);
	assert_int_equal(m.frame.targets[1].ended_ms, 20);
	assert_int_equal(m.frame.nfuncs, 2);
	assert_string_equal(m.frame.funcs[0].name, "slow_work");
	assert_int_equal(m.frame.funcs[0].calls, 200);
	assert_int_equal(m.frame.funcs[1].calls, 210000);
	assert_int_equal(m.frame.funcs[0].max_ns, 1200000);
	assert_int_equal(m.frame.funcs[0].slow, 3);
	assert_int_equal(m.frame.funcs[0].running_ns, 400000);
	assert_int_equal(m.frame.funcs[1].running_ns, 0);
	assert_true(m.frame.funcs[0].share > 0.749 && m.frame.funcs[0].share < 0.751);
	assert_true(m.frame.funcs[1].calls_per_s == 10500);
	assert_int_equal(m.frame.nsites, 2);
	assert_string_equal(m.frame.sites[0].backend, "patch");
	assert_int_equal(m.frame.sites[0].active, 120);
	assert_int_equal(m.frame.sites[0].disabled, 15);
	assert_int_equal(m.frame.sites[0].skipped, 9);
	assert_int_equal(m.frame.sites[0].nreasons, 2);
	assert_string_equal(m.frame.sites[0].reasons[1].key, "branch-in");
	assert_int_equal(m.frame.sites[0].reasons[0].count, 7);
	assert_string_equal(m.frame.sites[1].backend, "finstrument");
	assert_int_equal(m.frame.sites[1].active, 4);
	assert_int_equal(m.frame.sites[1].nreasons, 0);
	proto_server_msg_free(&m);
	msgpack_sbuffer_destroy(&sb);
}

/* Commands, replies with binary data, hello and error round trip. */
static void test_small_messages_round_trip(void **state)
{
	msgpack_sbuffer sb;
	struct proto_cmd c = { .id = 99, .cmd = "threshold", .argc = 2, .argv = { "slow", "0.5" } };
	struct proto_cmd d;
	struct proto_reply r = { .id = 99, .ok = true, .msg = "saved", .data = "a\0b", .data_len = 3 };
	struct proto_target t = { .pid = 1, .name = "x", .exe = "", .state = PROTO_TARGET_LOST, .level = 4 };
	struct proto_server_msg m;

	(void)state;
	msgpack_sbuffer_init(&sb);
	proto_encode_cmd(&sb, &c);
	assert_int_equal(proto_decode_cmd(sb.data, sb.size, &d, err, sizeof err), 0);
	assert_int_equal(d.id, 99);
	assert_string_equal(d.cmd, "threshold");
	assert_int_equal(d.argc, 2);
	assert_string_equal(d.argv[1], "0.5");
	proto_cmd_free(&d);

	msgpack_sbuffer_clear(&sb);
	proto_encode_reply(&sb, &r);
	assert_int_equal(proto_decode_server(sb.data, sb.size, &m, err, sizeof err), 0);
	assert_int_equal(m.type, PROTO_MSG_REPLY);
	assert_true(m.reply.ok);
	assert_int_equal(m.reply.data_len, 3);
	assert_memory_equal(m.reply.data, "a\0b", 3);
	proto_server_msg_free(&m);

	msgpack_sbuffer_clear(&sb);
	proto_encode_hello(&sb, "0.1.0", &t, 1);
	assert_int_equal(proto_decode_server(sb.data, sb.size, &m, err, sizeof err), 0);
	assert_int_equal(m.type, PROTO_MSG_HELLO);
	assert_string_equal(m.version, "0.1.0");
	assert_int_equal(m.ntargets, 1);
	assert_int_equal(m.targets[0].state, PROTO_TARGET_LOST);
	assert_int_equal(m.targets[0].level, 4);
	proto_server_msg_free(&m);

	msgpack_sbuffer_clear(&sb);
	proto_encode_error(&sb, "bad");
	assert_int_equal(proto_decode_server(sb.data, sb.size, &m, err, sizeof err), 0);
	assert_int_equal(m.type, PROTO_MSG_ERROR);
	assert_string_equal(m.error, "bad");
	proto_server_msg_free(&m);
	msgpack_sbuffer_destroy(&sb);
}

/* Agent records: several in one buffer, split by their length prefixes. */
static void test_agent_records_round_trip(void **state)
{
	msgpack_sbuffer sb;
	struct proto_ag_sym sym = { .addr = 0x401000, .name = "main", .module = "/bin/demo",
	    .offset = 0x1000, .size = 64 };
	struct proto_ag_func fn = { .addr = 0x401000, .calls = 5, .total_ns = 50, .self_ns = 40,
	    .max_ns = 20, .slow = 1, .running_ns = 7 };
	struct proto_site_reason why = { "short", 6 };
	struct proto_sites sites = { .backend = "patch", .active = 3, .disabled = 9,
	    .skipped = 6, .nreasons = 1, .reasons = &why };
	struct proto_agent_rec in[] = {
		{ .type = PROTO_AG_HELLO, .hello = { .pid = 77, .exe = "/bin/demo",
		  .build_id = "abcd", .cmdline = "demo --x", .level = 3, .overhead_ps = 20000 } },
		{ .type = PROTO_AG_SYMS, .nsyms = 1, .syms = &sym },
		{ .type = PROTO_AG_FUNCS, .time_ns = 9, .threads = 3, .dropped = 2, .nfuncs = 1, .funcs = &fn },
		{ .type = PROTO_AG_SITES, .nsites = 1, .sites = &sites },
		{ .type = PROTO_AG_SITES },
		{ .type = PROTO_AG_LEVEL, .level = 4 },
		{ .type = PROTO_AG_THRESHOLD, .name = "slow", .value = -5 },
		{ .type = PROTO_AG_BYE },
	};
	struct proto_agent_rec out;
	size_t off = 0;

	(void)state;
	msgpack_sbuffer_init(&sb);
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
		proto_agent_encode(&sb, &in[i]);
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		uint32_t n = proto_agent_len(sb.data + off);

		assert_true(off + PROTO_AGENT_HDR + n <= sb.size);
		assert_int_equal(proto_agent_decode(sb.data + off + PROTO_AGENT_HDR, n, &out,
		    err, sizeof err), 0);
		assert_int_equal(out.type, in[i].type);
		switch (out.type) {
		case PROTO_AG_HELLO:
			assert_int_equal(out.hello.pid, 77);
			assert_string_equal(out.hello.cmdline, "demo --x");
			assert_int_equal(out.hello.overhead_ps, 20000);
			break;
		case PROTO_AG_SYMS:
			assert_int_equal(out.nsyms, 1);
			assert_string_equal(out.syms[0].name, "main");
			assert_int_equal(out.syms[0].size, 64);
			break;
		case PROTO_AG_FUNCS:
			assert_int_equal(out.nfuncs, 1);
			assert_int_equal(out.funcs[0].calls, 5);
			assert_int_equal(out.funcs[0].slow, 1);
			assert_int_equal(out.funcs[0].running_ns, 7);
			assert_int_equal(out.threads, 3);
			break;
		case PROTO_AG_SITES:
			assert_int_equal(out.nsites, in[i].nsites);
			if (out.nsites == 0)
				break;
			assert_string_equal(out.sites[0].backend, "patch");
			assert_int_equal(out.sites[0].active, 3);
			assert_int_equal(out.sites[0].disabled, 9);
			assert_int_equal(out.sites[0].skipped, 6);
			assert_int_equal(out.sites[0].nreasons, 1);
			assert_string_equal(out.sites[0].reasons[0].key, "short");
			assert_int_equal(out.sites[0].reasons[0].count, 6);
			break;
		case PROTO_AG_LEVEL:
			assert_int_equal(out.level, 4);
			break;
		case PROTO_AG_THRESHOLD:
			assert_string_equal(out.name, "slow");
			assert_int_equal(out.value, -5);
			break;
		default:
			break;
		}
		proto_agent_rec_free(&out);
		off += PROTO_AGENT_HDR + n;
	}
	assert_int_equal(off, sb.size);
	msgpack_sbuffer_destroy(&sb);
}

/* Pack {v, t:"sites", sites: {"patch": {active: 1, reasons: R}}} where
 * R is built by the caller's choice; returns the decode result. */
static int sites_decode(int shape, struct proto_agent_rec *out)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int r;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, shape == 0 ? 2 : 3);
	proto_pack_kv_u64(&pk, "v", 1);
	proto_pack_kv_str(&pk, "t", "sites");
	if (shape != 0) {
		proto_pack_str(&pk, "sites");
		msgpack_pack_map(&pk, 1);
		if (shape == 1)
			msgpack_pack_int(&pk, 5);          /* back-end name not a string */
		else
			proto_pack_str(&pk, "patch");
		if (shape == 2) {
			msgpack_pack_array(&pk, 0);        /* not a map */
		} else {
			msgpack_pack_map(&pk, 2);
			proto_pack_kv_u64(&pk, "active", 1);
			proto_pack_str(&pk, "reasons");
			msgpack_pack_map(&pk, shape == 5 ? PROTO_MAX_REASONS + 1 : 2);
			for (int i = 0; i < (shape == 5 ? PROTO_MAX_REASONS + 1 : 2); i++) {
				char k[8];

				snprintf(k, sizeof k, "r%d", i);
				proto_pack_str(&pk, k);
				if (shape == 3 && i == 1)
					msgpack_pack_int(&pk, -1);     /* negative count */
				else if (shape == 4 && i == 1)
					proto_pack_str(&pk, "x");      /* count not a number */
				else
					msgpack_pack_uint64(&pk, 3);
			}
		}
	}
	r = proto_agent_decode(sb.data, sb.size, out, err, sizeof err);
	msgpack_sbuffer_destroy(&sb);
	return r;
}

/* Bad sites records are rejected with a reason, leaving nothing allocated. */
static void test_sites_malformed(void **state)
{
	static const char *const why[] = { "missing field \"sites\"", "back-end names",
		"must be a map", "non-negative count", "non-negative count", "at most" };
	struct proto_agent_rec r;

	(void)state;
	for (int shape = 0; shape < 6; shape++) {
		err[0] = '\0';
		assert_int_equal(sites_decode(shape, &r), -1);
		if (strstr(err, why[shape]) == NULL)
			fail_msg("shape %d: error \"%s\" does not mention \"%s\"", shape, err,
			    why[shape]);
		assert_null(r.sites);
	}
}

/* Expect the client decoder to reject buf and to say something about why. */
static void expect_cmd_rejected(const void *buf, size_t len, const char *why)
{
	struct proto_cmd c;

	err[0] = '\0';
	assert_int_equal(proto_decode_cmd(buf, len, &c, err, sizeof err), -1);
	if (strstr(err, why) == NULL)
		fail_msg("error \"%s\" does not mention \"%s\"", err, why);
}

/* Malformed bytes: each class gets a clear error, no crash, no huge allocation. */
static void test_malformed_rejected(void **state)
{
	/* fixmap 1 {"v": array32 of 2^32-1 elements} in 11 bytes */
	static const uint8_t huge_count[] = { 0x81, 0xa1, 'v', 0xdd, 0xff, 0xff, 0xff, 0xff, 0, 0, 0 };
	/* str32 claiming 1 GiB */
	static const uint8_t huge_str[] = { 0x81, 0xa1, 'v', 0xdb, 0x40, 0, 0, 0, 'x' };
	static const uint8_t trailing[] = { 0x81, 0xa1, 'v', 0x01, 0xc0 };
	static const uint8_t truncated[] = { 0x82, 0xa1, 'v', 0x01, 0xa1, 'x' };
	static const uint8_t ext[] = { 0x81, 0xa1, 'v', 0xd4, 0x01, 0x00 };
	static const uint8_t reserved[] = { 0x81, 0xa1, 'v', 0xc1 };
	static const uint8_t not_map[] = { 0x93, 1, 2, 3 };
	static const uint8_t bad_version[] = { 0x81, 0xa1, 'v', 0x02 };
	static const uint8_t no_version[] = { 0x81, 0xa1, 't', 0xa3, 'c', 'm', 'd' };
	uint8_t deep[64];
	msgpack_sbuffer sb;
	msgpack_packer pk;

	(void)state;
	expect_cmd_rejected(huge_count, sizeof huge_count, "count larger");
	expect_cmd_rejected(huge_str, sizeof huge_str, "length larger");
	expect_cmd_rejected(trailing, sizeof trailing, "trailing");
	expect_cmd_rejected(truncated, sizeof truncated, "truncated");
	expect_cmd_rejected(ext, sizeof ext, "extension");
	expect_cmd_rejected(reserved, sizeof reserved, "reserved");
	expect_cmd_rejected(not_map, sizeof not_map, "not a map");
	expect_cmd_rejected(bad_version, sizeof bad_version, "version 2");
	expect_cmd_rejected(no_version, sizeof no_version, "\"v\"");
	expect_cmd_rejected("", 0, "empty");

	/* {"v":1, "x": [[[[...]]]]} nested past the limit */
	deep[0] = 0x82; deep[1] = 0xa1; deep[2] = 'v'; deep[3] = 1; deep[4] = 0xa1; deep[5] = 'x';
	for (size_t i = 6; i < sizeof deep - 1; i++)
		deep[i] = 0x91;
	deep[sizeof deep - 1] = 0xc0;
	expect_cmd_rejected(deep, sizeof deep, "nested");

	/* Well-formed msgpack, wrong shapes. */
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 4);
	proto_pack_kv_u64(&pk, "v", 1);
	proto_pack_kv_str(&pk, "t", "cmd");
	proto_pack_kv_str(&pk, "id", "seven");
	proto_pack_kv_str(&pk, "cmd", "level");
	expect_cmd_rejected(sb.data, sb.size, "\"id\" must be");
	{
		struct proto_cmd c;

		assert_int_equal(proto_decode_cmd(sb.data, sb.size, &c, err, sizeof err), -1);
		assert_false(c.has_id);
	}

	msgpack_sbuffer_clear(&sb);
	msgpack_pack_map(&pk, 5);
	proto_pack_kv_u64(&pk, "v", 1);
	proto_pack_kv_str(&pk, "t", "cmd");
	proto_pack_kv_u64(&pk, "id", 5);
	proto_pack_kv_str(&pk, "cmd", "level");
	proto_pack_str(&pk, "args");
	msgpack_pack_array(&pk, 1);
	msgpack_pack_int(&pk, 3);
	{
		struct proto_cmd c;

		assert_int_equal(proto_decode_cmd(sb.data, sb.size, &c, err, sizeof err), -1);
		assert_true(c.has_id);
		assert_int_equal(c.id, 5);   /* the id survives, so a reply can name it */
		assert_non_null(strstr(err, "argument 1"));
	}

	msgpack_sbuffer_clear(&sb);
	msgpack_pack_map(&pk, 4);
	proto_pack_kv_u64(&pk, "v", 1);
	proto_pack_kv_str(&pk, "t", "cmd");
	proto_pack_kv_u64(&pk, "id", 5);
	proto_pack_str(&pk, "cmd");
	msgpack_pack_str(&pk, 3);
	msgpack_pack_str_body(&pk, "a\0b", 3);
	expect_cmd_rejected(sb.data, sb.size, "NUL");
	msgpack_sbuffer_destroy(&sb);
}

/* Unknown keys are ignored: a newer peer may add fields. */
static void test_unknown_keys_ignored(void **state)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct proto_cmd c;

	(void)state;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 5);
	proto_pack_kv_str(&pk, "future", "field");
	proto_pack_kv_u64(&pk, "v", 1);
	proto_pack_kv_str(&pk, "t", "cmd");
	proto_pack_kv_u64(&pk, "id", 1);
	proto_pack_kv_str(&pk, "cmd", "reset");
	assert_int_equal(proto_decode_cmd(sb.data, sb.size, &c, err, sizeof err), 0);
	assert_string_equal(c.cmd, "reset");
	assert_int_equal(c.argc, 0);
	proto_cmd_free(&c);
	msgpack_sbuffer_destroy(&sb);
}

/* The size cap applies before anything is decoded. */
static void test_size_cap(void **state)
{
	size_t n = PROTO_MAX_MSG + 1;
	char *big = xcalloc(1, n);

	(void)state;
	expect_cmd_rejected(big, n, "limit");
	free(big);
}

/* Every truncation and many byte flips of valid messages decode or fail cleanly. */
static void test_mutations_never_crash(void **state)
{
	msgpack_sbuffer sb;
	struct proto_server_msg m;
	struct proto_agent_rec r;
	unsigned seed = 12345;

	(void)state;
	msgpack_sbuffer_init(&sb);
	make_frame(&sb);
	for (size_t cut = 0; cut < sb.size; cut++)
		assert_int_equal(proto_decode_server(sb.data, cut, &m, err, sizeof err), -1);
	for (int round = 0; round < 20000; round++) {
		char *copy = xmalloc(sb.size);
		size_t pos;

		memcpy(copy, sb.data, sb.size);
		seed = seed * 1103515245u + 12345u;
		pos = (seed >> 8) % sb.size;
		copy[pos] = (char)(seed >> 3);
		if (proto_decode_server(copy, sb.size, &m, err, sizeof err) == 0)
			proto_server_msg_free(&m);
		if (proto_agent_decode(copy, sb.size, &r, err, sizeof err) == 0)
			proto_agent_rec_free(&r);
		free(copy);
	}
	msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_round_trip),
		cmocka_unit_test(test_small_messages_round_trip),
		cmocka_unit_test(test_agent_records_round_trip),
		cmocka_unit_test(test_malformed_rejected),
		cmocka_unit_test(test_sites_malformed),
		cmocka_unit_test(test_unknown_keys_ignored),
		cmocka_unit_test(test_size_cap),
		cmocka_unit_test(test_mutations_never_crash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
