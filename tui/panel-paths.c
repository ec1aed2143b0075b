/*
 * panel-paths.c - the call paths in the functions view (the frame's
 * "paths": the session's hottest paths and their ancestors).
 *   - Enter on a function opens a pane under the list: its callers and its
 *     callees (perf report's caller/callee view), calls, time through the
 *     edge and its share, live, following the selection; Esc closes it.
 *   - c turns the view into the call tree: the outermost timed calls, each
 *     path's children heaviest first; Enter, Right and Left expand and
 *     collapse, Up/Down/Home/End/PgUp/PgDn move; c or Esc goes back.
 * A path is kept open or selected by its id across frames.  The tree's
 * TIME is a path's inclusive time, or its children's when more: a call
 * still running (main) has returned none of its own yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "tui.h"
#include "panel-funcs.h"

#define PATHS_PANE_MAX  7     /* callers or callees shown, each */
#define PATHS_NAME_MIN  12

struct tui_paths {
	bool      pane;           /* callers/callees under the list */
	bool      tree;           /* the call tree instead of the list */
	uint32_t *open;           /* expanded path ids (sorted) */
	size_t    nopen, capopen;
	uint32_t  sel_id;         /* the tree's selection */
	int       top;            /* its first row shown */
	/* The tree's rows of the last draw: indexes into the frame's paths. */
	size_t   *rows;
	size_t    nrows, caprows;
	int       page;           /* rows shown */
};

static struct tui_paths *paths_state(struct tui_app *a)
{
	if (a->paths == NULL)
		a->paths = xcalloc(1, sizeof *a->paths);
	return a->paths;
}

/* See tui.h. */
void tui_paths_free(struct tui_app *a)
{
	if (a->paths == NULL)
		return;
	free(a->paths->open);
	free(a->paths->rows);
	free(a->paths);
	a->paths = NULL;
}

static const struct proto_frame *paths_frame(const struct tui_app *a)
{
	return a->frame ? &a->frame->frame : NULL;
}

/* The index of path id in the frame (its paths are in id order), or -1. */
static long paths_find(const struct proto_frame *f, uint32_t id)
{
	size_t lo = 0, hi = f->npaths;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->paths[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->npaths && f->paths[lo].id == id ? (long)lo : -1;
}

/* ---- callers and callees ---- */

struct paths_edge {
	const char *name;
	uint64_t    calls, ns;
};

/* Add calls and ns to name's edge in v (n of them, at most max). */
static void paths_edge_add(struct paths_edge *v, size_t *n, size_t max, const char *name,
    uint64_t calls, uint64_t ns)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(v[i].name, name) == 0) {
			v[i].calls += calls;
			v[i].ns += ns;
			return;
		}
	if (*n < max)
		v[(*n)++] = (struct paths_edge){ name, calls, ns };
}

static int paths_edge_cmp(const void *x, const void *y)
{
	const struct paths_edge *a = x, *b = y;

	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : 0;
}

/* Does path k have an ancestor calling fn (a recursion's inner path)? */
static bool paths_nested(const struct proto_frame *f, size_t k, const char *fn)
{
	for (uint32_t p = f->paths[k].parent; p != 0;) {
		long i = paths_find(f, p - 1);

		if (i < 0)
			return false;
		if (strcmp(f->paths[i].func, fn) == 0)
			return true;
		p = f->paths[i].parent;
	}
	return false;
}

/* fn's callers (callers true) or callees into v, heaviest first; *total:
 * fn's own time (its outermost paths' inclusive time), what shares are of. */
static size_t paths_edges(const struct proto_frame *f, const char *fn, bool callers,
    struct paths_edge *v, size_t max, uint64_t *total)
{
	size_t n = 0;

	*total = 0;
	for (size_t k = 0; k < f->npaths; k++) {
		const struct proto_path *p = &f->paths[k];
		long par = p->parent ? paths_find(f, p->parent - 1) : -1;

		if (strcmp(p->func, fn) == 0) {
			if (!paths_nested(f, k, fn))
				*total += p->incl_ns;
			if (callers)
				paths_edge_add(v, &n, max, par >= 0 ? f->paths[par].func : "[outermost]",
				    p->calls, p->incl_ns);
		} else if (!callers && par >= 0 && strcmp(f->paths[par].func, fn) == 0) {
			paths_edge_add(v, &n, max, p->func, p->calls, p->incl_ns);
		}
	}
	qsort(v, n, sizeof *v, paths_edge_cmp);
	return n;
}

