/*
 * panel-fps.c - the FPS panel, four rows (the overview's FPS box, the top of
 * view 2) while the target presents frames: a title row (current FPS as a number, the stream,
 * the budget, the other streams), then the current FPS in big three-row
 * digits next to a sparkline of the last minute (one cell per second),
 * jank/dropped/level counts and the frame-time percentiles.
 *
 * The busiest stream (the daemon sends it first) is the one shown.  Colours:
 * "fps" for the digits and the sparkline, "fps_missed" where the budget was
 * missed (the digits when the median frame is over budget, counts and
 * percentiles of slow frames).  Without UTF-8 the digits are drawn with
 * '_' and '|' and the sparkline with an ASCII ramp.  The sparkline is scaled
 * to its highest second; a second without frames is the lowest step, so
 * the line always spans the time shown.
 */
#include <stdio.h>
#include <string.h>

#include "tui.h"

#include <curses.h>

extern const struct tui_view tui_view_fps;
#define FPS_VIEW tui_view_index(&tui_view_fps)   /* its index: its list, its clicks */

#define FPS_PANEL_ROWS    4
#define FPS_SPARK_SECONDS 60
#define FPS_DIGIT_ROWS    3

/* Big digits, three rows each: block characters and ASCII. */
static const char *const fps_big_utf8[11][FPS_DIGIT_ROWS] = {
	{ "\u2588\u2580\u2588", "\u2588 \u2588", "\u2580\u2580\u2580" },   /* 0 */
	{ " \u2580\u2588", "  \u2588", "  \u2580" },                       /* 1 */
	{ "\u2580\u2580\u2588", "\u2588\u2580\u2580", "\u2580\u2580\u2580" }, /* 2 */
	{ "\u2580\u2580\u2588", " \u2580\u2588", "\u2580\u2580\u2580" },     /* 3 */
	{ "\u2588 \u2588", "\u2580\u2580\u2588", "  \u2580" },              /* 4 */
	{ "\u2588\u2580\u2580", "\u2580\u2580\u2588", "\u2580\u2580\u2580" }, /* 5 */
	{ "\u2588\u2580\u2580", "\u2588\u2580\u2588", "\u2580\u2580\u2580" }, /* 6 */
	{ "\u2580\u2580\u2588", "  \u2588", "  \u2580" },                   /* 7 */
	{ "\u2588\u2580\u2588", "\u2588\u2580\u2588", "\u2580\u2580\u2580" }, /* 8 */
	{ "\u2588\u2580\u2588", "\u2580\u2580\u2588", "\u2580\u2580\u2580" }, /* 9 */
	{ "   ", "   ", "   " },                                           /* blank */
};
static const char *const fps_big_ascii[11][FPS_DIGIT_ROWS] = {
	{ " _ ", "| |", "|_|" }, { "   ", "  |", "  |" }, { " _ ", " _|", "|_ " },
	{ " _ ", " _|", " _|" }, { "   ", "|_|", "  |" }, { " _ ", "|_ ", " _|" },
	{ " _ ", "|_ ", "|_|" }, { " _ ", "  |", "  |" }, { " _ ", "|_|", "|_|" },
	{ " _ ", "|_|", " _|" }, { "   ", "   ", "   " },
};

static size_t tui_fps_seconds(const struct proto_fps_stream *s, unsigned *out, size_t n)
{
	size_t per = 1000000000ull / PROTO_FPS_BIN_NS, have = s->nbins / per;

	if (n > have)
		n = have;
	for (size_t i = 0; i < n; i++) {
		size_t last = s->nbins - (n - 1 - i) * per;   /* one past the second's bins */

		out[i] = 0;
		for (size_t k = last - per; k < last; k++)
			out[i] += s->bins[k];
	}
	return n;
}

