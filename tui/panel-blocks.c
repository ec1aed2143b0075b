/*
 * panel-blocks.c - the UI-thread blocks: a panel (the overview's blocks box,
 * view 3) while the target has blocks (a title row, then one row per block:
 * time, duration, samples, top frame), the detail view with every block's
 * symbolized stacks (key b, command :blocks; the overlay box), and the
 * status-bar flag of a block that runs now or just ended.
 *
 * The top frame is the innermost frame of the block's most sampled stack
 * that lies outside the C library and the loader (where a sleep or a clock
 * read sits), so the row names the program's function.  Colours: "alert"
 * for a block still running, "row" otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui.h"
#include "panel-blocks.h"

extern const struct tui_view tui_view_blocks;
#define BLOCKS_VIEW tui_view_index(&tui_view_blocks)   /* its index: its list, its clicks */

#define BLOCKS_FLAG_MS    10000   /* the status bar flags a block this long */

/* Is module (a base name) the C library, the loader or nothing? */
static bool blocks_system(const char *module)
{
	return module[0] == '\0' || strncmp(module, "libc.so", 7) == 0 ||
	    strncmp(module, "ld-linux", 8) == 0 || strncmp(module, "libpthread", 10) == 0;
}

static const struct proto_block_frame *tui_block_top_frame(const struct proto_block *b)
{
	const struct proto_block_stack *s = b->nstacks > 0 ? &b->stacks[0] : NULL;

	if (s == NULL || s->nframes == 0)
		return NULL;
	for (size_t k = 0; k < s->nframes; k++)
		if (s->frames[k].func[0] != '\0' && !blocks_system(s->frames[k].module))
			return &s->frames[k];
	for (size_t k = 0; k < s->nframes; k++)
		if (s->frames[k].func[0] != '\0')
			return &s->frames[k];
	return &s->frames[0];
}

/* "func (file:line)" or "func+0x1c (module)" of a frame. */
static void blocks_frame_text(const struct proto_block_frame *f, char *buf, size_t len)
{
	const char *file = strrchr(f->file, '/');

	file = file ? file + 1 : f->file;
	if (f->file[0])
		snprintf(buf, len, "%s (%s:%u)", f->func[0] ? f->func : "??", file, f->line);
	else
		snprintf(buf, len, "%s+0x%llx (%s)", f->func[0] ? f->func : "??",
		    (unsigned long long)f->off, f->module[0] ? f->module : "?");
}

/* Local time of day with ms. */
static void blocks_clock(uint64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL || strftime(buf, len, "%H:%M:%S", &tm) == 0)
		buf[0] = '\0';
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03u", (unsigned)(ms % 1000));
}

/* One row of a block. */
static void tui_block_row(const struct proto_block *b, char *buf, size_t len)
{
	char clk[32], dur[16], top[256];
	const struct proto_block_frame *f = tui_block_top_frame(b);

	blocks_clock(b->time_ms, clk, sizeof clk);
	tui_fmt_ns(b->dur_ns, dur, sizeof dur);
	if (f != NULL)
		blocks_frame_text(f, top, sizeof top);
	else
		snprintf(top, sizeof top, "(no stack yet)");
	snprintf(buf, len, "%s  %8s%s  %4llu samples  %s", clk, dur, b->ended ? " " : "+",
	    (unsigned long long)b->samples, top);
}

/* " UI-thread blocks: 3 (over 100ms on main, tid 1234)  b: stacks" */
static void blocks_title(const struct tui_app *a, char *buf, size_t len)
{
	const struct proto_blocks *l = &a->frame->frame.blocks;
	char thr[16];

	tui_fmt_ns(l->threshold_ns, thr, sizeof thr);
	snprintf(buf, len, " UI-thread blocks: %llu (over %s on %s, tid %d)  b: stacks",
	    (unsigned long long)l->count, thr, l->ui && l->ui[0] ? l->ui : "main", (int)l->ui_tid);
}

/* One row per block, newest first, from row y. */
static void blocks_rows(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_blocks *l = &a->frame->frame.blocks;
	char line[512];

	for (int i = 0; i < h && (size_t)i < l->nblocks; i++) {
		const struct proto_block *b = &l->blocks[i];

		line[0] = ' ';
		tui_block_row(b, line + 1, sizeof line - 1);
		tui_screen_put(win, y + i, x, w, a->attr[b->ended ? TUI_EL_ROW : TUI_EL_ALERT], line);
	}
}

