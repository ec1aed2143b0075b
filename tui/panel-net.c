/*
 * panel-net.c - the network panel (view n, and the overview's network
 * box): a summary row, then one table of what the target talks to: remote
 * endpoints (tcp, udp; most time first), HTTP request rows made with
 * libcurl (http, https), then the names it resolved (dns).  For each: how
 * many (connects, requests, lookups), how many failed, the average and
 * worst time, bytes each way, and the last error; rows with failures are
 * drawn as warnings.  Up/Down select a row; Enter shows its figures and
 * the recent slow or failed operations on it (all when it has none), each
 * with its stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

extern const struct tui_view tui_view_network;
#define NET_VIEW tui_view_index(&tui_view_network)

/* One row of the table, whichever kind. */
struct net_row {
	const char *kind;                 /* "tcp", "udp", "http", "https", "dns" */
	char what[300];                   /* endpoint, "GET host/path", name */
	uint64_t count, failed, total_ns, max_ns, out, in;
	const char *error;
	char match[320];                  /* what its events name */
};

static size_t net_nrows(const struct proto_network *p)
{
	return p->neps + p->nhttp + p->ndns;
}

/* Row i of the table (endpoints, requests, names). */
static void net_row(const struct proto_network *p, size_t i, struct net_row *r)
{
	memset(r, 0, sizeof *r);
	if (i < p->neps) {
		const struct proto_net_ep *e = &p->eps[i];

		r->kind = e->proto;
		snprintf(r->what, sizeof r->what, "%s", e->addr);
		r->count = e->connects;
		r->failed = e->errors;
		r->total_ns = e->connect_ns;
		r->max_ns = e->connect_max_ns;
		r->out = e->bytes_out;
		r->in = e->bytes_in;
		r->error = e->error;
		snprintf(r->match, sizeof r->match, "%s %s", e->proto, e->addr);
		return;
	}
	i -= p->neps;
	if (i < p->nhttp) {
		const struct proto_net_http *h = &p->http[i];

		r->kind = h->scheme[0] ? h->scheme : "http";
		snprintf(r->what, sizeof r->what, "%s %s%s", h->method, h->host, h->path);
		r->count = h->requests;
		r->failed = h->fails + h->status_err;
		r->total_ns = h->total_ns;
		r->max_ns = h->max_ns;
		r->out = h->bytes_out;
		r->in = h->bytes_in;
		r->error = h->error;
		snprintf(r->match, sizeof r->match, "%s %s://%s%s", h->method, h->scheme, h->host, h->path);
		return;
	}
	i -= p->nhttp;
	r->kind = "dns";
	snprintf(r->what, sizeof r->what, "%s", p->dns[i].name);
	r->count = p->dns[i].calls;
	r->failed = p->dns[i].fails;
	r->total_ns = p->dns[i].total_ns;
	r->max_ns = p->dns[i].max_ns;
	r->error = p->dns[i].error;
	snprintf(r->match, sizeof r->match, "%s", p->dns[i].name);
}

/* The text of a row. */
static void net_row_text(const struct net_row *r, char *out, size_t len)
{
	char count[16], failed[16], avg[16], max[16], o[16], in[16];
	uint64_t ok = r->count > r->failed ? r->count - r->failed : 0;

	tui_fmt_count(r->count, count, sizeof count);
	tui_fmt_count(r->failed, failed, sizeof failed);
	tui_fmt_ns(ok ? r->total_ns / ok : 0, avg, sizeof avg);
	tui_fmt_ns(r->max_ns, max, sizeof max);
	tui_fmt_count(r->out, o, sizeof o);
	tui_fmt_count(r->in, in, sizeof in);
	snprintf(out, len, "%-5s %-44.44s %7s %7s %8s %8s %7s %7s  %s", r->kind, r->what, count, failed,
	    avg, max, o, in, r->error && r->error[0] ? r->error : "-");
}

/* The summary, the header and a few rows in a shared screen. */
static int tui_panel_net_height(const struct tui_app *a, int avail)
{
	size_t n = a->frame != NULL ? net_nrows(&a->frame->frame.net) : 0;
	int want = (int)(n > 8 ? 8 : n) + 2;

	return want > avail ? avail : want;
}

