/*
 * test-session.c - the daemon's session aggregation without lws: figures
 * replace, rates over about a second, the session list (resume, pid reuse,
 * auto pick), exited sessions keeping their figures, reset, reports,
 * options.  Ranking: test-session-rank.c.
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

/* A funcs record replaces a function's figures; it never adds. */
static void
test_funcs_replace(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	struct proto_ag_func a = { .addr = 0x10, .calls = 10, .total_ns = 1000,
		.self_ns = 600, .max_ns = 300, .slow = 1 };
	struct daemon_func *f;

	(void)state;
	feed(s, 1 * S, 1, &a);
	a = (struct proto_ag_func){ .addr = 0x10, .calls = 25, .total_ns = 2500,
		.self_ns = 1500, .max_ns = 400, .slow = 2 };
	feed(s, 2 * S, 1, &a);
	feed(s, 3 * S, 1, &a);          /* the same cumulative figures again */
	f = daemon_functab_find(&s->funcs, 0x10);
	assert_non_null(f);
	assert_int_equal(f->calls, 25);
	assert_int_equal(f->total_ns, 2500);
	assert_int_equal(f->self_ns, 1500);
	assert_int_equal(f->max_ns, 400);
	assert_int_equal(f->slow, 2);
	assert_int_equal(daemon_func_avg(f), 100);
	assert_int_equal(s->threads, 3);
	assert_int_equal(s->dropped, 7);
	assert_int_equal(s->funcs.n, 1);
	/* A function that did not change keeps its figures. */
	feed1(s, 4 * S, 0x20, 5);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x10)->calls, 25);
	assert_int_equal(s->funcs.n, 2);
	daemon_session_free(s);
}

/* syms name functions (module as basename), before or after figures. */
static void
test_syms(void **state)
{
	struct daemon_session *s = live_session(1 * S);

	(void)state;
	feed1(s, 1 * S, 0x10, 3);
	name(s, 0x10, "work", "/usr/lib/libfoo.so.1");
	name(s, 0x20, "later", "");
	feed1(s, 2 * S, 0x20, 4);
	assert_string_equal(daemon_functab_find(&s->funcs, 0x10)->name, "work");
	assert_string_equal(daemon_functab_find(&s->funcs, 0x10)->module, "libfoo.so.1");
	assert_null(daemon_functab_find(&s->funcs, 0x20)->module);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x20)->calls, 4);
	assert_string_equal(s->name, "target");     /* basename of exe */
	assert_int_equal(s->state, PROTO_TARGET_LIVE);
	daemon_session_free(s);
}

/* Calls per second over about the last second, at a steady and a new rate. */
static void
test_rates(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	uint64_t t = 1 * S, calls = 5000;   /* history before we connected */

	(void)state;
	/* The first record after hello is the baseline: no burst of 5000/s. */
	feed1(s, t, 0x10, calls);
	assert_true(rate_of(s, 0x10) == 0.0);
	/* 1000 calls/s, reported every 250 ms. */
	for (int i = 0; i < 12; i++) {
		t += 250 * MS;
		calls += 250;
		feed1(s, t, 0x10, calls);
		assert_float_equal(rate_of(s, 0x10), 1000.0, 0.5);
	}
	/* Now 4000 calls/s: half a second in, the last second is half old
	 * half new; a second in, the rate is the new one. */
	for (int i = 0; i < 2; i++) {
		t += 250 * MS;
		calls += 1000;
		feed1(s, t, 0x10, calls);
	}
	assert_float_equal(rate_of(s, 0x10), 2500.0, 0.5);
	for (int i = 0; i < 2; i++) {
		t += 250 * MS;
		calls += 1000;
		feed1(s, t, 0x10, calls);
	}
	assert_float_equal(rate_of(s, 0x10), 4000.0, 0.5);
	/* A function first seen on this connection started from zero. */
	t += 250 * MS;
	feed1(s, t, 0x20, 100);
	assert_true(rate_of(s, 0x20) > 0.0);
	daemon_session_free(s);
}

/* With no reports (idle, or the target gone) rates decay to zero. */
static void
test_rates_decay(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	uint64_t t = 1 * S;

	(void)state;
	feed1(s, t, 0x10, 0);
	for (int i = 1; i <= 8; i++)
		feed1(s, t + i * 250 * MS, 0x10, (uint64_t)i * 500);
	t += 8 * 250 * MS;
	assert_float_equal(rate_of(s, 0x10), 2000.0, 0.5);
	/* Within the stale limit nothing changes. */
	daemon_session_tick(s, t + 500 * MS);
	assert_float_equal(rate_of(s, 0x10), 2000.0, 0.5);
	/* Then the figures count as unchanged up to now: the rate falls... */
	daemon_session_tick(s, t + 1100 * MS);
	assert_true(rate_of(s, 0x10) < 2000.0);
	/* ...to zero after two more samples, the calls themselves unchanged. */
	daemon_session_tick(s, t + 1700 * MS);
	daemon_session_tick(s, t + 2300 * MS);
	daemon_session_tick(s, t + 2900 * MS);
	assert_true(rate_of(s, 0x10) == 0.0);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x10)->calls, 4000);
	daemon_session_free(s);
}

