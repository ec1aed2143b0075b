/*
 * report_funcs.c - the functions section of reports and metrics: every
 * function with calls, ranked by total (+ running) time with averages;
 * /metrics gets the top
 * REPORT_METRICS_TOP by self time only (bounded label set).
 *
 * The timing collector keeps flat per-function figures (no call paths), so
 * this section has no folded stacks and no trace events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "report.h"

/* The ranked functions of c's session (heap) and their count. */
static struct daemon_func **
funcs_ranked(const struct report_ctx *c, int key, size_t *n, struct daemon_totals *tot)
{
	struct daemon_session *s = c->s;
	struct daemon_func **rows = xcalloc(s->funcs.n ? s->funcs.n : 1, sizeof *rows);

	*n = daemon_rank(s, key, NULL, rows, s->funcs.n, tot);
	return rows;
}

/* Text: totals, then the ranking ("running": time so far of calls that had
 * not returned at the last report, counted with total by the rank). */
static void
funcs_text(struct report_buf *b, const struct report_ctx *c)
{
	struct daemon_totals tot;
	size_t n;
	struct daemon_func **rows = funcs_ranked(c, PROTO_RANK_TOTAL, &n, &tot);
	char c1[32], c2[32], c3[32], c4[32], c5[32];
	double ovh_ns = (double)c->s->overhead_ps / 1000.0;

	report_add(b, "calls:     %" PRIu64 "\n", tot.calls);
	report_add(b, "overhead:  %.1f ns per call (about %s in all, already "
	    "removed from the times)\n", ovh_ns,
	    report_dur(c2, sizeof c2, (uint64_t)(ovh_ns * (double)tot.calls)));
	report_add(b, "functions: %zu known, %zu called or running\n\n", c->s->funcs.n, n);
	report_add(b, "%5s %12s %12s %12s %12s %12s %12s %8s  %s\n", "rank", "calls",
	    "total", "running", "self", "avg", "max", "slow", "function [module]");
	for (size_t i = 0; i < n; i++) {
		const struct daemon_func *f = rows[i];

		report_add(b, "%5zu %12" PRIu64 " %12s %12s %12s %12s %12s %8" PRIu64 "  ",
		    i + 1, f->calls, report_dur(c1, sizeof c1, f->total_ns),
		    f->running_ns ? report_dur(c5, sizeof c5, f->running_ns) : "-",
		    report_dur(c2, sizeof c2, f->self_ns),
		    report_dur(c3, sizeof c3, daemon_func_avg(f)),
		    report_dur(c4, sizeof c4, f->max_ns), f->slow);
		if (f->name != NULL)
			report_add(b, "%s", f->name);
		else
			report_add(b, "0x%" PRIx64, f->addr);
		report_add(b, "%s%s%s\n", f->module ? " [" : "",
		    f->module ? f->module : "", f->module ? "]" : "");
	}
	if (n == 0)
		report_add(b, "(no calls recorded)\n");
	free(rows);
}

/* JSON: totals and every function, ranked as in the text. */
static void
funcs_json(struct report_json *j, const struct report_ctx *c)
{
	struct daemon_totals tot;
	size_t n;
	struct daemon_func **rows = funcs_ranked(c, PROTO_RANK_TOTAL, &n, &tot);
	char addr[32];

	rj_obj(j, NULL);
	rj_u64(j, "calls_total", tot.calls);
	rj_u64(j, "self_total_ns", tot.self_ns);
	rj_u64(j, "known", c->s->funcs.n);
	rj_arr(j, "list");
	for (size_t i = 0; i < n; i++) {
		const struct daemon_func *f = rows[i];

		snprintf(addr, sizeof addr, "0x%" PRIx64, f->addr);
		rj_obj(j, NULL);
		rj_u64(j, "rank", i + 1);
		rj_str(j, "name", f->name ? f->name : addr);
		rj_str(j, "module", f->module ? f->module : "");
		rj_str(j, "addr", addr);
		rj_u64(j, "calls", f->calls);
		rj_u64(j, "total_ns", f->total_ns);
		rj_u64(j, "self_ns", f->self_ns);
		rj_u64(j, "avg_ns", daemon_func_avg(f));
		rj_u64(j, "max_ns", f->max_ns);
		rj_u64(j, "slow", f->slow);
		rj_u64(j, "running_ns", f->running_ns);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_end_obj(j);
	free(rows);
}

static void
funcs_metric_calls(struct report_metrics *m, const struct report_ctx *c)
{
	struct daemon_totals tot;
	size_t n;

	free(funcs_ranked(c, PROTO_RANK_TOTAL, &n, &tot));
	report_metric(m, (double)tot.calls, NULL);
}

static void
funcs_metric_dropped(struct report_metrics *m, const struct report_ctx *c)
{
	report_metric(m, (double)c->s->dropped, NULL);
}

/* The top functions by self time: one figure of each. */
static void
funcs_metric_top(struct report_metrics *m, const struct report_ctx *c, int what)
{
	struct daemon_totals tot;
	size_t n;
	struct daemon_func **rows = funcs_ranked(c, PROTO_RANK_SELF, &n, &tot);
	char addr[32];

	for (size_t i = 0; i < n && i < REPORT_METRICS_TOP; i++) {
		const struct daemon_func *f = rows[i];
		double v = what == 0 ? (double)f->calls : what == 1 ? f->self_ns / 1e9 :
		    f->total_ns / 1e9;

		snprintf(addr, sizeof addr, "0x%" PRIx64, f->addr);
		report_metric(m, v, "function", f->name ? f->name : addr,
		    "module", f->module ? f->module : "", NULL);
	}
	free(rows);
}

static void
funcs_metric_top_calls(struct report_metrics *m, const struct report_ctx *c)
{
	funcs_metric_top(m, c, 0);
}

static void
funcs_metric_top_self(struct report_metrics *m, const struct report_ctx *c)
{
	funcs_metric_top(m, c, 1);
}

static void
funcs_metric_top_total(struct report_metrics *m, const struct report_ctx *c)
{
	funcs_metric_top(m, c, 2);
}

static const struct report_metric_family funcs_metrics[] = {
	{ "hookscope_calls_total", "counter",
	  "Calls of all timed functions since start or reset.", funcs_metric_calls },
	{ "hookscope_dropped_events_total", "counter",
	  "Events the agent dropped.", funcs_metric_dropped },
	{ "hookscope_function_calls_total", "counter",
	  "Calls of the top 10 functions by self time.", funcs_metric_top_calls },
	{ "hookscope_function_self_seconds_total", "counter",
	  "Self time of the top 10 functions by self time.", funcs_metric_top_self },
	{ "hookscope_function_seconds_total", "counter",
	  "Inclusive time of the top 10 functions by self time.", funcs_metric_top_total },
};

const struct report_section report_section_funcs = {
	.name = "functions",
	.text = funcs_text,
	.json = funcs_json,
	.metrics = funcs_metrics,
	.nmetrics = sizeof funcs_metrics / sizeof funcs_metrics[0],
};