/* One row: calls, time, share, name. */
static void paths_row(WINDOW *win, int y, int x, int w, unsigned long at,
    int depth, const char *mark, const char *name, uint64_t calls, uint64_t ns, uint64_t self,
    double share)
{
	char c[16], t[16], s[16], sh[16], line[512];

	tui_fmt_count(calls, c, sizeof c);
	tui_fmt_ns(ns, t, sizeof t);
	tui_fmt_share(share, sh, sizeof sh);
	if (self == UINT64_MAX)
		snprintf(s, sizeof s, "%s", "");
	else
		tui_fmt_ns(self, s, sizeof s);
	snprintf(line, sizeof line, "%9s %9s %9s %6s  %*s%s%s", c, t, s, sh, depth * 2, "", mark, name);
	tui_screen_fill(win, y, x, w, at);
	tui_screen_put(win, y, x, w, at, line);
}

/* The header of the pane and the tree. */
static void paths_header(struct tui_app *a, WINDOW *win, int y, int x, int w, const char *what,
    bool self)
{
	char line[256];

	snprintf(line, sizeof line, "%9s %9s %9s %6s  %s", "CALLS", "TIME", self ? "SELF" : "",
	    "SHARE", what);
	tui_screen_fill(win, y, x, w, a->attr[TUI_EL_HEADER]);
	tui_screen_put(win, y, x, w, a->attr[TUI_EL_HEADER], line);
}

/* Rows a pane of fn needs. */
static int paths_pane_rows(const struct proto_frame *f, const char *fn)
{
	struct paths_edge v[PATHS_PANE_MAX];
	uint64_t total;
	size_t a = paths_edges(f, fn, true, v, PATHS_PANE_MAX, &total);
	size_t b = paths_edges(f, fn, false, v, PATHS_PANE_MAX, &total);

	return 3 + (int)(a ? a : 1) + (int)(b ? b : 1);
}

/* The pane: a blank row, callers, callees of the selected function. */
static void paths_pane_draw(struct tui_app *a, WINDOW *win, int y, int x, int h, int w,
    const char *fn)
{
	const struct proto_frame *f = paths_frame(a);
	struct paths_edge v[PATHS_PANE_MAX];
	uint64_t total;
	char title[256];
	int row = y + 1;

	for (int side = 0; side < 2 && row < y + h; side++) {
		size_t n = paths_edges(f, fn, side == 0, v, PATHS_PANE_MAX, &total);

		snprintf(title, sizeof title, "%s of %s", side == 0 ? "callers" : "callees", fn);
		paths_header(a, win, row++, x, w, title, false);
		if (n == 0 && row < y + h)
			tui_screen_put(win, row++, x + 2, w - 2, a->attr[TUI_EL_ROW_IDLE],
			    f->npaths ? "(none among the hottest paths)" :
			    "(no call paths: level 0, HOOKSCOPE_PATHS=0 or the budget turned them off)");
		for (size_t i = 0; i < n && row < y + h; i++)
			paths_row(win, row++, x, w, a->attr[TUI_EL_ROW], 0, "", v[i].name, v[i].calls,
			    v[i].ns, UINT64_MAX, total ? (double)v[i].ns / (double)total : 0);
	}
}

/* ---- the call tree ---- */

static bool paths_is_open(const struct tui_paths *p, uint32_t id)
{
	for (size_t i = 0; i < p->nopen; i++)
		if (p->open[i] == id)
			return true;
	return false;
}

static void paths_set_open(struct tui_paths *p, uint32_t id, bool open)
{
	for (size_t i = 0; i < p->nopen; i++)
		if (p->open[i] == id) {
			if (!open)
				p->open[i] = p->open[--p->nopen];
			return;
		}
	if (!open)
		return;
	if (p->nopen == p->capopen) {
		p->capopen = p->capopen ? p->capopen * 2 : 32;
		p->open = xrealloc(p->open, p->capopen * sizeof *p->open);
	}
	p->open[p->nopen++] = id;
}

static const struct proto_frame *paths_cmp_f;

