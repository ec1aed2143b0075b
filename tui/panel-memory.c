/*
 * panel-memory.c - the memory panel (view 9, and the overview's memory
 * box): a summary row (mode, heap in use and its sparkline, blocks,
 * allocations per second, anonymous mappings, suspected leaks), the last
 * leak scan's result (`:leaks`) when there is one, then one
 * row per allocating site, most bytes in use first: bytes and blocks in
 * use, bytes allocated per second, growth per second over the leak window,
 * a LEAK mark (rows drawn as warnings), the allocating function.  Up/Down
 * select a site; Enter shows its stack (and the biggest blocks) in an
 * overlay, followed by the leak scan's lost blocks by allocating stack.
 * Sampled mode's figures are estimates ("~").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

extern const struct tui_view tui_view_memory;
#define MEM_VIEW tui_view_index(&tui_view_memory)

/* 12345 -> "12.1K": bytes in 6 columns. */
static void mem_fmt_bytes(double b, char *out, size_t len)
{
	const char *u = "BKMGT";

	while (b >= 1024 && u[1]) {
		b /= 1024;
		u++;
	}
	snprintf(out, len, *u == 'B' ? "%.0f%c" : "%.1f%c", b, *u);
}

static int tui_panel_memory_height(const struct tui_app *a, int avail)
{
	size_t n = a->frame != NULL ? a->frame->frame.memory.nsites : 0;
	int want = (int)(n > 8 ? 8 : n) + 2 + (a->frame != NULL && a->frame->frame.memory.leaks.seq != 0);

	return want > avail ? avail : want;
}

/* The leak scan's line: its figures, or why there are none. */
static void mem_leaks_line(const struct proto_mem_leaks *l, char *out, size_t len)
{
	char lost[16], ind[16], pos[16];

	if (l->error != NULL && l->error[0]) {
		snprintf(out, len, " Leak scan %u: %s", l->seq, l->error);
		return;
	}
	mem_fmt_bytes((double)l->lost_bytes, lost, sizeof lost);
	mem_fmt_bytes((double)l->indirect_bytes, ind, sizeof ind);
	mem_fmt_bytes((double)l->possible_bytes, pos, sizeof pos);
	snprintf(out, len, " Leak scan %u: definitely lost %s in %llu blocks from %zu stacks, "
	    "indirectly %s, possibly %s; target stopped %.1f ms (Enter: stacks)%s", l->seq, lost,
	    (unsigned long long)l->lost_blocks, l->nlost, ind, pos, (double)l->stopped_ns / 1e6,
	    l->note != NULL && l->note[0] ? "; may err: not every block was tracked" : "");
}

/* The text of site s's row. */
static void mem_row_text(const struct proto_mem_site *s, char *out, size_t len)
{
	char bytes[16], rate[16], growth[16], blocks[16];
	const char *fn = s->stack.nframes && s->stack.frames[0].func[0] ? s->stack.frames[0].func :
	    s->stack.nframes ? s->stack.frames[0].module : "?";

	mem_fmt_bytes((double)s->bytes, bytes, sizeof bytes);
	mem_fmt_bytes(s->alloc_rate, rate, sizeof rate);
	mem_fmt_bytes(s->growth > 0 ? s->growth : 0, growth, sizeof growth);
	tui_fmt_count(s->blocks, blocks, sizeof blocks);
	snprintf(out, len, "%8s %8s %8s/s %8s/s %4s  %s", bytes, blocks, rate, growth,
	    s->leak ? "LEAK" : "", fn);
}

static void tui_panel_memory_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	const struct proto_memory *m;
	struct tui_list *l = &a->list[MEM_VIEW];
	char line[512], heap[16], maps[16], spark[256], rate[16];
	unsigned hist[64];
	size_t nh, leaks = 0;

	if (a->frame == NULL || h < 1)
		return;
	m = &a->frame->frame.memory;
	if (m->mode == NULL || !m->mode[0]) {
		tui_screen_put(win, y, x, w, a->attr[TUI_EL_ROW_IDLE], " Memory: no figures from this target");
		return;
	}
	nh = m->nhistory < 64 ? m->nhistory : 64;
	for (size_t i = 0; i < nh; i++)
		hist[i] = m->history[m->nhistory - nh + i];
	tui_fps_sparkline(hist, nh, a->utf8, spark, sizeof spark);
	for (size_t i = 0; i < m->nsites; i++)
		leaks += m->sites[i].leak;
	mem_fmt_bytes((double)m->heap_bytes, heap, sizeof heap);
	mem_fmt_bytes((double)m->mmap_bytes, maps, sizeof maps);
	tui_fmt_rate(m->allocs_per_s, rate, sizeof rate);
	snprintf(line, sizeof line, " Memory (%s): heap %s%s in %llu blocks %s  %s allocs/s, mmap %s",
	    m->mode, strcmp(m->mode, "sampled") == 0 ? "~" : "", heap,
	    (unsigned long long)m->heap_blocks, spark, rate, maps);
	if (leaks)
		snprintf(line + strlen(line), sizeof line - strlen(line), "; suspected leaks: %zu", leaks);
	tui_screen_put(win, y, x, w, a->attr[leaks ? TUI_EL_STATUS_WARN : TUI_EL_INFO], line);
	if (m->leaks.seq != 0 && h >= 3) {
		mem_leaks_line(&m->leaks, line, sizeof line);
		y++;
		h--;
		tui_screen_put(win, y, x, w, a->attr[m->leaks.lost_blocks ? TUI_EL_STATUS_WARN : TUI_EL_INFO],
		    line);
	}
	if (h < 2)
		return;
	snprintf(line, sizeof line, " %8s %8s %10s %10s %4s  %s", "IN USE", "BLOCKS", "ALLOC", "GROWTH",
	    "", "SITE (Enter: stack)");
	tui_screen_put(win, y + 1, x, w, a->attr[TUI_EL_HEADER], line);
	if (m->nsites == 0) {
		tui_screen_put(win, y + 2, x, w, a->attr[TUI_EL_ROW_IDLE], " no allocations seen yet");
		return;
	}
	tui_list_layout(l, (int)m->nsites, h - 2);
	for (int i = 0; i < h - 2 && l->top + i < (int)m->nsites; i++) {
		const struct proto_mem_site *s = &m->sites[l->top + i];
		unsigned long at = l->top + i == l->sel ? a->attr[TUI_EL_SELECTED] :
		    s->leak ? a->attr[TUI_EL_STATUS_WARN] : a->attr[TUI_EL_ROW];

		line[0] = ' ';
		mem_row_text(s, line + 1, sizeof line - 1);
		tui_screen_fill(win, y + 2 + i, x, w, at);
		tui_screen_put(win, y + 2 + i, x, w, at, line);
	}
}

