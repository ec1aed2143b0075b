/*
 * panel-threads.c - the threads panel (view 4, the overview's threads box):
 * a summary row (live, created, created/s, the agent's own threads and
 * their CPU, a sparkline of the live count over the last minute), then a
 * tree: each library pool (GThreadPool, libuv) with its workers, then the
 * threads by creator (main first), a creator's threads from one creation
 * site grouped under an "inferred pool" row when the site made two or more.
 * Each thread row: name, tid, state, CPU%, age, start routine.  Up/Down
 * select a thread; Enter shows its creation stack in an overlay.
 */
#include <stdio.h>
#include <string.h>

#include "tui.h"

#include <curses.h>

extern const struct tui_view tui_view_threads;
#define THREADS_VIEW tui_view_index(&tui_view_threads)   /* its index: its list, its clicks */

#define THR_ROWS_MAX (PROTO_MAX_THREADS + PROTO_MAX_TSITES + PROTO_MAX_POOLS + 8)

enum thr_row_kind { THR_ROW_POOL, THR_ROW_GROUP, THR_ROW_THREAD };

struct thr_row {
	uint8_t  kind;                    /* enum thr_row_kind */
	uint8_t  depth;
	uint32_t idx;                     /* pool, site or thread index */
	uint32_t count;                   /* group: threads in it */
};

static struct thr_row thr_rows[THR_ROWS_MAX];
static size_t thr_nrows;
static bool thr_placed[PROTO_MAX_THREADS];

/* The site entry of id, or NULL. */
static const struct proto_thr_site *thr_site(const struct proto_threads *t, uint32_t id)
{
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].id == id)
			return &t->sites[i];
	return NULL;
}

/* Append a row if there is room. */
static void thr_add(uint8_t kind, int depth, uint32_t idx, uint32_t count)
{
	if (thr_nrows < THR_ROWS_MAX)
		thr_rows[thr_nrows++] = (struct thr_row){ kind, (uint8_t)(depth > 8 ? 8 : depth),
		    idx, count };
}

/* Thread i and, below it, the threads it created (grouped by site). */
static void thr_add_subtree(const struct proto_threads *t, size_t i, int depth)
{
	thr_placed[i] = true;
	thr_add(THR_ROW_THREAD, depth, (uint32_t)i, 0);
	if (t->threads[i].tid == 0 || depth > 8)
		return;
	for (size_t k = 0; k < t->nthreads; k++) {
		uint32_t site = t->threads[k].site, n = 0;

		if (thr_placed[k] || t->threads[k].creator != t->threads[i].tid || t->threads[k].pool)
			continue;
		for (size_t m = k; m < t->nthreads; m++)
			n += !thr_placed[m] && t->threads[m].site == site &&
			    t->threads[m].creator == t->threads[i].tid && !t->threads[m].pool;
		if (n >= 2)
			thr_add(THR_ROW_GROUP, depth + 1, site, n);
		for (size_t m = k; m < t->nthreads; m++)
			if (!thr_placed[m] && t->threads[m].site == site &&
			    t->threads[m].creator == t->threads[i].tid && !t->threads[m].pool)
				thr_add_subtree(t, m, depth + 1 + (n >= 2));
	}
}

/* Build the rows of the tree from the frame. */
static void thr_build(const struct proto_threads *t)
{
	thr_nrows = 0;
	memset(thr_placed, 0, sizeof thr_placed);
	for (size_t p = 0; p < t->npools; p++) {
		thr_add(THR_ROW_POOL, 0, (uint32_t)p, 0);
		for (size_t i = 0; i < t->nthreads && i < PROTO_MAX_THREADS; i++)
			if (t->threads[i].pool == t->pools[p].id) {
				thr_placed[i] = true;
				thr_add(THR_ROW_THREAD, 1, (uint32_t)i, 0);
			}
	}
	for (size_t i = 0; i < t->nthreads && i < PROTO_MAX_THREADS; i++)
		if (!thr_placed[i] && t->threads[i].id == 0)
			thr_add_subtree(t, i, 0);
	for (size_t i = 0; i < t->nthreads && i < PROTO_MAX_THREADS; i++)
		if (!thr_placed[i])
			thr_add_subtree(t, i, 0);
}

