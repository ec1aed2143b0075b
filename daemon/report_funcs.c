/*
 * report_funcs.c - the functions section of reports and metrics: every
 * function with calls, ranked by total (+ running) time with averages;
 * /metrics gets the top
 * REPORT_METRICS_TOP by self time only (bounded label set).
 *
 * The overhead budget: each format says how each function is watched
 * (its mode) and which of its figures are estimates ('~' in the text), the
 * agent's cost and budget, and for each demoted function since when and
 * why; the trace marks each demotion when it happened.
 *
 * The call paths (paths.c) go with it: the whole tree in JSON, self time
 * per path as folded stacks, the tree as a flame chart in the trace.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "report.h"

/* A figure of the text report, "~" first when it is an estimate. */
static const char *
funcs_est(char *buf, size_t len, bool est, const char *figure)
{
	snprintf(buf, len, "%s%s", est ? "~" : "", figure);
	return buf;
}

/* The text report's budget lines: cost against budget, functions by mode. */
static void
funcs_text_budget(struct report_buf *b, const struct daemon_session *s)
{
	char c1[32], c2[32], c3[32];
	uint32_t ppm;

	report_add(b, "budget:    %s%s; the hooks cost %s of its CPU over the agent's last window\n",
	    proto_budget_str(s->budget_ppm, c1, sizeof c1),
	    s->budget_ppm ? " of the target's CPU" : " (every selected function timed)",
	    proto_ppm_str(s->cost_ppm, c2, sizeof c2));
	if (daemon_session_cost_sampled(s, &ppm))
		report_add(b, "sampled:   %s of the program threads' recent pc samples (%" PRIu32
		    ") were in the agent's code\n", proto_ppm_str(ppm, c3, sizeof c3), s->ip_samples);
	report_add(b, "modes:     ");
	for (unsigned m = 0; m < PROTO_FMODE_N; m++)
		report_add(b, "%s%" PRIu64 " %s", m ? ", " : "", daemon_session_nmode(s, m),
		    proto_fmode_name(m));
	report_add(b, " (~: an estimate: counted functions' times, sampled ones' calls "
	    "and times)\n");
}