/* See tui.h. */
void tui_fps_sparkline(const unsigned *v, size_t n, bool utf8, char *out, size_t len)
{
	static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
	    "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ramp[8] = ".-:=+*#@";
	unsigned max = 1;
	size_t pos = 0;

	for (size_t i = 0; i < n; i++)
		max = v[i] > max ? v[i] : max;
	for (size_t i = 0; i < n; i++) {
		/* No frames: the baseline; any frame: at least one step up. */
		unsigned lv = (unsigned)((v[i] * 7ull + max - 1) / max);
		const char *c = utf8 ? blocks[lv] : (const char[]){ ramp[lv], '\0' };
		size_t cl = strlen(c);

		if (pos + cl + 1 > len)
			break;
		memcpy(out + pos, c, cl);
		pos += cl;
	}
	if (len > 0)
		out[pos < len ? pos : len - 1] = '\0';
}

/* The FPS in big digits at (y, x); returns the columns used. */
static int fps_big(struct tui_app *a, WINDOW *win, int y, int x, int w, double fps,
    unsigned long attr)
{
	const char *const (*font)[FPS_DIGIT_ROWS] = a->utf8 ? fps_big_utf8 : fps_big_ascii;
	char num[16];
	int n = snprintf(num, sizeof num, "%.0f", fps > 99999 ? 99999 : fps), used = 0;

	for (int i = 0; i < n && used + 4 <= w; i++, used += 4)
		for (int r = 0; r < FPS_DIGIT_ROWS; r++)
			tui_screen_put(win, y + r, x + used, 3, attr, font[num[i] - '0'][r]);
	return used;
}

/* " FPS 80 │ app t0, thread 1234 │ budget 16.7ms (60 Hz) │ also: t1 80" */
static void fps_title(const struct tui_app *a, char *buf, size_t len)
{
	const struct proto_fps *f = &a->frame->frame.fps;
	const struct proto_fps_stream *s = &f->streams[0];
	const char *sep = a->utf8 ? " \u2502 " : " | ";
	char b[16];
	int off;

	tui_fmt_ns(f->budget_ns, b, sizeof b);
	off = snprintf(buf, len, " FPS %.0f%s%s %s, thread %d%sbudget %s (%.0f Hz)",
	    s->fps, sep, s->api, s->name, (int)s->tid, sep, b,
	    f->budget_ns ? 1e9 / (double)f->budget_ns : 0.0);
	for (size_t i = 1; i < f->nstreams && off > 0 && (size_t)off < len; i++)
		off += snprintf(buf + off, len - (size_t)off, "%s%s %s %.0f",
		    i == 1 ? (a->utf8 ? " \u2502 also: " : " | also: ") : ", ",
		    f->streams[i].api, f->streams[i].name, f->streams[i].fps);
}

/* "label value" at *x, in the missed colour when missed; advances *x. */
static void fps_item(struct tui_app *a, WINDOW *win, int y, int *x, int end,
    const char *label, const char *value, bool missed)
{
	*x += tui_screen_put(win, y, *x, end - *x, a->attr[TUI_EL_ROW], label);
	*x += tui_screen_put(win, y, *x, end - *x,
	    a->attr[missed ? TUI_EL_FPS_MISSED : TUI_EL_ROW], value);
	*x += tui_screen_put(win, y, *x, end - *x, a->attr[TUI_EL_ROW], "  ");
}

/* Row: jank, dropped, frames and the levels. */
static void fps_counts(struct tui_app *a, WINDOW *win, int y, int x, int end,
    const struct proto_fps_stream *s)
{
	char v[64];

	tui_fmt_count(s->jank, v, sizeof v);
	fps_item(a, win, y, &x, end, "jank ", v, s->jank > 0);
	tui_fmt_count(s->dropped, v, sizeof v);
	fps_item(a, win, y, &x, end, "dropped ", v, s->dropped > 0);
	tui_fmt_count(s->frames, v, sizeof v);
	fps_item(a, win, y, &x, end, "frames ", v, false);
	snprintf(v, sizeof v, "%llu/%llu/%llu/%llu",
	    (unsigned long long)s->levels[PROTO_FPS_NORMAL],
	    (unsigned long long)s->levels[PROTO_FPS_MIDDLE],
	    (unsigned long long)s->levels[PROTO_FPS_HIGH],
	    (unsigned long long)s->levels[PROTO_FPS_FROZEN]);
	fps_item(a, win, y, &x, end, "normal/middle/high/frozen ", v, false);
}

