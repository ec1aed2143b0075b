/*
 * views.c - the table of views (0 overview, then one per collector, then
 * the targets), switching between them, moving their lists, mouse clicks.
 *
 * Every view is a row of tui_views, defined in its panel file: its name,
 * key and tab, what it draws full screen, its box in the overview, its part
 * of the frame, the list Up/Down move and what Enter opens.  The keys, the
 * tabs, the help, the overview's boxes, `:view` and its completion all come
 * from this table.  A view's selection is a->list[its index].
 *
 * Clicks: while drawing, panels register the regions they drew (a title row
 * opens its view, a table row selects that row); a click is looked up in
 * the regions of the last draw, so it always matches what is on the screen.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "panel-funcs.h"

#define VIEW_MAX_REGIONS 32

/* Every view, in key order: a new one adds its name here (its row is
 * tui_view_NAME, in its panel file). */
#define VIEWS(X) X(overview) X(funcs) X(fps) X(blocks) X(threads) X(ipc) X(power) X(targets) X(issues) \
	X(memory) X(network) X(startup)

#define VIEW_DECL(n) extern const struct tui_view tui_view_##n;
#define VIEW_ROW(n) &tui_view_##n,
VIEWS(VIEW_DECL)
const struct tui_view *const tui_views[] = { VIEWS(VIEW_ROW) };
const int tui_nviews = sizeof tui_views / sizeof tui_views[0];
_Static_assert(sizeof tui_views / sizeof tui_views[0] <= TUI_VIEW_MAX, "raise TUI_VIEW_MAX");

/* See tui.h. */
int tui_view_index(const struct tui_view *v)
{
	for (int i = 0; i < tui_nviews; i++)
		if (tui_views[i] == v)
			return i;
	assert(!"a view row missing from VIEWS");
	return 0;
}

/* See tui.h. */
int tui_view_find(const char *name)
{
	size_t len = strlen(name);

	for (int v = 0; v < tui_nviews; v++)
		if ((len == 1 && name[0] == tui_views[v]->key) || strcmp(name, tui_views[v]->name) == 0)
			return v;
	for (int v = 0; v < tui_nviews && len > 0; v++)
		if (strncmp(name, tui_views[v]->name, len) == 0)
			return v;
	return -1;
}

/* See tui.h. */
void tui_view_set(struct tui_app *a, int view)
{
	if (view < 0 || view >= tui_nviews)
		return;
	a->view = view;
	tui_panel_funcs_follow(a);
}

/* The row whose list, moved and Enter view shows. */
static const struct tui_view *view_owner(int view)
{
	const struct tui_view *v = tui_views[view];

	return v->list_of != NULL ? v->list_of : v;
}

/* See tui.h. */
struct tui_list *tui_view_list(struct tui_app *a, int view)
{
	const struct tui_view *o;

	if (view < 0 || view >= tui_nviews)
		return NULL;
	o = view_owner(view);
	return o->list ? &a->list[tui_view_index(o)] : NULL;
}

/* See tui.h. */
void tui_view_move(struct tui_app *a, int delta)
{
	struct tui_list *l = tui_view_list(a, a->view);

	if (l == NULL)
		return;
	tui_list_move(l, delta);
	if (view_owner(a->view)->moved != NULL)
		view_owner(a->view)->moved(a);
}

/* See tui.h. */
void tui_view_enter(struct tui_app *a)
{
	const struct tui_view *o = view_owner(a->view);

	if (o->enter != NULL)
		o->enter(a);
}

/* See tui.h. */
int tui_view_page(struct tui_app *a)
{
	struct tui_list *l = tui_view_list(a, a->view);

	return l != NULL ? tui_list_page(l) : 1;
}

/* See tui.h. */
char *tui_view_names(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL)
		return xstrdup("out of memory");
	for (int v = 0; v < tui_nviews; v++)
		fprintf(m, "%s%s", v ? ", " : "", tui_views[v]->name);
	fclose(m);
	return out;
}

/* ---- clicks ---- */

struct view_region {
	int view;
	int y, x, h, w;
	int first;                        /* item shown on row y; -1: a title or a tab */
};
static struct view_region view_regions[VIEW_MAX_REGIONS];
static int view_nregions;

/* See tui.h. */
void tui_view_regions_reset(void)
{
	view_nregions = 0;
}

/* See tui.h. */
void tui_view_region(int view, int y, int x, int h, int w, int first)
{
	if (view_nregions < VIEW_MAX_REGIONS && h > 0 && w > 0)
		view_regions[view_nregions++] = (struct view_region){ view, y, x, h, w, first };
}

/* See tui.h.  The last region registered at a place wins (drawn last). */
void tui_view_click(struct tui_app *a, int y, int x, bool dbl)
{
	for (int i = view_nregions - 1; i >= 0; i--) {
		const struct view_region *r = &view_regions[i];
		struct tui_list *l;
		int item;

		if (y < r->y || y >= r->y + r->h || x < r->x || x >= r->x + r->w)
			continue;
		if (r->first < 0) {
			tui_view_set(a, r->view);
			return;
		}
		item = r->first + (y - r->y);
		if ((l = tui_view_list(a, r->view)) == NULL)
			return;
		tui_list_select(l, item);
		if (view_owner(r->view)->moved != NULL)
			view_owner(r->view)->moved(a);
		if (dbl && view_owner(r->view)->enter != NULL)
			view_owner(r->view)->enter(a);
		return;
	}
}

/* See tui.h.  Every hint from 128 columns, the view names in full from 90,
 * short names below, so 80 columns show every tab. */
void tui_view_tabs_draw(struct tui_app *a, void *win, int screen_y, int cols)
{
	unsigned long hint = a->attr[TUI_EL_HINT];
	int x = 0;

	tui_screen_fill(win, 0, 0, cols, hint);
	x += tui_screen_put(win, 0, x, cols - x, hint, cols >= 128 ?
	    " q quit  ? help  : command  / filter  s sort  p pause " : " q quit ? help ");
	x += tui_screen_put(win, 0, x, cols - x, hint, a->utf8 ? "\u2502" : "|");
	for (int v = 0; v < tui_nviews && x < cols; v++) {
		char tab[32];
		int tw;

		snprintf(tab, sizeof tab, " %c %s", tui_views[v]->key,
		    cols >= 90 ? tui_views[v]->name : tui_views[v]->tab);
		tw = tui_screen_put(win, 0, x, cols - x,
		    a->attr[v == a->view ? TUI_EL_SELECTED : TUI_EL_HINT], tab);
		tui_view_region(v, screen_y, x, 1, tw, -1);
		x += tw;
	}
}