/* The demoted functions: mode, since when, why. */
static void
funcs_text_demoted(struct report_buf *b, const struct report_ctx *c, struct daemon_func **rows,
    size_t n)
{
	char c1[32], c2[32], c3[32];
	uint64_t demoted = daemon_session_demoted(c->s);

	if (demoted == 0)
		return;
	report_add(b, "\ndemoted by the budget (%" PRIu64 "; those with calls listed): mode, "
	    "since, why (timing's cost when chosen), calls/s, avg\n", demoted);
	for (size_t i = 0; i < n; i++) {
		const struct daemon_func *f = rows[i];
		uint64_t age = daemon_func_mode_age_ms(f, c->now_ns);

		if (f->mode == PROTO_FMODE_TIMED)
			continue;
		report_add(b, "  %-8s %10s ago  %8s of the CPU  %10.0f/s  %12s  ",
		    proto_fmode_name(f->mode), age ? report_dur(c1, sizeof c1, age * 1000000) : "?",
		    proto_ppm_str(f->hook_ppm, c2, sizeof c2), f->rate,
		    report_dur(c3, sizeof c3, daemon_func_avg(f)));
		if (f->name != NULL)
			report_add(b, "%s\n", f->name);
		else
			report_add(b, "0x%" PRIx64 "\n", f->addr);
	}
}

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
	char c1[32], c2[32], e[7][40], d[32];
	double ovh_ns = (double)c->s->overhead_ps / 1000.0;

	report_add(b, "calls:     %" PRIu64 "\n", tot.calls);
	report_add(b, "overhead:  %.1f ns per call (about %s in all, already "
	    "removed from the times)\n", ovh_ns,
	    report_dur(c2, sizeof c2, (uint64_t)(ovh_ns * (double)tot.calls)));
	report_add(b, "functions: %zu known, %zu called or running\n", c->s->funcs.n, n);
	funcs_text_budget(b, c->s);
	report_add(b, "\n%5s %12s %12s %12s %12s %12s %12s %8s %-7s  %s\n", "rank", "calls",
	    "total", "running", "self", "avg", "max", "slow", "mode", "function [module]");
	for (size_t i = 0; i < n; i++) {
		const struct daemon_func *f = rows[i];
		bool t = f->time_est;

		/* One buffer per cell: the arguments are evaluated in any order. */
		snprintf(c1, sizeof c1, "%" PRIu64, f->calls);
		funcs_est(e[0], sizeof e[0], f->calls_est, c1);
		funcs_est(e[1], sizeof e[1], t, report_dur(d, sizeof d, f->total_ns));
		snprintf(e[2], sizeof e[2], "%s", f->running_ns ? report_dur(d, sizeof d, f->running_ns) : "-");
		funcs_est(e[3], sizeof e[3], t, report_dur(d, sizeof d, f->self_ns));
		funcs_est(e[4], sizeof e[4], t || f->calls_est, report_dur(d, sizeof d, daemon_func_avg(f)));
		funcs_est(e[5], sizeof e[5], t, report_dur(d, sizeof d, f->max_ns));
		snprintf(c1, sizeof c1, "%" PRIu64, f->slow);
		funcs_est(e[6], sizeof e[6], t, c1);
		report_add(b, "%5zu %12s %12s %12s %12s %12s %12s %8s %-7s  ", i + 1, e[0], e[1], e[2],
		    e[3], e[4], e[5], e[6], proto_fmode_name(f->mode));
		if (f->name != NULL)
			report_add(b, "%s", f->name);
		else
			report_add(b, "0x%" PRIx64, f->addr);
		report_add(b, "%s%s%s\n", f->module ? " [" : "",
		    f->module ? f->module : "", f->module ? "]" : "");
	}
	if (n == 0)
		report_add(b, "(no calls recorded)\n");
	funcs_text_demoted(b, c, rows, n);
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
	uint32_t ppm;

	rj_obj(j, NULL);
	rj_u64(j, "calls_total", tot.calls);
	rj_u64(j, "self_total_ns", tot.self_ns);
	rj_u64(j, "known", c->s->funcs.n);
	rj_u64(j, "cost_ppm", c->s->cost_ppm);
	if (daemon_session_cost_sampled(c->s, &ppm))
		rj_u64(j, "cost_sampled_ppm", ppm);
	else
		rj_null(j, "cost_sampled_ppm");
	rj_u64(j, "cost_samples", c->s->ip_samples);
	rj_u64(j, "budget_ppm", c->s->budget_ppm);
	rj_u64(j, "demoted", daemon_session_demoted(c->s));
	rj_obj(j, "modes");
	for (unsigned m = 0; m < PROTO_FMODE_N; m++)
		rj_u64(j, proto_fmode_name(m), daemon_session_nmode(c->s, m));
	rj_end_obj(j);
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
		rj_str(j, "mode", proto_fmode_name(f->mode));
		rj_bool(j, "calls_est", f->calls_est);
		rj_bool(j, "time_est", f->time_est);
		rj_u64(j, "mode_age_ms", daemon_func_mode_age_ms(f, c->now_ns));
		rj_u64(j, "hook_ppm", f->hook_ppm);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	daemon_paths_json(j, c->s);
	rj_end_obj(j);
	free(rows);
}

/* Folded: the call paths. */
static void
funcs_folded(struct report_folded *f, const struct report_ctx *c)
{
	daemon_paths_folded(f, c->s);
}

/* Trace: each demotion as an instant event when it happened, the agent's
 * cost and budget as a counter now (only the current figures exist). */
