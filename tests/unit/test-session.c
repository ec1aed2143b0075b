/*
 * test-session.c - the daemon's session aggregation without lws: figures
 * replace, rates over about a second, top N by every sort key (running
 * time of calls in flight counted in "total"), the filter, the session list
 * (resume, pid reuse, auto pick), exited sessions keeping their figures,
 * reset, reports.
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
#include "daemon.h"

#define MS 1000000ull
#define S  1000000000ull
/* Above any pid_max, so /proc has nothing and the name comes from exe. */
#define FAKE_PID 2000000001

/* A hello as an agent would send it. */
static struct proto_ag_hello
hello_for(int32_t pid, const char *exe)
{
	return (struct proto_ag_hello){ .pid = pid, .exe = (char *)exe,
		.build_id = "", .cmdline = "t", .level = 2, .overhead_ps = 20000 };
}

/* A live session with no functions, as after the agent's hello at t. */
static struct daemon_session *
live_session(uint64_t t)
{
	struct proto_ag_hello h = hello_for(FAKE_PID, "/opt/x/target");
	struct daemon_session *s = daemon_session_new(FAKE_PID, t);

	daemon_session_hello(s, &h, t);
	return s;
}

/* Feed one funcs record of n functions: addr 0x1000 + i with figures. */
static void
feed(struct daemon_session *s, uint64_t t, size_t n, const struct proto_ag_func *f)
{
	struct proto_agent_rec r = { .type = PROTO_AG_FUNCS, .time_ns = t,
		.threads = 3, .dropped = 7, .nfuncs = n,
		.funcs = (struct proto_ag_func *)f };

	daemon_session_funcs(s, &r, t);
}

/* Feed calls for one function. */
static void
feed1(struct daemon_session *s, uint64_t t, uint64_t addr, uint64_t calls)
{
	struct proto_ag_func f = { .addr = addr, .calls = calls,
		.total_ns = calls * 10, .self_ns = calls * 5, .max_ns = 100 };

	feed(s, t, 1, &f);
}

/* Name some addresses. */
static void
name(struct daemon_session *s, uint64_t addr, const char *n, const char *module)
{
	struct proto_ag_sym y = { .addr = addr, .name = (char *)n,
		.module = (char *)module };
	struct proto_agent_rec r = { .type = PROTO_AG_SYMS, .nsyms = 1, .syms = &y };

	daemon_session_syms(s, &r);
}

/* Rate of addr after daemon_session_rates. */
static double
rate_of(struct daemon_session *s, uint64_t addr)
{
	daemon_session_rates(s);
	return daemon_functab_find(&s->funcs, addr)->rate;
}

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

