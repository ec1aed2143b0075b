/*
 * columns.c - the columns of the hot-functions table, shared by the curses
 * panel and the plain --once output, and the sort keys behind them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "tui.h"

/* Cell formatters, one per column. */
static void col_name(const struct proto_func *f, char *b, size_t n)  { snprintf(b, n, "%s", f->name); }
static void col_calls(const struct proto_func *f, char *b, size_t n) { tui_fmt_count(f->calls, b, n); }
static void col_rate(const struct proto_func *f, char *b, size_t n)  { tui_fmt_rate(f->calls_per_s, b, n); }
/* Total time; calls still in flight add their time so far, marked by a
 * trailing '+' (tui_fmt_ns leaves a column for it). */
static void col_total(const struct proto_func *f, char *b, size_t n)
{
	uint64_t t = f->total_ns + f->running_ns;
	size_t len;

	tui_fmt_ns(t < f->total_ns ? UINT64_MAX : t, b, n);    /* saturated */
	len = strlen(b);
	if (f->running_ns > 0 && len + 1 < n) {
		b[len] = '+';
		b[len + 1] = '\0';
	}
}
static void col_self(const struct proto_func *f, char *b, size_t n)  { tui_fmt_ns(f->self_ns, b, n); }
static void col_avg(const struct proto_func *f, char *b, size_t n)   { tui_fmt_ns(f->avg_ns, b, n); }
static void col_max(const struct proto_func *f, char *b, size_t n)   { tui_fmt_ns(f->max_ns, b, n); }
static void col_slow(const struct proto_func *f, char *b, size_t n)  { tui_fmt_count(f->slow, b, n); }
static void col_share(const struct proto_func *f, char *b, size_t n) { tui_fmt_share(f->share, b, n); }
/* Only a demoted function says how it is watched: timed is the rule. */
static void col_mode(const struct proto_func *f, char *b, size_t n)
{
	snprintf(b, n, "%s", f->mode != PROTO_FMODE_TIMED && proto_fmode_name(f->mode) ?
	    proto_fmode_name(f->mode) : "");
}
static void col_module(const struct proto_func *f, char *b, size_t n) { snprintf(b, n, "%s", f->module); }

/* In display order; the digit keys 1-8 pick the sort column in this order.
 * The last field: which estimate flag of the row makes the figure one. */
const struct tui_column tui_columns[TUI_COL_COUNT] = {
	[TUI_COL_NAME]   = { "NAME",    "name",  0, true,  col_name,   0 },
	[TUI_COL_CALLS]  = { "CALLS",   "calls", 7, false, col_calls,  TUI_EST_CALLS },
	[TUI_COL_RATE]   = { "CALLS/S", "rate",  7, false, col_rate,   TUI_EST_CALLS },
	[TUI_COL_TOTAL]  = { "TOTAL",   "total", 7, false, col_total,  TUI_EST_TIME },
	[TUI_COL_SELF]   = { "SELF",    "self",  7, false, col_self,   TUI_EST_TIME },
	[TUI_COL_AVG]    = { "AVG",     "avg",   7, false, col_avg,    TUI_EST_CALLS | TUI_EST_TIME },
	[TUI_COL_MAX]    = { "MAX",     "max",   7, false, col_max,    TUI_EST_TIME },
	[TUI_COL_SLOW]   = { "SLOW",    "slow",  6, false, col_slow,   TUI_EST_TIME },
	[TUI_COL_SHARE]  = { "SHARE%",  NULL,    6, false, col_share,  TUI_EST_TIME },
	[TUI_COL_MODE]   = { "MODE",    NULL,    7, true,  col_mode,   0 },
	[TUI_COL_MODULE] = { "MODULE",  NULL,   16, true,  col_module, 0 },
};

/* See tui.h: an estimated figure gets a leading '~' (each formatter leaves
 * a column for it). */
void tui_column_cell(int c, const struct proto_func *f, char *b, size_t n)
{
	unsigned est = tui_columns[c].est;
	size_t len;

	tui_columns[c].fmt(f, b, n);
	len = strlen(b);
	if (((est & TUI_EST_CALLS && f->calls_est) || (est & TUI_EST_TIME && f->time_est)) &&
	    len + 2 <= n) {
		memmove(b + 1, b, len + 1);
		b[0] = '~';
	}
}

/* The daemon's sort keys, in the order `s` cycles through them. */
const char *const tui_sort_keys[] = {
	"total", "self", "calls", "rate", "avg", "max", "slow", "name", NULL,
};

/* See tui.h: a key of the cycle is a key of protocol/rank.h too
 * (test-rank checks). */
