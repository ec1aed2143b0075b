/*
 * test-session-budget.c - the overhead budget in the daemon: the session
 * keeps each function's mode, estimate flags, since when and why, and the
 * agent's cost and budget; counts functions per mode; a reset keeps them
 * (settings, not figures); --budget parses; the reports and /metrics say
 * which figures are estimates.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "report.h"
#include "session-util.h"

/* Three reported functions (timed, counted, sampled) and one only named. */
static struct daemon_session *
budget_session(void)
{
	struct proto_ag_hello h = hello_for(FAKE_PID, "/opt/x/target");
	struct daemon_session *s = daemon_session_new(FAKE_PID, 0);
	struct proto_ag_func f[3] = {
		{ .addr = 0x1000, .calls = 10, .total_ns = 100, .self_ns = 50, .max_ns = 20,
		  .running_ns = 4000 },
		{ .addr = 0x1001, .calls = 2000000, .total_ns = 9000000, .self_ns = 9000000,
		  .mode = PROTO_FMODE_COUNTED, .time_est = true, .mode_since_ns = 1 * S,
		  .hook_ppm = 15000 },
		{ .addr = 0x1002, .calls = 500, .total_ns = 5000, .self_ns = 5000,
		  .mode = PROTO_FMODE_SAMPLED, .calls_est = true, .time_est = true,
		  .mode_since_ns = 2 * S, .hook_ppm = 800 },
	};
	struct proto_agent_rec r = { .type = PROTO_AG_FUNCS, .time_ns = 3 * S, .threads = 1,
		.cost_ppm = 31000, .budget_ppm = 20000, .ip_samples = 400, .ip_agent = 18,
		.nfuncs = 3, .funcs = f };

	h.budget_ppm = 50000;
	daemon_session_hello(s, &h, 0);
	assert_int_equal(s->budget_ppm, 50000);
	name(s, 0x1003, "named_only", "target");
	name(s, 0x1001, "hot_counted", "target");
	name(s, 0x1002, "warm_sampled", "target");
	daemon_session_record(s, &r, 3 * S);
	return s;
}

/* Modes, flags, since when and why per function; counts per mode. */
static void
test_modes(void **state)
{
	struct daemon_session *s = budget_session();
	struct daemon_func *c = daemon_functab_find(&s->funcs, 0x1001);
	struct daemon_func *p = daemon_functab_find(&s->funcs, 0x1002);
	struct proto_ag_func back = { .addr = 0x1001, .calls = 2000001, .mode_since_ns = 4 * S };

	(void)state;
	assert_int_equal(s->cost_ppm, 31000);
	assert_int_equal(s->budget_ppm, 20000);       /* the funcs record's, newer than hello's */
	assert_int_equal(c->mode, PROTO_FMODE_COUNTED);
	assert_false(c->calls_est);
	assert_true(c->time_est);
	assert_int_equal(c->hook_ppm, 15000);
	assert_int_equal(daemon_func_mode_age_ms(c, 3500 * MS), 2500);
	assert_int_equal(daemon_func_mode_age_ms(c, 1 * S), 1);      /* just changed: not "never" */
	assert_int_equal(daemon_func_mode_age_ms(daemon_functab_find(&s->funcs, 0x1000), 9 * S), 0);
	assert_true(p->calls_est && p->time_est);
	/* The named-only function counts as timed: nothing demoted it. */
	assert_int_equal(daemon_session_nmode(s, PROTO_FMODE_TIMED), 2);
	assert_int_equal(daemon_session_nmode(s, PROTO_FMODE_COUNTED), 1);
	assert_int_equal(daemon_session_nmode(s, PROTO_FMODE_SAMPLED), 1);
	assert_int_equal(daemon_session_nmode(s, PROTO_FMODE_OFF), 0);
	assert_int_equal(daemon_session_demoted(s), 2);
	/* Promoted back: the counts follow, the flags go. */
	feed(s, 4 * S, 1, &back);
	assert_int_equal(c->mode, PROTO_FMODE_TIMED);
	assert_false(c->time_est);
	assert_int_equal(daemon_session_nmode(s, PROTO_FMODE_TIMED), 3);
	assert_int_equal(daemon_session_nmode(s, PROTO_FMODE_COUNTED), 0);
	assert_int_equal(daemon_session_demoted(s), 1);
	daemon_session_free(s);
}

/* A reset zeroes the figures and keeps the budget's settings. */
static void
test_reset_keeps_modes(void **state)
{
	struct daemon_session *s = budget_session();
	struct daemon_func *c = daemon_functab_find(&s->funcs, 0x1001);
	struct proto_ag_hello h = hello_for(FAKE_PID, "/opt/x/target");

	(void)state;
	daemon_session_reset(s, 5 * S);
	assert_int_equal(c->calls, 0);
	assert_int_equal(c->total_ns, 0);
	assert_int_equal(c->mode, PROTO_FMODE_COUNTED);
	assert_true(c->time_est);
	assert_int_equal(c->mode_since_ns, 1 * S);
	assert_int_equal(c->hook_ppm, 15000);
	assert_int_equal(s->cost_ppm, 31000);
	assert_int_equal(s->budget_ppm, 20000);
	assert_int_equal(daemon_session_demoted(s), 2);
	/* A reconnecting agent says its budget in the hello: it replaces ours. */
	h.budget_ppm = 0;
	daemon_session_hello(s, &h, 6 * S);
	assert_int_equal(s->budget_ppm, 0);
	daemon_session_free(s);
}

