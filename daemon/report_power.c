/*
 * report_power.c - the power section of reports and metrics.  JSON: the
 * table, profile and warning, every resource with its holder and releaser
 * stacks, counts, held times, leaks and estimated charge, and the totals
 * per category.  Trace: "held resources", a counter with one value per
 * category, from the daemon's samples (power_hist.c).  Metrics: per
 * category (at most PROTO_MAX_PWR_CATS: the table's categories).  Every
 * mAh figure is an estimate (doc/power.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static void
power_text(struct report_buf *b, const struct report_ctx *c)
{
	report_add_free(b, daemon_power_report(c->s));
}

/* Counts of one category, summed over its resources (the daemon's own
 * per-category figures, struct proto_pwr_cat, have the rest). */
struct pwr_sums {
	uint64_t acquires, releases, timeouts, unmatched, oneshots;
	bool     priced;                  /* one of its resources has a current */
};

static struct pwr_sums
pwr_sums_of(const struct proto_power *p, const char *category)
{
	struct pwr_sums t = { 0 };

	for (size_t i = 0; i < p->nres; i++) {
		const struct proto_pwr_res *r = &p->res[i];

		if (strcmp(r->category, category) != 0)
			continue;
		t.acquires += r->acquires;
		t.releases += r->releases;
		t.timeouts += r->timeouts;
		t.unmatched += r->unmatched;
		t.oneshots += r->oneshots;
		t.priced |= r->mah >= 0;
	}
	return t;
}

/* A figure that may be absent (negative): the number, or null. */
static void
pwr_json_opt(struct report_json *j, const char *key, double v, bool present)
{
	if (present && isfinite(v))
		rj_f64(j, key, v);
	else
		rj_null(j, key);
}

static void
pwr_json_stack(struct report_json *j, const char *key, char *const *v, size_t n)
{
	rj_arr(j, key);
	for (size_t i = 0; i < n; i++)
		rj_str(j, NULL, v[i]);
	rj_end_arr(j);
}

static void
pwr_json_res(struct report_json *j, const struct proto_pwr_res *r)
{
	rj_obj(j, NULL);
	rj_str(j, "category", r->category);
	rj_str(j, "name", r->name);
	rj_str(j, "api", r->api);
	rj_str(j, "item", r->item);
	pwr_json_opt(j, "ma", r->ma, r->ma >= 0);
	rj_bool(j, "refcount", r->refcount);
	rj_bool(j, "held", r->held);
	rj_i64(j, "refs", r->refs);
	rj_bool(j, "leaked", r->leaked);
	rj_u64(j, "held_ns", r->held_ns);
	rj_u64(j, "total_ns", r->total_ns);
	rj_u64(j, "longest_ns", r->longest_ns);
	rj_u64(j, "acquires", r->acquires);
	rj_u64(j, "releases", r->releases);
	rj_u64(j, "timeouts", r->timeouts);
	rj_u64(j, "unmatched", r->unmatched);
	rj_u64(j, "oneshots", r->oneshots);
	rj_i64(j, "holder_tid", r->holder_tid);
	pwr_json_stack(j, "holder", r->holder, r->nholder);
	rj_i64(j, "releaser_tid", r->releaser_tid);
	pwr_json_stack(j, "releaser", r->releaser, r->nreleaser);
	pwr_json_opt(j, "mah", r->mah, r->mah >= 0);
	pwr_json_opt(j, "price_ma", r->price_ma, r->mah >= 0);
	rj_str(j, "price_from", r->mah >= 0 ? r->price_from : "");
	rj_end_obj(j);
}