int tui_sort_key_index(const char *key)
{
	for (int i = 0; tui_sort_keys[i] != NULL; i++)
		if (strcmp(key, tui_sort_keys[i]) == 0)
			return i;
	return -1;
}

/* See tui.h. */
int tui_column_of_sort(const char *key)
{
	for (int i = 0; i < TUI_COL_COUNT && key != NULL; i++)
		if (tui_columns[i].sort_key != NULL && strcmp(tui_columns[i].sort_key, key) == 0)
			return i;
	return -1;
}

/* qsort_r comparator: the daemon's comparison (protocol/rank.h), so a
 * local re-sort keeps the daemon's order of equal rows. */
static int columns_cmp(const void *a, const void *b, void *key)
{
	struct proto_rank_row ra, rb;

	proto_rank_row_of_func(&ra, a);
	proto_rank_row_of_func(&rb, b);
	return proto_rank_cmp(*(const int *)key, &ra, &rb);
}

/* See tui.h. */
void tui_funcs_sort(struct proto_func *f, size_t n, const char *key)
{
	int k = proto_rank_parse(key);

	if (k < 0 || n < 2)
		return;
	qsort_r(f, n, sizeof *f, columns_cmp, &k);
}

/* See tui.h. */
const struct proto_target *tui_frame_target(const struct proto_frame *f)
{
	for (size_t i = 0; i < f->ntargets; i++)
		if (f->targets[i].pid == f->pid)
			return &f->targets[i];
	return NULL;
}

/* See tui.h. */
bool tui_frame_demoted(const struct proto_frame *f)
{
	for (size_t i = 0; i < f->nfuncs; i++)
		if (f->funcs[i].mode != PROTO_FMODE_TIMED)
			return true;
	return false;
}

/* See tui.h. */
void tui_columns_print(FILE *out, const struct proto_frame *f, bool utf8)
{
	const struct proto_target *t = tui_frame_target(f);
	char calls[16], cell[1024], cost[48];
	char *sort = tui_fmt_clean(f->sort, false), *name = tui_fmt_clean(t ? t->name : "", false);
	int namew = 4;
	bool demoted = tui_frame_demoted(f);

	tui_fmt_count(f->calls_total, calls, sizeof calls);
	tui_fmt_cost(f, cost, sizeof cost);
	if (t != NULL)
		fprintf(out, "target %s (pid %d) %s, level %u | %s | sort %s | %llu functions seen | "
		    "%s calls | %llu dropped | %u threads\n", name, (int)t->pid,
		    proto_target_state_name(t->state), t->level, cost, sort,
		    (unsigned long long)f->nfuncs_seen, calls, (unsigned long long)f->dropped,
		    f->threads);
	else if (f->pid != 0)
		fprintf(out, "target pid %d | sort %s\n", (int)f->pid, sort);
	else
		fprintf(out, "no target yet (start one with `hookscoped run -- PROG`)\n");
	free(sort);
	free(name);
	for (size_t i = 0; i < f->nfuncs; i++) {
		int w = tui_fmt_width(f->funcs[i].name, utf8);

		namew = w > namew ? w : namew;
	}
	namew = namew > 60 ? 60 : namew;
	for (int c = 0; c < TUI_COL_COUNT; c++) {
		int w = c == TUI_COL_NAME ? namew : tui_columns[c].width;

		if (c == TUI_COL_MODE && !demoted)
			continue;
		if (c == TUI_COL_MODULE) {
			fprintf(out, " %s", tui_columns[c].title);
			continue;
		}
		tui_fmt_fit(tui_columns[c].title, w, utf8, tui_columns[c].left, cell, sizeof cell);
		fprintf(out, "%s%s", c ? " " : "", cell);
	}
	fputc('\n', out);
	for (size_t i = 0; i < f->nfuncs; i++) {
		for (int c = 0; c < TUI_COL_COUNT; c++) {
			char v[512];
			int w = c == TUI_COL_NAME ? namew : tui_columns[c].width;

			if (c == TUI_COL_MODE && !demoted)
				continue;
			tui_column_cell(c, &f->funcs[i], v, sizeof v);
			if (c == TUI_COL_MODULE) {
				tui_fmt_fit(v, tui_fmt_width(v, utf8), utf8, true, cell, sizeof cell);
				fprintf(out, " %s", cell);
				continue;
			}
			tui_fmt_fit(v, w, utf8, tui_columns[c].left, cell, sizeof cell);
			fprintf(out, "%s%s", c ? " " : "", cell);
		}
		fputc('\n', out);
	}
}
