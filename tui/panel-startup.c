/*
 * panel-startup.c - the startup view (u, and `:startup`) and its overview
 * box: the target's start as a timeline from its exec.  One row per phase,
 * then per timed library's constructors and per dlopen call, each with its
 * start, its length, a bar placed on the start's time axis, and how much
 * slower it was than the previous run of the program (doc/startup.md);
 * Enter shows the selected row's figures and the whole comparison.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

extern const struct tui_view tui_view_startup;
#define STARTUP_VIEW tui_view_index(&tui_view_startup)   /* its index: its list, its clicks */

#define SU_ROWS (PROTO_SU_NPHASES + PROTO_MAX_SU_LIBS + PROTO_MAX_SU_DLOPENS)

/* One row of the timeline. */
struct su_row {
	const char *kind;                 /* "phase", "constructors", "dlopen": as in changes */
	const char *name;
	uint64_t start_ns, dur_ns;        /* dur 0 and start 0: unknown */
	bool failed;
};

/* The rows of p, in their order: phases, libraries, dlopens. */
static int su_rows(const struct proto_startup *p, struct su_row *r)
{
	struct proto_su_phase ph[PROTO_SU_NPHASES];
	int n = 0;

	proto_startup_phases(p, ph);
	for (int i = 0; i < PROTO_SU_NPHASES; i++)
		r[n++] = (struct su_row){ "phase", ph[i].name, ph[i].start_ns,
		    ph[i].end_ns - ph[i].start_ns, false };
	for (size_t i = 0; i < p->nlibs; i++)
		r[n++] = (struct su_row){ "constructors", p->libs[i].name, p->libs[i].start_ns,
		    p->libs[i].dur_ns, false };
	for (size_t i = 0; i < p->ndlopens; i++)
		r[n++] = (struct su_row){ "dlopen", p->dlopens[i].name, p->dlopens[i].start_ns,
		    p->dlopens[i].dur_ns, !p->dlopens[i].ok };
	return n;
}

/* The change of row r against the previous run, NULL when not slower.
 * (A name called twice matches its first change.) */
static const struct proto_su_change *su_change(const struct proto_startup *p, const struct su_row *r)
{
	for (size_t i = 0; i < p->nslower; i++)
		if (strcmp(p->slower[i].kind, r->kind) == 0 && strcmp(p->slower[i].name, r->name) == 0)
			return &p->slower[i];
	return NULL;
}

/* The end of the timeline: the latest point or row end. */
static uint64_t su_end(const struct proto_startup *p, const struct su_row *r, int n)
{
	uint64_t e = p->main_ns;

	e = p->wait_ns > e ? p->wait_ns : e;
	e = p->frame_ns > e ? p->frame_ns : e;
	for (int i = 0; i < n; i++)
		if (r[i].start_ns && r[i].start_ns + r[i].dur_ns > e)
			e = r[i].start_ns + r[i].dur_ns;
	return e;
}

/* "to main 312 ms | first wait ... | first frame ... | exec from run". */
static void su_summary(const struct proto_startup *p, char *line, size_t len)
{
	struct proto_su_phase ph[PROTO_SU_NPHASES];
	char m[16], w[16], f[16], cmp[48];

	if (p->time_ns == 0 || p->attached) {
		snprintf(line, len, " startup: %s", p->attached ? "attached to a running process: "
		    "its start was not seen" : "no startup record yet");
		return;
	}
	proto_startup_phases(p, ph);
	tui_fmt_ns(ph[PROTO_SU_TO_MAIN].end_ns - ph[PROTO_SU_TO_MAIN].start_ns, m, sizeof m);
	tui_fmt_ns(ph[PROTO_SU_TO_WAIT].end_ns - ph[PROTO_SU_TO_WAIT].start_ns, w, sizeof w);
	tui_fmt_ns(ph[PROTO_SU_TO_FRAME].end_ns - ph[PROTO_SU_TO_FRAME].start_ns, f, sizeof f);
	if (p->baseline == NULL || *p->baseline == '\0')
		snprintf(cmp, sizeof cmp, "no last run to compare");
	else
		snprintf(cmp, sizeof cmp, "%zu slower than the last run", p->nslower);
	snprintf(line, len, " startup: to main %s | first wait %s | first frame %s | exec from %s | "
	    "%zu libraries, %" PRIu64 " dlopen | %s",
	    ph[PROTO_SU_TO_MAIN].end_ns ? m : "-", ph[PROTO_SU_TO_WAIT].end_ns ? w : "-",
	    ph[PROTO_SU_TO_FRAME].end_ns ? f : "-", *p->exec_from ? p->exec_from : "-", p->nlibs,
	    p->dlopens_total, cmp);
}

