/*
 * tui-test-util.h - what every test-tui-*.c program shares: the locale the
 * TUI's pure logic runs in.
 */
#ifndef TUI_TEST_UTIL_H
#define TUI_TEST_UTIL_H

#include <locale.h>
#include <stdio.h>

/*
 * As main.c: the user's locale for text (here a fixed UTF-8 one, so wcwidth
 * knows wide characters), '.' for numbers.  Returns 0, or -1 after saying
 * on stderr (as prog) that C.UTF-8 is missing.
 */
static inline int tui_test_locale(const char *prog)
{
	if (setlocale(LC_ALL, "C.UTF-8") == NULL) {
		fprintf(stderr, "%s: the C.UTF-8 locale is missing\n", prog);
		return -1;
	}
	setlocale(LC_NUMERIC, "C");
	return 0;
}

#endif