static void tui_panel_net_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_network *p;
	struct tui_list *l = &a->list[NET_VIEW];
	uint64_t conn = 0, errs = 0, req = 0, rfail = 0, look = 0, lfail = 0;
	char line[512];
	size_t n;

	if (a->frame == NULL || h < 1)
		return;
	p = &a->frame->frame.net;
	for (size_t i = 0; i < p->neps; i++) {
		conn += p->eps[i].connects;
		errs += p->eps[i].errors;
	}
	for (size_t i = 0; i < p->nhttp; i++) {
		req += p->http[i].requests;
		rfail += p->http[i].fails + p->http[i].status_err;
	}
	for (size_t i = 0; i < p->ndns; i++) {
		look += p->dns[i].calls;
		lfail += p->dns[i].fails;
	}
	snprintf(line, sizeof line, " Network: %zu endpoints, %llu connects, %llu failures; %llu requests "
	    "(%llu failed); %llu lookups (%llu failed); slow over %.0f ms%s", p->neps,
	    (unsigned long long)conn, (unsigned long long)errs, (unsigned long long)req,
	    (unsigned long long)rfail, (unsigned long long)look, (unsigned long long)lfail,
	    (double)p->threshold_ns / 1e6, p->nevents ? "; Enter: details" : "");
	tui_screen_put(win, y, x, w, a->attr[TUI_EL_INFO], line);
	if (h < 2)
		return;
	snprintf(line, sizeof line, " %-5s %-44s %7s %7s %8s %8s %7s %7s  %s", "KIND", "ENDPOINT / REQUEST / NAME",
	    "COUNT", "FAILED", "AVG", "MAX", "OUT", "IN", "LAST REASON");
	tui_screen_put(win, y + 1, x, w, a->attr[TUI_EL_HEADER], line);
	n = net_nrows(p);
	if (n == 0) {
		tui_screen_put(win, y + 2, x, w, a->attr[TUI_EL_ROW_IDLE], " no network calls seen yet");
		return;
	}
	tui_list_layout(l, (int)n, h - 2);
	for (int i = 0; i < h - 2 && l->top + i < (int)n; i++) {
		struct net_row r;
		unsigned long at;

		net_row(p, (size_t)(l->top + i), &r);
		at = l->top + i == l->sel ? a->attr[TUI_EL_SELECTED] :
		    r.failed ? a->attr[TUI_EL_STATUS_WARN] : a->attr[TUI_EL_ROW];
		line[0] = ' ';
		net_row_text(&r, line + 1, sizeof line - 1);
		tui_screen_fill(win, y + 2 + i, x, w, at);
		tui_screen_put(win, y + 2 + i, x, w, at, line);
	}
}

/* The selected row's figures and its events (all events when it has none). */
static void tui_panel_net_details(struct tui_app *a)
{
	const struct proto_network *p;
	struct net_row r;
	bool have = false;
	char title[400], *text = NULL;
	size_t len = 0, shown = 0;
	FILE *m;

	if (a->frame == NULL)
		return;
	p = &a->frame->frame.net;
	if (a->list[NET_VIEW].sel >= 0 && (size_t)a->list[NET_VIEW].sel < net_nrows(p)) {
		net_row(p, (size_t)a->list[NET_VIEW].sel, &r);
		have = true;
	}
	if ((m = open_memstream(&text, &len)) == NULL)
		return;
	snprintf(title, sizeof title, " network%s%s ", have ? ": " : "", have ? r.match : "");
	if (have) {
		char line[512];

		net_row_text(&r, line, sizeof line);
		fprintf(m, "%s\n", line);
	}
	for (int pass = 0; pass < 2 && shown == 0; pass++)
		for (size_t i = 0; i < p->nevents; i++) {
			const struct proto_net_event *e = &p->events[i];
			char dur[16];

			if (pass == 0 && (!have || strcmp(e->what, r.match) != 0))
				continue;
			if (pass == 1 && shown == 0 && have)
				fprintf(m, "\n(no slow or failed operation on this row; the recent ones:)\n");
			tui_fmt_ns(e->dur_ns, dur, sizeof dur);
			fprintf(m, "\n%s %s %s (thread %d) %s\n", e->error[0] ? "FAILED" : e->large ? "LARGE" :
			    "SLOW", e->op, dur, (int)e->tid, e->what);
			if (e->error[0])
				fprintf(m, "  %s\n", e->error);
			if (e->status)
				fprintf(m, "  status %u, %llu bytes\n", e->status, (unsigned long long)e->bytes);
			tui_fmt_stack(m, &e->stack);
			shown++;
		}
	if (shown == 0)
		fprintf(m, "\nno failed or slow operation (over %.0f ms) yet (`:threshold net MS`)\n",
		    (double)p->threshold_ns / 1e6);
	fclose(m);
	tui_app_overlay(a, title, text);
	free(text);
}

/* View n: its title row, then the panel. */
static void tui_panel_net_view(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	tui_panel_title(a, win, y, x, w, NET_VIEW, tui_view_network.title);
	tui_panel_net_draw(a, win, y + 1, x, h - 1, w);
}

static void tui_panel_net_box_rows(const struct tui_app *a, bool wide, int avail, int *min, int *want)
{
	(void)wide;
	*min = 2;
	*want = 1 + tui_panel_net_height(a, avail);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_network = {
	.name = "network", .tab = "net", .key = 'n',
	.title = " Network", .help = "network: endpoints, requests, names (Enter: details)",
	.part = "network",
	.draw = tui_panel_net_view,
	.box_draw = tui_panel_net_view, .box_rows = tui_panel_net_box_rows, .box_grow = 7,
	.list = true, .enter = tui_panel_net_details,
};
