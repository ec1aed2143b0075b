/*
 * test-rank.c - the sort keys of protocol/rank.h: the daemon's ranking, sent
 * in a real frame and re-sorted by the TUI under the same key, keeps its
 * order, ties and unnamed functions included; the TUI's key cycle names
 * every key.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "session-util.h"
#include "rank.h"
#include "tui.h"

/* Functions tied under every key but name, named against address order,
 * plus two unnamed ones and two sharing a name. */
static struct daemon_session *
tied_session(void)
{
	static const char *const names[] = { "zulu", "yankee", NULL, "xray", "dup", "dup", NULL };
	struct daemon_session *s = live_session(1 * S);
	struct proto_ag_func f[7];

	for (size_t i = 0; i < 7; i++) {
		if (names[i] != NULL)
			name(s, 0x1000 + i, names[i], "/bin/app");
		/* pairs tie on calls; all tie on max and slow */
		f[i] = (struct proto_ag_func){ .addr = 0x1000 + i, .calls = 10 + i / 2,
			.total_ns = 100 * (i % 3), .self_ns = 50, .max_ns = 7, .slow = 1 };
	}
	feed(s, 1 * S, 7, f);
	feed(s, 2 * S, 7, f);
	return s;
}

/* The frame the daemon sends a client sorting by key, decoded. */
static void
frame_for(struct daemon_session *s, int key, struct proto_server_msg *m)
{
	struct daemon_opts o = { .top = 50 };
	struct daemon_state d = { .opts = &o, .sessions = { .v = &s, .n = 1 } };
	struct daemon_client c = { .d = &d, .view = { .sort = key, .top = 50 } };
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	msgpack_sbuffer_init(&sb);
	daemon_frame_encode(&d, &c, &sb);
	memset(m, 0, sizeof *m);
	assert_int_equal(proto_decode_server(sb.data, sb.size, m, err, sizeof err), 0);
	assert_int_equal(m->type, PROTO_MSG_FRAME);
	msgpack_sbuffer_destroy(&sb);
}

/* Under every key the TUI's re-sort of a (reversed) frame gives the
 * daemon's order back. */
static void
test_rank_daemon_equals_tui(void **state)
{
	struct daemon_session *s = tied_session();

	(void)state;
	for (int k = 0; k < PROTO_RANK_COUNT; k++) {
		struct proto_server_msg m;
		struct proto_frame *f = &m.frame;
		uint64_t want[16];
		size_t n;

		frame_for(s, k, &m);
		n = f->nfuncs;
		assert_int_equal(n, 7);
		assert_string_equal(f->sort, proto_rank_name(k));
		for (size_t i = 0; i < n; i++)
			want[i] = f->funcs[i].addr;
		for (size_t i = 0; i < n / 2; i++) {     /* reverse, then re-sort */
			struct proto_func t = f->funcs[i];

			f->funcs[i] = f->funcs[n - 1 - i];
			f->funcs[n - 1 - i] = t;
		}
		tui_funcs_sort(f->funcs, n, proto_rank_name(k));
		for (size_t i = 0; i < n; i++) {
			if (f->funcs[i].addr != want[i])
				fail_msg("key %s: row %zu is 0x%llx, the daemon sent 0x%llx",
				    proto_rank_name(k), i, (unsigned long long)f->funcs[i].addr,
				    (unsigned long long)want[i]);
		}
		proto_server_msg_free(&m);
	}
	daemon_session_free(s);
}

/* The tie-break and the name key, seen in the daemon's order. */
static void
test_rank_ties(void **state)
{
	struct daemon_session *s = tied_session();
	struct daemon_func *rows[16];
	struct daemon_totals tot;
	size_t n;

	(void)state;
	/* max ties everywhere: address order */
	n = daemon_rank(s, PROTO_RANK_MAX, NULL, rows, 16, &tot);
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rows[i]->addr, 0x1000 + i);
	/* names ascending, equal names by address, unnamed last by address */
	n = daemon_rank(s, PROTO_RANK_NAME, NULL, rows, 16, &tot);
	{
		static const uint64_t want[] = { 0x1004, 0x1005, 0x1003, 0x1001, 0x1000,
			0x1002, 0x1006 };

		for (size_t i = 0; i < n; i++)
			assert_int_equal(rows[i]->addr, want[i]);
	}
	/* calls: pairs (0,1) (2,3) (4,5) (6) ascending calls -> descending */
	n = daemon_rank(s, PROTO_RANK_CALLS, NULL, rows, 16, &tot);
	{
		static const uint64_t want[] = { 0x1006, 0x1004, 0x1005, 0x1002, 0x1003,
			0x1000, 0x1001 };

		for (size_t i = 0; i < n; i++)
			assert_int_equal(rows[i]->addr, want[i]);
	}
	daemon_session_free(s);
}

/* Names round trip; the TUI's cycle is a permutation of the keys. */
static void
test_rank_names(void **state)
{
	bool seen[PROTO_RANK_COUNT] = { 0 };
	int n = 0;

	(void)state;
	for (int k = 0; k < PROTO_RANK_COUNT; k++)
		assert_int_equal(proto_rank_parse(proto_rank_name(k)), k);
	assert_int_equal(proto_rank_parse("bogus"), -1);
	assert_int_equal(proto_rank_parse(NULL), -1);
	assert_string_equal(proto_rank_name(PROTO_RANK_COUNT), "?");
	assert_string_equal(proto_rank_names(), "calls, rate, total, self, avg, max, slow, name");
	for (; tui_sort_keys[n] != NULL; n++) {
		int k = proto_rank_parse(tui_sort_keys[n]);

		assert_true(k >= 0);
		assert_false(seen[k]);
		seen[k] = true;
	}
	assert_int_equal(n, PROTO_RANK_COUNT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_daemon_equals_tui),
		cmocka_unit_test(test_rank_ties),
		cmocka_unit_test(test_rank_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
