/*
 * report_ipc.c - the IPC section of reports and metrics.  JSON: the
 * threshold, every endpoint, the slow calls the daemon keeps (the newest
 * PROTO_MAX_IPC_SLOW) with their stacks.  Trace: each kept slow call is a
 * slice on its calling thread, from its start (the agent's monotonic clock)
 * for its length.  Metrics: per endpoint, the REPORT_METRICS_IPC_TOP with
 * the most time blocked, the others summed into one "other" series, so the
 * label set stays bounded whatever the target talks to.
 */
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "parts.h"

static void
ipc_text(struct report_buf *b, const struct report_ctx *c)
{
	report_add_free(b, daemon_ipc_report(c->s));
}

static void
ipc_json(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_ipc *p = &c->s->ipc;

	rj_obj(j, NULL);
	rj_u64(j, "threshold_ns", p->threshold_ns);
	rj_u64(j, "slow_count", p->slow_count);
	rj_arr(j, "endpoints");
	for (size_t i = 0; i < p->neps; i++)
		proto_struct_json(j, NULL, &proto_ipc_ep_desc, &p->eps[i]);   /* the wire form */
	rj_end_arr(j);
	rj_arr(j, "slow");
	for (size_t i = 0; i < p->nslow; i++) {
		const struct proto_ipc_slow *x = &p->slow[i];

		rj_obj(j, NULL);
		rj_u64(j, "id", x->id);
		rj_u64(j, "ep", x->ep);
		rj_str(j, "op", x->op);
		rj_i64(j, "tid", x->tid);
		rj_bool(j, "ui", x->ui);
		rj_u64(j, "start_ns", x->start_ns);
		rj_u64(j, "time_ms", x->time_ms);
		rj_u64(j, "dur_ns", x->dur_ns);
		rj_stack(j, "stack", &x->stack);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_end_obj(j);
}

/* Each slow call a slice "ipc OP" on its thread; args name the endpoint. */
static void
ipc_trace(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_ipc *p = &c->s->ipc;
	char name[96];

	for (size_t i = p->nslow; i-- > 0;) {           /* oldest first */
		const struct proto_ipc_slow *x = &p->slow[i];
		const struct proto_ipc_ep *e = daemon_ipc_ep_by_id(p, x->ep);

		if (x->start_ns == 0 || x->tid <= 0)
			continue;                   /* not timed: no slice to place */
		snprintf(name, sizeof name, "ipc %s", x->op);
		report_trace_event(j, "X", name, "ipc", c->s->pid, x->tid, x->start_ns);
		rj_us(j, "dur", x->dur_ns);
		rj_obj(j, "args");
		rj_u64(j, "id", x->id);
		rj_str(j, "kind", e ? e->kind : "");
		rj_str(j, "endpoint", e ? e->name : "");
		rj_str(j, "method", e ? e->method : "");
		rj_str(j, "peer", e ? e->peer_comm : "");
		rj_i64(j, "peer_pid", e ? e->peer_pid : 0);
		rj_bool(j, "ui", x->ui);
		rj_f64(j, "ms", (double)x->dur_ns / 1e6);
		rj_arr(j, "stack");
		for (size_t f = 0; f < x->stack.nframes; f++)
			rj_str(j, NULL, x->stack.frames[f].func[0] ? x->stack.frames[f].func : "??");
		rj_end_arr(j);
		rj_end_obj(j);
		rj_end_obj(j);
	}
}

/* One metrics series: an endpoint's labels and its summed figures. */
struct ipc_series {
	const char *kind, *name, *method, *peer;
	uint64_t ops, bytes_out, bytes_in, total_ns, slow;
};

static void
ipc_series_add(struct ipc_series *x, const struct proto_ipc_ep *e)
{
	x->ops += e->sends + e->recvs + e->calls + e->connects;
	x->bytes_out += e->bytes_out;
	x->bytes_in += e->bytes_in;
	x->total_ns += e->total_ns;
	x->slow += e->slow;
}

/* The series of a session into v (REPORT_METRICS_IPC_TOP + 1 slots): the
 * endpoints in order of time blocked (ipc.c keeps them sorted), those
 * with the same labels merged, past the top ones (and the agent's own
 * overflow endpoint, kind "other") summed into the last, "other".  Its count. */
static size_t
ipc_series(const struct proto_ipc *p, struct ipc_series *v)
{
	struct ipc_series rest = { .kind = "other", .name = "other", .method = "", .peer = "" };
	bool any_rest = false;
	size_t n = 0, k;

	for (size_t i = 0; i < p->neps; i++) {
		const struct proto_ipc_ep *e = &p->eps[i];

		for (k = 0; k < n; k++)
			if (strcmp(v[k].kind, e->kind) == 0 && strcmp(v[k].name, e->name) == 0 &&
			    strcmp(v[k].method, e->method) == 0 && strcmp(v[k].peer, e->peer_comm) == 0)
				break;
		if (k == n && (n == REPORT_METRICS_IPC_TOP || strcmp(e->kind, "other") == 0)) {
			ipc_series_add(&rest, e);
			any_rest = true;
			continue;
		}
		if (k == n)
			v[n++] = (struct ipc_series){ .kind = e->kind, .name = e->name,
			    .method = e->method, .peer = e->peer_comm };
		ipc_series_add(&v[k], e);
	}
	if (any_rest)
		v[n++] = rest;
	return n;
}

/* Every series of the session, the figure picked by what. */
static void
ipc_metric_each(struct report_metrics *m, const struct report_ctx *c, int what)
{
	struct ipc_series v[REPORT_METRICS_IPC_TOP + 1];
	size_t n = ipc_series(&c->s->ipc, v);

	for (size_t i = 0; i < n; i++) {
		double val = what == 0 ? (double)v[i].ops : what == 1 ? (double)v[i].bytes_out :
		    what == 2 ? (double)v[i].bytes_in : what == 3 ? (double)v[i].total_ns / 1e9 :
		    (double)v[i].slow;

		report_metric(m, val, "kind", v[i].kind, "endpoint", v[i].name, "method",
		    v[i].method, "peer", v[i].peer, NULL);
	}
}

static void ipc_m_calls(struct report_metrics *m, const struct report_ctx *c) { ipc_metric_each(m, c, 0); }
static void ipc_m_sent(struct report_metrics *m, const struct report_ctx *c) { ipc_metric_each(m, c, 1); }
static void ipc_m_received(struct report_metrics *m, const struct report_ctx *c) { ipc_metric_each(m, c, 2); }
static void ipc_m_seconds(struct report_metrics *m, const struct report_ctx *c) { ipc_metric_each(m, c, 3); }
static void ipc_m_slow(struct report_metrics *m, const struct report_ctx *c) { ipc_metric_each(m, c, 4); }

/* Endpoints with activity: how many the series stand for (a gauge reads 0
 * rather than vanishing when there are none). */
static void
ipc_m_endpoints(struct report_metrics *m, const struct report_ctx *c)
{
	report_metric(m, (double)c->s->ipc.neps, NULL);
}

static const struct report_metric_family ipc_metrics[] = {
	{ "hookscope_ipc_endpoints", "gauge",
	  "IPC endpoints the target used since start or reset.", ipc_m_endpoints },
	{ "hookscope_ipc_calls_total", "counter",
	  "IPC operations (sends, receives, method calls, connects) per endpoint: those "
	  "with the most time blocked, the rest summed as endpoint=\"other\".", ipc_m_calls },
	{ "hookscope_ipc_sent_bytes_total", "counter",
	  "Bytes the target sent per IPC endpoint.", ipc_m_sent },
	{ "hookscope_ipc_received_bytes_total", "counter",
	  "Bytes the target received per IPC endpoint.", ipc_m_received },
	{ "hookscope_ipc_call_seconds_total", "counter",
	  "Time blocked in IPC operations per endpoint.", ipc_m_seconds },
	{ "hookscope_ipc_slow_calls_total", "counter",
	  "IPC operations longer than the ipc threshold per endpoint.", ipc_m_slow },
};

const struct report_section report_section_ipc = {
	.name = "ipc",
	.text = ipc_text,
	.json = ipc_json,
	.trace = ipc_trace,
	.metrics = ipc_metrics,
	.nmetrics = sizeof ipc_metrics / sizeof ipc_metrics[0],
};
