/*
 * test-tui-theme.c - theme.c through its real functions: element names,
 * the built-in theme, parsing theme text (errors name FILE:LINE), loading
 * by path or by name through HOOKSCOPE_THEMES, and the shipped themes
 * (read from the source tree's themes/).
 *
 * Runs in the C.UTF-8 locale with a '.' decimal point, as main.c sets it up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tui.h"
#include "tui-test-util.h"

static char err[2048];

/* ---- helpers ---- */

/* Write text to dir/name. */
static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* ---- theme.c ---- */

/* Element names, and the built-in defaults (the same text as the table). */
static void test_theme_defaults(void **state)
{
	struct tui_theme t;

	(void)state;
	assert_string_equal(tui_theme_el_name(TUI_EL_STATUS), "status");
	assert_string_equal(tui_theme_el_name(TUI_EL_ROW_IDLE), "row_idle");
	assert_string_equal(tui_theme_el_name(TUI_EL_HELP_TITLE), "help_title");
	assert_string_equal(tui_theme_el_name(-1), "?");
	assert_string_equal(tui_theme_el_name(TUI_EL_COUNT), "?");
	for (int i = 0; i < TUI_EL_COUNT; i++)
		assert_string_not_equal(tui_theme_el_name(i), "?");

	memset(&t, 0x5a, sizeof t);
	tui_theme_defaults(&t);
	assert_string_equal(t.source, "built-in");
	/* status = black cyan, mono reverse */
	assert_int_equal(t.el[TUI_EL_STATUS].fg.kind, TUI_C_INDEX);
	assert_int_equal(t.el[TUI_EL_STATUS].fg.index, 0);
	assert_int_equal(t.el[TUI_EL_STATUS].bg.kind, TUI_C_INDEX);
	assert_int_equal(t.el[TUI_EL_STATUS].bg.index, 6);
	assert_int_equal(t.el[TUI_EL_STATUS].attrs, 0);
	assert_int_equal(t.el[TUI_EL_STATUS].mono, TUI_A_REVERSE);
	/* status_error = brightwhite red bold */
	assert_int_equal(t.el[TUI_EL_STATUS_ERROR].fg.index, 15);
	assert_int_equal(t.el[TUI_EL_STATUS_ERROR].bg.index, 1);
	assert_int_equal(t.el[TUI_EL_STATUS_ERROR].attrs, TUI_A_BOLD);
	assert_int_equal(t.el[TUI_EL_STATUS_ERROR].mono,
	    TUI_A_REVERSE | TUI_A_BOLD | TUI_A_UNDERLINE);
	/* info = cyan default */
	assert_int_equal(t.el[TUI_EL_INFO].fg.index, 6);
	assert_int_equal(t.el[TUI_EL_INFO].bg.kind, TUI_C_DEFAULT);
	assert_int_equal(t.el[TUI_EL_INFO].bg.index, 0);
	/* row_idle = brightblack default, mono dim */
	assert_int_equal(t.el[TUI_EL_ROW_IDLE].fg.index, 8);
	assert_int_equal(t.el[TUI_EL_ROW_IDLE].mono, TUI_A_DIM);
}

