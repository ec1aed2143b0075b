/*
 * views.c - the table of views (0 overview, 1-6 one collector each, 7 the
 * targets), switching between them, moving their lists, and mouse clicks.
 *
 * Every view is a row of tui_views: its name, key and tab, what it draws
 * full screen, its box in the overview, its part of the frame, the list
 * Up/Down move and what Enter opens.  The keys, the tabs, the help, the
 * overview's boxes, `:view` and its completion all come from this table;
 * a collector's panel file provides the functions its row names.
 *
 * Clicks: while drawing, panels register the regions they drew (a title row
 * opens its view, a table row selects that row); a click is looked up in
 * the regions of the last draw, so it always matches what is on the screen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#include <curses.h>

#define VIEW_MAX_REGIONS 32

const struct tui_view tui_views[TUI_VIEW_COUNT] = {
	[TUI_VIEW_OVERVIEW] = { .name = "overview", .tab = "all", .key = '0',
	    .title = " overview", .help = "everything at once (the start screen)",
	    .draw = tui_overview_draw,
	    .list = TUI_LIST_FUNCS, .moved = tui_panel_funcs_moved, .enter = tui_panel_funcs_details },
	[TUI_VIEW_FUNCS] = { .name = "functions", .tab = "funcs", .key = '1',
	    .title = " hot functions", .help = "hot functions, all columns", .part = "funcs",
	    .draw = tui_panel_funcs_draw,
	    .list = TUI_LIST_FUNCS, .moved = tui_panel_funcs_moved, .enter = tui_panel_funcs_details },
	[TUI_VIEW_FPS] = { .name = "fps", .tab = "fps", .key = '2',
	    .title = " FPS", .help = "frame rate, jank and percentiles of every stream", .part = "fps",
	    .draw = tui_panel_fps_view,
	    .box_draw = tui_panel_fps_box, .box_rows = tui_panel_fps_box_rows, .box_grow = 5 },
	[TUI_VIEW_BLOCKS] = { .name = "blocks", .tab = "blocks", .key = '3',
	    .title = " UI-thread blocks", .help = "UI-thread blocks (Enter: their stacks)",
	    .part = "blocks", .draw = tui_panel_blocks_view,
	    .box_draw = tui_panel_blocks_box, .box_rows = tui_panel_blocks_box_rows, .box_grow = 1,
	    .enter = tui_blocks_show },
	[TUI_VIEW_THREADS] = { .name = "threads", .tab = "threads", .key = '4',
	    .title = " threads", .help = "threads and pools (Enter: creation stack)",
	    .part = "threading", .draw = tui_panel_threads_draw,
	    .box_draw = tui_panel_threads_box, .box_rows = tui_panel_threads_box_rows, .box_grow = 4,
	    .list = TUI_LIST_THREADS, .enter = tui_panel_threads_details },
	[TUI_VIEW_IPC] = { .name = "ipc", .tab = "ipc", .key = '5',
	    .title = " IPC", .help = "IPC calls (Enter: slow calls)", .part = "ipc",
	    .draw = tui_panel_ipc_view,
	    .box_draw = tui_panel_ipc_view, .box_rows = tui_panel_ipc_box_rows, .box_grow = 2,
	    .list = TUI_LIST_IPC, .enter = tui_panel_ipc_details },
	[TUI_VIEW_POWER] = { .name = "power", .tab = "power", .key = '6',
	    .title = " power", .help = "wakelocks, sensors and other power resources",
	    .part = "power", .draw = tui_panel_power_view,
	    .box_draw = tui_panel_power_view, .box_rows = tui_panel_power_box_rows, .box_grow = 3,
	    .list = TUI_LIST_POWER, .enter = tui_panel_power_details },
	[TUI_VIEW_TARGETS] = { .name = "targets", .tab = "targets", .key = '7', .fkey = KEY_F(2),
	    .title = " targets", .help = "every target: pid, name, state, level (Enter: show it)",
	    .part = "targets", .draw = tui_panel_targets_draw,
	    .list = TUI_LIST_TARGETS, .enter = tui_panel_targets_details },
};

/* See tui.h. */
int tui_view_find(const char *name)
{
	size_t len = strlen(name);

	for (int v = 0; v < TUI_VIEW_COUNT; v++)
		if ((len == 1 && name[0] == tui_views[v].key) || strcmp(name, tui_views[v].name) == 0)
			return v;
	for (int v = 0; v < TUI_VIEW_COUNT && len > 0; v++)
		if (strncmp(name, tui_views[v].name, len) == 0)
			return v;
	return -1;
}

/* See tui.h. */
void tui_view_set(struct tui_app *a, int view)
{
	if (view < 0 || view >= TUI_VIEW_COUNT)
		return;
	a->view = view;
	tui_panel_funcs_follow(a);
}

/* See tui.h. */
struct tui_list *tui_view_list(struct tui_app *a, int view)
{
	if (view < 0 || view >= TUI_VIEW_COUNT || tui_views[view].list == TUI_LIST_NONE)
		return NULL;
	return &a->list[tui_views[view].list];
}

/* See tui.h. */
void tui_view_move(struct tui_app *a, int delta)
{
	struct tui_list *l = tui_view_list(a, a->view);

	if (l == NULL)
		return;
	tui_list_move(l, delta);
	if (tui_views[a->view].moved != NULL)
		tui_views[a->view].moved(a);
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
	for (int v = 0; v < TUI_VIEW_COUNT; v++)
		fprintf(m, "%s%s", v ? ", " : "", tui_views[v].name);
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
		if (tui_views[r->view].moved != NULL)
			tui_views[r->view].moved(a);
		if (dbl && tui_views[r->view].enter != NULL)
			tui_views[r->view].enter(a);
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
	for (int v = 0; v < TUI_VIEW_COUNT && x < cols; v++) {
		char tab[32];
		int tw;

		snprintf(tab, sizeof tab, " %c %s", tui_views[v].key,
		    cols >= 90 ? tui_views[v].name : tui_views[v].tab);
		tw = tui_screen_put(win, 0, x, cols - x,
		    a->attr[v == a->view ? TUI_EL_SELECTED : TUI_EL_HINT], tab);
		tui_view_region(v, screen_y, x, 1, tw, -1);
		x += tw;
	}
}
