/*
 * test-tui-format.c - format.c through its real functions: times, counts,
 * rates, shares and ages in their 7-column cells, the display width of
 * UTF-8 (wide, combining, invalid bytes), fitting text to a column and
 * cleaning control characters.
 *
 * Runs in the C.UTF-8 locale (wcwidth) with a '.' decimal point, as
 * main.c sets it up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tui.h"
#include "tui-test-util.h"

/* ---- format.c: units ---- */

/* Times: ns below 1 us, then 3 significant digits in us/ms/s, then m/h/d. */
static void test_fmt_ns(void **state)
{
	static const struct { uint64_t ns; const char *s; } cases[] = {
		{ 0, "0" }, { 1, "1ns" }, { 999, "999ns" }, { 1000, "1.00us" },
		{ 1004, "1.00us" }, { 1005, "1.00us" }, { 1006, "1.01us" },
		{ 9994, "9.99us" }, { 9995, "10.0us" }, { 99949, "99.9us" },
		{ 99950, "100us" }, { 999499, "999us" }, { 999500, "1.00ms" },
		{ 1000000, "1.00ms" }, { 1200000, "1.20ms" }, { 123456789, "123ms" },
		{ 999499999, "999ms" }, { 999500000, "1.00s" }, { 59000000000ull, "59.0s" },
		{ 999999999999ull, "1000s" }, { 5000000000000ull, "5000s" },
		{ 99999000000000ull, "99999s" }, { 99999499999999ull, "99999s" },
		{ 99999500000000ull, "1667m" },            /* past 99999 s: minutes */
		{ 6000000000000000ull, "1667h" },          /* 100000 minutes */
		{ UINT64_MAX, "213504d" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(buf, 'X', sizeof buf);
		tui_fmt_ns(cases[i].ns, buf, sizeof buf);
		if (strcmp(buf, cases[i].s) != 0)
			fail_msg("tui_fmt_ns(%llu) = '%s', want '%s'",
			    (unsigned long long)cases[i].ns, buf, cases[i].s);
	}
	/* A short buffer is cut, not overrun. */
	memset(buf, 'X', sizeof buf);
	tui_fmt_ns(123456789, buf, 3);
	assert_string_equal(buf, "12");
	assert_int_equal(buf[3], 'X');
}

/* Every time and count fits its 7-column cell, whatever the value. */
static void test_fmt_widths(void **state)
{
	char buf[64];

	(void)state;
	for (uint64_t p = 1; p <= UINT64_MAX / 10 && p != 0; p *= 10) {
		uint64_t vs[] = { p - 1, p, p + 1, (uint64_t)((double)p * 0.9995),
			(uint64_t)((double)p * 0.9994), p * 5 };

		for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
			tui_fmt_ns(vs[i], buf, sizeof buf);
			if (strlen(buf) > 7)
				fail_msg("tui_fmt_ns(%llu) = '%s' is wider than 7",
				    (unsigned long long)vs[i], buf);
			tui_fmt_count(vs[i], buf, sizeof buf);
			if (strlen(buf) > 7)
				fail_msg("tui_fmt_count(%llu) = '%s' is wider than 7",
				    (unsigned long long)vs[i], buf);
			tui_fmt_rate((double)vs[i] / 100, buf, sizeof buf);
			if (strlen(buf) > 7)
				fail_msg("tui_fmt_rate(%g) = '%s' is wider than 7", (double)vs[i] / 100, buf);
		}
	}
	tui_fmt_ns(UINT64_MAX, buf, sizeof buf);
	assert_true(strlen(buf) <= 7);
	tui_fmt_count(UINT64_MAX, buf, sizeof buf);
	assert_true(strlen(buf) <= 7);
}