/* Valid lines: names, numbers, #rrggbb, attributes, comments, blanks, CRLF. */
static void test_theme_parse_valid(void **state)
{
	static const char text[] =
	    "# a comment\n"
	    "   # an indented comment\n"
	    "\n"
	    "  \t \n"
	    "status = red blue bold underline\n"
	    "header=brightmagenta 200   # trailing comment\n"
	    "row = #FF8000 #00ff7f italic  \n"
	    "row_idle = grey default dim\n"
	    "selected = default default reverse\n"
	    "bar = 0 255 normal\n"
	    "message\t=\tgreen\tyellow\tstandout blink\r\n"
	    "hint = 007 gray\n"
	    "help = default default normal #not a colour: a comment\n"
	    "cmdline = white black";             /* no final newline */
	struct tui_theme t, d;
	const struct tui_style *s;

	(void)state;
	tui_theme_defaults(&t);
	tui_theme_defaults(&d);
	assert_int_equal(tui_theme_parse(&t, text, "t.theme", err, sizeof err), 0);

	s = &t.el[TUI_EL_STATUS];
	assert_int_equal(s->fg.kind, TUI_C_INDEX);
	assert_int_equal(s->fg.index, 1);
	assert_int_equal(s->bg.index, 4);
	assert_int_equal(s->attrs, TUI_A_BOLD | TUI_A_UNDERLINE);
	/* Colours given: attributes add to the built-in monochrome ones. */
	assert_int_equal(s->mono, TUI_A_REVERSE | TUI_A_BOLD | TUI_A_UNDERLINE);

	s = &t.el[TUI_EL_HEADER];
	assert_int_equal(s->fg.index, 13);
	assert_int_equal(s->bg.kind, TUI_C_INDEX);
	assert_int_equal(s->bg.index, 200);
	assert_int_equal(s->attrs, 0);
	assert_int_equal(s->mono, TUI_A_REVERSE);

	s = &t.el[TUI_EL_ROW];
	assert_int_equal(s->fg.kind, TUI_C_RGB);
	assert_int_equal(s->fg.r, 0xff);
	assert_int_equal(s->fg.g, 0x80);
	assert_int_equal(s->fg.b, 0x00);
	assert_int_equal(s->bg.kind, TUI_C_RGB);
	assert_int_equal(s->bg.r, 0x00);
	assert_int_equal(s->bg.g, 0xff);
	assert_int_equal(s->bg.b, 0x7f);
	assert_int_equal(s->attrs, TUI_A_ITALIC);
	assert_int_equal(s->mono, TUI_A_ITALIC);

	s = &t.el[TUI_EL_ROW_IDLE];
	assert_int_equal(s->fg.kind, TUI_C_INDEX);
	assert_int_equal(s->fg.index, 8);                 /* grey = brightblack */
	assert_int_equal(s->bg.kind, TUI_C_DEFAULT);
	assert_int_equal(s->attrs, TUI_A_DIM);

	/* No colours: the line says exactly how it looks in monochrome. */
	s = &t.el[TUI_EL_SELECTED];
	assert_int_equal(s->fg.kind, TUI_C_DEFAULT);
	assert_int_equal(s->attrs, TUI_A_REVERSE);
	assert_int_equal(s->mono, TUI_A_REVERSE);         /* built-in had bold too */

	s = &t.el[TUI_EL_BAR];
	assert_int_equal(s->fg.index, 0);
	assert_int_equal(s->bg.index, 255);
	assert_int_equal(s->attrs, 0);
	assert_int_equal(s->mono, TUI_A_BOLD);

	s = &t.el[TUI_EL_MESSAGE];
	assert_int_equal(s->fg.index, 2);
	assert_int_equal(s->bg.index, 3);
	assert_int_equal(s->attrs, TUI_A_STANDOUT | TUI_A_BLINK);

	s = &t.el[TUI_EL_HINT];
	assert_int_equal(s->fg.index, 7);
	assert_int_equal(s->bg.index, 8);

	s = &t.el[TUI_EL_HELP];
	assert_int_equal(s->fg.kind, TUI_C_DEFAULT);
	assert_int_equal(s->bg.kind, TUI_C_DEFAULT);
	assert_int_equal(s->attrs, 0);
	assert_int_equal(s->mono, 0);                     /* "normal": plain */

	s = &t.el[TUI_EL_CMDLINE];
	assert_int_equal(s->fg.index, 7);
	assert_int_equal(s->bg.index, 0);

	/* Elements the text did not name keep the built-in look. */
	assert_memory_equal(&t.el[TUI_EL_ERROR], &d.el[TUI_EL_ERROR], sizeof d.el[0]);
	assert_memory_equal(&t.el[TUI_EL_HELP_TITLE], &d.el[TUI_EL_HELP_TITLE], sizeof d.el[0]);
	assert_memory_equal(&t.el[TUI_EL_STATUS_OK], &d.el[TUI_EL_STATUS_OK], sizeof d.el[0]);

	/* Empty text and comments only change nothing. */
	assert_int_equal(tui_theme_parse(&d, "", "e", err, sizeof err), 0);
	assert_int_equal(tui_theme_parse(&d, "#x\n\n# y = z\n", "e", err, sizeof err), 0);
	tui_theme_defaults(&t);
	assert_memory_equal(&t, &d, sizeof t);
}

