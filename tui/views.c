/*
 * views.c - the table of views (0 overview, 1-6 one collector each, 7 the
 * targets), switching between them, and mouse clicks.
 *
 * Every view is a row of tui_views: its key, an F-key where it has one,
 * what it draws full screen, how Up/Down move its selection and what Enter
 * opens.  The keys, the help and `:view` all come from this table.
 *
 * Clicks: while drawing, panels register the regions they drew (a title row
 * opens its view, a table row selects that row); a click is looked up in
 * the regions of the last draw, so it always matches what is on the screen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui.h"

#include <curses.h>

#define VIEW_MAX_REGIONS 32

static void view_funcs_details(struct tui_app *a);
static void view_fps_draw(struct tui_app *a, void *win, int y, int x, int h, int w);
static void view_blocks_draw(struct tui_app *a, void *win, int y, int x, int h, int w);
static void view_ipc_draw(struct tui_app *a, void *win, int y, int x, int h, int w);
static void view_power_draw(struct tui_app *a, void *win, int y, int x, int h, int w);

const struct tui_view tui_views[TUI_VIEW_COUNT] = {
	[TUI_VIEW_OVERVIEW] = { .name = "overview", .key = '0', .fkey = 0,
	    .help = "everything at once (the start screen)",
	    .draw = tui_overview_draw, .step = tui_panel_funcs_move, .enter = view_funcs_details },
	[TUI_VIEW_FUNCS] = { .name = "functions", .key = '1', .fkey = 0,
	    .help = "hot functions, all columns",
	    .draw = tui_panel_funcs_draw, .step = tui_panel_funcs_move, .enter = view_funcs_details },
	[TUI_VIEW_FPS] = { .name = "fps", .key = '2', .fkey = 0,
	    .help = "frame rate, jank and percentiles of every stream",
	    .draw = view_fps_draw, .step = NULL, .enter = NULL },
	[TUI_VIEW_BLOCKS] = { .name = "blocks", .key = '3', .fkey = 0,
	    .help = "UI-thread blocks (Enter: their stacks)",
	    .draw = view_blocks_draw, .step = NULL, .enter = tui_blocks_show },
	[TUI_VIEW_THREADS] = { .name = "threads", .key = '4', .fkey = 0,
	    .help = "threads and pools (Enter: creation stack)",
	    .draw = tui_panel_threads_draw, .step = tui_panel_threads_move,
	    .enter = tui_panel_threads_details },
	[TUI_VIEW_IPC] = { .name = "ipc", .key = '5', .fkey = 0,
	    .help = "IPC calls (Enter: slow calls)",
	    .draw = view_ipc_draw, .step = tui_panel_ipc_move, .enter = tui_panel_ipc_details },
	[TUI_VIEW_POWER] = { .name = "power", .key = '6', .fkey = 0,
	    .help = "wakelocks, sensors and other power resources",
	    .draw = view_power_draw, .step = tui_panel_power_move,
	    .enter = tui_panel_power_details },
	[TUI_VIEW_TARGETS] = { .name = "targets", .key = '7', .fkey = KEY_F(2),
	    .help = "every target: pid, name, state, level (Enter: show it)",
	    .draw = tui_panel_targets_draw, .step = tui_panel_targets_move,
	    .enter = tui_panel_targets_details },
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

/* Enter on the functions: everything about the selected one on the
 * message line; the time so far of calls in flight is apart from the
 * returned calls' total. */
static void view_funcs_details(struct tui_app *a)
{
	const struct proto_func *f = tui_panel_funcs_selected(a);
	char calls[16], rate[16], total[16], self[16], avg[16], max[16], share[16];
	char run[16], running[48] = "";

	if (f == NULL)
		return;
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
	tui_app_message(a, false, "%s [%s 0x%llx]: %llu calls (%s), %s/s, total %s%s, self %s (%s), "
	    "avg %s, max %s, %llu slow", f->name, f->module, (unsigned long long)f->addr,
	    (unsigned long long)f->calls, calls, rate, total, running, self, share, avg, max,
	    (unsigned long long)f->slow);
}

/* An empty view: its title and why there is nothing. */
static void view_empty(struct tui_app *a, void *win, int y, int x, int w, int view,
    const char *title, const char *why)
{
	tui_panel_title(a, win, y, x, w, view, title);
	tui_screen_put(win, y + 2, x + 2, w - 2, a->attr[TUI_EL_ROW_IDLE], why);
}

