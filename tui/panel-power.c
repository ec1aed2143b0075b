/*
 * panel-power.c - the power panel (view 6, and the overview's power box): a
 * summary row (resources held now, leaks, the estimated charge per
 * category in mAh, the profile it comes from and its warning), then every
 * resource, those held now first (longest hold first): category, tag,
 * holder (innermost frame of the acquiring stack), held for (ticking: the
 * daemon advances it between the agent's records), total held, acquires /
 * releases, timeouts, estimated mAh.  Leaks (held at exit or past
 * `threshold hold`) are drawn in the theme's alert colour (the error
 * element).  Up/Down select; Enter shows the holder and releaser stacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#include <curses.h>

extern const struct tui_view tui_view_power;
#define POWER_VIEW tui_view_index(&tui_view_power)   /* its index: its list, its clicks */

static size_t pwr_order[PROTO_MAX_PWR_RES];
static size_t pwr_n;

/* Held first (longest first), then by total held. */
static const struct proto_power *pwr_cmp_p;
static int pwr_cmp(const void *a, const void *b)
{
	const struct proto_pwr_res *x = &pwr_cmp_p->res[*(const size_t *)a];
	const struct proto_pwr_res *y = &pwr_cmp_p->res[*(const size_t *)b];

	if (x->held != y->held)
		return x->held ? -1 : 1;
	if (x->held && x->held_ns != y->held_ns)
		return x->held_ns > y->held_ns ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The rows in display order. */
static void pwr_build(const struct proto_power *p)
{
	pwr_n = p->nres < PROTO_MAX_PWR_RES ? p->nres : PROTO_MAX_PWR_RES;
	for (size_t i = 0; i < pwr_n; i++)
		pwr_order[i] = i;
	pwr_cmp_p = p;
	qsort(pwr_order, pwr_n, sizeof *pwr_order, pwr_cmp);
}

/* A duration with a tenth of a second while under a minute (it ticks). */
static void pwr_dur(uint64_t ns, char *buf, size_t len)
{
	double s = (double)ns / 1e9;

	if (s < 60)
		snprintf(buf, len, "%.1fs", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

/* The holder's innermost frame, without the module. */
static void pwr_holder(const struct proto_pwr_res *r, char *buf, size_t len)
{
	const char *f = r->nholder > 0 ? r->holder[0] : "-";
	const char *sp = strchr(f, ' ');

	snprintf(buf, len, "%.*s", (int)(sp != NULL ? sp - f : (long)strlen(f)), f);
}

static int tui_panel_power_height(const struct tui_app *a, int avail)
{
	size_t n = a->frame != NULL ? a->frame->frame.power.nres : 0;

	return n == 0 ? 0 : (int)(n + 2 < (size_t)avail ? n + 2 : (size_t)avail);
}

static void tui_panel_power_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_power *p;
	struct tui_list *l = &a->list[POWER_VIEW];
	char line[768], cats[384] = "", held[16], total[16], holder[48], mah[24];
	unsigned nheld = 0, nleak = 0;

	/* One row (a small overview box): the summary line alone. */
	if (a->frame == NULL || h < 1)
		return;
	p = &a->frame->frame.power;
	pwr_build(p);
	for (size_t i = 0; i < p->ncats; i++) {
		size_t l = strlen(cats);

		snprintf(cats + l, sizeof cats - l, "%s%s %.4f", i ? ", " : "", p->cats[i].category,
		    p->cats[i].mah);
		nheld += p->cats[i].held;
		nleak += p->cats[i].leaks;
	}
	if (p->nres == 0)
		snprintf(line, sizeof line, " power: no power API called yet (table %s, %llu rows)",
		    p->table && *p->table ? p->table : "-", (unsigned long long)p->rows);
	else
		snprintf(line, sizeof line, " power: %u held, %u leaked | est. mAh: %s | profile %s%s%s",
		    nheld, nleak, cats, p->profile && *p->profile ? p->profile : "none",
		    p->warning && *p->warning ? " | " : "", p->warning ? p->warning : "");
	tui_screen_put(win, y, x, w, a->attr[p->warning && *p->warning ? TUI_EL_STATUS_WARN :
	    TUI_EL_INFO], line);
	if (h < 2)
		return;
	snprintf(line, sizeof line, " %-14s %-24s %-22s %9s %9s %7s %4s %10s", "CATEGORY", "NAME",
	    "HOLDER", "HELD FOR", "TOTAL", "ACQ/REL", "TMO", "EST. mAh");
	tui_screen_put(win, y + 1, x, w, a->attr[TUI_EL_HEADER], line);
	tui_list_layout(l, (int)pwr_n, h - 2);
	for (int i = 0; i < h - 2 && l->top + i < (int)pwr_n; i++) {
		const struct proto_pwr_res *r = &p->res[pwr_order[l->top + i]];
		unsigned long at = l->top + i == l->sel ? a->attr[TUI_EL_SELECTED] :
		    r->leaked ? a->attr[TUI_EL_ERROR] : r->held ? a->attr[TUI_EL_ROW] :
		    a->attr[TUI_EL_ROW_IDLE];
		char acq[24], name[32];

		if (r->held)
			pwr_dur(r->held_ns, held, sizeof held);
		else
			snprintf(held, sizeof held, "%s", r->oneshots ? "one-shot" : "released");
		pwr_dur(r->total_ns, total, sizeof total);
		pwr_holder(r, holder, sizeof holder);
		if (strlen(r->name) > 24)       /* a path: its end says more */
			snprintf(name, sizeof name, "...%s", r->name + strlen(r->name) - 21);
		else
			snprintf(name, sizeof name, "%s", r->name);
		if (r->mah >= 0)
			snprintf(mah, sizeof mah, "%.5f", r->mah);
		else
			snprintf(mah, sizeof mah, "-");
		snprintf(acq, sizeof acq, "%llu/%llu", (unsigned long long)(r->acquires + r->oneshots),
		    (unsigned long long)r->releases);
		snprintf(line, sizeof line, " %-14.14s %-24.24s %-22.22s %9s %9s %7s %4llu %10s%s",
		    r->category, name, holder, held, total, acq, (unsigned long long)r->timeouts,
		    mah, r->leaked ? "  LEAK" : r->unmatched ? "  unmatched release" : "");
		tui_screen_fill(win, y + 2 + i, x, w, at);
		tui_screen_put(win, y + 2 + i, x, w, at, line);
	}
}

/* The selected resource's stacks and figures in an overlay. */
static void tui_panel_power_details(struct tui_app *a)
{
	const struct proto_pwr_res *r;
	int sel = a->list[POWER_VIEW].sel;
	char title[128], *text = NULL;
	size_t len = 0;
	FILE *m;

	if (a->frame == NULL || sel >= (int)pwr_n || (m = open_memstream(&text, &len)) == NULL)
		return;
	r = &a->frame->frame.power.res[pwr_order[sel]];
	snprintf(title, sizeof title, " %s %s ", r->category, r->name);
	fprintf(m, "%s%s, acquired through %s; %s refs %lld\n", r->held ? "held" : "released",
	    r->leaked ? " (LEAKED)" : "", r->api, r->refcount ? "reference-counted," : "plain,",
	    (long long)r->refs);
	fprintf(m, "acquires %llu, releases %llu, timeouts %llu, releases without acquire %llu\n",
	    (unsigned long long)r->acquires, (unsigned long long)r->releases,
	    (unsigned long long)r->timeouts, (unsigned long long)r->unmatched);
	if (r->mah >= 0)
		fprintf(m, "estimated %.6f mAh at %.3f mA (%s)\n", r->mah, r->price_ma, r->price_from);
	fprintf(m, "holder (tid %d):\n", (int)r->holder_tid);
	for (size_t k = 0; k < r->nholder; k++)
		fprintf(m, "  %s\n", r->holder[k]);
	if (r->nreleaser > 0) {
		fprintf(m, "releaser (tid %d):\n", (int)r->releaser_tid);
		for (size_t k = 0; k < r->nreleaser; k++)
			fprintf(m, "  %s\n", r->releaser[k]);
	}
	fclose(m);
	tui_app_overlay(a, title, text);
	free(text);
}

/* View 6: its title row, then the panel. */
static void tui_panel_power_view(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	tui_panel_title(a, win, y, x, w, POWER_VIEW, tui_view_power.title);
	tui_panel_power_draw(a, win, y + 1, x, h - 1, w);
}

/* The title row and the panel's summary, header and rows. */
static void tui_panel_power_box_rows(const struct tui_app *a, bool wide, int avail, int *min, int *want)
{
	(void)wide;
	*min = 2;
	*want = 1 + tui_panel_power_height(a, avail);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_power = {
	.name = "power", .tab = "power", .key = '6',
	.title = " power", .help = "wakelocks, sensors and other power resources",
	.part = "power", .draw = tui_panel_power_view,
	.box_draw = tui_panel_power_view, .box_rows = tui_panel_power_box_rows, .box_grow = 3,
	.list = true, .enter = tui_panel_power_details,
};