/* --budget: a percentage or off; default the agent's 5%, not sent. */
static void
test_opts_budget(void **state)
{
	struct daemon_opts o;
	char err[PROTO_ERR_LEN];
	char *half[] = { "hookscoped", "--budget", "0.5", NULL };
	char *off[] = { "hookscoped", "--budget=off", NULL };
	char *none[] = { "hookscoped", NULL };
	char *bad[] = { "hookscoped", "--budget", "0", NULL };

	(void)state;
	assert_int_equal(daemon_opts_parse(&o, 3, half, err, sizeof err), DAEMON_OPTS_OK);
	assert_true(o.budget_set);
	assert_int_equal(o.budget_ppm, 5000);
	daemon_opts_free(&o);
	assert_int_equal(daemon_opts_parse(&o, 2, off, err, sizeof err), DAEMON_OPTS_OK);
	assert_true(o.budget_set);
	assert_int_equal(o.budget_ppm, 0);
	daemon_opts_free(&o);
	assert_int_equal(daemon_opts_parse(&o, 1, none, err, sizeof err), DAEMON_OPTS_OK);
	assert_false(o.budget_set);
	assert_int_equal(o.budget_ppm, PROTO_BUDGET_DEFAULT_PPM);
	daemon_opts_free(&o);
	assert_int_equal(daemon_opts_parse(&o, 3, bad, err, sizeof err), DAEMON_OPTS_ERROR);
	assert_non_null(strstr(err, "--budget: bad budget '0'"));
	daemon_opts_free(&o);
}

/* The reports and /metrics: modes, estimates marked, cost and budget. */
static void
test_reports(void **state)
{
	struct daemon_session *s = budget_session();
	struct daemon_sessions ss = { .v = &s, .n = 1 };
	size_t len;
	char *text;

	(void)state;
	text = report_build(&s, 1, REPORT_TEXT, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "budget:    2% of the target's CPU; the hooks cost 3.1% of its CPU"));
	assert_non_null(strstr(text, "sampled:   4.5% of the program threads' recent pc samples (400) were "
	    "in the agent's code"));
	assert_non_null(strstr(text, "modes:     2 timed, 1 counted, 1 sampled, 0 off"));
	/* counted: exact calls, estimated times; sampled: both estimated */
	assert_non_null(strstr(text, "      2000000     ~9.00 ms"));
	assert_non_null(strstr(text, "         ~500     ~5.00 us"));
	assert_non_null(strstr(text, "counted  hot_counted"));
	/* every cell its own figure: running and max of a timed row */
	assert_non_null(strstr(text, "           10       100 ns      4.00 us        50 ns        "
	    "10 ns        20 ns        0 timed    0x1000"));
	assert_non_null(strstr(text, "  counted     2.000 s ago      1.5% of the CPU"));
	free(text);
	text = report_build(&s, 1, REPORT_JSON, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "\"cost_ppm\":31000,\"cost_sampled_ppm\":45000,\"cost_samples\":400,"
	    "\"budget_ppm\":20000,\"demoted\":2,"
	    "\"modes\":{\"timed\":2,\"counted\":1,\"sampled\":1,\"off\":0}"));
	assert_non_null(strstr(text, "\"mode\":\"counted\",\"calls_est\":false,\"time_est\":true,"
	    "\"mode_age_ms\":2000,\"hook_ppm\":15000}"));
	assert_non_null(strstr(text, "\"mode\":\"timed\",\"calls_est\":false,\"time_est\":false,"
	    "\"mode_age_ms\":0,\"hook_ppm\":0}"));
	free(text);
	text = report_build(&s, 1, REPORT_TRACE, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "{\"ph\":\"i\",\"name\":\"hot_counted: counted\",\"cat\":\"budget\","));
	assert_non_null(strstr(text, "\"ts\":1000000.000,\"s\":\"p\",\"args\":{\"mode\":\"counted\",\"hook_ppm\":15000}}"));
	assert_non_null(strstr(text, "\"args\":{\"cost_pct\":3.1,\"budget_pct\":2}}"));
	free(text);
	text = report_metrics_build(&ss, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "hookscope_agent_cost_ratio{pid=\"2000000001\",target=\"target\"} 0.031\n"));
	assert_non_null(strstr(text, "hookscope_agent_sampled_cost_ratio{pid=\"2000000001\",target=\"target\"} 0.045\n"));
	assert_non_null(strstr(text, "hookscope_budget_ratio{pid=\"2000000001\",target=\"target\"} 0.02\n"));
	assert_non_null(strstr(text, "hookscope_functions{pid=\"2000000001\",target=\"target\",mode=\"counted\"} 1\n"));
	assert_non_null(strstr(text, "function=\"hot_counted\",module=\"target\",mode=\"counted\","
	    "calls=\"exact\",time=\"estimated\"} 1\n"));
	assert_non_null(strstr(text, "function=\"warm_sampled\",module=\"target\",mode=\"sampled\","
	    "calls=\"estimated\",time=\"estimated\"} 1\n"));
	free(text);
	daemon_session_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_reset_keeps_modes),
		cmocka_unit_test(test_opts_budget),
		cmocka_unit_test(test_reports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