/* Six functions with figures that order differently under every key. */
static struct daemon_session *
ranked_session(void)
{
	static const struct { const char *name; uint64_t calls, total, self, max, slow, rate; } fx[] = {
		/* name        calls total   self  max  slow rate/s */
		{ "alpha",     10,   5000,   100,  900, 3,   9 },
		{ "bravo",     400,  4000,   4000, 20,  0,   10 },
		{ "charlie",   30,   9000,   500,  600, 9,   20 },
		{ "delta",     200,  1000,   900,  5,   1,   100 },
		{ "echo_hash", 50,   2500,   2400, 70,  4,   30 },
		{ "foxtrot",   1,    3000,   3000, 3000, 2,  0 },
	};
	struct daemon_session *s = live_session(1 * S);
	struct proto_ag_func f[6];

	for (size_t i = 0; i < 6; i++) {
		name(s, 0x100 + i, fx[i].name, "/bin/app");
		f[i] = (struct proto_ag_func){ .addr = 0x100 + i, .calls = fx[i].calls - fx[i].rate,
			.total_ns = fx[i].total, .self_ns = fx[i].self, .max_ns = fx[i].max,
			.slow = fx[i].slow };
	}
	feed(s, 1 * S, 6, f);           /* baseline */
	for (size_t i = 0; i < 6; i++)
		f[i].calls = fx[i].calls;
	feed(s, 2 * S, 6, f);           /* one second later: rate = fx.rate */
	/* A function the agent named but never saw called is not ranked. */
	name(s, 0x200, "never_called", "/bin/app");
	return s;
}

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
	assert_string_equal(ranked(s, DAEMON_SORT_CALLS, NULL, 16),
	    "bravo delta echo_hash charlie alpha foxtrot");
	assert_string_equal(ranked(s, DAEMON_SORT_RATE, NULL, 16),
	    "delta echo_hash charlie bravo alpha foxtrot");
	assert_string_equal(ranked(s, DAEMON_SORT_TOTAL, NULL, 16),
	    "charlie alpha bravo foxtrot echo_hash delta");
	assert_string_equal(ranked(s, DAEMON_SORT_SELF, NULL, 16),
	    "bravo foxtrot echo_hash delta charlie alpha");
	/* avg = total / calls: 500 10 300 5 50 3000 */
	assert_string_equal(ranked(s, DAEMON_SORT_AVG, NULL, 16),
	    "foxtrot alpha charlie echo_hash bravo delta");
	assert_string_equal(ranked(s, DAEMON_SORT_MAX, NULL, 16),
	    "foxtrot alpha charlie echo_hash bravo delta");
	assert_string_equal(ranked(s, DAEMON_SORT_SLOW, NULL, 16),
	    "charlie echo_hash alpha foxtrot delta bravo");
	assert_string_equal(ranked(s, DAEMON_SORT_NAME, NULL, 16),
	    "alpha bravo charlie delta echo_hash foxtrot");
	/* Top N cuts after ranking. */
	assert_string_equal(ranked(s, DAEMON_SORT_TOTAL, NULL, 2), "charlie alpha");
	assert_string_equal(ranked(s, DAEMON_SORT_CALLS, NULL, 1), "bravo");
	assert_string_equal(ranked(s, DAEMON_SORT_CALLS, NULL, 0), "");
	/* Totals cover every function, whatever the filter or N. */
	daemon_rank(s, DAEMON_SORT_CALLS, "zzz", rows, 1, &tot);
	assert_int_equal(tot.calls, 10 + 400 + 30 + 200 + 50 + 1);
	assert_int_equal(tot.self_ns, 100 + 4000 + 500 + 900 + 2400 + 3000);
	/* Key names round-trip. */
	for (int k = 0; k < DAEMON_SORT_COUNT; k++)
		assert_int_equal(daemon_sort_parse(daemon_sort_name(k)), k);
	assert_int_equal(daemon_sort_parse("bogus"), -1);
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
	assert_string_equal(ranked(s, DAEMON_SORT_TOTAL, NULL, 16),
	    "foxtrot charlie alpha bravo echo_hash golf delta");
	assert_string_equal(ranked(s, DAEMON_SORT_TOTAL, NULL, 1), "foxtrot");
	/* avg and max are figures of returned calls: unchanged, golf last. */
	assert_string_equal(ranked(s, DAEMON_SORT_AVG, NULL, 16),
	    "foxtrot alpha charlie echo_hash bravo delta golf");
	assert_string_equal(ranked(s, DAEMON_SORT_MAX, NULL, 16),
	    "foxtrot alpha charlie echo_hash bravo delta golf");
	assert_string_equal(ranked(s, DAEMON_SORT_CALLS, NULL, 16),
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
	assert_string_equal(ranked(s, DAEMON_SORT_TOTAL, NULL, 16),
	    "foxtrot charlie alpha bravo echo_hash golf delta");
	assert_string_equal(ranked(s, DAEMON_SORT_AVG, NULL, 16),
	    "foxtrot golf alpha charlie echo_hash bravo delta");
	/* A reset zeroes running time too, until the agent reports again. */
	f[1] = (struct proto_ag_func){ .addr = 0x106, .calls = 1, .running_ns = 900 };
	feed(s, 2900 * MS, 2, f);
	daemon_session_reset(s, 3 * S);
	assert_int_equal(daemon_functab_find(&s->funcs, 0x106)->running_ns, 0);
	assert_string_equal(ranked(s, DAEMON_SORT_TOTAL, NULL, 16), "");
	daemon_session_free(s);
}

/* The filter applies before top N and ignores case. */
static void
test_rank_filter(void **state)
{
	struct daemon_session *s = ranked_session();

	(void)state;
	/* By calls, "ha" matches alpha, charlie and echo_hash. */
	assert_string_equal(ranked(s, DAEMON_SORT_CALLS, "ha", 2), "echo_hash charlie");
	assert_string_equal(ranked(s, DAEMON_SORT_CALLS, "HA", 16),
	    "echo_hash charlie alpha");
	assert_string_equal(ranked(s, DAEMON_SORT_NAME, "o", 16),
	    "bravo echo_hash foxtrot");
	assert_string_equal(ranked(s, DAEMON_SORT_NAME, "nothing", 16), "");
	assert_string_equal(ranked(s, DAEMON_SORT_NAME, "", 3), "alpha bravo charlie");
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
	n = daemon_rank(s, DAEMON_SORT_CALLS, NULL, rows, 5000, &tot);
	assert_int_equal(n, 5000);
	for (size_t i = 1; i < n; i++)
		assert_true(rows[i - 1]->calls > rows[i]->calls ||
		    (rows[i - 1]->calls == rows[i]->calls && rows[i - 1]->addr < rows[i]->addr));
	{
		struct daemon_func *top[50];
		size_t m = daemon_rank(s, DAEMON_SORT_CALLS, NULL, top, 50, &tot);

		assert_int_equal(m, 50);
		for (size_t i = 0; i < 50; i++)
			assert_ptr_equal(top[i], rows[i]);
	}
	free(f);
	free(rows);
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
	daemon_session_funcs(s, &r, 3100 * MS);
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
		cmocka_unit_test(test_rank_keys),
		cmocka_unit_test(test_rank_running),
		cmocka_unit_test(test_rank_filter),
		cmocka_unit_test(test_rank_many),
		cmocka_unit_test(test_session_end_and_resume),
		cmocka_unit_test(test_sessions_pick_forget),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
