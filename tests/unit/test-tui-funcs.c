/*
 * test-tui-funcs.c - the NAME column of the functions panel: it takes the
 * columns the terminal has before the share bar does, and a name cut to
 * fit keeps its head and its tail, so two names sharing a long prefix
 * stay apart (tui_fmt_fit_middle, tui_panel_funcs_name_width).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tui.h"
#include "panel-funcs.h"
#include "tui-test-util.h"

static const char short_name[] = "handleClientsWithPendingWrites";
static const char long_name[] = "handleClientsWithPendingWritesUsingThreads";

/* Cut in the middle: exact text, the width kept, wide characters whole. */
static void test_fit_middle(void **state)
{
	static const struct {
		const char *s;
		int width;
		bool utf8;
		const char *out;
	} cases[] = {
		{ "abcdefghij", 10, true, "abcdefghij" },
		{ "abc", 6, true, "abc   " },
		{ "abcdefghij", 9, true, "abcd\xe2\x80\xa6ghij" },
		{ "abcdefghij", 8, true, "abcd\xe2\x80\xa6hij" },
		{ "abcdefghij", 8, false, "abcd~hij" },
		{ "abcdefghij", 3, true, "a\xe2\x80\xa6j" },
		{ "abcdefghij", 2, true, "a\xe2\x80\xa6" },      /* too narrow: cut at the end */
		{ "a\x01" "cdefgh\x02j", 7, true, "a?c\xe2\x80\xa6h?j" },
		/* Wide characters (2 columns): never split, a space fills in. */
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe5\xad\x97", 6, true,
		  "\xe4\xb8\xad\xe2\x80\xa6\xe5\xad\x97 " },
		{ "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d\xe5\xad\x97", 7, true,
		  "\xe4\xb8\xad\xe2\x80\xa6\xe5\x90\x8d\xe5\xad\x97" },
		{ "", 3, true, "   " },
		{ "abc", 0, true, "" },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(out, 'X', sizeof out);
		tui_fmt_fit_middle(cases[i].s, cases[i].width, cases[i].utf8, out, sizeof out);
		if (strcmp(out, cases[i].out) != 0)
			fail_msg("case %zu: fit_middle = '%s', want '%s'", i, out, cases[i].out);
		if (cases[i].width > 0 && tui_fmt_width(out, cases[i].utf8) != cases[i].width)
			fail_msg("case %zu: '%s' is %d columns, want %d", i, out,
			    tui_fmt_width(out, cases[i].utf8), cases[i].width);
	}
	/* A small output buffer truncates and stays terminated. */
	memset(out, 'X', sizeof out);
	tui_fmt_fit_middle("abcdefghij", 8, true, out, 4);
	assert_int_equal(strlen(out), 3);
}

/* Two names sharing a 30-character prefix differ at every width from 5
 * (two columns of tail: "es" and "ds"). */
static void test_fit_middle_apart(void **state)
{
	char a[128], b[128];

	(void)state;
	for (int w = 5; w <= 50; w++) {
		tui_fmt_fit_middle(short_name, w, true, a, sizeof a);
		tui_fmt_fit_middle(long_name, w, true, b, sizeof b);
		if (strcmp(a, b) == 0)
			fail_msg("width %d: both names show as '%s'", w, a);
	}
}

/* A frame with the two names (and a short one). */
static struct proto_server_msg *frame_new(void)
{
	struct proto_server_msg *m = calloc(1, sizeof *m);
	static const char *const names[] = { short_name, long_name, "main" };

	assert_non_null(m);
	m->type = PROTO_MSG_FRAME;
	m->frame.nfuncs = 3;
	m->frame.funcs = calloc(3, sizeof *m->frame.funcs);
	assert_non_null(m->frame.funcs);
	for (size_t i = 0; i < 3; i++) {
		m->frame.funcs[i].name = (char *)names[i];
		m->frame.funcs[i].module = (char *)"redis-server";
	}
	return m;
}

/* The name takes the width the terminal has, up to its widest name: at 110
 * columns both names show whole; at 200 it is as wide as the widest name
 * (no wider); narrower, it shrinks but the bar goes first. */
static void test_name_width(void **state)
{
	struct tui_app a;
	struct proto_server_msg *m = frame_new();
	int w110, w80, w200;

	(void)state;
	memset(&a, 0, sizeof a);
	a.utf8 = true;
	a.frame = m;
	w110 = tui_panel_funcs_name_width(&a, 110);
	if (w110 < (int)strlen(long_name))
		fail_msg("110 columns: NAME is %d wide, %s needs %zu", w110, long_name,
		    strlen(long_name));
	w200 = tui_panel_funcs_name_width(&a, 200);
	assert_int_equal(w200, (int)strlen(long_name));
	assert_int_equal(w110, (int)strlen(long_name));
	w80 = tui_panel_funcs_name_width(&a, 80);
	assert_true(w80 < w110);
	assert_true(w80 >= 16);
	/* Short names leave the bar its room (the name takes no more than needed + rest). */
	m->frame.nfuncs = 1;
	m->frame.funcs[0].name = (char *)"main";
	assert_true(tui_panel_funcs_name_width(&a, 110) < w110);
	m->frame.nfuncs = 3;
	free(m->frame.funcs);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_middle),
		cmocka_unit_test(test_fit_middle_apart),
		cmocka_unit_test(test_name_width),
	};

	if (tui_test_locale("test-tui-funcs") != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