/* An exited session keeps its final figures; a lost one resumes. */
static void
test_session_end_and_resume(void **state)
{
	struct daemon_sessions ss = { 0 };
	struct proto_ag_hello h = hello_for(FAKE_PID, "/opt/x/target");
	struct daemon_session *s, *again;

	(void)state;
	s = daemon_sessions_attach(&ss, &h, 1 * S);
	feed1(s, 1 * S, 0x10, 100);
	feed1(s, 2 * S, 0x10, 300);
	/* Connection lost, process still there: lost, then the agent is back. */
	daemon_session_detach(s, false);
	assert_int_equal(s->state, PROTO_TARGET_LOST);
	assert_true(s->ended_ms > 0);
	again = daemon_sessions_attach(&ss, &h, 3 * S);
	assert_ptr_equal(again, s);
	assert_int_equal(ss.n, 1);
	assert_int_equal(s->state, PROTO_TARGET_LIVE);
	assert_int_equal(s->ended_ms, 0);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x10)->calls, 300);
	/* The resent cumulative figures are a baseline, not a burst. */
	feed1(s, 3 * S, 0x10, 900);
	assert_true(rate_of(s, 0x10) == 0.0);
	/* Exit: the final figures stay, rates fall to zero. */
	s->bye = true;
	daemon_session_detach(s, true);
	assert_int_equal(s->state, PROTO_TARGET_EXITED);
	for (uint64_t t = 4 * S; t < 8 * S; t += 500 * MS)
		daemon_session_tick(s, t);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x10)->calls, 900);
	assert_true(rate_of(s, 0x10) == 0.0);
	assert_ptr_equal(daemon_sessions_pick(&ss, 0), s);
	/* A hello for the pid of an exited session is a new process. */
	again = daemon_sessions_attach(&ss, &h, 9 * S);
	assert_int_equal(ss.n, 1);
	assert_int_equal(again->funcs.n, 0);
	assert_int_equal(again->state, PROTO_TARGET_LIVE);
	daemon_sessions_free(&ss);
}

/* Auto target: newest live session, else the newest; forget; eviction. */
static void
test_sessions_pick_forget(void **state)
{
	struct daemon_sessions ss = { 0 };
	struct proto_ag_hello h;
	struct daemon_session *a, *b;
	struct proto_target t[4];

	(void)state;
	assert_null(daemon_sessions_pick(&ss, 0));
	h = hello_for(FAKE_PID, "/bin/a");
	a = daemon_sessions_attach(&ss, &h, 1 * S);
	h = hello_for(FAKE_PID + 1, "/bin/b");
	b = daemon_sessions_attach(&ss, &h, 2 * S);
	assert_ptr_equal(daemon_sessions_pick(&ss, 0), b);
	daemon_session_detach(b, true);
	assert_ptr_equal(daemon_sessions_pick(&ss, 0), a);
	daemon_session_detach(a, true);
	assert_ptr_equal(daemon_sessions_pick(&ss, 0), b);
	assert_ptr_equal(daemon_sessions_pick(&ss, FAKE_PID), a);
	assert_null(daemon_sessions_pick(&ss, 12345));
	assert_int_equal(daemon_sessions_targets(&ss, t), 2);
	assert_int_equal(t[0].pid, FAKE_PID);
	assert_string_equal(t[1].name, "b");
	assert_int_equal(t[1].state, PROTO_TARGET_EXITED);
	assert_int_equal(daemon_sessions_forget(&ss, FAKE_PID), 0);
	assert_int_equal(daemon_sessions_forget(&ss, FAKE_PID), -1);
	assert_int_equal(ss.n, 1);
	/* Past DAEMON_MAX_SESSIONS the oldest ended session makes room. */
	for (int i = 0; i < DAEMON_MAX_SESSIONS + 5; i++) {
		h = hello_for(FAKE_PID + 10 + i, "/bin/n");
		daemon_session_detach(daemon_sessions_attach(&ss, &h, 3 * S), true);
	}
	assert_int_equal(ss.n, DAEMON_MAX_SESSIONS);
	assert_null(daemon_sessions_find(&ss, FAKE_PID + 1));
	daemon_sessions_free(&ss);
}