static void tui_panel_startup_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	static struct su_row rows[SU_ROWS];
	const struct proto_startup *p;
	struct tui_list *l = &a->list[STARTUP_VIEW];
	char line[768], at[16], dur[16], more[24], name[64], bar[128];
	uint64_t origin, end;
	int n, barw;

	if (a->frame == NULL || h < 1)
		return;
	p = &a->frame->frame.startup;
	su_summary(p, line, sizeof line);
	tui_screen_put(win, y, x, w, a->attr[p->nslower ? TUI_EL_STATUS_WARN : TUI_EL_INFO], line);
	if (h < 3 || p->time_ns == 0 || p->attached)
		return;
	n = su_rows(p, rows);
	origin = proto_startup_origin(p);
	end = su_end(p, rows, n);
	barw = w - 70 < 60 ? w - 70 : 60;
	snprintf(line, sizeof line, " %-13s %-32s %9s %9s %9s  %s", "KIND", "NAME", "AT", "LENGTH",
	    "SLOWER", barw > 4 ? "TIMELINE" : "");
	tui_screen_put(win, y + 1, x, w, a->attr[TUI_EL_HEADER], line);
	tui_list_layout(l, n, h - 2);
	tui_view_region(STARTUP_VIEW, y + 2, x, h - 2, w, l->top);
	for (int i = 0; i < h - 2 && l->top + i < n; i++) {
		const struct su_row *r = &rows[l->top + i];
		const struct proto_su_change *c = su_change(p, r);
		bool known = r->start_ns != 0 && origin != 0 && r->start_ns >= origin;
		unsigned long attr = l->top + i == l->sel ? a->attr[TUI_EL_SELECTED] :
		    r->failed ? a->attr[TUI_EL_ERROR] : c ? a->attr[TUI_EL_STATUS_WARN] :
		    known ? a->attr[TUI_EL_ROW] : a->attr[TUI_EL_ROW_IDLE];

		if (known) {
			tui_fmt_ns(r->start_ns - origin, at, sizeof at);
			tui_fmt_ns(r->dur_ns, dur, sizeof dur);
		} else {
			snprintf(at, sizeof at, "-");
			snprintf(dur, sizeof dur, "-");
		}
		more[0] = '-';
		more[1] = '\0';
		if (c != NULL) {
			more[0] = '+';
			tui_fmt_ns(c->now_ns - c->before_ns, more + 1, sizeof more - 1);
		}
		tui_fmt_fit_middle(r->name, 32, a->utf8, name, sizeof name);
		bar[0] = '\0';
		if (known && barw > 4 && end > origin) {
			int b0 = (int)((r->start_ns - origin) * (uint64_t)barw / (end - origin));
			int b1 = (int)((r->start_ns + r->dur_ns - origin) * (uint64_t)barw / (end - origin));

			b1 = b1 <= b0 ? b0 + 1 : b1 > barw ? barw : b1;
			memset(bar, ' ', (size_t)b0);
			memset(bar + b0, '=', (size_t)(b1 - b0));
			bar[b1] = '\0';
		}
		snprintf(line, sizeof line, " %-13s %s %9s %9s %9s  %s", r->kind, name, at, dur, more,
		    bar);
		tui_screen_fill(win, y + 2 + i, x, w, attr);
		tui_screen_put(win, y + 2 + i, x, w, attr, line);
	}
}

/* Enter: the selected row whole, then every change against the last run. */
static void tui_panel_startup_details(struct tui_app *a)
{
	static struct su_row rows[SU_ROWS];
	const struct proto_startup *p;
	int sel = a->list[STARTUP_VIEW].sel, n;
	char title[160], d1[16], d2[16], *text = NULL;
	size_t len = 0;
	FILE *m;

	if (a->frame == NULL || (p = &a->frame->frame.startup)->time_ns == 0 || p->attached)
		return;
	n = su_rows(p, rows);
	if (sel < 0 || sel >= n || (m = open_memstream(&text, &len)) == NULL)
		return;
	snprintf(title, sizeof title, " %s %s ", rows[sel].kind, rows[sel].name);
	tui_fmt_ns(rows[sel].dur_ns, d1, sizeof d1);
	tui_fmt_ns(rows[sel].start_ns - proto_startup_origin(p), d2, sizeof d2);
	if (rows[sel].start_ns != 0)
		fprintf(m, "%s %s: %s, from %s after the exec%s\n", rows[sel].kind, rows[sel].name, d1,
		    d2, rows[sel].failed ? " (FAILED)" : "");
	else
		fprintf(m, "%s %s: not reached, or not seen\n", rows[sel].kind, rows[sel].name);
	if (p->baseline == NULL || *p->baseline == '\0') {
		fprintf(m, "\nno previous run of this program to compare with\n");
	} else {
		fprintf(m, "\nslower than the previous run (%s), beyond %.1f ms and %u%%:\n",
		    p->baseline, (double)p->noise_ns / 1e6, p->noise_pct);
		for (size_t i = 0; i < p->nslower; i++) {
			tui_fmt_ns(p->slower[i].before_ns, d1, sizeof d1);
			tui_fmt_ns(p->slower[i].now_ns, d2, sizeof d2);
			fprintf(m, "  %-12s %s: %s -> %s\n", p->slower[i].kind, p->slower[i].name, d1, d2);
		}
		if (p->nslower == 0)
			fprintf(m, "  nothing\n");
	}
	fclose(m);
	tui_app_overlay(a, title, text);
	free(text);
}

/* The view: its title row, then the panel. */
static void tui_panel_startup_view(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	tui_panel_title(a, win, y, x, w, STARTUP_VIEW, tui_view_startup.title);
	tui_panel_startup_draw(a, win, y + 1, x, h - 1, w);
}

/* The box: the title and the summary, the phases when there is room. */
static void tui_panel_startup_box_rows(const struct tui_app *a, bool wide, int avail, int *min,
    int *want)
{
	(void)a;
	(void)wide;
	(void)avail;
	*min = 2;
	*want = 3 + PROTO_SU_NPHASES;
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_startup = {
	.name = "startup", .tab = "start", .key = 'u',
	.title = " startup", .help = "the start as a timeline: phases, constructors, dlopen (Enter: "
	    "the comparison with the last run)",
	.part = "startup", .draw = tui_panel_startup_view,
	.box_draw = tui_panel_startup_view, .box_rows = tui_panel_startup_box_rows, .box_grow = 9,
	.list = true, .enter = tui_panel_startup_details,
};
