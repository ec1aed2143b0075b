/*
 * tui-redraw.c - time the TUI's redraw (tui_screen_draw, the function the
 * TUI calls on every frame and key) on a 1000-row frame whose figures
 * change on every draw, in the terminal it runs in (tests/bench/daemon.sh
 * runs it in a tmux pane).  Prints the median, p99 and max in µs.
 *   tui-redraw [DRAWS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>

#include <curses.h>

#include "tui.h"

#define ROWS 1000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int draws = argc > 1 ? atoi(argv[1]) : 2000;
	struct tui_opts o;
	struct tui_app a;
	struct proto_server_msg *m = xcalloc(1, sizeof *m);
	struct proto_target t = { .pid = 4242, .name = "bench", .exe = "/usr/bin/bench",
		.level = 2, .started_ms = proto_wall_ms() };
	char err[PROTO_ERR_LEN];
	uint64_t *ns;
	int cols, lines;

	if (draws < 10)
		draws = 10;
	ns = xcalloc((size_t)draws, sizeof *ns);
	setlocale(LC_ALL, "C.UTF-8");
	memset(&o, 0, sizeof o);
	tui_url_parse("127.0.0.1:7070", &o.url, err, sizeof err);
	memset(&a, 0, sizeof a);
	a.opts = &o;
	a.utf8 = true;
	tui_theme_defaults(&a.theme);
	m->type = PROTO_MSG_FRAME;
	m->frame.pid = t.pid;
	m->frame.sort = xstrdup("total");
	m->frame.ntargets = 1;
	m->frame.targets = xcalloc(1, sizeof t);
	m->frame.targets[0] = t;
	m->frame.targets[0].name = xstrdup(t.name);
	m->frame.targets[0].exe = xstrdup(t.exe);
	m->frame.nfuncs = ROWS;
	m->frame.funcs = xcalloc(ROWS, sizeof *m->frame.funcs);
	for (int i = 0; i < ROWS; i++) {
		char name[64];

		snprintf(name, sizeof name, "namespace::Class%d::method_%d(int, char const*)", i % 37, i);
		m->frame.funcs[i].name = xstrdup(name);
		m->frame.funcs[i].module = xstrdup("libbench.so");
		m->frame.funcs[i].addr = 0x400000u + 64u * (unsigned)i;
	}
	a.frame = m;
	a.loop = tui_loop_new(false, err, sizeof err);
	if (a.loop == NULL) {
		fprintf(stderr, "tui-redraw: %s\n", err);
		return 1;
	}
	a.conn = tui_conn_new(a.loop, &o.url, 1000, NULL, &a);
	if (tui_screen_start(&a, err, sizeof err) < 0) {
		fprintf(stderr, "tui-redraw: %s\n", err);
		return 1;
	}
	tui_cmdline_init(&a);
	for (int d = 0; d < draws; d++) {
		uint64_t t0;

		m->frame.seq = (uint64_t)d;
		for (int i = 0; i < ROWS; i++) {
			struct proto_func *f = &m->frame.funcs[i];

			f->calls += (uint64_t)(ROWS - i) * 7 + (uint64_t)d % 13;
			f->total_ns += f->calls * 3;
			f->self_ns = f->total_ns / 2;
			f->avg_ns = f->total_ns / (f->calls ? f->calls : 1);
			f->calls_per_s = (double)(ROWS - i) * 70.0;
			f->share = (double)(ROWS - i) / (ROWS * 10.0);
		}
		t0 = proto_now_ns();
		tui_screen_draw(&a);
		ns[d] = proto_now_ns() - t0;
	}
	cols = COLS;
	lines = LINES;
	tui_cmdline_done();
	tui_screen_end();
	qsort(ns, (size_t)draws, sizeof *ns, cmp_u64);
	fprintf(stderr, "%d draws of %d rows (%dx%d): median %.0f us, p99 %.0f us, max %.0f us\n",
	    draws, ROWS, cols, lines, ns[draws / 2] / 1e3, ns[draws * 99 / 100] / 1e3,
	    ns[draws - 1] / 1e3);
	return 0;
}
