/*
 * test-session-sites.c - the daemon's hook-site statistics per session: a
 * "sites" record replaces the previous figures (absolute counts), the frame
 * carries them, the report header and the one-line summary print them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "daemon.h"

#define S  1000000000ull
#define FAKE_PID 2000000002

/* A session that said hello. */
static struct daemon_session *
sites_session(void)
{
	struct daemon_session *s = daemon_session_new(FAKE_PID, 1 * S);
	struct proto_ag_hello h = { .pid = FAKE_PID, .exe = "/bin/plain",
		.build_id = "", .cmdline = "plain", .level = 4, .overhead_ps = 20000 };

	daemon_session_hello(s, &h, 1 * S);
	return s;
}

/* Encode a sites record and decode it back, as the agent link does. */
static void
sites_round_trip(struct proto_sites *v, size_t n, struct proto_agent_rec *out)
{
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, &(struct proto_agent_rec){ .type = PROTO_AG_SITES,
	    .nsites = n, .sites = v });
	assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR,
	    sb.size - PROTO_AGENT_HDR, out, err, sizeof err), 0);
	msgpack_sbuffer_destroy(&sb);
}

/* The session keeps a copy; a later record replaces it, an empty one clears. */
static void test_sites_stored_and_replaced(void **state)
{
	struct proto_site_reason why[2] = { { "short", 6 }, { "insn", 1 } };
	struct proto_sites v[2] = {
		{ .backend = "patch", .active = 10, .disabled = 2, .skipped = 7,
		  .nreasons = 2, .reasons = why },
		{ .backend = "finstrument", .active = 3 },
	};
	struct daemon_session *s = sites_session();
	struct proto_agent_rec r;

	(void)state;
	assert_int_equal(s->nsites, 0);
	sites_round_trip(v, 2, &r);
	daemon_session_record(s, &r, 0);
	proto_agent_rec_free(&r);           /* the session owns its copy */
	assert_int_equal(s->nsites, 2);
	assert_string_equal(s->sites[0].backend, "patch");
	assert_int_equal(s->sites[0].active, 10);
	assert_int_equal(s->sites[0].reasons[0].count, 6);
	assert_string_equal(s->sites[0].reasons[1].key, "insn");
	assert_int_equal(s->sites[1].active, 3);

	/* level 1: most sites switched off; the record replaces, never adds */
	v[0].active = 1;
	v[0].disabled = 11;
	sites_round_trip(v, 1, &r);
	daemon_session_record(s, &r, 0);
	proto_agent_rec_free(&r);
	assert_int_equal(s->nsites, 1);
	assert_int_equal(s->sites[0].active, 1);
	assert_int_equal(s->sites[0].disabled, 11);
	assert_int_equal(s->sites[0].skipped, 7);

	/* the figures outlive the agent connection */
	daemon_session_detach(s, true);
	assert_int_equal(s->nsites, 1);

	sites_round_trip(v, 0, &r);
	daemon_session_record(s, &r, 0);
	proto_agent_rec_free(&r);
	assert_int_equal(s->nsites, 0);
	daemon_session_free(s);
}

/* The one-line summary, the report header, truncation. */
static void test_sites_line_and_report(void **state)
{
	struct proto_site_reason why[2] = { { "short", 6 }, { "insn", 1 } };
	struct proto_sites v[2] = {
		{ .backend = "patch", .active = 10, .disabled = 2, .skipped = 7,
		  .nreasons = 2, .reasons = why },
		{ .backend = "finstrument", .active = 3 },
	};
	struct daemon_session *s = sites_session();
	struct proto_agent_rec r;
	char line[256], tiny[12];
	size_t len;
	char *text;

	(void)state;
	assert_string_equal(daemon_sites_line(NULL, 0, line, sizeof line), "none");
	assert_string_equal(daemon_sites_line(v, 2, line, sizeof line),
	    "patch 10 on/2 off/7 skipped (short 6, insn 1); finstrument 3 on/0 off/0 skipped");
	daemon_sites_line(v, 2, tiny, sizeof tiny);
	assert_int_equal(strlen(tiny), sizeof tiny - 1);
	assert_string_equal(tiny, "patch 10 on");

	text = daemon_report_format(s, 2 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "sites:     none\n"));
	free(text);
	sites_round_trip(v, 2, &r);
	daemon_session_record(s, &r, 0);
	proto_agent_rec_free(&r);
	text = daemon_report_format(s, 2 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "sites:     patch 10 on/2 off/7 skipped (short 6, insn 1); "
	    "finstrument 3 on/0 off/0 skipped\n"));
	free(text);
	daemon_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites_stored_and_replaced),
		cmocka_unit_test(test_sites_line_and_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
