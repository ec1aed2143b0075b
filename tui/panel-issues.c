/*
 * panel-issues.c - the issues view (8, and `:issues`): the problems the
 * daemon found in the target, the most recently seen first (time, severity,
 * type, occurrences, what), the sinks' state above them (queued, sent,
 * failed, dropped, the last error); Enter shows the selected issue whole:
 * its figures and its symbolized stack.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

extern const struct tui_view tui_view_issues;
#define ISSUES_VIEW tui_view_index(&tui_view_issues)   /* its index: its list, its clicks */

/* One line per sink: what it did with the issues. */
static int issues_sinks(struct tui_app *a, const struct proto_issues *v, void *win, int y, int x,
    int h, int w)
{
	char line[768];
	int rows = 0;

	if (v->nsinks == 0 && h > 0) {
		tui_screen_put(win, y, x, w, a->attr[TUI_EL_ROW_IDLE], " sinks: none (hookscoped "
		    "--issue-dir, --syslog, --upload: doc/issues.md)");
		return 1;
	}
	for (size_t k = 0; k < v->nsinks && rows < h; k++, rows++) {
		const struct proto_issue_sink *s = &v->sinks[k];

		snprintf(line, sizeof line, " %-7s %s: %s %" PRIu64 ", sent %" PRIu64 ", failed %"
		    PRIu64 ", dropped %" PRIu64 "%s%s", s->name, s->dest,
		    strcmp(s->name, "store") == 0 ? "files" : "queued", s->queued, s->sent, s->failed,
		    s->dropped, s->error[0] ? "; " : "", s->error);
		tui_screen_put(win, y + rows, x, w, a->attr[s->error[0] ? TUI_EL_STATUS_WARN :
		    TUI_EL_INFO], line);
	}
	return rows;
}

static void tui_panel_issues_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_issues *v = a->frame ? &a->frame->frame.issues : NULL;
	struct tui_list *l = &a->list[ISSUES_VIEW];
	char line[768], when[16], count[16];
	int used;

	snprintf(line, sizeof line, " issues: %zu of %" PRIu64 " raised, most recently seen first "
	    "(Enter: figures and stack)", v ? v->nlist : 0, v ? v->raised : 0);
	tui_panel_title(a, win, y, x, w, ISSUES_VIEW, line);
	if (v == NULL || h < 2)
		return;
	used = 1 + issues_sinks(a, v, win, y + 1, x, h - 1, w);
	if (h - used < 2)
		return;
	snprintf(line, sizeof line, " %-8s %-8s %-14s %7s  %s", "LAST", "SEVERITY", "TYPE", "COUNT",
	    "WHAT");
	tui_screen_fill(win, y + used, x, w, a->attr[TUI_EL_HEADER]);
	tui_screen_put(win, y + used, x, w, a->attr[TUI_EL_HEADER], line);
	used++;
	if (v->nlist == 0) {
		tui_screen_put(win, y + used, x + 2, w - 2, a->attr[TUI_EL_ROW_IDLE],
		    "no issue found in this target");
		return;
	}
	tui_list_layout(l, (int)v->nlist, h - used);
	tui_view_region(ISSUES_VIEW, y + used, x, h - used, w, l->top);
	for (int i = 0; i < h - used && l->top + i < (int)v->nlist; i++) {
		const struct proto_issue *s = &v->list[l->top + i];
		unsigned long at = l->top + i == l->sel ? a->attr[TUI_EL_SELECTED] :
		    strcmp(s->severity, "critical") == 0 ? a->attr[TUI_EL_STATUS_ERROR] :
		    strcmp(s->severity, "major") == 0 ? a->attr[TUI_EL_STATUS_WARN] : a->attr[TUI_EL_ROW];

		tui_fmt_clock(s->last_ms, when, sizeof when);
		tui_fmt_count(s->count, count, sizeof count);
		snprintf(line, sizeof line, " %-8s %-8s %-14s %7s  %s", when, s->severity, s->type,
		    count, s->title);
		tui_screen_fill(win, y + used + i, x, w, at);
		tui_screen_put(win, y + used + i, x, w, at, line);
	}
}

/* Enter: the selected issue whole. */
static void tui_panel_issues_details(struct tui_app *a)
{
	const struct proto_issues *v = a->frame ? &a->frame->frame.issues : NULL;
	int sel = a->list[ISSUES_VIEW].sel;
	const struct proto_issue *s;
	char title[160], first[16], last[16], *text = NULL;
	size_t len = 0;
	FILE *m;

	if (v == NULL || sel < 0 || (size_t)sel >= v->nlist || (m = open_memstream(&text, &len)) == NULL)
		return;
	s = &v->list[sel];
	tui_fmt_clock(s->first_ms, first, sizeof first);
	tui_fmt_clock(s->last_ms, last, sizeof last);
	snprintf(title, sizeof title, " issue %s ", s->id);
	fprintf(m, "%s\n\n%s %s, %" PRIu64 " times, first %s, last %s\n", s->title, s->severity,
	    s->type, s->count, first, last);
	fprintf(m, "%" PRIu64 " %s against a threshold of %" PRIu64 " (%.2fx)\n", s->value, s->unit,
	    s->threshold, s->over);
	fprintf(m, "pid %d %s%s%s, thread %d %s\n", (int)s->pid, s->exe, s->build_id[0] ?
	    " build-id " : "", s->build_id, (int)s->tid, s->thread);
	for (size_t k = 0; k < s->nfigs; k++)
		fprintf(m, "  %s %.15g %s\n", s->figs[k].name, s->figs[k].value, s->figs[k].unit);
	if (s->stack.nframes > 0)
		fprintf(m, "\nstack:\n");
	tui_fmt_stack(m, &s->stack);
	fclose(m);
	tui_app_overlay(a, title, text);
	free(text);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_issues = {
	.name = "issues", .tab = "issues", .key = '8',
	.title = " issues", .help = "problems found, newest first, and the sinks (Enter: stack)",
	.part = "issues", .draw = tui_panel_issues_draw,
	.list = true, .enter = tui_panel_issues_details,
};