static void tui_panel_blocks_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	char line[512];

	blocks_title(a, line, sizeof line);
	tui_panel_title(a, win, y, x, w, BLOCKS_VIEW, line);
	blocks_rows(a, win, y + 1, x, h - 1, w);
}

/* The text of the detail view (heap). */
static char *tui_blocks_text(const struct proto_blocks *l)
{
	char *out = NULL, row[512], fr[512];
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL)
		return xstrdup("out of memory");
	if (l->nblocks == 0)
		fprintf(m, "no block yet (UI thread %s, threshold %.0f ms)\n",
		    l->ui && l->ui[0] ? l->ui : "main", (double)l->threshold_ns / 1e6);
	for (size_t i = 0; i < l->nblocks; i++) {
		const struct proto_block *b = &l->blocks[i];

		tui_block_row(b, row, sizeof row);
		fprintf(m, "%sblock %u, thread %d: %s\n", i ? "\n" : "", b->id, (int)b->tid, row);
		for (size_t k = 0; k < b->nstacks; k++) {
			fprintf(m, "  stack %zu: %llu of %llu samples\n", k + 1,
			    (unsigned long long)b->stacks[k].samples, (unsigned long long)b->samples);
			for (size_t j = 0; j < b->stacks[k].nframes; j++) {
				blocks_frame_text(&b->stacks[k].frames[j], fr, sizeof fr);
				fprintf(m, "    #%-2zu %s\n", j, fr);
			}
		}
	}
	fclose(m);
	return out;
}

/* See panel-blocks.h: the detail view as an overlay. */
void tui_blocks_show(struct tui_app *a)
{
	char *text;

	if (a->frame == NULL) {
		tui_app_message(a, true, "no frame yet: wait for the daemon's first frame");
		return;
	}
	text = tui_blocks_text(&a->frame->frame.blocks);
	tui_app_overlay(a, " UI-thread blocks and their stacks ", text);
	free(text);
}

/* See panel-blocks.h: " BLOCK 312 ms " while a block runs or for a while after. */
bool tui_blocks_flag(const struct tui_app *a, char *buf, size_t len)
{
	const struct proto_blocks *l = a->frame ? &a->frame->frame.blocks : NULL;
	char dur[16];

	if (l == NULL || l->nblocks == 0)
		return false;
	if (l->blocks[0].ended && proto_wall_ms() > l->blocks[0].time_ms +
	    l->blocks[0].dur_ns / 1000000 + BLOCKS_FLAG_MS)
		return false;
	tui_fmt_ns(l->blocks[0].dur_ns, dur, sizeof dur);
	snprintf(buf, len, " BLOCK %s%s ", dur, l->blocks[0].ended ? "" : "+");
	return true;
}

/* View 3: the blocks panel with every block the frame has. */
static void tui_panel_blocks_view(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	if (a->frame == NULL || a->frame->frame.blocks.nblocks == 0) {
		tui_panel_empty(a, win, y, x, w, BLOCKS_VIEW,
		    "no block yet: the UI thread answered its event loop in time");
		return;
	}
	tui_panel_blocks_draw(a, win, y, x, h, w);
}

/* The overview's box, the panel while there are blocks. */
static void tui_panel_blocks_box(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	if (a->frame == NULL || a->frame->frame.blocks.nblocks == 0) {
		tui_panel_box_empty(a, win, y, x, h, w, BLOCKS_VIEW, "none: the UI thread kept up");
		return;
	}
	tui_panel_blocks_draw(a, win, y, x, h, w);
}

/* A title and up to four blocks. */
static void tui_panel_blocks_box_rows(const struct tui_app *a, bool wide, int avail, int *min, int *want)
{
	size_t n = a->frame ? a->frame->frame.blocks.nblocks : 0;

	(void)wide;
	(void)avail;
	*min = 2;
	*want = 1 + (int)(n > 4 ? 4 : n > 1 ? n : 1);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_blocks = {
	.name = "blocks", .tab = "blocks", .key = '3',
	.title = " UI-thread blocks", .help = "UI-thread blocks (Enter: their stacks)",
	.part = "blocks", .draw = tui_panel_blocks_view,
	.box_draw = tui_panel_blocks_box, .box_rows = tui_panel_blocks_box_rows, .box_grow = 1,
	.enter = tui_blocks_show,
};
