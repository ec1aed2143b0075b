/*
 * test-session-rank.c - the daemon's ranking of a session's functions: top N
 * by every sort key (running time of calls in flight counted in "total"),
 * the filter before the cut, top N equal to the head of a full sort.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "session-util.h"

/* Names of the ranked rows, space separated. */
static const char *
ranked(struct daemon_session *s, int key, const char *filter, size_t top)
{
	static char out[256];
	struct daemon_func *rows[16];
	struct daemon_totals tot;
	size_t n = daemon_rank(s, key, filter, rows, top, &tot);

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(out, " ");
		strcat(out, rows[i]->name);
	}
	return out;
}

/* Top N by every sort key; name ascending, the rest descending. */
static void
test_rank_keys(void **state)
{
	struct daemon_session *s = ranked_session();
	struct daemon_func *rows[16];
	struct daemon_totals tot;

	(void)state;
	assert_string_equal(ranked(s, PROTO_RANK_CALLS, NULL, 16),
	    "bravo delta echo_hash charlie alpha foxtrot");
	assert_string_equal(ranked(s, PROTO_RANK_RATE, NULL, 16),
	    "delta echo_hash charlie bravo alpha foxtrot");
	assert_string_equal(ranked(s, PROTO_RANK_TOTAL, NULL, 16),
	    "charlie alpha bravo foxtrot echo_hash delta");
	assert_string_equal(ranked(s, PROTO_RANK_SELF, NULL, 16),
	    "bravo foxtrot echo_hash delta charlie alpha");
	/* avg = total / calls: 500 10 300 5 50 3000 */
	assert_string_equal(ranked(s, PROTO_RANK_AVG, NULL, 16),
	    "foxtrot alpha charlie echo_hash bravo delta");
	assert_string_equal(ranked(s, PROTO_RANK_MAX, NULL, 16),
	    "foxtrot alpha charlie echo_hash bravo delta");
	assert_string_equal(ranked(s, PROTO_RANK_SLOW, NULL, 16),
	    "charlie echo_hash alpha foxtrot delta bravo");
	assert_string_equal(ranked(s, PROTO_RANK_NAME, NULL, 16),
	    "alpha bravo charlie delta echo_hash foxtrot");
	/* Top N cuts after ranking. */
	assert_string_equal(ranked(s, PROTO_RANK_TOTAL, NULL, 2), "charlie alpha");
	assert_string_equal(ranked(s, PROTO_RANK_CALLS, NULL, 1), "bravo");
	assert_string_equal(ranked(s, PROTO_RANK_CALLS, NULL, 0), "");
	/* Totals cover every function, whatever the filter or N. */
	daemon_rank(s, PROTO_RANK_CALLS, "zzz", rows, 1, &tot);
	assert_int_equal(tot.calls, 10 + 400 + 30 + 200 + 50 + 1);
	assert_int_equal(tot.self_ns, 100 + 4000 + 500 + 900 + 2400 + 3000);
	/* Key names round-trip. */
	for (int k = 0; k < PROTO_RANK_COUNT; k++)
		assert_int_equal(proto_rank_parse(proto_rank_name(k)), k);
	assert_int_equal(proto_rank_parse("bogus"), -1);
	daemon_session_free(s);
}

/* Running time (calls in flight): "total" ranks total + running, so a
 * function stuck in its first call ranks with no call counted yet; the
 * other keys ignore it; once the call returns, running goes back to 0. */