/* The leak scan's lost blocks, by allocating stack. */
static void mem_leaks_text(FILE *f, const struct proto_mem_leaks *l)
{
	char line[512];

	if (l->seq == 0)
		return;
	mem_leaks_line(l, line, sizeof line);
	fprintf(f, "\n%s\n", line + 1);
	if (l->note != NULL && l->note[0])
		fprintf(f, "%s\n", l->note);
	for (size_t i = 0; i < l->nlost; i++) {
		fprintf(f, "\n%llu bytes in %llu blocks definitely lost (+%llu bytes in %llu blocks "
		    "indirectly), site %u\n", (unsigned long long)l->lost[i].bytes,
		    (unsigned long long)l->lost[i].blocks, (unsigned long long)l->lost[i].indirect_bytes,
		    (unsigned long long)l->lost[i].indirect_blocks, l->lost[i].site);
		tui_fmt_stack(f, &l->lost[i].stack);
	}
}

/* The selected site's stack and figures, then the biggest blocks. */
static void tui_panel_memory_details(struct tui_app *a)
{
	const struct proto_memory *m;
	const struct proto_mem_site *s;
	char title[160], *text = NULL;
	size_t len = 0;
	FILE *f;

	if (a->frame == NULL)
		return;
	m = &a->frame->frame.memory;
	if ((a->list[MEM_VIEW].sel >= (int)m->nsites || a->list[MEM_VIEW].sel < 0) && m->leaks.seq == 0)
		return;
	if ((f = open_memstream(&text, &len)) == NULL)
		return;
	snprintf(title, sizeof title, " leak scan ");
	if (a->list[MEM_VIEW].sel >= (int)m->nsites || a->list[MEM_VIEW].sel < 0) {
		mem_leaks_text(f, &m->leaks);
		goto show;
	}
	s = &m->sites[a->list[MEM_VIEW].sel];
	snprintf(title, sizeof title, " allocating site %u ", s->id);
	fprintf(f, "%s%llu bytes in %llu blocks in use; %llu allocations, %llu frees, %llu bytes "
	    "allocated%s\n", strcmp(m->mode, "sampled") == 0 ? "~" : "", (unsigned long long)s->bytes,
	    (unsigned long long)s->blocks, (unsigned long long)s->allocs, (unsigned long long)s->frees,
	    (unsigned long long)s->alloc_bytes, s->leak ? "\nSUSPECTED LEAK: grows steadily over the "
	    "leak window (`:threshold leak S` changes it)" : "");
	tui_fmt_stack(f, &s->stack);
	for (size_t i = 0; i < m->nbig; i++)
		if (m->big[i].site == s->id)
			fprintf(f, "  block of %llu bytes at 0x%llx\n", (unsigned long long)m->big[i].size,
			    (unsigned long long)m->big[i].addr);
	mem_leaks_text(f, &m->leaks);
show:
	fclose(f);
	tui_app_overlay(a, title, text);
	free(text);
}

static void tui_panel_memory_view(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	tui_panel_title(a, win, y, x, w, MEM_VIEW, tui_view_memory.title);
	tui_panel_memory_draw(a, win, y + 1, x, h - 1, w);
}

static void tui_panel_memory_box_rows(const struct tui_app *a, bool wide, int avail, int *min, int *want)
{
	(void)wide;
	*min = 2;
	*want = 1 + tui_panel_memory_height(a, avail);
}

/* Its row of the views table (views.c). */
const struct tui_view tui_view_memory = {
	.name = "memory", .tab = "mem", .key = '9',
	.title = " Memory", .help = "heap by allocating site (Enter: stack)", .part = "memory",
	.draw = tui_panel_memory_view,
	.box_draw = tui_panel_memory_view, .box_rows = tui_panel_memory_box_rows, .box_grow = 6,
	.list = true, .enter = tui_panel_memory_details,
};