/* Counts: plain below 10000, then one decimal below 100, K/M/G/T/P. */
static void test_fmt_count(void **state)
{
	static const struct { uint64_t n; const char *s; } cases[] = {
		{ 0, "0" }, { 7, "7" }, { 9999, "9999" }, { 10000, "10.0K" },
		{ 12345, "12.3K" }, { 99949, "99.9K" }, { 99950, "100K" },
		{ 999499, "999K" }, { 999500, "1.0M" }, { 1234567, "1.2M" },
		{ 1000000000ull, "1.0G" }, { 1000000000000ull, "1.0T" },
		{ 1000000000000000ull, "1.0P" }, { 1000000000000000000ull, "1000P" },
		{ UINT64_MAX, "18447P" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tui_fmt_count(cases[i].n, buf, sizeof buf);
		if (strcmp(buf, cases[i].s) != 0)
			fail_msg("tui_fmt_count(%llu) = '%s', want '%s'",
			    (unsigned long long)cases[i].n, buf, cases[i].s);
	}
}

/* Rates, shares and ages, with their invalid inputs. */
static void test_fmt_rate_share_age(void **state)
{
	static const struct { double r; const char *s; } rates[] = {
		{ -1, "-" }, { 0, "0" }, { 0.04, "0.0" }, { 0.5, "0.5" }, { 9.94, "9.9" },
		{ 9.96, "10" }, { 123.4, "123" }, { 9999.4, "9999" }, { 9999.5, "10.0K" },
		{ 10000, "10.0K" }, { 1e7, "10.0M" },
	};
	static const struct { double v; const char *s; } shares[] = {
		{ 0, "0.0%" }, { 0.12345, "12.3%" }, { 0.5, "50.0%" }, { 1, "100.0%" },
		{ 1.5, "100.0%" }, { -0.01, "-" },
	};
	static const struct { uint64_t ms; const char *s; } ages[] = {
		{ 0, "0.0s" }, { 1500, "1.5s" }, { 9949, "9.9s" }, { 10000, "10s" },
		{ 119999, "119s" }, { 120000, "2m" }, { 7199999, "119m" }, { 7200000, "2h" },
		{ 360000000, "100h" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
		tui_fmt_rate(rates[i].r, buf, sizeof buf);
		if (strcmp(buf, rates[i].s) != 0)
			fail_msg("tui_fmt_rate(%g) = '%s', want '%s'", rates[i].r, buf, rates[i].s);
	}
	tui_fmt_rate(NAN, buf, sizeof buf);
	assert_string_equal(buf, "-");
	tui_fmt_rate(INFINITY, buf, sizeof buf);
	assert_string_equal(buf, "-");
	for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++) {
		tui_fmt_share(shares[i].v, buf, sizeof buf);
		if (strcmp(buf, shares[i].s) != 0)
			fail_msg("tui_fmt_share(%g) = '%s', want '%s'", shares[i].v, buf, shares[i].s);
	}
	tui_fmt_share(NAN, buf, sizeof buf);
	assert_string_equal(buf, "-");
	tui_fmt_share(INFINITY, buf, sizeof buf);
	assert_string_equal(buf, "-");
	for (size_t i = 0; i < sizeof ages / sizeof ages[0]; i++) {
		tui_fmt_age(ages[i].ms, buf, sizeof buf);
		if (strcmp(buf, ages[i].s) != 0)
			fail_msg("tui_fmt_age(%llu) = '%s', want '%s'",
			    (unsigned long long)ages[i].ms, buf, ages[i].s);
	}
}

/* ---- format.c: display width, fitting, cleaning ---- */

/* Columns of ASCII, accents, CJK, emoji, combining marks and bad bytes. */
static void test_fmt_width(void **state)
{
	static const struct { const char *s; int utf8_w, ascii_w; } cases[] = {
		{ "", 0, 0 },
		{ "abc", 3, 3 },
		{ "h\xc3\xa9llo", 5, 6 },                                  /* é: 2 bytes */
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe5\xad\x97", 8, 12 },  /* 中文名字 */
		{ "\xf0\x9f\x98\x80!", 3, 5 },                             /* emoji: wide */
		{ "e\xcc\x81", 1, 3 },                                      /* e + U+0301 */
		{ "a\x01" "b\x7f", 4, 4 },                                  /* controls: '?' */
		{ "\xff", 1, 1 },
		{ "\xe2\x82", 2, 2 },                                       /* truncated € */
		{ "\xc0\xaf", 2, 2 },                                       /* overlong '/' */
		{ "\xed\xa0\x80", 3, 3 },                                   /* surrogate */
		{ "\xf4\x90\x80\x80", 4, 4 },                               /* past U+10FFFF */
		{ "\xc2\x85x", 2, 3 },                                      /* C1 control */
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int u = tui_fmt_width(cases[i].s, true), a = tui_fmt_width(cases[i].s, false);

		if (u != cases[i].utf8_w || a != cases[i].ascii_w)
			fail_msg("case %zu: width utf8 %d ascii %d, want %d %d", i, u, a,
			    cases[i].utf8_w, cases[i].ascii_w);
	}
}

/* Fitting: cut with an ellipsis, pad left or right, never split a wide char. */
static void test_fmt_fit(void **state)
{
	static const struct {
		const char *s;
		int width;
		bool utf8, left;
		const char *out;
	} cases[] = {
		{ "slow_work", 8, true, true, "slow_wo\xe2\x80\xa6" },
		{ "slow_work", 8, false, false, "slow_wo~" },
		{ "slow_work", 9, true, true, "slow_work" },
		{ "slow_work", 9, true, false, "slow_work" },
		{ "x", 8, true, true, "x       " },
		{ "x", 8, true, false, "       x" },
		{ "a\x01" "b", 8, true, true, "a?b     " },
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe5\xad\x97", 8, true, true,
		  "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe5\xad\x97" },
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe5\xad\x97", 7, true, true,
		  "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe2\x80\xa6" },
		/* The third wide char would end past the ellipsis: a space instead. */
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe5\xad\x97", 6, true, true,
		  "\xe4\xb8\xad\xe6\x96\x87\xe2\x80\xa6 " },
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe5\xad\x97", 8, false, true, "???????~" },
		{ "\xf0\x9f\x98\x80x", 2, true, true, "\xe2\x80\xa6 " },
		{ "e\xcc\x81", 3, true, true, "e\xcc\x81  " },
		{ "h\xc3\xa9", 4, false, false, " h??" },
		{ "\xff\xfe", 3, true, false, " ??" },
		{ "abc", 1, true, true, "\xe2\x80\xa6" },
		{ "a", 1, true, true, "a" },
		{ "abc", 0, true, true, "" },
		{ "abc", -5, true, false, "" },
		{ "", 3, true, false, "   " },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(out, 'X', sizeof out);
		tui_fmt_fit(cases[i].s, cases[i].width, cases[i].utf8, cases[i].left, out, sizeof out);
		if (strcmp(out, cases[i].out) != 0)
			fail_msg("case %zu: fit = '%s', want '%s'", i, out, cases[i].out);
		if (cases[i].width > 0 && tui_fmt_width(out, cases[i].utf8) != cases[i].width)
			fail_msg("case %zu: '%s' is %d columns, want %d", i, out,
			    tui_fmt_width(out, cases[i].utf8), cases[i].width);
	}
	/* A small output buffer truncates (bytes that fit) and stays terminated. */
	memset(out, 'X', sizeof out);
	tui_fmt_fit("abcdef", 10, true, true, out, 4);
	assert_string_equal(out, "abc");
	assert_int_equal(out[4], 'X');
	memset(out, 'X', sizeof out);
	tui_fmt_fit("abc", 3, true, true, out, 0);
	assert_int_equal(out[0], 'X');
}

