/*
 * test-select.c - the monitoring levels' rule (collectors/agent/select.c): what
 * each level times by binding and visibility, and the HOOKSCOPE_FUNCS globs
 * (':' and ',' separators, "::" kept inside a glob).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "select.h"

/* Levels 0-4 for a static, a hidden global and an exported function. */
static void test_select_levels(void **state)
{
	(void)state;
	unsetenv("HOOKSCOPE_FUNCS");
	for (int l = 0; l <= 4; l++) {
		assert_int_equal(select_level(l, "st", false, false), l >= 4);
		assert_int_equal(select_level(l, "hid", true, false), l >= 3);
		assert_int_equal(select_level(l, "ex", true, true), l >= 2);
		assert_int_equal(select_level(l, "main", true, true), l >= 1);
	}
	assert_false(select_level(1, NULL, true, true));
	assert_true(select_level(4, NULL, false, false));
}

/* Globs name functions from level 1, whatever their binding. */
static void test_select_globs(void **state)
{
	(void)state;
	setenv("HOOKSCOPE_FUNCS", "parse_*,render:ns::draw*", 1);
	assert_true(select_level(1, "parse_line", false, false));
	assert_true(select_level(1, "render", false, false));
	assert_false(select_level(1, "render2", false, false));
	assert_true(select_level(1, "ns::draw_all", false, false));
	assert_false(select_level(1, "ns", false, false));
	assert_false(select_level(0, "parse_line", true, true));
	assert_true(select_level(2, "parse_line", false, false));
	assert_false(select_level(2, "other", false, false));
	setenv("HOOKSCOPE_FUNCS", "::,,:", 1);              /* degenerate: no crash */
	assert_false(select_level(1, "x", false, false));
	unsetenv("HOOKSCOPE_FUNCS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_levels),
		cmocka_unit_test(test_select_globs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
