/*
 * overview.c - the start screen (view 0): the most important of every
 * collector at once, each in a box with a title row naming its view key.
 *
 * Layout rules (doc/tui.md):
 * - narrow (under OV_WIDE columns): one column, the small boxes on top
 *   (FPS, blocks, threads, then IPC and power side by side), the hot
 *   functions below with every row left; boxes grow past their minimum
 *   only while the functions keep half the rows;
 * - wide: the hot functions on the left, the other boxes stacked on the
 *   right half; rows left over in the right column go to the boxes that
 *   have more to show (blocks, IPC, power, then the threads' tree).
 * - Every box gets at least its minimum (title and one row, the FPS box its
 *   four rows); when even the minimums do not fit, boxes are dropped from
 *   the least important (the last in the view table first), never drawn
 *   over each other: each draws only inside its own rectangle.
 */
#include <stdio.h>
#include <string.h>

#include "tui.h"
#include "panel-funcs.h"

#include <curses.h>

#define OV_WIDE       120     /* columns from which the layout has two columns */
#define OV_FUNCS_MIN  4       /* title, header and two rows */
#define OV_PAIR_MIN_W 60      /* IPC and power side by side from this width */
/* The two boxes that sit side by side when the column is wide enough. */
#define OV_IPC        tui_view_find("ipc")
#define OV_POWER      tui_view_find("power")

/* A box per view with one (tui_views[]->box_draw), indexed by view. */
struct ov_box {
	int min, want;                    /* rows */
	int y, h;                         /* placed; h 0 = dropped */
};

/* See tui.h: a title row, "[key]" on the right, clickable. */
void tui_panel_title(struct tui_app *a, void *win, int y, int x, int w, int view,
    const char *text)
{
	char key[8];
	int kw;

	if (w <= 0)
		return;
	tui_screen_fill(win, y, x, w, a->attr[TUI_EL_TITLE]);
	snprintf(key, sizeof key, "[%c]", tui_views[view]->key);
	kw = (int)strlen(key);
	if (w >= kw + 12) {               /* the key stays; the text is cut */
		tui_screen_put(win, y, x + w - kw - 1, kw, a->attr[TUI_EL_TITLE], key);
		w -= kw + 1;
	}
	tui_screen_put(win, y, x, w, a->attr[TUI_EL_TITLE], text);
	tui_view_region(view, y, x, 1, w, -1);
}

/* See tui.h. */
void tui_panel_empty(struct tui_app *a, void *win, int y, int x, int w, int view,
    const char *why)
{
	tui_panel_title(a, win, y, x, w, view, tui_views[view]->title);
	tui_screen_put(win, y + 2, x + 2, w - 2, a->attr[TUI_EL_ROW_IDLE], why);
}

/* See tui.h. */
void tui_panel_box_empty(struct tui_app *a, void *win, int y, int x, int h, int w, int view,
    const char *why)
{
	tui_panel_title(a, win, y, x, w, view, tui_views[view]->title);
	if (h > 1)
		tui_screen_put(win, y + 1, x + 1, w - 1, a->attr[TUI_EL_ROW_IDLE],
		    a->frame == NULL ? "waiting for the first frame" : why);
}

/* The views with a box, in the table's order (the order of importance). */
static int ov_order(int *order)
{
	int n = 0;

	for (int v = 0; v < tui_nviews; v++)
		if (tui_views[v]->box_draw != NULL)
			order[n++] = v;
	return n;
}

/* The same views in the order rows left over go to them (box_grow). */
static void ov_by_grow(const int *order, int n, int *by)
{
	memcpy(by, order, (size_t)n * sizeof *by);
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && tui_views[by[k]]->box_grow < tui_views[by[k - 1]]->box_grow; k--) {
			int t = by[k];

			by[k] = by[k - 1];
			by[k - 1] = t;
		}
}

/* Rows each box needs and would like. */
static void ov_sizes(struct tui_app *a, struct ov_box *b, bool wide, int avail)
{
	for (int v = 0; v < tui_nviews; v++) {
		b[v] = (struct ov_box){ 0, 0, 0, 0 };
		if (tui_views[v]->box_draw == NULL)
			continue;
		tui_views[v]->box_rows(a, wide, avail, &b[v].min, &b[v].want);
		if (b[v].want < b[v].min)
			b[v].want = b[v].min;
	}
}

/* Rows box k takes (its minimum, or what it wants); IPC and power side by
 * side (pair) take the larger of the two, counted on IPC. */
static int ov_rows(const struct ov_box *b, int k, bool pair, bool want)
{
	int r = want ? b[k].want : b[k].min, p = want ? b[OV_POWER].want : b[OV_POWER].min;

	if (pair && k == OV_POWER)
		return 0;
	return pair && k == OV_IPC && p > r ? p : r;
}

/* Place the boxes in a column of h rows from y, keeping reserve rows free
 * (the functions below), and grow_reserve rows when giving boxes more than
 * their minimum; pair: IPC and power share their rows. */
