/*
 * panel-funcs.c - the hot-functions table: header with the sort column
 * marked, aligned rows with scaled units, a share bar, scrolling and a
 * selection that follows its function when the rows re-sort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "panel-funcs.h"

#include <curses.h>

extern const struct tui_view tui_view_funcs;
#define FUNCS_VIEW tui_view_index(&tui_view_funcs)   /* its index: its list, its clicks */

#define PANEL_NAME_MIN 16
#define PANEL_BAR_MAX  20
#define PANEL_BAR_MIN  4      /* a narrower bar tells nothing */

struct panel_layout {
	bool show[TUI_COL_COUNT];
	int  width[TUI_COL_COUNT];
	int  barw;                        /* share bar after SHARE%; 0 = none */
};

/* Widest name of the frame in columns (the header's at least). */
static int panel_name_need(const struct tui_app *a)
{
	int need = tui_fmt_width(tui_columns[TUI_COL_NAME].title, a->utf8) + 1;

	for (size_t i = 0; a->frame != NULL && i < a->frame->frame.nfuncs; i++) {
		int nw = tui_fmt_width(a->frame->frame.funcs[i].name, a->utf8);

		if (nw > need)
			need = nw;
	}
	return need;
}

/* Which columns fit in w, how wide the name is, and the bar.  The name
 * comes before the bar: the bar gets only the columns the widest name
 * leaves, and the name every column the bar does not take. */
static void panel_layout(const struct tui_app *a, int w, struct panel_layout *l)
{
	static const int drop[] = { TUI_COL_MODULE, TUI_COL_SLOW, TUI_COL_MAX, TUI_COL_MODE,
	    TUI_COL_AVG, TUI_COL_RATE, TUI_COL_SELF, TUI_COL_CALLS, TUI_COL_TOTAL, TUI_COL_SHARE };
	int fixed = 0, avail, need = panel_name_need(a);
	bool demoted = a->frame != NULL && tui_frame_demoted(&a->frame->frame);

	for (int c = 0; c < TUI_COL_COUNT; c++) {
		l->show[c] = (c != TUI_COL_MODULE || a->show_module) && (c != TUI_COL_MODE || demoted);
		l->width[c] = tui_columns[c].width;
		if (c != TUI_COL_NAME && l->show[c])
			fixed += l->width[c] + 1;
	}
	for (size_t i = 0; i < sizeof drop / sizeof drop[0] && w - fixed < PANEL_NAME_MIN; i++) {
		if (l->show[drop[i]]) {
			l->show[drop[i]] = false;
			fixed -= l->width[drop[i]] + 1;
		}
	}
	avail = w - fixed;
	if (need < PANEL_NAME_MIN)
		need = PANEL_NAME_MIN;
	l->barw = avail - need - 1;
	if (l->barw > PANEL_BAR_MAX)
		l->barw = PANEL_BAR_MAX;
	if (l->barw < PANEL_BAR_MIN)
		l->barw = 0;
	else
		avail -= l->barw + 1;
	/* No wider than the widest name: padding every row to the terminal's
	 * edge would only cost drawing. */
	if (avail > need)
		avail = need;
	l->width[TUI_COL_NAME] = avail > 1 ? avail : 1;
}

/* See panel-funcs.h. */
int tui_panel_funcs_name_width(const struct tui_app *a, int w)
{
	struct panel_layout l;

	panel_layout(a, w, &l);
	return l.width[TUI_COL_NAME];
}

/* The share bar: eighths of a cell with block characters, or '#'. */
static void panel_bar(const struct tui_app *a, double share, int w, char *out, size_t len)
{
	static const char *const part[8] = { "", "\u258f", "\u258e", "\u258d", "\u258c",
	    "\u258b", "\u258a", "\u2589" };
	size_t pos = 0;
	int cells;

	if (!(share > 0))
		share = 0;
	if (share > 1)
		share = 1;
	out[0] = '\0';
	if (!a->utf8) {
		cells = (int)(share * w + 0.5);
		for (int i = 0; i < cells && pos + 1 < len; i++)
			out[pos++] = '#';
		out[pos] = '\0';
		return;
	}
	cells = (int)(share * w * 8 + 0.5);
	for (int i = 0; i < cells / 8 && pos + 4 < len; i++)
		pos += (size_t)snprintf(out + pos, len - pos, "\u2588");
	if (cells % 8 && cells / 8 < w && pos + 4 < len)
		snprintf(out + pos, len - pos, "%s", part[cells % 8]);
}

