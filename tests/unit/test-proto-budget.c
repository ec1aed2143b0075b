/*
 * test-proto-budget.c - the overhead budget's protocol parts: a function
 * row's mode by name (server.c) and the budget as people write it (budget.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "field.h"
#include "wire-decode.h"

/* A row's mode travels by name: each one round trips through msgpack and
 * JSON; a row without one (an older daemon) is timed; an unknown name is
 * refused, naming it. */
static void test_func_mode(void **state)
{
	char err[PROTO_ERR_LEN];

	(void)state;
	for (unsigned m = 0; m <= PROTO_FMODE_N; m++) {
		struct proto_func in = { .name = "f", .mode = (uint8_t)m, .calls_est = true },
		    out;
		msgpack_sbuffer sb;
		msgpack_packer pk;

		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		if (m == PROTO_FMODE_N) {          /* no "mode" key: the required ones only */
			msgpack_pack_map(&pk, 4);
			proto_pack_kv_str(&pk, "name", "f");
			proto_pack_kv_u64(&pk, "calls", 1);
			proto_pack_kv_u64(&pk, "total_ns", 1);
			proto_pack_kv_u64(&pk, "self_ns", 1);
		} else {
			proto_struct_pack(&pk, &proto_func_desc, &in);
		}
		assert_int_equal(wire_decode(&sb, &proto_func_desc, &out, err, sizeof err), 0);
		assert_int_equal(out.mode, m == PROTO_FMODE_N ? PROTO_FMODE_TIMED : m);
		assert_int_equal(out.calls_est, m != PROTO_FMODE_N);
		assert_int_equal(out.time_est, false);
		proto_struct_free(&proto_func_desc, &out);
		msgpack_sbuffer_destroy(&sb);
	}
	{
		msgpack_sbuffer sb;
		msgpack_packer pk;
		struct proto_func out;

		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, 5);
		proto_pack_kv_str(&pk, "name", "f");
		proto_pack_kv_u64(&pk, "calls", 1);
		proto_pack_kv_u64(&pk, "total_ns", 1);
		proto_pack_kv_u64(&pk, "self_ns", 1);
		proto_pack_kv_str(&pk, "mode", "traced");
		assert_int_equal(wire_decode(&sb, &proto_func_desc, &out, err, sizeof err), -1);
		assert_non_null(strstr(err, "unknown mode \"traced\""));
		proto_struct_free(&proto_func_desc, &out);
		msgpack_sbuffer_destroy(&sb);
	}
	for (int m = 0; m < PROTO_FMODE_N; m++)
		assert_int_equal(proto_fmode_parse(proto_fmode_name((unsigned)m)), m);
	assert_int_equal(proto_fmode_parse("Timed"), -1);
}

/* The budget as people write it: a percentage over 0 up to 100 or off, in
 * ppm; anything else refused with what is expected; and back to text. */
static void test_budget_parse(void **state)
{
	static const struct { const char *s; uint32_t ppm; } good[] = {
		{ "5", 50000 }, { "5%", 50000 }, { "0.5", 5000 }, { "100", 1000000 },
		{ "0.0001", 1 }, { "off", 0 }, { "12.5%", 125000 },
	};
	static const char *const bad[] = {
		"", "0", "0%", "-1", "101", "100.01", "abc", "5x", "5%%", " 5", "nan", "inf",
		"0.00001", "OFF", "1e9",
	};
	char err[PROTO_ERR_LEN], buf[32];
	uint32_t ppm;

	(void)state;
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		ppm = 7;
		assert_int_equal(proto_budget_parse(good[i].s, &ppm, err, sizeof err), 0);
		assert_int_equal(ppm, good[i].ppm);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ppm = 7;
		err[0] = '\0';
		if (proto_budget_parse(bad[i], &ppm, err, sizeof err) != -1)
			fail_msg("budget '%s' accepted", bad[i]);
		assert_int_equal(ppm, 7);
		assert_non_null(strstr(err, "over 0 up to 100"));
	}
	assert_string_equal(proto_budget_str(0, buf, sizeof buf), "off");
	assert_string_equal(proto_budget_str(50000, buf, sizeof buf), "5%");
	assert_string_equal(proto_budget_str(5000, buf, sizeof buf), "0.5%");
	assert_string_equal(proto_ppm_str(31400, buf, sizeof buf), "3.1%");
	assert_string_equal(proto_ppm_str(123000, buf, sizeof buf), "12%");
	assert_string_equal(proto_ppm_str(500, buf, sizeof buf), "0.05%");
	assert_string_equal(proto_ppm_str(0, buf, sizeof buf), "0%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_func_mode),
		cmocka_unit_test(test_budget_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
