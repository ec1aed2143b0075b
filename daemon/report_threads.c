/*
 * report_threads.c - the threads section of reports and metrics.  Trace:
 * every thread's name as metadata (so frames and blocks land on named
 * tracks) and the live-thread count as a counter (one sample per second).
 */
#include <stdio.h>
#include <stdlib.h>
#include "report.h"
#include "parts.h"

static void
thr_text(struct report_buf *b, const struct report_ctx *c)
{
	report_add_free(b, daemon_threads_report(c->s));
}

/* A code address with its name. */
static void
thr_json_frame(struct report_json *j, const char *key, const struct proto_thr_frame *f)
{
	char addr[32];

	snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)f->addr);
	rj_obj(j, key);
	rj_str(j, "addr", addr);
	rj_str(j, "name", f->name);
	rj_str(j, "module", f->module);
	rj_u64(j, "off", f->off);
	rj_end_obj(j);
}

static void
thr_json(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_threads *t = &c->s->thr;
	const struct daemon_thr_hist *h = &c->s->thr_hist;

	rj_obj(j, NULL);
	rj_u64(j, "created", t->created);
	rj_u64(j, "exited", t->exited);
	rj_u64(j, "live", t->live);
	rj_u64(j, "other_live", t->other_live);
	rj_f64(j, "created_per_s", t->created_per_s);
	rj_u64(j, "not_recorded", t->dropped);
	rj_obj(j, "agent");
	rj_u64(j, "created", t->agent_created);
	rj_u64(j, "live", t->agent_live);
	rj_u64(j, "cpu_ns", t->agent_cpu_ns);
	rj_end_obj(j);
	rj_arr(j, "history");
	for (size_t i = 0; i < h->n; i++) {
		rj_obj(j, NULL);
		rj_u64(j, "at_ns", h->at_ns[i]);
		rj_u64(j, "live", h->live[i]);
		rj_u64(j, "created", h->created[i]);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_arr(j, "threads");
	for (size_t i = 0; i < t->nthreads; i++)
		proto_struct_json(j, NULL, &proto_thr_thread_desc, &t->threads[i]);   /* the wire form */
	rj_end_arr(j);
	rj_arr(j, "sites");
	for (size_t i = 0; i < t->nsites; i++) {
		const struct proto_thr_site *x = &t->sites[i];

		rj_obj(j, NULL);
		rj_u64(j, "id", x->id);
		thr_json_frame(j, "start", &x->start);
		rj_u64(j, "created", x->created);
		rj_u64(j, "live", x->live);
		rj_arr(j, "stack");
		for (size_t k = 0; k < x->nstack; k++)
			thr_json_frame(j, NULL, &x->stack[k]);
		rj_end_arr(j);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_arr(j, "pools");
	for (size_t i = 0; i < t->npools; i++) {
		const struct proto_thr_pool *p = &t->pools[i];

		rj_obj(j, NULL);
		rj_u64(j, "id", p->id);
		rj_str(j, "kind", p->kind);
		thr_json_frame(j, "func", &p->func);
		rj_i64(j, "size", p->size);
		rj_u64(j, "workers", p->workers);
		rj_u64(j, "pushed", p->pushed);
		rj_u64(j, "done", p->done);
		rj_u64(j, "wait_ns", p->wait_ns);
		rj_u64(j, "wait_max_ns", p->wait_max_ns);
		rj_u64(j, "run_ns", p->run_ns);
		rj_u64(j, "run_max_ns", p->run_max_ns);
		rj_bool(j, "freed", p->freed);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_end_obj(j);
}

/* Thread names (M) and the live-thread counter (C). */
static void
thr_trace(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_threads *t = &c->s->thr;
	const struct daemon_thr_hist *h = &c->s->thr_hist;

	for (size_t i = 0; i < t->nthreads; i++) {
		if (t->threads[i].tid <= 0)
			continue;
		report_trace_meta(j, "thread_name", c->s->pid, t->threads[i].tid,
		    t->threads[i].name);
	}
	for (size_t i = 0; i < h->n; i++) {
		report_trace_event(j, "C", "threads", "threads", c->s->pid, c->s->pid, h->at_ns[i]);
		rj_obj(j, "args");
		rj_u64(j, "live", h->live[i]);
		rj_end_obj(j);
		rj_end_obj(j);
	}
}

static void
thr_m_live(struct report_metrics *m, const struct report_ctx *c)
{
	if (c->s->thr.time_ns != 0)
		report_metric(m, (double)c->s->thr.live, NULL);
}

static void
thr_m_created(struct report_metrics *m, const struct report_ctx *c)
{
	if (c->s->thr.time_ns != 0)
		report_metric(m, (double)c->s->thr.created, NULL);
}

static const struct report_metric_family thr_metrics[] = {
	{ "hookscope_threads", "gauge",
	  "Live threads of the target, main included.", thr_m_live },
	{ "hookscope_threads_created_total", "counter",
	  "Threads the target created since start or reset.", thr_m_created },
};

const struct report_section report_section_threads = {
	.name = "threads",
	.text = thr_text,
	.json = thr_json,
	.trace = thr_trace,
	.metrics = thr_metrics,
	.nmetrics = sizeof thr_metrics / sizeof thr_metrics[0],
};