static void
funcs_trace(struct report_json *j, const struct report_ctx *c)
{
	const struct daemon_session *s = c->s;
	char addr[32], name[300];

	for (size_t k = 0; k < s->funcs.n; k++) {
		const struct daemon_func *f = &s->funcs.v[k];

		if (f->mode == PROTO_FMODE_TIMED || f->mode_since_ns == 0)
			continue;
		snprintf(addr, sizeof addr, "0x%" PRIx64, f->addr);
		snprintf(name, sizeof name, "%s: %s", f->name ? f->name : addr,
		    proto_fmode_name(f->mode));
		report_trace_event(j, "i", name, "budget", s->pid, s->pid, f->mode_since_ns);
		rj_str(j, "s", "p");
		rj_obj(j, "args");
		rj_str(j, "mode", proto_fmode_name(f->mode));
		rj_u64(j, "hook_ppm", f->hook_ppm);
		rj_end_obj(j);
		rj_end_obj(j);
	}
	report_trace_event(j, "C", "overhead budget", "budget", s->pid, s->pid, c->now_ns);
	rj_obj(j, "args");
	rj_f64(j, "cost_pct", s->cost_ppm / 1e4);
	rj_f64(j, "budget_pct", s->budget_ppm / 1e4);
	rj_end_obj(j);
	rj_end_obj(j);
	daemon_paths_trace(j, s, c->now_ns);
}

static void
funcs_metric_cost(struct report_metrics *m, const struct report_ctx *c)
{
	report_metric(m, c->s->cost_ppm / 1e6, NULL);
}

static void
funcs_metric_cost_sampled(struct report_metrics *m, const struct report_ctx *c)
{
	uint32_t ppm;

	if (daemon_session_cost_sampled(c->s, &ppm))
		report_metric(m, ppm / 1e6, NULL);
}

static void
funcs_metric_budget(struct report_metrics *m, const struct report_ctx *c)
{
	report_metric(m, c->s->budget_ppm / 1e6, NULL);
}

static void
funcs_metric_modes(struct report_metrics *m, const struct report_ctx *c)
{
	for (unsigned k = 0; k < PROTO_FMODE_N; k++)
		report_metric(m, (double)daemon_session_nmode(c->s, k), "mode", proto_fmode_name(k),
		    NULL);
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
		if (what == 3)        /* how it is watched: which figures are estimates */
			report_metric(m, 1.0, "function", f->name ? f->name : addr,
			    "module", f->module ? f->module : "", "mode", proto_fmode_name(f->mode),
			    "calls", f->calls_est ? "estimated" : "exact",
			    "time", f->time_est ? "estimated" : "exact", NULL);
		else
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

static void
funcs_metric_top_mode(struct report_metrics *m, const struct report_ctx *c)
{
	funcs_metric_top(m, c, 3);
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
	{ "hookscope_function_mode_info", "gauge",
	  "How the top 10 functions by self time are watched (value 1): mode, and whether "
	  "their calls and times are exact or estimated.", funcs_metric_top_mode },
	{ "hookscope_agent_cost_ratio", "gauge",
	  "What the agent's hooks cost the target over its last window, a share of its CPU time.",
	  funcs_metric_cost },
	{ "hookscope_agent_sampled_cost_ratio", "gauge",
	  "The share of the program threads' recent pc samples in the agent's own code (its hooks and "
	  "wrappers as the program pays them); absent with fewer than 50 samples.",
	  funcs_metric_cost_sampled },
	{ "hookscope_budget_ratio", "gauge",
	  "The overhead budget in force, a share of the target's CPU time; 0 = off.",
	  funcs_metric_budget },
	{ "hookscope_functions", "gauge",
	  "Functions known, by how the overhead budget has them watched.", funcs_metric_modes },
};

const struct report_section report_section_funcs = {
	.name = "functions",
	.text = funcs_text,
	.json = funcs_json,
	.trace = funcs_trace,
	.folded = funcs_folded,
	.metrics = funcs_metrics,
	.nmetrics = sizeof funcs_metrics / sizeof funcs_metrics[0],
};