/* Age of a thread in the agent's clock of the record. */
static void thr_age(const struct proto_threads *t, const struct proto_thr_thread *h,
    char *buf, size_t len)
{
	uint64_t end = h->end_ns ? h->end_ns : t->time_ns;

	tui_fmt_ns(end > h->start_ns ? end - h->start_ns : 0, buf, len);
}

/* The text of one row. */
static void thr_row_text(const struct proto_threads *t, const struct thr_row *r, bool utf8,
    char *out, size_t len)
{
	char ind[40] = "", age[16], name[64];
	int d = r->depth;

	for (int i = 0; i < d && (size_t)(i * 2 + 2) < sizeof ind; i++)
		strcat(ind, i + 1 == d ? (utf8 ? "\u2514 " : "` ") : "  ");
	if (r->kind == THR_ROW_POOL) {
		const struct proto_thr_pool *p = &t->pools[r->idx];

		snprintf(out, len, "[%s] %s size %lld workers %llu tasks %llu/%llu wait avg %.1fms max "
		    "%.1fms run avg %.1fms%s", p->kind, *p->func.name ? p->func.name : "-",
		    (long long)p->size, (unsigned long long)p->workers,
		    (unsigned long long)p->done, (unsigned long long)p->pushed,
		    p->done ? (double)p->wait_ns / (double)p->done / 1e6 : 0.0,
		    (double)p->wait_max_ns / 1e6,
		    p->done ? (double)p->run_ns / (double)p->done / 1e6 : 0.0, p->freed ? " freed" : "");
		return;
	}
	if (r->kind == THR_ROW_GROUP) {
		const struct proto_thr_site *s = thr_site(t, r->idx);

		snprintf(out, len, "%s[inferred pool] %s: %u threads here, %llu created, %llu live",
		    ind, s && *s->start.name ? s->start.name : "?", r->count,
		    (unsigned long long)(s ? s->created : 0), (unsigned long long)(s ? s->live : 0));
		return;
	}
	{
		const struct proto_thr_thread *h = &t->threads[r->idx];
		const struct proto_thr_site *s = thr_site(t, h->site);

		thr_age(t, h, age, sizeof age);
		snprintf(name, sizeof name, "%s%s", ind, h->name);
		snprintf(out, len, "%-26s %7d %-9s %5.1f%% %8s  %s", name, (int)h->tid, h->state,
		    h->cpu_pct, age, h->id == 0 ? "main" : s && *s->start.name ? s->start.name : "?");
	}
}

static void tui_panel_threads_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_threads *t;
	struct tui_list *l = &a->list[THREADS_VIEW];
	char line[512], spark[PROTO_THR_HISTORY * 4 + 1], cpu[16];
	unsigned hist[PROTO_THR_HISTORY];

	if (a->frame == NULL || h < 3)
		return;
	t = &a->frame->frame.thr;
	thr_build(t);
	for (size_t i = 0; i < t->nhistory; i++)
		hist[i] = t->history[i];
	tui_fps_sparkline(hist, t->nhistory, a->utf8, spark, sizeof spark);
	tui_fmt_ns(t->agent_cpu_ns, cpu, sizeof cpu);
	snprintf(line, sizeof line, " threads: %llu live, %llu created, %.1f/s, %llu unknown; "
	    "agent %llu (cpu %s) %s", (unsigned long long)t->live, (unsigned long long)t->created,
	    t->created_per_s, (unsigned long long)t->other_live,
	    (unsigned long long)t->agent_live, cpu, spark);
	tui_screen_put(win, y, x, w, a->attr[TUI_EL_INFO], line);
	snprintf(line, sizeof line, " %-26s %7s %-9s %6s %8s  %s", "THREAD", "TID", "STATE", "CPU%",
	    "AGE", "START ROUTINE");
	tui_screen_put(win, y + 1, x, w, a->attr[TUI_EL_HEADER], line);
	tui_list_layout(l, (int)thr_nrows, h - 2);
	for (int i = 0; i < h - 2 && l->top + i < (int)thr_nrows; i++) {
		const struct thr_row *r = &thr_rows[l->top + i];
		unsigned long at = l->top + i == l->sel ? a->attr[TUI_EL_SELECTED] :
		    r->kind != THR_ROW_THREAD ? a->attr[TUI_EL_SORT] : a->attr[TUI_EL_ROW];

		line[0] = ' ';
		thr_row_text(t, r, a->utf8, line + 1, sizeof line - 1);
		tui_screen_fill(win, y + 2 + i, x, w, at);
		tui_screen_put(win, y + 2 + i, x, w, at, line);
	}
}