/* Each broken line is reported as FILE:LINE: what. */
static void test_theme_parse_errors(void **state)
{
	static const char colour_help[] =
	    "(use default, a name such as red or brightblue, a number 0-255, or #rrggbb)";
	static const struct { const char *text, *want; } cases[] = {
		{ "status = red\n", "t.theme:1: expected a foreground and a background colour" },
		{ "status =\n", "t.theme:1: expected a foreground and a background colour" },
		{ "\n\n# c\nstatus red blue\n",
		  "t.theme:4: expected 'element = foreground background [attributes]'" },
		{ "row = red blue\nrow = purple blue\n", "t.theme:2: unknown colour 'purple' %s" },
		{ "row = red bluee\n", "t.theme:1: unknown colour 'bluee' %s" },
		{ "row = 256 0\n", "t.theme:1: unknown colour '256' %s" },
		{ "row = -1 0\n", "t.theme:1: unknown colour '-1' %s" },
		{ "row = 1e2 0\n", "t.theme:1: unknown colour '1e2' %s" },
		{ "row = 99999999999999999999 0\n",
		  "t.theme:1: unknown colour '99999999999999999999' %s" },
		/* '#' after a blank that does not start #rrggbb begins a comment
		 * (doc/themes.md), so a malformed #colour cuts the line short. */
		{ "row = 0 #12345\n", "t.theme:1: expected a foreground and a background colour" },
		{ "row = 0 #1234567\n", "t.theme:1: expected a foreground and a background colour" },
		{ "row = #gg0000 0\n", "t.theme:1: expected a foreground and a background colour" },
		{ "row = 0 1#123456\n", "t.theme:1: unknown colour '1#123456' %s" },
		{ "row = cyan#x 0\n", "t.theme:1: unknown colour 'cyan#x' %s" },
		{ "row = red blue shiny\n", "t.theme:1: unknown attribute 'shiny' (bold, dim, "
		  "underline, reverse, standout, italic, blink or normal)" },
		{ "row = red blue #abcdef\n", "t.theme:1: unknown attribute '#abcdef' (bold, dim, "
		  "underline, reverse, standout, italic, blink or normal)" },
		{ "# ok\nrows = red blue\n", "t.theme:2: unknown element 'rows' (elements: status, "
		  "status_ok, status_warn, status_error, info, header, sort, row, row_idle, "
		  "selected, bar, message, error, prompt, cmdline, hint, help, help_title, fps, "
		  "fps_missed, title, alert, paused, demoted)" },
		{ "= red blue\n", "t.theme:1: unknown element '' (elements: status, "
		  "status_ok, status_warn, status_error, info, header, sort, row, row_idle, "
		  "selected, bar, message, error, prompt, cmdline, hint, help, help_title, fps, "
		  "fps_missed, title, alert, paused, demoted)" },
	};
	struct tui_theme t;
	char want[1024];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(want, sizeof want, cases[i].want, colour_help);
		tui_theme_defaults(&t);
		err[0] = '\0';
		if (tui_theme_parse(&t, cases[i].text, "t.theme", err, sizeof err) != -1)
			fail_msg("case %zu: '%s' was accepted", i, cases[i].text);
		if (strcmp(err, want) != 0)
			fail_msg("case %zu: error\n  '%s', want\n  '%s'", i, err, want);
	}
	/* Malformed #colours after a complete spec are comments, not errors. */
	tui_theme_defaults(&t);
	assert_int_equal(tui_theme_parse(&t, "row = red blue #12345\n", "t.theme", err,
	    sizeof err), 0);
	assert_int_equal(t.el[TUI_EL_ROW].fg.index, 1);
	assert_int_equal(t.el[TUI_EL_ROW].attrs, 0);
	/* A short error buffer is cut, still terminated. */
	memset(err, 'X', sizeof err);
	assert_int_equal(tui_theme_parse(&t, "row = x y", "t.theme", err, 12), -1);
	assert_string_equal(err, "t.theme:1: ");
}

