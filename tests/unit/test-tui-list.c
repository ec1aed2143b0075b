/*
 * test-tui-list.c - the list widget every panel uses (list.c: moves,
 * pages, the selection kept on an item and in view when the list shrinks
 * or the rows change) and the table of views (views.c: keys and names
 * unique, each overview box with its rows, :view finding every view by
 * name, prefix and key, the help and the :view error naming every view).
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
#include "tui-test-util.h"

/* sel on an item, in view, no empty rows below while items hide above. */
static void list_check(const struct tui_list *l)
{
	int page = tui_list_page(l);

	assert_true(l->sel >= 0);
	assert_true(l->n == 0 ? l->sel == 0 : l->sel < l->n);
	assert_true(l->top >= 0);
	assert_true(l->sel >= l->top && l->sel < l->top + page);
	assert_true(l->top == 0 || l->top + page <= l->n);
}

static void test_list_moves(void **state)
{
	struct tui_list l = { 0 };

	(void)state;
	tui_list_layout(&l, 100, 10);
	list_check(&l);
	assert_int_equal(l.sel, 0);
	tui_list_move(&l, -1);                /* stays on the first */
	assert_int_equal(l.sel, 0);
	tui_list_move(&l, 9);
	assert_int_equal(l.sel, 9);
	assert_int_equal(l.top, 0);
	tui_list_move(&l, 1);                 /* scrolls one row */
	assert_int_equal(l.sel, 10);
	assert_int_equal(l.top, 1);
	tui_list_move(&l, tui_list_page(&l)); /* a page */
	assert_int_equal(l.sel, 20);
	assert_int_equal(l.top, 11);
	list_check(&l);
	tui_list_move(&l, 1000000);           /* End */
	assert_int_equal(l.sel, 99);
	assert_int_equal(l.top, 90);
	tui_list_move(&l, -1000000);          /* Home */
	assert_int_equal(l.sel, 0);
	assert_int_equal(l.top, 0);
	tui_list_move(&l, 2147483000);        /* no overflow */
	assert_int_equal(l.sel, 99);
	list_check(&l);
	assert_int_equal(tui_list_item(&l, 0), 90);
	assert_int_equal(tui_list_item(&l, 9), 99);
	assert_int_equal(tui_list_item(&l, 10), -1);
	assert_int_equal(tui_list_item(&l, -1), -1);
	tui_list_select(&l, 42);
	assert_int_equal(l.sel, 42);
	list_check(&l);
}

/* The list shrinks, empties, the rows change: still consistent. */
static void test_list_layout(void **state)
{
	struct tui_list l = { 0 };

	(void)state;
	tui_list_layout(&l, 50, 10);
	tui_list_move(&l, 45);
	tui_list_layout(&l, 20, 10);          /* fewer items: on the last, a full page */
	assert_int_equal(l.sel, 19);
	assert_int_equal(l.top, 10);
	list_check(&l);
	tui_list_layout(&l, 20, 4);           /* fewer rows: the selection stays in view */
	list_check(&l);
	assert_int_equal(l.sel, 19);
	tui_list_layout(&l, 20, 30);          /* more rows than items: from the first */
	assert_int_equal(l.top, 0);
	list_check(&l);
	tui_list_layout(&l, 0, 10);           /* empty */
	assert_int_equal(l.sel, 0);
	assert_int_equal(l.top, 0);
	assert_int_equal(tui_list_item(&l, 0), -1);
	tui_list_move(&l, 3);
	assert_int_equal(l.sel, 0);
	tui_list_layout(&l, 5, 0);            /* not drawn: a page is one row */
	assert_int_equal(tui_list_page(&l), 1);
	tui_list_move(&l, 2);
	list_check(&l);
	assert_int_equal(l.top, 2);
}

/* The table: what keys, the help, the overview and :view rely on. */
static void test_view_table(void **state)
{
	char *names, *help;

	(void)state;
	for (int v = 0; v < tui_nviews; v++) {
		const struct tui_view *t = tui_views[v];
		char key[2] = { (char)t->key, 0 };

		assert_non_null(t->name);
		assert_non_null(t->tab);
		assert_non_null(t->title);
		assert_non_null(t->help);
		assert_non_null(t->draw);
		assert_true(strlen(t->tab) <= strlen(t->name));
		/* A box comes with its rows and a rank for the rows left over. */
		assert_true((t->box_draw == NULL) == (t->box_rows == NULL));
		if (t->box_draw != NULL)
			assert_true(t->box_grow > 0);
		assert_true(t->moved == NULL || t->list);
		assert_true(t->list_of == NULL || (!t->list && t->list_of->list));
		assert_int_equal(tui_view_find(t->name), v);
		assert_int_equal(tui_view_find(key), v);
		for (int k = 0; k < v; k++) {
			assert_true(tui_views[k]->key != t->key);
			assert_true(strcmp(tui_views[k]->name, t->name) != 0);
			assert_true(t->part == NULL || tui_views[k]->part == NULL ||
			    strcmp(tui_views[k]->part, t->part) != 0);
			if (t->box_draw != NULL && tui_views[k]->box_draw != NULL)
				assert_true(tui_views[k]->box_grow != t->box_grow);
		}
	}
	assert_int_equal(tui_view_find("func"), tui_view_find("functions"));   /* a prefix */
	assert_int_equal(tui_view_find("nosuchview"), -1);
	/* The help (keys, views, commands) names every view. */
	names = tui_view_names();
	help = tui_help_text();
	for (int v = 0; v < tui_nviews; v++) {
		assert_non_null(strstr(names, tui_views[v]->name));
		assert_non_null(strstr(help, tui_views[v]->name));
	}
	assert_non_null(strstr(help, names));      /* the :view line lists them all */
	assert_non_null(strstr(help, "  0-9, n, u "));   /* the views' key range, from the table */
	free(help);
	free(names);
}

/* :view with an unknown name: the error lists the views of the table. */
static void test_view_command_error(void **state)
{
	struct tui_app a;
	char *argv[] = { (char *)"view", (char *)"bogus" };
	char err[512] = "", *names = tui_view_names();
	const struct tui_command *c = tui_command_find("view");

	(void)state;
	memset(&a, 0, sizeof a);
	assert_non_null(c);
	assert_int_equal(c->exec(&a, 2, argv, err, sizeof err), -1);
	assert_non_null(strstr(err, "bogus"));
	assert_non_null(strstr(err, names));
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_moves),
		cmocka_unit_test(test_list_layout),
		cmocka_unit_test(test_view_table),
		cmocka_unit_test(test_view_command_error),
	};

	if (tui_test_locale("test-tui-list") != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