static void ov_place(struct ov_box *b, int y, int h, int reserve, int grow_reserve, bool pair)
{
	int order[TUI_VIEW_MAX], by_want[TUI_VIEW_MAX];
	int nbox = ov_order(order), used = 0, n = nbox;

	ov_by_grow(order, nbox, by_want);
	/* Minimums, dropping the least important until they fit. */
	for (;;) {
		used = 0;
		for (int i = 0; i < n; i++)
			used += ov_rows(b, order[i], pair, false);
		if (used + reserve <= h || n == 0)
			break;
		n--;
		if (order[n] == OV_POWER)       /* power went: IPC alone, full width */
			pair = false;
	}
	for (int i = 0; i < nbox; i++)
		b[order[i]].h = i < n ? ov_rows(b, order[i], pair, false) : 0;
	/* Rows left over: to the boxes that want more, the threads' tree last
	 * (it can use any number). */
	for (int i = 0; i < nbox; i++) {
		int k = by_want[i], more = ov_rows(b, k, pair, true) - b[k].h;

		if (b[k].h == 0 || more <= 0)
			continue;
		if (more > h - grow_reserve - used)
			more = h - grow_reserve - used;
		if (more > 0) {
			b[k].h += more;
			used += more;
		}
	}
	if (pair)
		b[OV_POWER].h = b[OV_IPC].h;
	for (int i = 0; i < n; i++) {
		int k = order[i];

		b[k].y = pair && k == OV_POWER ? b[OV_IPC].y : y;
		y += pair && k == OV_POWER ? 0 : b[k].h;
	}
}

/* One small box in its rectangle. */
static void ov_box_draw(struct tui_app *a, WINDOW *win, int view, const struct ov_box *b,
    int x, int w)
{
	if (b->h > 0 && w > 0)
		tui_views[view]->box_draw(a, win, b->y, x, b->h, w);
}

/* The functions box: title with the sort and counts, the table below. */
static void ov_funcs(struct tui_app *a, WINDOW *win, int y, int x, int h, int w)
{
	const struct proto_frame *f = a->frame ? &a->frame->frame : NULL;
	char title[256], calls[16];

	if (h <= 0)
		return;
	if (f != NULL) {
		tui_fmt_count(f->calls_total, calls, sizeof calls);
		snprintf(title, sizeof title, " hot functions: %llu seen, %s calls, by %s",
		    (unsigned long long)f->nfuncs_seen, calls, f->sort);
	} else {
		snprintf(title, sizeof title, "%s", tui_view_funcs.title);
	}
	tui_panel_title(a, win, y, x, w, tui_view_index(&tui_view_funcs), title);
	tui_panel_funcs_draw(a, win, y + 1, x, h - 1, w);
}

static void tui_overview_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	struct ov_box b[TUI_VIEW_MAX];
	bool wide = w >= OV_WIDE;
	int rw = wide ? w / 2 : w, lw = wide ? w - rw - 1 : w, rx = wide ? x + lw + 1 : x;
	bool pair = rw >= (wide ? 2 * OV_PAIR_MIN_W - 20 : OV_PAIR_MIN_W);
	int top;

	if (h <= 0)
		return;
	ov_sizes(a, b, wide, h);
	ov_place(b, y, h, wide ? 0 : OV_FUNCS_MIN, wide ? 0 : h / 2 > OV_FUNCS_MIN ? h / 2 :
	    OV_FUNCS_MIN, pair);
	for (int i = 0; i < tui_nviews; i++) {
		int bx = rx, bw = rw;

		if (tui_views[i]->box_draw == NULL)
			continue;
		if (pair && b[OV_POWER].h > 0 && (i == OV_IPC || i == OV_POWER)) {
			bw = (rw - 1) / 2;
			bx = i == OV_IPC ? rx : rx + bw + 1;
			if (i == OV_POWER)
				bw = rw - bw - 1;
		}
		ov_box_draw(a, (WINDOW *)win, i, &b[i], bx, bw);
	}
	if (wide) {
		chtype v = a->utf8 ? ACS_VLINE : '|';

		wattrset((WINDOW *)win, (attr_t)a->attr[TUI_EL_INFO]);
		mvwvline((WINDOW *)win, y, x + lw, v, h);
		ov_funcs(a, (WINDOW *)win, y, x, h, lw);
		return;
	}
	top = y;
	for (int i = 0; i < tui_nviews; i++)
		if (b[i].h > 0 && b[i].y + b[i].h > top)
			top = b[i].y + b[i].h;
	ov_funcs(a, (WINDOW *)win, top, x, y + h - top, w);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_overview = {
	.name = "overview", .tab = "all", .key = '0',
	.title = " overview", .help = "everything at once (the start screen)",
	.draw = tui_overview_draw, .list_of = &tui_view_funcs,
};