static void
power_json(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_power *p = &c->s->power;

	rj_obj(j, NULL);
	rj_str(j, "table", p->table);
	rj_u64(j, "rows", p->rows);
	rj_u64(j, "errors", p->errors);
	rj_u64(j, "lost", p->lost);
	rj_u64(j, "hold_ns", p->hold_ns);
	rj_bool(j, "exited", p->exited);
	rj_u64(j, "time_ns", p->time_ns);
	rj_str(j, "profile", p->profile);
	rj_str(j, "warning", p->warning);
	pwr_json_opt(j, "cpu_ma", p->cpu_ma, c->s->power_rx_ns != 0 && p->cpu_ma >= 0);
	rj_arr(j, "resources");
	for (size_t i = 0; i < p->nres; i++)
		pwr_json_res(j, &p->res[i]);
	rj_end_arr(j);
	rj_arr(j, "categories");
	for (size_t i = 0; i < p->ncats; i++) {
		const struct proto_pwr_cat *k = &p->cats[i];
		struct pwr_sums t = pwr_sums_of(p, k->category);

		rj_obj(j, NULL);
		rj_str(j, "category", k->category);
		rj_u64(j, "held", k->held);
		rj_u64(j, "leaks", k->leaks);
		rj_u64(j, "total_ns", k->total_ns);
		pwr_json_opt(j, "mah", k->mah, t.priced);
		rj_u64(j, "acquires", t.acquires);
		rj_u64(j, "releases", t.releases);
		rj_u64(j, "timeouts", t.timeouts);
		rj_u64(j, "unmatched", t.unmatched);
		rj_u64(j, "oneshots", t.oneshots);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_end_obj(j);
}

/* "held resources": one counter event per sample, a value per category. */
static void
power_trace(struct report_json *j, const struct report_ctx *c)
{
	const struct daemon_pwr_hist *h = c->s->power_hist;

	if (h == NULL || h->ncats == 0)
		return;
	for (size_t i = 0; i < h->n; i++) {
		size_t at = (h->head + DAEMON_PWR_HIST - h->n + i) % DAEMON_PWR_HIST;

		report_trace_event(j, "C", "held resources", "power", c->s->pid, c->s->pid,
		    h->at_ns[at]);
		rj_obj(j, "args");
		for (size_t k = 0; k < h->ncats; k++)
			rj_u64(j, h->cats[k], h->held[at][k]);
		rj_end_obj(j);
		rj_end_obj(j);
	}
}

/* Label category, then the figure picked by what, for every category. */
static void
power_metric_each(struct report_metrics *m, const struct report_ctx *c, int what)
{
	const struct proto_power *p = &c->s->power;

	for (size_t i = 0; i < p->ncats; i++) {
		const struct proto_pwr_cat *k = &p->cats[i];
		struct pwr_sums t = pwr_sums_of(p, k->category);
		double v;

		switch (what) {
		case 0: v = k->held; break;
		case 1: v = (double)k->total_ns / 1e9; break;
		case 2: v = (double)t.acquires; break;
		case 3: v = k->leaks; break;
		default:
			if (!t.priced)
				continue;         /* no current for it: no estimate, not 0 */
			v = k->mah;
		}
		report_metric(m, v, "category", k->category, NULL);
	}
}

static void pwr_m_held(struct report_metrics *m, const struct report_ctx *c) { power_metric_each(m, c, 0); }
static void pwr_m_held_s(struct report_metrics *m, const struct report_ctx *c) { power_metric_each(m, c, 1); }
static void pwr_m_acq(struct report_metrics *m, const struct report_ctx *c) { power_metric_each(m, c, 2); }
static void pwr_m_leaks(struct report_metrics *m, const struct report_ctx *c) { power_metric_each(m, c, 3); }
static void pwr_m_mah(struct report_metrics *m, const struct report_ctx *c) { power_metric_each(m, c, 4); }

static const struct report_metric_family power_metrics[] = {
	{ "hookscope_power_held", "gauge",
	  "Power resources (wakelocks, sensors, ...) held now, per category.", pwr_m_held },
	{ "hookscope_power_held_seconds_total", "counter",
	  "Time power resources were held, summed over the category's resources.", pwr_m_held_s },
	{ "hookscope_power_acquisitions_total", "counter",
	  "Acquire calls of power resources, per category.", pwr_m_acq },
	{ "hookscope_power_leaks", "gauge",
	  "Power resources held at exit or past the hold threshold, per category.", pwr_m_leaks },
	{ "hookscope_power_charge_mah_total", "counter",
	  "Estimated charge of the held time, mAh (held time x the power profile's current; "
	  "priced categories only).", pwr_m_mah },
};

const struct report_section report_section_power = {
	.name = "power",
	.text = power_text,
	.json = power_json,
	.trace = power_trace,
	.metrics = power_metrics,
	.nmetrics = sizeof power_metrics / sizeof power_metrics[0],
};