/* View 2: the FPS panel, then every stream in a table, then the worst
 * frames of the busiest one. */
static void view_fps_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_fps *f = a->frame ? &a->frame->frame.fps : NULL;
	char line[512], c[8][16];
	int r;

	if (f == NULL || f->nstreams == 0) {
		view_empty(a, win, y, x, w, TUI_VIEW_FPS, " FPS", "no frames presented yet "
		    "(the target draws through GL/EGL/Vulkan or calls hookscope_frame)");
		return;
	}
	tui_panel_fps_draw(a, win, y, x, h < 4 ? h : 4, w);
	r = y + 5;
	if (r >= y + h)
		return;
	snprintf(line, sizeof line, " %-8s %-16s %7s %6s %8s %7s %7s %8s %8s %8s %8s", "API",
	    "STREAM", "TID", "FPS", "FRAMES", "JANK", "DROPPED", "P50", "P90", "P99", "MAX");
	tui_screen_fill(win, r, x, w, a->attr[TUI_EL_HEADER]);
	tui_screen_put(win, r++, x, w, a->attr[TUI_EL_HEADER], line);
	for (size_t i = 0; i < f->nstreams && r < y + h; i++, r++) {
		const struct proto_fps_stream *s = &f->streams[i];
		bool late = s->p99_ns > f->budget_ns;

		tui_fmt_count(s->frames, c[0], sizeof c[0]);
		tui_fmt_count(s->jank, c[1], sizeof c[1]);
		tui_fmt_count(s->dropped, c[2], sizeof c[2]);
		tui_fmt_ns(s->p50_ns, c[3], sizeof c[3]);
		tui_fmt_ns(s->p90_ns, c[4], sizeof c[4]);
		tui_fmt_ns(s->p99_ns, c[5], sizeof c[5]);
		tui_fmt_ns(s->max_ns, c[6], sizeof c[6]);
		snprintf(line, sizeof line, " %-8s %-16.16s %7d %6.1f %8s %7s %7s %8s %8s %8s %8s",
		    s->api, s->name, (int)s->tid, s->fps, c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
		tui_screen_put(win, r, x, w, a->attr[late ? TUI_EL_ALERT : TUI_EL_ROW], line);
	}
	if (++r >= y + h || f->streams[0].nworst == 0)
		return;
	tui_screen_put(win, r++, x, w, a->attr[TUI_EL_INFO], " slowest frames of the busiest stream:");
	for (size_t i = 0; i < f->streams[0].nworst && r < y + h; i++, r++) {
		tui_fmt_ns(f->streams[0].worst[i].ns, c[0], sizeof c[0]);
		snprintf(line, sizeof line, "   %8s  (%.1f budgets)", c[0],
		    f->budget_ns ? (double)f->streams[0].worst[i].ns / (double)f->budget_ns : 0.0);
		tui_screen_put(win, r, x, w, a->attr[f->streams[0].worst[i].ns > f->budget_ns ?
		    TUI_EL_ALERT : TUI_EL_ROW], line);
	}
}

/* View 3: the blocks panel with every block the frame has. */
static void view_blocks_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	if (a->frame == NULL || a->frame->frame.blocks.nblocks == 0) {
		view_empty(a, win, y, x, w, TUI_VIEW_BLOCKS, " UI-thread blocks",
		    "no block yet: the UI thread answered its event loop in time");
		return;
	}
	tui_panel_blocks_draw(a, win, y, x, h, w);
}

/* Views 5 and 6: a title row, then the panel (panel-ipc.c, panel-power.c). */
static void view_ipc_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	tui_panel_title(a, win, y, x, w, TUI_VIEW_IPC, " IPC");
	tui_panel_ipc_draw(a, win, y + 1, x, h - 1, w);
}

static void view_power_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	tui_panel_title(a, win, y, x, w, TUI_VIEW_POWER, " power");
	tui_panel_power_draw(a, win, y + 1, x, h - 1, w);
}

/* ---- view 7: the targets ---- */

/* Local time "HH:MM:SS" of a wall-clock ms, "-" for 0. */
static void view_clock(uint64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms == 0 || localtime_r(&t, &tm) == NULL || strftime(buf, len, "%H:%M:%S", &tm) == 0)
		snprintf(buf, len, "-");
}

