/*
 * report_issues.c - the issues section of reports and metrics.  Text: one
 * paragraph per issue (most recently seen first) with its figures and
 * stack, then the sinks.  JSON: the frame's "issues" map (the field table).
 * Metrics: occurrences per type (a counter: an issue's severity may grow,
 * its occurrences stay in one series) and distinct issues per type and
 * severity (a few types, three severities: the label set stays small).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "issue.h"
#include "report.h"

/* The session's issues with the sinks' state, as frames carry them. */
static struct proto_issues
iss_view(struct daemon_session *s)
{
	struct proto_issues v = *daemon_issues_of(s);
	size_t n;

	v.sinks = (struct proto_issue_sink *)daemon_issue_sinks_state(&n);
	v.nsinks = n;
	return v;
}

static void
iss_text(struct report_buf *b, const struct report_ctx *c)
{
	struct proto_issues v = iss_view(c->s);
	char clk[2][48];

	report_add(b, "issues\n\n%" PRIu64 " distinct issues since start or reset, the last %zu "
	    "listed\n", v.raised, v.nlist);
	for (size_t k = 0; k < v.nlist; k++) {
		const struct proto_issue *i = &v.list[k];

		report_add(b, "\n%s %s %s (x%" PRIu64 ", first %s, last %s): %s\n", i->id, i->severity,
		    i->type, i->count, daemon_clock_ms(clk[0], sizeof clk[0], i->first_ms),
		    daemon_clock_ms(clk[1], sizeof clk[1], i->last_ms), i->title);
		report_add(b, "  %" PRIu64 " %s against %" PRIu64 " (%.2fx), thread %d %s\n", i->value,
		    i->unit, i->threshold, i->over, (int)i->tid, i->thread);
		for (size_t f = 0; f < i->nfigs; f++)
			report_add(b, "  %s %.15g %s\n", i->figs[f].name, i->figs[f].value, i->figs[f].unit);
		for (size_t f = 0; f < i->stack.nframes; f++) {
			const struct proto_block_frame *fr = &i->stack.frames[f];

			report_add(b, "      #%-2zu %s+0x%" PRIx64 " (%s)", f, fr->func[0] ? fr->func : "??",
			    fr->off, fr->module[0] ? fr->module : "?");
			if (fr->file[0])
				report_add(b, " %s:%u", fr->file, fr->line);
			report_add(b, "\n");
		}
	}
	for (size_t k = 0; k < v.nsinks; k++) {
		const struct proto_issue_sink *sk = &v.sinks[k];

		report_add(b, "%ssink %s %s: queued %" PRIu64 ", sent %" PRIu64 ", failed %" PRIu64
		    ", dropped %" PRIu64 "%s%s\n", k == 0 ? "\n" : "", sk->name, sk->dest, sk->queued,
		    sk->sent, sk->failed, sk->dropped, sk->error[0] ? "; last error: " : "", sk->error);
	}
	report_add(b, "\n");
}

static void
iss_json(struct report_json *j, const struct report_ctx *c)
{
	struct proto_issues v = iss_view(c->s);

	proto_struct_json(j, NULL, &proto_issues_desc, &v);
}

static const char *const iss_sev[] = { "minor", "major", "critical" };

/* Per type seen: occurrences of its issues (by_severity false), or
 * distinct issues per type and severity. */
static void
iss_m_emit(struct report_metrics *m, const struct report_ctx *c, bool by_severity)
{
	const struct proto_issues *v = daemon_issues_of(c->s);

	for (size_t k = 0; k < v->nlist; k++) {
		bool first = true;

		for (size_t p = 0; p < k && first; p++)
			first = strcmp(v->list[p].type, v->list[k].type) != 0;
		if (!first)
			continue;         /* this type's samples are out already */
		for (size_t s = 0; s < (by_severity ? 3 : 1); s++) {
			double n = 0;
			bool any = false;

			for (size_t q = k; q < v->nlist; q++)
				if (strcmp(v->list[q].type, v->list[k].type) == 0 && (!by_severity ||
				    strcmp(v->list[q].severity, iss_sev[s]) == 0)) {
					n += by_severity ? 1 : (double)v->list[q].count;
					any = true;
				}
			if (any && by_severity)
				report_metric(m, n, "type", v->list[k].type, "severity", iss_sev[s], NULL);
			else if (any)
				report_metric(m, n, "type", v->list[k].type, NULL);
		}
	}
}

static void
iss_m_total(struct report_metrics *m, const struct report_ctx *c)
{
	iss_m_emit(m, c, false);
}

static void
iss_m_distinct(struct report_metrics *m, const struct report_ctx *c)
{
	iss_m_emit(m, c, true);
}

static const struct report_metric_family iss_metrics[] = {
	{ "hookscope_issues_total", "counter",
	  "Occurrences of the issues kept (doc/issues.md), by type.", iss_m_total },
	{ "hookscope_issues", "gauge",
	  "Distinct issues kept, by type and severity.", iss_m_distinct },
};

const struct report_section report_section_issues = {
	.name = "issues",
	.text = iss_text,
	.json = iss_json,
	.metrics = iss_metrics,
	.nmetrics = sizeof iss_metrics / sizeof iss_metrics[0],
};
