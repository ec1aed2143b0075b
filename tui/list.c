/*
 * list.c - the one list widget every panel uses: which item is selected,
 * which is shown on the first row, and how moves, pages and clicks change
 * them.  A panel lays its list out when it draws (items and rows it has
 * now); keys move the list of the view shown between draws, so they work
 * on what is on the screen.
 */
#include "tui.h"

/* Keep sel on an item (0 when there is none) and top such that sel is in
 * view and no row below the last item stays empty while items are hidden
 * above. */
static void list_clamp(struct tui_list *l)
{
	int page = tui_list_page(l);

	if (l->sel >= l->n)
		l->sel = l->n - 1;
	if (l->sel < 0)
		l->sel = 0;
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + page)
		l->top = l->sel - page + 1;
	if (l->top > l->n - page)
		l->top = l->n - page;
	if (l->top < 0)
		l->top = 0;
}

/* See tui.h. */
void tui_list_layout(struct tui_list *l, int n, int rows)
{
	l->n = n > 0 ? n : 0;
	l->rows = rows > 0 ? rows : 0;
	list_clamp(l);
}

/* See tui.h. */
void tui_list_move(struct tui_list *l, int delta)
{
	/* Saturate rather than overflow on Home/End's large deltas. */
	long sel = (long)l->sel + delta;

	l->sel = sel < 0 ? 0 : sel > l->n ? l->n : (int)sel;
	list_clamp(l);
}

/* See tui.h. */
void tui_list_select(struct tui_list *l, int item)
{
	tui_list_move(l, item - l->sel);
}

/* See tui.h. */
int tui_list_page(const struct tui_list *l)
{
	return l->rows > 1 ? l->rows : 1;
}

/* See tui.h. */
int tui_list_item(const struct tui_list *l, int row)
{
	int item = l->top + row;

	return row >= 0 && row < l->rows && item < l->n ? item : -1;
}