/* The header row, sort column marked. */
static void panel_header(const struct tui_app *a, WINDOW *win, int y, int x, int w,
    const struct panel_layout *l, const char *sort)
{
	int sortcol = tui_column_of_sort(sort);
	int cx = x;
	char title[64], cell[256];

	tui_screen_fill(win, y, x, w, a->attr[TUI_EL_HEADER]);
	for (int c = 0; c < TUI_COL_COUNT && cx < x + w; c++) {
		unsigned long at = c == sortcol ? a->attr[TUI_EL_SORT] : a->attr[TUI_EL_HEADER];

		if (!l->show[c])
			continue;
		snprintf(title, sizeof title, "%s%s", tui_columns[c].title, c != sortcol ? "" :
		    c == TUI_COL_NAME ? (a->utf8 ? "\u25b2" : "^") : (a->utf8 ? "\u25bc" : "v"));
		tui_fmt_fit(title, l->width[c], a->utf8, tui_columns[c].left, cell, sizeof cell);
		cx += tui_screen_put(win, y, cx, x + w - cx, at, cell) + 1;
		if (c == TUI_COL_SHARE && l->barw > 0)
			cx += l->barw + 1;
	}
}

/* One function row. */
static void panel_row(const struct tui_app *a, WINDOW *win, int y, int x, int w,
    const struct panel_layout *l, const struct proto_func *f, bool selected)
{
	/* Idle: no call lately and none in flight (a stuck call is not idle). */
	unsigned long at = selected ? a->attr[TUI_EL_SELECTED] :
	    f->calls_per_s > 0 || f->running_ns > 0 ? a->attr[TUI_EL_ROW] :
	    a->attr[TUI_EL_ROW_IDLE];
	char v[512], cell[1024];
	int cx = x;

	tui_screen_fill(win, y, x, w, at);
	for (int c = 0; c < TUI_COL_COUNT && cx < x + w; c++) {
		if (!l->show[c])
			continue;
		tui_column_cell(c, f, v, sizeof v);
		if (c == TUI_COL_NAME)        /* a cut name keeps its end */
			tui_fmt_fit_middle(v, l->width[c], a->utf8, cell, sizeof cell);
		else
			tui_fmt_fit(v, l->width[c], a->utf8, tui_columns[c].left, cell, sizeof cell);
		/* A figure over its threshold: calls slower than `threshold slow`;
		 * the mode of a function the budget demoted. */
		cx += tui_screen_put(win, y, cx, x + w - cx, selected ? at :
		    c == TUI_COL_SLOW && f->slow > 0 ? a->attr[TUI_EL_ALERT] :
		    c == TUI_COL_MODE ? a->attr[TUI_EL_DEMOTED] : at, cell) + 1;
		if (c == TUI_COL_SHARE && l->barw > 0) {
			panel_bar(a, f->share, l->barw, v, sizeof v);
			tui_screen_put(win, y, cx, x + w - cx < l->barw ? x + w - cx : l->barw,
			    selected ? at : a->attr[TUI_EL_BAR], v);
			cx += l->barw + 1;
		}
	}
}

/* Why the table is empty. */
static const char *panel_empty(const struct tui_app *a)
{
	const struct proto_frame *f = a->frame ? &a->frame->frame : NULL;
	const struct proto_target *t = tui_app_target(a);

	if (f == NULL)
		return tui_conn_state(a->conn) == TUI_CONN_UP ? "waiting for the first frame..." :
		    "waiting for hookscoped...";
	if (f->pid == 0)
		return "no target yet: start one with `hookscoped run -- PROG` "
		    "or `hookscoped attach PID`";
	if (a->want_filter != NULL)
		return "no function matches the filter (press / and Enter on an empty line to clear it)";
	if (t != NULL && t->level == 0)
		return "level 0 times no function: raise it with + or :level 2";
	return "no function timed yet";
}

/* See panel-funcs.h: header at row y, rows below, h rows in all. */
void tui_panel_funcs_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_frame *f = a->frame ? &a->frame->frame : NULL;
	struct panel_layout l;
	struct tui_list *sel = &a->list[FUNCS_VIEW];

	if (h < 1 || w < 1)
		return;
	if (sel->rows != h - 1) {          /* another view, or resized: keep the selection in view */
		sel->rows = h - 1;
		tui_panel_funcs_follow(a);
	}
	panel_layout(a, w, &l);
	panel_header(a, win, y, x, w, &l, f ? f->sort : a->want_sort);
	if (f == NULL || f->nfuncs == 0) {
		if (h > 2)
			tui_screen_put(win, y + 2, x + 2, w - 2, a->attr[TUI_EL_ROW_IDLE], panel_empty(a));
		return;
	}
	tui_view_region(FUNCS_VIEW, y + 1, x, h - 1, w, sel->top);
	for (int i = 0; i < h - 1; i++) {
		size_t row = (size_t)(sel->top + i);

		if (row >= f->nfuncs)
			break;
		panel_row(a, win, y + 1 + i, x, w, &l, &f->funcs[row], (int)row == sel->sel);
	}
}