/* See tui.h: every target the daemon knows, the one shown marked. */
void tui_panel_targets_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	size_t n = 0;
	const struct proto_target *ts = tui_app_targets(a, &n);
	int32_t shown = a->frame ? a->frame->frame.pid : 0;
	char line[768], start[16], end[16];

	snprintf(line, sizeof line, " targets: %zu  (Enter shows the selected one; exited ones stay "
	    "until :forget PID)", n);
	tui_panel_title(a, win, y, x, w, TUI_VIEW_TARGETS, line);
	if (h < 2)
		return;
	snprintf(line, sizeof line, "   %7s %-16s %-9s %5s %8s %8s  %s", "PID", "NAME", "STATE",
	    "LEVEL", "STARTED", "ENDED", "EXECUTABLE");
	tui_screen_fill(win, y + 1, x, w, a->attr[TUI_EL_HEADER]);
	tui_screen_put(win, y + 1, x, w, a->attr[TUI_EL_HEADER], line);
	if (n == 0) {
		tui_screen_put(win, y + 3, x + 2, w - 2, a->attr[TUI_EL_ROW_IDLE],
		    "no target yet: `hookscoped run -- PROG` or :attach PID");
		return;
	}
	if (a->target_sel >= (int)n)
		a->target_sel = (int)n - 1;
	tui_view_region(TUI_VIEW_TARGETS, y + 2, x, h - 2, w, 0);
	for (int i = 0; i < h - 2 && (size_t)i < n; i++) {
		const struct proto_target *t = &ts[i];
		unsigned long at = i == a->target_sel ? a->attr[TUI_EL_SELECTED] :
		    t->state == PROTO_TARGET_LIVE ? a->attr[TUI_EL_ROW] : a->attr[TUI_EL_ROW_IDLE];

		view_clock(t->started_ms, start, sizeof start);
		view_clock(t->ended_ms, end, sizeof end);
		snprintf(line, sizeof line, " %s %7d %-16.16s %-9s %5u %8s %8s  %s",
		    t->pid == shown ? (a->utf8 ? "\u25b6" : ">") : " ", (int)t->pid, t->name,
		    proto_target_state_name(t->state), t->level, start, end, t->exe ? t->exe : "");
		tui_screen_fill(win, y + 2 + i, x, w, at);
		tui_screen_put(win, y + 2 + i, x, w, at, line);
	}
}

/* See tui.h. */
void tui_panel_targets_move(struct tui_app *a, int delta)
{
	size_t n = 0;

	tui_app_targets(a, &n);
	a->target_sel += delta;
	if (a->target_sel >= (int)n)
		a->target_sel = (int)n - 1;
	if (a->target_sel < 0)
		a->target_sel = 0;
}

/* See tui.h: Enter: show the selected target (as :target PID). */
void tui_panel_targets_details(struct tui_app *a)
{
	size_t n = 0;
	const struct proto_target *ts = tui_app_targets(a, &n);
	char line[32];

	if (a->target_sel < 0 || (size_t)a->target_sel >= n)
		return;
	snprintf(line, sizeof line, "target %d", (int)ts[a->target_sel].pid);
	tui_commands_run(a, line);
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
		int item;

		if (y < r->y || y >= r->y + r->h || x < r->x || x >= r->x + r->w)
			continue;
		if (r->first < 0) {
			tui_view_set(a, r->view);
			return;
		}
		item = r->first + (y - r->y);
		if (r->view == TUI_VIEW_TARGETS) {
			tui_panel_targets_move(a, item - a->target_sel);
			if (dbl)
				tui_panel_targets_details(a);
		} else if (r->view == TUI_VIEW_FUNCS) {
			tui_panel_funcs_move(a, item - a->sel);
			if (dbl)
				view_funcs_details(a);
		}
		return;
	}
}

/* See tui.h.  Every hint from 128 columns, the view names in full from 90,
 * short names below, so 80 columns show every tab. */
void tui_view_tabs_draw(struct tui_app *a, void *win, int screen_y, int cols)
{
	static const char *const shortname[TUI_VIEW_COUNT] = {
		"all", "funcs", "fps", "blocks", "threads", "ipc", "power", "targets" };
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
		    cols >= 90 ? tui_views[v].name : shortname[v]);
		tw = tui_screen_put(win, 0, x, cols - x,
		    a->attr[v == a->view ? TUI_EL_SELECTED : TUI_EL_HINT], tab);
		tui_view_region(v, screen_y, x, 1, tw, -1);
		x += tw;
	}
}