static int paths_cmp_incl(const void *x, const void *y)
{
	uint64_t a = paths_cmp_f->paths[*(const size_t *)x].incl_ns;
	uint64_t b = paths_cmp_f->paths[*(const size_t *)y].incl_ns;

	return a < b ? 1 : a > b ? -1 : 0;
}

/* Append the children of parent (id + 1; 0: the outermost) heaviest first,
 * each followed by its own when open. */
static void paths_flatten(struct tui_paths *p, const struct proto_frame *f, uint32_t parent,
    int depth, int *depths)
{
	size_t first = p->nrows, n;

	if (depth > 256)
		return;
	for (size_t k = 0; k < f->npaths; k++)
		if (f->paths[k].parent == parent) {
			if (p->nrows == p->caprows) {
				p->caprows = p->caprows ? p->caprows * 2 : 256;
				p->rows = xrealloc(p->rows, p->caprows * sizeof *p->rows);
			}
			p->rows[p->nrows++] = k;
		}
	n = p->nrows - first;
	paths_cmp_f = f;
	qsort(p->rows + first, n, sizeof *p->rows, paths_cmp_incl);
	/* Depth-first: each child's subtree right after it. */
	{
		size_t *kids = xcalloc(n ? n : 1, sizeof *kids);

		memcpy(kids, p->rows + first, n * sizeof *kids);
		p->nrows = first;
		for (size_t i = 0; i < n; i++) {
			depths[p->nrows] = depth;
			p->rows[p->nrows++] = kids[i];
			if (paths_is_open(p, f->paths[kids[i]].id))
				paths_flatten(p, f, f->paths[kids[i]].id + 1, depth + 1, depths);
		}
		free(kids);
	}
}

/* Does path k have children in the frame? */
static bool paths_has_kids(const struct proto_frame *f, size_t k)
{
	for (size_t i = k + 1; i < f->npaths; i++)
		if (f->paths[i].parent == f->paths[k].id + 1)
			return true;
	return false;
}

/* The selected row of the tree (its selection by id), -1 when empty. */
static int paths_sel_row(const struct tui_paths *p, const struct proto_frame *f)
{
	for (size_t r = 0; r < p->nrows; r++)
		if (f->paths[p->rows[r]].id == p->sel_id)
			return (int)r;
	return p->nrows ? 0 : -1;
}

/* Each path's time for the tree: its inclusive time, or its children's
 * when more (a call still running, main say, has returned no time of its
 * own yet); bottom up, since a parent comes before its children. */
static uint64_t *paths_eff(const struct proto_frame *f, uint64_t *total)
{
	uint64_t *eff = xcalloc(f->npaths, sizeof *eff), *kids = xcalloc(f->npaths, sizeof *kids);

	*total = 0;
	for (size_t k = f->npaths; k-- > 0;) {
		long par = f->paths[k].parent ? paths_find(f, f->paths[k].parent - 1) : -1;

		eff[k] = f->paths[k].incl_ns > kids[k] ? f->paths[k].incl_ns : kids[k];
		if (par >= 0)
			kids[par] += eff[k];
		else
			*total += eff[k];
	}
	free(kids);
	return eff;
}

static void paths_tree_draw(struct tui_app *a, WINDOW *win, int y, int x, int h, int w)
{
	struct tui_paths *p = paths_state(a);
	const struct proto_frame *f = paths_frame(a);
	int *depths, sel;
	uint64_t total = 0, *eff;
	char title[128];

	snprintf(title, sizeof title, "call tree%s (Enter/Right/Left: expand, collapse; c: back)",
	    f && f->paths_dropped ? ", some paths dropped" : "");
	paths_header(a, win, y, x, w, title, true);
	p->nrows = 0;
	p->page = h - 1;
	if (f == NULL || f->npaths == 0) {
		if (h > 2)
			tui_screen_put(win, y + 2, x + 2, w - 2, a->attr[TUI_EL_ROW_IDLE],
			    "no call paths yet (level 0, HOOKSCOPE_PATHS=0, or the budget turned them off)");
		return;
	}
	depths = xcalloc(f->npaths, sizeof *depths);
	paths_flatten(p, f, 0, 0, depths);
	eff = paths_eff(f, &total);
	sel = paths_sel_row(p, f);
	if (sel >= 0)
		p->sel_id = f->paths[p->rows[sel]].id;
	if (sel < p->top)
		p->top = sel;
	if (sel >= p->top + h - 1)
		p->top = sel - (h - 2);
	if (p->top < 0)
		p->top = 0;
	for (int i = 0; i < h - 1 && (size_t)(p->top + i) < p->nrows; i++) {
		size_t r = (size_t)(p->top + i), k = p->rows[r];
		const struct proto_path *x2 = &f->paths[k];
		const char *mark = !paths_has_kids(f, k) ? "  " : paths_is_open(p, x2->id) ?
		    (a->utf8 ? "\u25be " : "- ") : (a->utf8 ? "\u25b8 " : "+ ");

		paths_row(win, y + 1 + i, x, w, (int)r == sel ? a->attr[TUI_EL_SELECTED] :
		    a->attr[TUI_EL_ROW], depths[r], mark, x2->func, x2->calls, eff[k], x2->self_ns,
		    total ? (double)eff[k] / (double)total : 0);
	}
	free(depths);
	free(eff);
}

