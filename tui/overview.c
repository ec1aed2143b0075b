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
 *   the least important (power, IPC, threads, blocks, FPS), never drawn
 *   over each other: each draws only inside its own rectangle.
 */
#include <stdio.h>
#include <string.h>

#include "tui.h"

#include <curses.h>

#define OV_WIDE       120     /* columns from which the layout has two columns */
#define OV_FUNCS_MIN  4       /* title, header and two rows */
#define OV_PAIR_MIN_W 60      /* IPC and power side by side from this width */

enum { OV_FPS, OV_BLOCKS, OV_THREADS, OV_IPC, OV_POWER, OV_NBOX };

struct ov_box {
	int view;
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
	snprintf(key, sizeof key, "[%c]", tui_views[view].key);
	kw = (int)strlen(key);
	if (w >= kw + 12) {               /* the key stays; the text is cut */
		tui_screen_put(win, y, x + w - kw - 1, kw, a->attr[TUI_EL_TITLE], key);
		w -= kw + 1;
	}
	tui_screen_put(win, y, x, w, a->attr[TUI_EL_TITLE], text);
	tui_view_region(view, y, x, 1, w, -1);
}

/* Rows each box needs and would like. */
static void ov_sizes(struct tui_app *a, struct ov_box *b, bool wide, int avail)
{
	const struct proto_frame *f = a->frame ? &a->frame->frame : NULL;
	size_t nblocks = f ? f->blocks.nblocks : 0;

	b[OV_FPS] = (struct ov_box){ TUI_VIEW_FPS, 2, 2, 0, 0 };
	if (f != NULL && f->fps.nstreams > 0)
		b[OV_FPS].min = b[OV_FPS].want = 4;
	b[OV_BLOCKS] = (struct ov_box){ TUI_VIEW_BLOCKS, 2, 1 + (int)(nblocks > 4 ? 4 :
	    nblocks > 1 ? nblocks : 1), 0, 0 };
	/* the tree wants a row per thread, pool and inferred pool */
	b[OV_THREADS] = (struct ov_box){ TUI_VIEW_THREADS, 1, !wide || f == NULL ? 1 :
	    2 + (int)(f->thr.nthreads + f->thr.npools + f->thr.nsites), 0, 0 };
	b[OV_IPC] = (struct ov_box){ TUI_VIEW_IPC, 2, 1 + tui_panel_ipc_height(a, avail), 0, 0 };
	b[OV_POWER] = (struct ov_box){ TUI_VIEW_POWER, 2, 1 + tui_panel_power_height(a, avail), 0, 0 };
	for (int i = 0; i < OV_NBOX; i++)
		if (b[i].want < b[i].min)
			b[i].want = b[i].min;
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
	static const int order[] = { OV_FPS, OV_BLOCKS, OV_THREADS, OV_IPC, OV_POWER };
	static const int by_want[] = { OV_BLOCKS, OV_IPC, OV_POWER, OV_THREADS, OV_FPS };
	int used = 0, n = OV_NBOX;

	/* Minimums, dropping the least important until they fit. */
	for (;;) {
		used = 0;
		for (int i = 0; i < n; i++)
			used += ov_rows(b, order[i], pair, false);
		if (used + reserve <= h || n == 0)
			break;
		n--;
		if (n == OV_POWER)              /* power went: IPC alone, full width */
			pair = false;
	}
	for (int i = 0; i < OV_NBOX; i++)
		b[i].h = i < n ? ov_rows(b, i, pair, false) : 0;
	/* Rows left over: to the boxes that want more, the threads' tree last
	 * (it can use any number). */
	for (int i = 0; i < OV_NBOX; i++) {
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

/* The threads box: its own summary as the title, the tree below. */
static void ov_threads(struct tui_app *a, WINDOW *win, int y, int x, int h, int w)
{
	const struct proto_threads *t = &a->frame->frame.thr;
	unsigned hist[PROTO_THR_HISTORY];
	char spark[PROTO_THR_HISTORY * 4 + 1], line[512];
	size_t n = t->nhistory > 30 ? 30 : t->nhistory;

	if (h >= 3)
		tui_panel_threads_draw(a, win, y, x, h, w);
	for (size_t i = 0; i < n; i++)
		hist[i] = t->history[t->nhistory - n + i];
	tui_fps_sparkline(hist, n, a->utf8, spark, sizeof spark);
	snprintf(line, sizeof line, " threads: %llu live, %llu created, %.1f/s %s",
	    (unsigned long long)t->live, (unsigned long long)t->created, t->created_per_s, spark);
	tui_panel_title(a, win, y, x, w, TUI_VIEW_THREADS, line);
}

/* One small box in its rectangle. */
static void ov_box_draw(struct tui_app *a, WINDOW *win, const struct ov_box *b, int x, int w)
{
	const struct proto_frame *f = a->frame ? &a->frame->frame : NULL;
	int y = b->y, h = b->h;

	if (h <= 0 || w <= 0)
		return;
	switch (b->view) {
	case TUI_VIEW_FPS:
		if (f == NULL || f->fps.nstreams == 0)
			break;
		tui_panel_fps_draw(a, win, y, x, h, w);
		return;
	case TUI_VIEW_BLOCKS:
		if (f == NULL || f->blocks.nblocks == 0)
			break;
		tui_panel_blocks_draw(a, win, y, x, h, w);
		return;
	case TUI_VIEW_THREADS:
		if (f == NULL)
			break;
		ov_threads(a, win, y, x, h, w);
		return;
	case TUI_VIEW_IPC:
	case TUI_VIEW_POWER:              /* their view: a title row, the panel */
		tui_views[b->view].draw(a, win, y, x, h, w);
		return;
	}
	/* No data for this box yet. */
	tui_panel_title(a, win, y, x, w, b->view, b->view == TUI_VIEW_FPS ? " FPS" :
	    b->view == TUI_VIEW_BLOCKS ? " UI-thread blocks" : " threads");
	if (h > 1)
		tui_screen_put(win, y + 1, x + 1, w - 1, a->attr[TUI_EL_ROW_IDLE],
		    f == NULL ? "waiting for the first frame" :
		    b->view == TUI_VIEW_FPS ? "no frames presented" : "none: the UI thread kept up");
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
		snprintf(title, sizeof title, " hot functions");
	}
	tui_panel_title(a, win, y, x, w, TUI_VIEW_FUNCS, title);
	tui_panel_funcs_draw(a, win, y + 1, x, h - 1, w);
}

/* See tui.h. */
void tui_overview_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	struct ov_box b[OV_NBOX];
	bool wide = w >= OV_WIDE;
	int rw = wide ? w / 2 : w, lw = wide ? w - rw - 1 : w, rx = wide ? x + lw + 1 : x;
	bool pair = rw >= (wide ? 2 * OV_PAIR_MIN_W - 20 : OV_PAIR_MIN_W);
	int top;

	if (h <= 0)
		return;
	ov_sizes(a, b, wide, h);
	ov_place(b, y, h, wide ? 0 : OV_FUNCS_MIN, wide ? 0 : h / 2 > OV_FUNCS_MIN ? h / 2 :
	    OV_FUNCS_MIN, pair);
	for (int i = 0; i < OV_NBOX; i++) {
		int bx = rx, bw = rw;

		if (pair && b[OV_POWER].h > 0 && (i == OV_IPC || i == OV_POWER)) {
			bw = (rw - 1) / 2;
			bx = i == OV_IPC ? rx : rx + bw + 1;
			if (i == OV_POWER)
				bw = rw - bw - 1;
		}
		ov_box_draw(a, (WINDOW *)win, &b[i], bx, bw);
	}
	if (wide) {
		chtype v = a->utf8 ? ACS_VLINE : '|';

		wattrset((WINDOW *)win, (attr_t)a->attr[TUI_EL_INFO]);
		mvwvline((WINDOW *)win, y, x + lw, v, h);
		ov_funcs(a, (WINDOW *)win, y, x, h, lw);
		return;
	}
	top = y;
	for (int i = 0; i < OV_NBOX; i++)
		if (b[i].h > 0 && b[i].y + b[i].h > top)
			top = b[i].y + b[i].h;
	ov_funcs(a, (WINDOW *)win, top, x, y + h - top, w);
}