/* reset zeroes figures and rates; a record from before it is dropped. */
static void
test_reset(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	struct proto_agent_rec r;
	struct proto_ag_func f = { .addr = 0x10, .calls = 999 };

	(void)state;
	feed1(s, 1 * S, 0x10, 100);
	feed1(s, 2 * S, 0x10, 1100);
	assert_true(rate_of(s, 0x10) > 0);
	daemon_session_reset(s, 3 * S);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x10)->calls, 0);
	assert_true(rate_of(s, 0x10) == 0.0);
	/* In flight before the agent saw the reset: its agent time is older. */
	r = (struct proto_agent_rec){ .type = PROTO_AG_FUNCS, .time_ns = 2500 * MS,
		.nfuncs = 1, .funcs = &f };
	daemon_session_record(s, &r, 3100 * MS);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x10)->calls, 0);
	/* After the reset the counts start from zero: 50 calls in 0.5 s. */
	feed1(s, 3500 * MS, 0x10, 50);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x10)->calls, 50);
	assert_float_equal(rate_of(s, 0x10), 100.0, 0.5);
	daemon_session_free(s);
}

/* The report: header, ranking by total; saved atomically, or a clear error. */
static void
test_report(void **state)
{
	struct daemon_session *s = ranked_session();
	char dir[] = "/tmp/test-session.XXXXXX", bad[512], err[PROTO_ERR_LEN];
	char *text, *path = NULL, *p1, *p2, buf[8192];
	size_t len;
	FILE *f;

	(void)state;
	text = daemon_report_format(s, 3 * S, proto_wall_ms(), &len);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "target:    target (pid 2000000001)"));
	assert_non_null(strstr(text, "calls:     691"));
	assert_non_null(strstr(text, "overhead:  20.0 ns per call"));
	p1 = strstr(text, "charlie");
	p2 = strstr(text, "delta");
	assert_true(p1 && p2 && p1 < p2);       /* ranked by total */
	assert_null(strstr(text, "never_called"));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(daemon_report_write(dir, s->pid, proto_wall_ms(), text, len,
	    &path, err, sizeof err), 0);
	assert_non_null(strstr(path, "/hookscope-2000000001-"));
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof buf, f), len);
	fclose(f);
	assert_memory_equal(buf, text, len);
	unlink(path);
	free(path);
	/* Inside a regular file: an error naming the directory, no file. */
	snprintf(bad, sizeof bad, "%s/file", dir);
	f = fopen(bad, "w");
	fclose(f);
	strcat(bad, "/reports");
	assert_int_equal(daemon_report_write(bad, s->pid, proto_wall_ms(), text, len,
	    &path, err, sizeof err), -1);
	assert_null(path);
	assert_non_null(strstr(err, bad));
	snprintf(bad, sizeof bad, "%s/file", dir);
	unlink(bad);
	assert_int_equal(rmdir(dir), 0);        /* nothing else was left */
	free(text);
	daemon_session_free(s);
}

/* Options: defaults, values, and clear errors. */
static void
test_opts(void **state)
{
	struct daemon_opts o;
	char err[PROTO_ERR_LEN];
	char *ok[] = { "hookscoped", "--port", "9000", "--top", "7", "--rate", "2.5",
		"-v", "run", "--level", "3", "--", "prog", "x", NULL };
	char *bad1[] = { "hookscoped", "--port", "0", NULL };
	char *bad2[] = { "hookscoped", "--top", "1001", NULL };
	char *bad3[] = { "hookscoped", "run", "--level", "5", "--", "p", NULL };
	char *bad4[] = { "hookscoped", "--address", "localhost", NULL };

	(void)state;
	assert_int_equal(daemon_opts_parse(&o, 14, ok, err, sizeof err), DAEMON_OPTS_OK);
	assert_int_equal(o.port, 9000);
	assert_int_equal(o.top, 7);
	assert_float_equal(o.rate_hz, 2.5, 1e-9);
	assert_int_equal(o.verbose, 1);
	assert_true(o.run);
	assert_int_equal(o.run_level, 3);
	assert_string_equal(o.run_argv[0], "prog");
	assert_string_equal(o.address, "127.0.0.1");
	assert_non_null(o.socket_path);
	assert_non_null(o.report_dir);
	daemon_opts_free(&o);
	assert_int_equal(daemon_opts_parse(&o, 3, bad1, err, sizeof err), DAEMON_OPTS_ERROR);
	assert_non_null(strstr(err, "--port"));
	daemon_opts_free(&o);
	assert_int_equal(daemon_opts_parse(&o, 3, bad2, err, sizeof err), DAEMON_OPTS_ERROR);
	daemon_opts_free(&o);
	assert_int_equal(daemon_opts_parse(&o, 6, bad3, err, sizeof err), DAEMON_OPTS_ERROR);
	assert_non_null(strstr(err, "level"));
	daemon_opts_free(&o);
	assert_int_equal(daemon_opts_parse(&o, 3, bad4, err, sizeof err), DAEMON_OPTS_ERROR);
	daemon_opts_free(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_funcs_replace),
		cmocka_unit_test(test_syms),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_rates_decay),
		cmocka_unit_test(test_session_end_and_resume),
		cmocka_unit_test(test_sessions_pick_forget),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
