/*
 * panel-targets.c - the targets view (7): every target the daemon knows,
 * the one shown marked, exited ones until `:forget PID`; Enter shows the
 * selected one (as `:target PID`).
 */
#include <stdio.h>

#include "tui.h"

#include <curses.h>

extern const struct tui_view tui_view_targets;
#define TARGETS_VIEW tui_view_index(&tui_view_targets)   /* its index: its list, its clicks */

/* Every target the daemon knows, the one shown marked. */
static void tui_panel_targets_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	size_t n = 0;
	const struct proto_target *ts = tui_app_targets(a, &n);
	struct tui_list *l = &a->list[TARGETS_VIEW];
	int32_t shown = a->frame ? a->frame->frame.pid : 0;
	char line[768], start[16], end[16];

	snprintf(line, sizeof line, " targets: %zu  (Enter shows the selected one; exited ones stay "
	    "until :forget PID)", n);
	tui_panel_title(a, win, y, x, w, TARGETS_VIEW, line);
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
	tui_list_layout(l, (int)n, h - 2);
	tui_view_region(TARGETS_VIEW, y + 2, x, h - 2, w, l->top);
	for (int i = 0; i < h - 2 && l->top + i < (int)n; i++) {
		const struct proto_target *t = &ts[l->top + i];
		unsigned long at = l->top + i == l->sel ? a->attr[TUI_EL_SELECTED] :
		    t->state == PROTO_TARGET_LIVE ? a->attr[TUI_EL_ROW] : a->attr[TUI_EL_ROW_IDLE];

		tui_fmt_clock(t->started_ms, start, sizeof start);
		tui_fmt_clock(t->ended_ms, end, sizeof end);
		snprintf(line, sizeof line, " %s %7d %-16.16s %-9s %5u %8s %8s  %s",
		    t->pid == shown ? (a->utf8 ? "\u25b6" : ">") : " ", (int)t->pid, t->name,
		    proto_target_state_name(t->state), t->level, start, end, t->exe ? t->exe : "");
		tui_screen_fill(win, y + 2 + i, x, w, at);
		tui_screen_put(win, y + 2 + i, x, w, at, line);
	}
}

/* Enter: show the selected target (as :target PID). */
static void tui_panel_targets_details(struct tui_app *a)
{
	size_t n = 0;
	const struct proto_target *ts = tui_app_targets(a, &n);
	int sel = a->list[TARGETS_VIEW].sel;
	char line[32];

	if (sel < 0 || (size_t)sel >= n)
		return;
	snprintf(line, sizeof line, "target %d", (int)ts[sel].pid);
	tui_commands_run(a, line);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_targets = {
	.name = "targets", .tab = "targets", .key = '7', .fkey = KEY_F(2),
	.title = " targets", .help = "every target: pid, name, state, level (Enter: show it)",
	.part = "targets", .draw = tui_panel_targets_draw,
	.list = true, .enter = tui_panel_targets_details,
};
