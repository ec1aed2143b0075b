/*
 * panel-ipc.c - the IPC panel (view 5, and the overview's IPC box): a
 * summary row (endpoints, calls, slow calls and the threshold), then one row per endpoint, most time blocked
 * first: kind, endpoint (peer path, pipe, queue, D-Bus destination), method,
 * operations, operations/s, total and max time blocked, UI-thread calls
 * (rows with any are drawn as warnings and marked "UI"), slow calls, peer
 * process.  Up/Down select an endpoint; Enter shows the slow calls (of the
 * selected endpoint, else all) with their symbolized stacks in an overlay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

extern const struct tui_view tui_view_ipc;
#define IPC_VIEW tui_view_index(&tui_view_ipc)   /* its index: its list, its clicks */


/* All operations of an endpoint. */
static uint64_t ipc_ops(const struct proto_ipc_ep *e)
{
	return e->sends + e->recvs + e->calls + e->connects;
}

/* The summary, the header and a few endpoints in a shared screen. */
static int tui_panel_ipc_height(const struct tui_app *a, int avail)
{
	size_t n = a->frame != NULL ? a->frame->frame.ipc.neps : 0;
	int want = (int)(n > 8 ? 8 : n) + 2;

	return want > avail ? avail : want;
}

/* The text of endpoint e's row. */
static void ipc_row_text(const struct proto_ipc_ep *e, char *out, size_t len)
{
	char ops[16], rate[16], total[16], max[16], peer[40];

	tui_fmt_count(ipc_ops(e), ops, sizeof ops);
	tui_fmt_rate(e->ops_per_s, rate, sizeof rate);
	tui_fmt_ns(e->total_ns, total, sizeof total);
	tui_fmt_ns(e->max_ns, max, sizeof max);
	if (e->peer_pid > 0)
		snprintf(peer, sizeof peer, "%s[%d]", e->peer_comm, (int)e->peer_pid);
	else
		snprintf(peer, sizeof peer, "-");
	snprintf(out, len, "%-10s %-36.36s %-30.30s %7s %7s %8s %8s %2s %5llu %4llu  %s", e->kind,
	    e->name, e->method[0] ? e->method : "-", ops, rate, total, max,
	    e->ui_calls ? "UI" : "", (unsigned long long)e->ui_calls,
	    (unsigned long long)e->slow, peer);
}

static void tui_panel_ipc_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_ipc *p;
	struct tui_list *l = &a->list[IPC_VIEW];
	char line[512];
	uint64_t ops = 0, ui = 0;

	/* One row (a small overview box): the summary line alone. */
	if (a->frame == NULL || h < 1)
		return;
	p = &a->frame->frame.ipc;
	for (size_t i = 0; i < p->neps; i++) {
		ops += ipc_ops(&p->eps[i]);
		ui += p->eps[i].ui_calls;
	}
	snprintf(line, sizeof line, " IPC: %zu endpoints, %llu operations (%llu on the UI thread), "
	    "%llu slow over %.0f ms%s", p->neps, (unsigned long long)ops, (unsigned long long)ui,
	    (unsigned long long)p->slow_count, (double)p->threshold_ns / 1e6,
	    p->nslow ? "; Enter: slow calls" : "");
	tui_screen_put(win, y, x, w, a->attr[TUI_EL_INFO], line);
	if (h < 2)
		return;
	snprintf(line, sizeof line, " %-10s %-36s %-30s %7s %7s %8s %8s %2s %5s %4s  %s", "KIND",
	    "ENDPOINT", "METHOD", "OPS", "OPS/S", "TOTAL", "MAX", "", "UI", "SLOW", "PEER");
	tui_screen_put(win, y + 1, x, w, a->attr[TUI_EL_HEADER], line);
	if (p->neps == 0) {
		tui_screen_put(win, y + 2, x, w, a->attr[TUI_EL_ROW_IDLE], " no IPC calls seen yet");
		return;
	}
	tui_list_layout(l, (int)p->neps, h - 2);
	for (int i = 0; i < h - 2 && l->top + i < (int)p->neps; i++) {
		const struct proto_ipc_ep *e = &p->eps[l->top + i];
		unsigned long at = l->top + i == l->sel ? a->attr[TUI_EL_SELECTED] :
		    e->ui_calls ? a->attr[TUI_EL_STATUS_WARN] : a->attr[TUI_EL_ROW];

		line[0] = ' ';
		ipc_row_text(e, line + 1, sizeof line - 1);
		tui_screen_fill(win, y + 2 + i, x, w, at);
		tui_screen_put(win, y + 2 + i, x, w, at, line);
	}
}

/* The slow calls of the selected endpoint (all when it has
 * none), newest first, each with its stack. */
static void tui_panel_ipc_details(struct tui_app *a)
{
	const struct proto_ipc *p;
	const struct proto_ipc_ep *sel = NULL;
	char title[160], *text = NULL;
	size_t len = 0, shown = 0;
	FILE *m;

	if (a->frame == NULL)
		return;
	p = &a->frame->frame.ipc;
	if (a->list[IPC_VIEW].sel < (int)p->neps)
		sel = &p->eps[a->list[IPC_VIEW].sel];
	if (sel != NULL && sel->slow == 0)
		sel = NULL;
	if ((m = open_memstream(&text, &len)) == NULL)
		return;
	snprintf(title, sizeof title, " slow IPC calls%s%s ", sel ? " on " : "",
	    sel ? sel->name : "");
	for (size_t i = 0; i < p->nslow; i++) {
		const struct proto_ipc_slow *s = &p->slow[i];
		const struct proto_ipc_ep *e = NULL;
		char clk[16];

		for (size_t k = 0; k < p->neps; k++)
			if (p->eps[k].id == s->ep)
				e = &p->eps[k];
		if (sel != NULL && s->ep != sel->id)
			continue;
		tui_fmt_ns(s->dur_ns, clk, sizeof clk);
		fprintf(m, "%s%s %s on %s %s (thread %d)%s\n", shown ? "\n" : "", s->op, clk,
		    e ? e->kind : "?", e ? e->name : "?", (int)s->tid, s->ui ? "  UI THREAD" : "");
		if (e != NULL && e->method[0])
			fprintf(m, "  method %s\n", e->method);
		tui_fmt_stack(m, &s->stack);
		shown++;
	}
	if (shown == 0)
		fprintf(m, "no call over %.0f ms yet (`:threshold ipc MS` changes it)\n",
		    (double)p->threshold_ns / 1e6);
	fclose(m);
	tui_app_overlay(a, title, text);
	free(text);
}

/* View 5: its title row, then the panel. */
static void tui_panel_ipc_view(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	tui_panel_title(a, win, y, x, w, IPC_VIEW, tui_view_ipc.title);
	tui_panel_ipc_draw(a, win, y + 1, x, h - 1, w);
}

/* The title row and the panel's summary, header and rows. */
static void tui_panel_ipc_box_rows(const struct tui_app *a, bool wide, int avail, int *min, int *want)
{
	(void)wide;
	*min = 2;
	*want = 1 + tui_panel_ipc_height(a, avail);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_ipc = {
	.name = "ipc", .tab = "ipc", .key = '5',
	.title = " IPC", .help = "IPC calls (Enter: slow calls)", .part = "ipc",
	.draw = tui_panel_ipc_view,
	.box_draw = tui_panel_ipc_view, .box_rows = tui_panel_ipc_box_rows, .box_grow = 2,
	.list = true, .enter = tui_panel_ipc_details,
};