static void
test_rank_running(void **state)
{
	struct daemon_session *s = ranked_session();
	struct proto_ag_func f[2] = {
		/* foxtrot: one returned call (3000) and one 7000 in. */
		{ .addr = 0x105, .calls = 1, .total_ns = 3000, .self_ns = 3000,
		  .max_ns = 3000, .slow = 2, .running_ns = 7000 },
		/* golf: stuck in its first call for 1500 ns. */
		{ .addr = 0x106, .running_ns = 1500 },
	};
	char *text;
	size_t len;

	(void)state;
	name(s, 0x106, "golf", "/bin/app");
	feed(s, 2500 * MS, 2, f);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x105)->running_ns, 7000);
	assert_string_equal(ranked(s, PROTO_RANK_TOTAL, NULL, 16),
	    "foxtrot charlie alpha bravo echo_hash golf delta");
	assert_string_equal(ranked(s, PROTO_RANK_TOTAL, NULL, 1), "foxtrot");
	/* avg and max are figures of returned calls: unchanged, golf last. */
	assert_string_equal(ranked(s, PROTO_RANK_AVG, NULL, 16),
	    "foxtrot alpha charlie echo_hash bravo delta golf");
	assert_string_equal(ranked(s, PROTO_RANK_MAX, NULL, 16),
	    "foxtrot alpha charlie echo_hash bravo delta golf");
	assert_string_equal(ranked(s, PROTO_RANK_CALLS, NULL, 16),
	    "bravo delta echo_hash charlie alpha foxtrot golf");
	/* The report shows the running time and ranks the same way. */
	text = daemon_report_format(s, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, " running "));
	assert_non_null(strstr(text, "7.00 us"));
	assert_true(strstr(text, "foxtrot") < strstr(text, "charlie"));
	assert_non_null(strstr(text, "golf"));
	free(text);
	/* Both calls return: running 0, the time lands in total. */
	f[0] = (struct proto_ag_func){ .addr = 0x105, .calls = 2, .total_ns = 10000,
		.self_ns = 10000, .max_ns = 7000, .slow = 2 };
	f[1] = (struct proto_ag_func){ .addr = 0x106, .calls = 1, .total_ns = 1600,
		.self_ns = 1600, .max_ns = 1600 };
	feed(s, 2750 * MS, 2, f);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x105)->running_ns, 0);
	assert_string_equal(ranked(s, PROTO_RANK_TOTAL, NULL, 16),
	    "foxtrot charlie alpha bravo echo_hash golf delta");
	assert_string_equal(ranked(s, PROTO_RANK_AVG, NULL, 16),
	    "foxtrot golf alpha charlie echo_hash bravo delta");
	/* A reset zeroes running time too, until the agent reports again. */
	f[1] = (struct proto_ag_func){ .addr = 0x106, .calls = 1, .running_ns = 900 };
	feed(s, 2900 * MS, 2, f);
	daemon_session_reset(s, 3 * S);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x106)->running_ns, 0);
	assert_string_equal(ranked(s, PROTO_RANK_TOTAL, NULL, 16), "");
	daemon_session_free(s);
}

/* The filter applies before top N and ignores case. */
static void
test_rank_filter(void **state)
{
	struct daemon_session *s = ranked_session();

	(void)state;
	/* By calls, "ha" matches alpha, charlie and echo_hash. */
	assert_string_equal(ranked(s, PROTO_RANK_CALLS, "ha", 2), "echo_hash charlie");
	assert_string_equal(ranked(s, PROTO_RANK_CALLS, "HA", 16),
	    "echo_hash charlie alpha");
	assert_string_equal(ranked(s, PROTO_RANK_NAME, "o", 16),
	    "bravo echo_hash foxtrot");
	assert_string_equal(ranked(s, PROTO_RANK_NAME, "nothing", 16), "");
	assert_string_equal(ranked(s, PROTO_RANK_NAME, "", 3), "alpha bravo charlie");
	daemon_session_free(s);
}

/* Top N of many functions equals the head of a full sort. */
static void
test_rank_many(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	struct proto_ag_func *f = calloc(5000, sizeof *f);
	struct daemon_func **rows = calloc(5000, sizeof *rows);
	struct daemon_totals tot;
	size_t n;

	(void)state;
	for (size_t i = 0; i < 5000; i++)
		f[i] = (struct proto_ag_func){ .addr = 0x400000 + 16 * i,
			.calls = (i * 7919) % 5003 + 1, .total_ns = i };
	feed(s, 1 * S, 5000, f);
	assert_int_equal(s->funcs.n, 5000);
	for (size_t i = 0; i < 5000; i++)
		assert_non_null(daemon_functab_find(&s->funcs, 0x400000 + 16 * i));
	assert_null(daemon_functab_find(&s->funcs, 0x400008));
	n = daemon_rank(s, PROTO_RANK_CALLS, NULL, rows, 5000, &tot);
	assert_int_equal(n, 5000);
	for (size_t i = 1; i < n; i++)
		assert_true(rows[i - 1]->calls > rows[i]->calls ||
		    (rows[i - 1]->calls == rows[i]->calls && rows[i - 1]->addr < rows[i]->addr));
	{
		struct daemon_func *top[50];
		size_t m = daemon_rank(s, PROTO_RANK_CALLS, NULL, top, 50, &tot);

		assert_int_equal(m, 50);
		for (size_t i = 0; i < 50; i++)
			assert_ptr_equal(top[i], rows[i]);
	}
	free(f);
	free(rows);
	daemon_session_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_keys),
		cmocka_unit_test(test_rank_running),
		cmocka_unit_test(test_rank_filter),
		cmocka_unit_test(test_rank_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