/* Control characters become '?', newline and tab only on request. */
static void test_fmt_clean(void **state)
{
	char *a = tui_fmt_clean("a\x01" "b\nc\td\x7f\xc3\xa9", false);
	char *b = tui_fmt_clean("a\x01" "b\nc\td\x7f\xc3\xa9", true);

	(void)state;
	assert_string_equal(a, "a?b?c?d?\xc3\xa9");
	assert_string_equal(b, "a?b\nc\td?\xc3\xa9");
	free(a);
	free(b);
}

/* Sites: the status-bar summary over every back-end and the :sites text. */
static void test_fmt_sites(void **state)
{
	struct proto_site_reason why[2] = { { "short", 7 }, { "insn", 2 } };
	struct proto_sites v[2] = {
		{ .backend = "patch", .active = 120, .disabled = 15, .skipped = 9,
		  .nreasons = 2, .reasons = why },
		{ .backend = "finstrument", .active = 4, .disabled = 1 },
	};
	struct proto_frame f = { .nsites = 2, .sites = v };
	struct proto_frame none = { 0 };
	char buf[256];

	(void)state;
	assert_true(tui_fmt_sites(&f, buf, sizeof buf));
	assert_string_equal(buf, "124 on/16 off/9 skipped");
	assert_false(tui_fmt_sites(&none, buf, sizeof buf));
	tui_fmt_sites_why(&f, buf, sizeof buf);
	assert_string_equal(buf, "patch: 120 active, 15 disabled by the level, 9 skipped:\n"
	    "  short        7\n  insn         2\n"
	    "finstrument: 4 active, 1 disabled by the level, 0 skipped");
	tui_fmt_sites_why(&none, buf, sizeof buf);
	assert_non_null(strstr(buf, "no hook-site figures"));
	tui_fmt_sites_why(&f, buf, 20);             /* truncated, still terminated */
	assert_int_equal(strlen(buf), 19);
}