/* Lines up to 1023 bytes are read; longer ones are an error naming the line. */
static void test_theme_parse_long_line(void **state)
{
	char text[2100];
	struct tui_theme t;
	size_t n;

	(void)state;
	tui_theme_defaults(&t);
	n = (size_t)snprintf(text, sizeof text, "# first\nrow = red blue");
	memset(text + n, ' ', 1023 - strlen("row = red blue"));
	n += 1023 - strlen("row = red blue");
	snprintf(text + n, sizeof text - n, "\n");
	assert_int_equal(tui_theme_parse(&t, text, "l.theme", err, sizeof err), 0);
	assert_int_equal(t.el[TUI_EL_ROW].fg.index, 1);

	text[n] = ' ';
	snprintf(text + n + 1, sizeof text - n - 1, "\n");
	assert_int_equal(tui_theme_parse(&t, text, "l.theme", err, sizeof err), -1);
	assert_string_equal(err, "l.theme:2: line too long (over 1023 bytes)");
}

/* Loading from a path, by name from HOOKSCOPE_THEMES, and the failures. */
static void test_theme_load(void **state)
{
	char dir[] = "/tmp/test-tui-theme.XXXXXX", path[PATH_MAX], want[PATH_MAX + 256];
	char *big;
	struct tui_theme t, d;
	const char *old = getenv("HOOKSCOPE_THEMES");
	char *saved = old ? xstrdup(old) : NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	tui_theme_defaults(&d);
	write_file(dir, "mine.theme", "row = red blue\n", 15);
	write_file(dir, "default.theme", "bar = 1 2\n", 10);
	write_file(dir, "bad.theme", "row = red blue\n\nbar = nope 1\n", 29);
	write_file(dir, "nul.theme", "row = red\0blue\n", 15);
	big = xmalloc(64 * 1024 + 2);
	memset(big, '\n', 64 * 1024 + 1);
	write_file(dir, "big.theme", big, 64 * 1024 + 1);
	write_file(dir, "max.theme", big, 64 * 1024);
	free(big);
	setenv("HOOKSCOPE_THEMES", dir, 1);

	/* By path. */
	snprintf(path, sizeof path, "%s/mine.theme", dir);
	assert_int_equal(tui_theme_load(&t, path, err, sizeof err), 0);
	assert_string_equal(t.source, path);
	assert_int_equal(t.el[TUI_EL_ROW].fg.index, 1);
	assert_int_equal(t.el[TUI_EL_ROW].bg.index, 4);
	assert_memory_equal(&t.el[TUI_EL_BAR], &d.el[TUI_EL_BAR], sizeof d.el[0]);

	/* By name, through HOOKSCOPE_THEMES; NULL means "default". */
	assert_int_equal(tui_theme_load(&t, "mine", err, sizeof err), 0);
	assert_string_equal(t.source, path);
	assert_int_equal(tui_theme_load(&t, NULL, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/default.theme", dir);
	assert_string_equal(t.source, path);
	assert_int_equal(t.el[TUI_EL_BAR].fg.index, 1);
	assert_int_equal(t.el[TUI_EL_BAR].bg.index, 2);
	snprintf(path, sizeof path, "%s/max.theme", dir);
	assert_int_equal(tui_theme_load(&t, path, err, sizeof err), 0);

	/* A broken line: the built-in theme, and the error names path:line. */
	memset(&t, 0x5a, sizeof t);
	assert_int_equal(tui_theme_load(&t, "bad", err, sizeof err), -1);
	snprintf(want, sizeof want, "%s/bad.theme:3: unknown colour 'nope' (use default, a "
	    "name such as red or brightblue, a number 0-255, or #rrggbb)", dir);
	assert_string_equal(err, want);
	assert_memory_equal(&t, &d, sizeof t);

	memset(&t, 0x5a, sizeof t);
	assert_int_equal(tui_theme_load(&t, "nosuch", err, sizeof err), -1);
	snprintf(want, sizeof want, "theme 'nosuch' not found (looked for nosuch.theme in %s, ",
	    dir);
	assert_memory_equal(err, want, strlen(want));
	assert_non_null(strstr(err, "; set HOOKSCOPE_THEMES or give a path)"));
	assert_memory_equal(&t, &d, sizeof t);

	assert_int_equal(tui_theme_load(&t, "/nonexistent/x.theme", err, sizeof err), -1);
	assert_string_equal(err, "cannot read theme /nonexistent/x.theme: No such file or directory");
	snprintf(path, sizeof path, "%s/nul.theme", dir);
	assert_int_equal(tui_theme_load(&t, path, err, sizeof err), -1);
	snprintf(want, sizeof want, "cannot read theme %s: not a text file", path);
	assert_string_equal(err, want);
	snprintf(path, sizeof path, "%s/big.theme", dir);
	assert_int_equal(tui_theme_load(&t, path, err, sizeof err), -1);
	snprintf(want, sizeof want, "cannot read theme %s: larger than 64 KiB", path);
	assert_string_equal(err, want);
	assert_int_equal(tui_theme_load(&t, dir, err, sizeof err), -1);   /* a directory */
	snprintf(want, sizeof want, "cannot read theme %s: Is a directory", dir);
	assert_string_equal(err, want);
	assert_memory_equal(&t, &d, sizeof t);

	/* Without default.theme anywhere, NULL is the built-in theme, no error. */
	setenv("HOOKSCOPE_THEMES", "/nonexistent", 1);
	snprintf(path, sizeof path, "%s/default.theme", HS_THEMES_DIR);
	if (access(path, F_OK) != 0) {
		assert_int_equal(tui_theme_load(&t, NULL, err, sizeof err), 0);
		assert_string_equal(t.source, "built-in");
	}

	for (const char *const *n = (const char *const[]){ "mine", "default", "bad", "nul",
	    "big", "max", NULL }; *n; n++) {
		snprintf(path, sizeof path, "%s/%s.theme", dir, *n);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(rmdir(dir), 0);
	if (saved != NULL)
		setenv("HOOKSCOPE_THEMES", saved, 1);
	else
		unsetenv("HOOKSCOPE_THEMES");
	free(saved);
}

/* The shipped themes load; default.theme is exactly the built-in theme. */
static void test_theme_shipped(void **state)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	struct tui_theme t, d;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	/* BUILD/tests/test-tui-theme -> BUILD/themes/, where make copies themes/ */
	for (int i = 0; i < 2; i++) {
		slash = strrchr(exe, '/');
		assert_non_null(slash);
		*slash = '\0';
	}
	snprintf(path, sizeof path, "%s/themes/default.theme", exe);
	if (access(path, R_OK) != 0)
		fail_msg("%s is missing: run 'make' (it copies themes/ into the build)", path);
	assert_int_equal(tui_theme_load(&t, path, err, sizeof err), 0);
	tui_theme_defaults(&d);
	for (int i = 0; i < TUI_EL_COUNT; i++)
		if (memcmp(&t.el[i], &d.el[i], sizeof d.el[i]) != 0)
			fail_msg("default.theme differs from the built-in theme at '%s'",
			    tui_theme_el_name(i));
	/* every other shipped theme loads */
	{
		static const char *const names[] = { "mono", "light", "high-contrast" };

		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			snprintf(path, sizeof path, "%s/themes/%s.theme", exe, names[i]);
			if (tui_theme_load(&t, path, err, sizeof err) != 0)
				fail_msg("%s.theme: %s", names[i], err);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_theme_defaults),
		cmocka_unit_test(test_theme_parse_valid),
		cmocka_unit_test(test_theme_parse_errors),
		cmocka_unit_test(test_theme_parse_long_line),
		cmocka_unit_test(test_theme_load),
		cmocka_unit_test(test_theme_shipped),
	};

	if (tui_test_locale("test-tui-theme") < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