/* The selected thread's creation stack in an overlay. */
static void tui_panel_threads_details(struct tui_app *a)
{
	const struct proto_threads *t;
	const struct thr_row *r;
	const struct proto_thr_site *s;
	int sel = a->list[THREADS_VIEW].sel;
	char title[96], *text = NULL;
	size_t len = 0;
	FILE *m;

	if (a->frame == NULL || sel >= (int)thr_nrows)
		return;
	t = &a->frame->frame.thr;
	r = &thr_rows[sel];
	s = thr_site(t, r->kind == THR_ROW_THREAD ? t->threads[r->idx].site : r->idx);
	if (r->kind == THR_ROW_POOL || (m = open_memstream(&text, &len)) == NULL)
		return;
	if (r->kind == THR_ROW_THREAD) {
		const struct proto_thr_thread *h = &t->threads[r->idx];

		snprintf(title, sizeof title, " thread %s (tid %d) ", h->name, (int)h->tid);
		fprintf(m, "created by tid %d; state %s; cpu %.3f ms\n", (int)h->creator, h->state,
		    (double)h->cpu_ns / 1e6);
	} else {
		snprintf(title, sizeof title, " inferred pool ");
	}
	if (s == NULL) {
		fprintf(m, "no creation stack (the main thread, or created before the agent)\n");
	} else {
		fprintf(m, "start routine: %s [%s]\ncreation site: %llu threads created, %llu live\n"
		    "creation stack:\n", *s->start.name ? s->start.name : "?", s->start.module,
		    (unsigned long long)s->created, (unsigned long long)s->live);
		for (size_t k = 0; k < s->nstack; k++)
			fprintf(m, "  %s+0x%llx [%s]\n", *s->stack[k].name ? s->stack[k].name : "?",
			    (unsigned long long)s->stack[k].off, s->stack[k].module);
	}
	fclose(m);
	tui_app_overlay(a, title, text);
	free(text);
}

/* The overview's box: its own summary as the title row (with
 * the last 30 s of the live count), the tree below when there is room. */
static void tui_panel_threads_box(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_threads *t;
	unsigned hist[PROTO_THR_HISTORY];
	char spark[PROTO_THR_HISTORY * 4 + 1], line[512];
	size_t n;

	if (a->frame == NULL) {
		tui_panel_box_empty(a, win, y, x, h, w, THREADS_VIEW, "");
		return;
	}
	t = &a->frame->frame.thr;
	n = t->nhistory > 30 ? 30 : t->nhistory;
	if (h >= 3)
		tui_panel_threads_draw(a, win, y, x, h, w);
	for (size_t i = 0; i < n; i++)
		hist[i] = t->history[t->nhistory - n + i];
	tui_fps_sparkline(hist, n, a->utf8, spark, sizeof spark);
	snprintf(line, sizeof line, " threads: %llu live, %llu created, %.1f/s %s",
	    (unsigned long long)t->live, (unsigned long long)t->created, t->created_per_s, spark);
	tui_panel_title(a, win, y, x, w, THREADS_VIEW, line);
}

/* The title row alone, or (wide) a row per thread, pool and
 * inferred pool. */
static void tui_panel_threads_box_rows(const struct tui_app *a, bool wide, int avail, int *min, int *want)
{
	const struct proto_threads *t = a->frame ? &a->frame->frame.thr : NULL;

	(void)avail;
	*min = 1;
	*want = !wide || t == NULL ? 1 : 2 + (int)(t->nthreads + t->npools + t->nsites);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_threads = {
	.name = "threads", .tab = "threads", .key = '4',
	.title = " threads", .help = "threads and pools (Enter: creation stack)",
	.part = "threading", .draw = tui_panel_threads_draw,
	.box_draw = tui_panel_threads_box, .box_rows = tui_panel_threads_box_rows, .box_grow = 4,
	.list = true, .enter = tui_panel_threads_details,
};