/* Row: percentiles of the window; over-budget ones in the missed colour. */
static void fps_percentiles(struct tui_app *a, WINDOW *win, int y, int x, int end,
    const struct proto_fps *f, const struct proto_fps_stream *s)
{
	const struct { const char *label; uint64_t ns; } p[] = {
		{ "p50 ", s->p50_ns }, { "p90 ", s->p90_ns }, { "p99 ", s->p99_ns },
		{ "max ", s->max_ns },
	};
	char v[32];

	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
		tui_fmt_ns(p[i].ns, v, sizeof v);
		fps_item(a, win, y, &x, end, p[i].label, v, p[i].ns > f->budget_ns);
	}
	if (s->nworst > 0) {
		tui_fmt_ns(s->worst[0].ns, v, sizeof v);
		fps_item(a, win, y, &x, end, "worst ", v, s->worst[0].ns > f->budget_ns);
	}
}

/* The three rows under the title. */
static void fps_body(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_fps *f = &a->frame->frame.fps;
	const struct proto_fps_stream *s = &f->streams[0];
	unsigned sec[FPS_SPARK_SECONDS];
	char spark[FPS_SPARK_SECONDS * 4 + 1];
	int dx, sw;
	size_t n;

	if (h < FPS_DIGIT_ROWS)
		return;
	dx = fps_big(a, win, y, x + 1, w / 3, s->fps,
	    a->attr[s->p50_ns > f->budget_ns ? TUI_EL_FPS_MISSED : TUI_EL_FPS]) + 2;
	sw = w - dx - 8 < FPS_SPARK_SECONDS ? w - dx - 8 : FPS_SPARK_SECONDS;
	if (sw > 0) {
		n = tui_fps_seconds(s, sec, (size_t)sw);
		tui_fps_sparkline(sec, n, a->utf8, spark, sizeof spark);
		tui_screen_put(win, y, x + dx, sw, a->attr[TUI_EL_FPS], spark);
		snprintf(spark, sizeof spark, "%zus", n);
		tui_screen_put(win, y, x + dx + (int)n + 1, 7, a->attr[TUI_EL_ROW], spark);
	}
	fps_counts(a, win, y + 1, x + dx, x + w, s);
	fps_percentiles(a, win, y + 2, x + dx, x + w, f, s);
}

static void tui_panel_fps_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	char title[512];

	if (h < FPS_PANEL_ROWS)
		return;
	fps_title(a, title, sizeof title);
	tui_panel_title(a, win, y, x, w, FPS_VIEW, title);
	fps_body(a, win, y + 1, x, h - 1, w);
}

/* View 2: the FPS panel, then every stream in a table, then the worst
 * frames of the busiest one. */
static void tui_panel_fps_view(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_fps *f = a->frame ? &a->frame->frame.fps : NULL;
	char line[512], c[8][16];
	int r;

	if (f == NULL || f->nstreams == 0) {
		tui_panel_empty(a, win, y, x, w, FPS_VIEW, "no frames presented yet "
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

/* The overview's box, the panel while frames are presented. */
static void tui_panel_fps_box(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	if (a->frame == NULL || a->frame->frame.fps.nstreams == 0) {
		tui_panel_box_empty(a, win, y, x, h, w, FPS_VIEW, "no frames presented");
		return;
	}
	tui_panel_fps_draw(a, win, y, x, h, w);
}

/* The panel's four rows once there is a stream, else two. */
static void tui_panel_fps_box_rows(const struct tui_app *a, bool wide, int avail, int *min, int *want)
{
	(void)wide;
	(void)avail;
	*min = *want = a->frame != NULL && a->frame->frame.fps.nstreams > 0 ? FPS_PANEL_ROWS : 2;
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_fps = {
	.name = "fps", .tab = "fps", .key = '2',
	.title = " FPS", .help = "frame rate, jank and percentiles of every stream", .part = "fps",
	.draw = tui_panel_fps_view,
	.box_draw = tui_panel_fps_box, .box_rows = tui_panel_fps_box_rows, .box_grow = 5,
};