/* ---- the view and its keys ---- */

/* See tui.h: the functions view, with the pane or the tree. */
void tui_paths_view_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	struct tui_paths *p = a->paths;
	const struct proto_frame *f = paths_frame(a);
	const struct tui_list *l = &a->list[tui_view_index(&tui_view_funcs)];
	int pane;

	if (p != NULL && p->tree) {
		paths_tree_draw(a, win, y, x, h, w);
		return;
	}
	if (p == NULL || !p->pane || f == NULL || l->sel < 0 || (size_t)l->sel >= f->nfuncs) {
		tui_panel_funcs_draw(a, win, y, x, h, w);
		return;
	}
	pane = paths_pane_rows(f, f->funcs[l->sel].name);
	if (pane > h / 2)
		pane = h / 2;
	tui_panel_funcs_draw(a, win, y, x, h - pane, w);
	paths_pane_draw(a, win, y + h - pane, x, pane, w, f->funcs[l->sel].name);
}

/* See tui.h. */
void tui_paths_pane_open(struct tui_app *a)
{
	paths_state(a)->pane = true;
}

/* Move the tree's selection by delta rows (clamped). */
static void paths_move(struct tui_paths *p, const struct proto_frame *f, long delta)
{
	long r = f ? paths_sel_row(p, f) : -1;

	if (r < 0)
		return;
	r += delta;
	if (r < 0)
		r = 0;
	if (r >= (long)p->nrows)
		r = (long)p->nrows - 1;
	p->sel_id = f->paths[p->rows[r]].id;
}

/* See tui.h. */
bool tui_paths_key(struct tui_app *a, int key)
{
	struct tui_paths *p;
	const struct proto_frame *f = paths_frame(a);
	long r;

	if (a->view != tui_view_index(&tui_view_funcs))
		return false;
	p = paths_state(a);
	if (key == 'c') {
		p->tree = !p->tree;
		return true;
	}
	if (!p->tree) {
		if (key == 27 && p->pane) {
			p->pane = false;
			return true;
		}
		return false;
	}
	r = f ? paths_sel_row(p, f) : -1;
	switch (key) {
	case 27:
		p->tree = false;
		return true;
	case KEY_UP: case 'k':   paths_move(p, f, -1); return true;
	case KEY_DOWN: case 'j': paths_move(p, f, 1); return true;
	case KEY_PPAGE:          paths_move(p, f, -(long)(p->page > 1 ? p->page - 1 : 1)); return true;
	case KEY_NPAGE: case ' ': paths_move(p, f, p->page > 1 ? p->page - 1 : 1); return true;
	case KEY_HOME: case 'g': paths_move(p, f, -(long)p->nrows); return true;
	case KEY_END: case 'G':  paths_move(p, f, (long)p->nrows); return true;
	case '\r': case '\n': case KEY_ENTER: case KEY_RIGHT: case KEY_LEFT:
		if (r < 0)
			return true;
		{
			uint32_t id = f->paths[p->rows[r]].id;
			bool open = paths_is_open(p, id);

			if (key == KEY_LEFT && !open && f->paths[p->rows[r]].parent != 0) {
				p->sel_id = f->paths[p->rows[r]].parent - 1;   /* to the parent */
				return true;
			}
			paths_set_open(p, id, key == KEY_RIGHT ? true : key == KEY_LEFT ? false : !open);
		}
		return true;
	default:
		return false;
	}
}