/* Number of rows in the current frame. */
static int panel_n(const struct tui_app *a)
{
	return a->frame ? (int)a->frame->frame.nfuncs : 0;
}

/* See panel-funcs.h: after a new frame, a move or a resize: keep the selection
 * on its function and in view. */
void tui_panel_funcs_follow(struct tui_app *a)
{
	struct tui_list *l = &a->list[FUNCS_VIEW];
	int n = panel_n(a);

	if (a->sel_name != NULL && a->frame != NULL) {
		for (int i = 0; i < n; i++) {
			if (strcmp(a->frame->frame.funcs[i].name, a->sel_name) == 0) {
				l->sel = i;
				break;
			}
		}
	}
	tui_list_layout(l, n, l->rows > 1 ? l->rows : tui_screen_panel_rows(a));
}

/* The selection moved: remember its function by name, so it
 * stays on it when the rows re-sort; on the first row, stay on the row. */
static void tui_panel_funcs_moved(struct tui_app *a)
{
	const struct tui_list *l = &a->list[FUNCS_VIEW];

	free(a->sel_name);
	a->sel_name = NULL;
	if (l->sel > 0 && l->sel < panel_n(a))
		a->sel_name = xstrdup(a->frame->frame.funcs[l->sel].name);
	tui_panel_funcs_follow(a);
}

static const struct proto_func *tui_panel_funcs_selected(const struct tui_app *a)
{
	int sel = a->list[FUNCS_VIEW].sel;

	if (sel < 0 || sel >= panel_n(a))
		return NULL;
	return &a->frame->frame.funcs[sel];
}

/* Enter on the functions: everything about the selected one on the
 * message line; the time so far of calls in flight is apart from the
 * returned calls' total; a demoted one says its mode, since when, why and
 * which figures are estimates. */
static void tui_panel_funcs_details(struct tui_app *a)
{
	const struct proto_func *f = tui_panel_funcs_selected(a);
	char calls[16], rate[16], total[16], self[16], avg[16], max[16], share[16];
	char run[16], running[48] = "", age[16], why[16], mode[128] = "";

	if (f == NULL)
		return;
	if (f->mode != PROTO_FMODE_TIMED && proto_fmode_name(f->mode) != NULL) {
		tui_fmt_age(f->mode_age_ms, age, sizeof age);
		snprintf(mode, sizeof mode, "%s for %s (timing cost %s of the CPU; calls %s, "
		    "times %s); ", proto_fmode_name(f->mode), f->mode_age_ms ? age : "?",
		    f->hook_ppm ? proto_ppm_str(f->hook_ppm, why, sizeof why) : "?",
		    f->calls_est ? "estimated" : "exact", f->time_est ? "estimated" : "measured");
	}
	tui_fmt_count(f->calls, calls, sizeof calls);
	tui_fmt_rate(f->calls_per_s, rate, sizeof rate);
	tui_fmt_ns(f->total_ns, total, sizeof total);
	tui_fmt_ns(f->self_ns, self, sizeof self);
	tui_fmt_ns(f->avg_ns, avg, sizeof avg);
	tui_fmt_ns(f->max_ns, max, sizeof max);
	tui_fmt_share(f->share, share, sizeof share);
	if (f->running_ns > 0) {
		tui_fmt_ns(f->running_ns, run, sizeof run);
		snprintf(running, sizeof running, " + %s running (not returned yet)", run);
	}
	tui_app_message(a, false, "%s [%s 0x%llx]: %s%llu calls (%s), %s/s, total %s%s, self %s (%s), "
	    "avg %s, max %s, %llu slow", f->name, f->module, (unsigned long long)f->addr, mode,
	    (unsigned long long)f->calls, calls, rate, total, running, self, share, avg, max,
	    (unsigned long long)f->slow);
	tui_paths_pane_open(a);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_funcs = {
	.name = "functions", .tab = "funcs", .key = '1',
	.title = " hot functions", .help = "hot functions, all columns", .part = "funcs",
	.draw = tui_paths_view_draw,
	.list = true, .moved = tui_panel_funcs_moved, .enter = tui_panel_funcs_details,
};