/* The overhead budget: the status bar's cost/budget, the :sites lines of
 * the demoted rows (timed rows left out), and a short buffer. */
static void test_fmt_budget(void **state)
{
	struct proto_func rows[3] = {
		{ .name = "timed_one", .calls_per_s = 5 },
		{ .name = "PyObject_Malloc", .mode = PROTO_FMODE_COUNTED, .time_est = true,
		  .calls_per_s = 1.2e6, .avg_ns = 35, .mode_age_ms = 12000, .hook_ppm = 31400 },
		{ .name = "sampled_one", .mode = PROTO_FMODE_SAMPLED, .calls_est = true, .time_est = true,
		  .calls_per_s = 300, .avg_ns = 3000 },
	};
	struct proto_frame f = { .cost_ppm = 31400, .budget_ppm = 50000, .demoted = 7,
		.nfuncs = 3, .funcs = rows };
	char buf[1024];

	(void)state;
	tui_fmt_cost(&f, buf, sizeof buf);
	assert_string_equal(buf, "cost 3.1%/5%");
	f.budget_ppm = 0;
	f.cost_ppm = 123000;
	tui_fmt_cost(&f, buf, sizeof buf);
	assert_string_equal(buf, "cost 12%/off");
	f.budget_ppm = 5000;
	f.cost_ppm = 4000;
	tui_fmt_cost(&f, buf, sizeof buf);
	assert_string_equal(buf, "cost 0.4%/0.5%");
	tui_fmt_demoted(&f, buf, sizeof buf);
	assert_string_equal(buf, "\n\noverhead budget: cost 0.4%/0.5% of the target's CPU; "
	    "7 functions demoted; those in the rows shown\n"
	    "(WHY: what timing the function cost, share of the CPU, when chosen):\n"
	    "  MODE       SINCE     WHY CALLS/S     AVG  NAME\n"
	    "  counted      12s    3.1%    1.2M   ~35ns  PyObject_Malloc\n"
	    "  sampled        -       -    ~300 ~3.00us  sampled_one");
	f.nfuncs = 1;                               /* no demoted row shown */
	f.demoted = 1;
	tui_fmt_demoted(&f, buf, sizeof buf);
	assert_string_equal(buf, "\n\noverhead budget: cost 0.4%/0.5% of the target's CPU; "
	    "1 function demoted");
	f.nfuncs = 3;
	tui_fmt_demoted(&f, buf, 30);               /* truncated, still terminated */
	assert_int_equal(strlen(buf), 29);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_fmt_sites),
		cmocka_unit_test(test_fmt_budget),
		cmocka_unit_test(test_fmt_widths),
		cmocka_unit_test(test_fmt_count),
		cmocka_unit_test(test_fmt_rate_share_age),
		cmocka_unit_test(test_fmt_width),
		cmocka_unit_test(test_fmt_fit),
		cmocka_unit_test(test_fmt_clean),
	};

	if (tui_test_locale("test-tui-format") < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
