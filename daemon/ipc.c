/*
 * ipc.c - the IPC state of a session: each agent "ipc" record carries every
 * endpoint with activity (cumulative figures: they replace the last ones)
 * and the slow calls it has not sent yet (merged by id, the newest
 * PROTO_MAX_IPC_SLOW kept, wall-clock time set on receipt, names
 * demangled).  The daemon adds operations per second per endpoint; frames
 * carry it all as "ipc"; the report gets an IPC section.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon_collector.h"
#include "report.h"
#include "issue.h"

#define IPC_RATE_NS 1000000000ull

/* Operations per endpoint at the last rate sample (ids are < PROTO_MAX_IPC_EPS). */
struct daemon_ipc_rate {
	uint64_t at_ns;
	uint64_t ops[PROTO_MAX_IPC_EPS];
	double   rate[PROTO_MAX_IPC_EPS];
};

/* All operations of an endpoint. */
static uint64_t
ipc_ops(const struct proto_ipc_ep *e)
{
	return e->sends + e->recvs + e->calls + e->connects;
}

/* Newest first (ids grow with time). */
static int
ipc_slow_cmp(const void *a, const void *b)
{
	const struct proto_ipc_slow *x = a, *y = b;

	return x->id > y->id ? -1 : x->id < y->id;
}

/* Most time blocked first. */
static int
ipc_ep_cmp(const void *a, const void *b)
{
	const struct proto_ipc_ep *x = a, *y = b;

	return x->total_ns > y->total_ns ? -1 : x->total_ns < y->total_ns;
}

/* Refresh the per-endpoint rates once a second. */
static void
ipc_rates(struct daemon_session *s, uint64_t now_ns)
{
	struct daemon_ipc_rate *r = s->ipc_rate;

	if (r == NULL)
		r = s->ipc_rate = xcalloc(1, sizeof *r);
	if (r->at_ns != 0 && now_ns < r->at_ns + IPC_RATE_NS)
		goto apply;
	for (size_t i = 0; i < s->ipc.neps; i++) {
		const struct proto_ipc_ep *e = &s->ipc.eps[i];
		uint64_t ops = ipc_ops(e);

		if (e->id >= PROTO_MAX_IPC_EPS)
			continue;
		r->rate[e->id] = r->at_ns != 0 && ops >= r->ops[e->id] ?
		    (double)(ops - r->ops[e->id]) * 1e9 / (double)(now_ns - r->at_ns) : 0;
		r->ops[e->id] = ops;
	}
	r->at_ns = now_ns;
apply:
	for (size_t i = 0; i < s->ipc.neps; i++)
		if (s->ipc.eps[i].id < PROTO_MAX_IPC_EPS)
			s->ipc.eps[i].ops_per_s = r->rate[s->ipc.eps[i].id];
}

/* Demangle a frame's function name in place. */
static void
ipc_demangle(struct proto_block_frame *f)
{
	char *plain = f->func != NULL ? daemon_demangle(f->func) : NULL;

	if (plain != NULL) {
		free(f->func);
		f->func = plain;
	}
}

/* See daemon.h. */
void
daemon_session_ipc(struct daemon_session *s, const struct proto_agent_rec *r, uint64_t now_ns)
{
	const struct proto_ipc *in = &r->ipc;
	struct proto_ipc *d = &s->ipc;
	uint64_t wall = proto_wall_ms();

	d->threshold_ns = in->threshold_ns;
	d->slow_count = in->slow_count;
	for (size_t i = 0; i < d->neps; i++)
		proto_ipc_ep_free(&d->eps[i]);
	free(d->eps);
	d->neps = in->neps;
	d->eps = xcalloc(in->neps ? in->neps : 1, sizeof *d->eps);
	for (size_t i = 0; i < in->neps; i++)
		proto_ipc_ep_copy(&d->eps[i], &in->eps[i]);
	qsort(d->eps, d->neps, sizeof *d->eps, ipc_ep_cmp);
	for (size_t i = 0; i < in->nslow; i++) {
		const struct proto_ipc_slow *x = &in->slow[i];
		struct proto_ipc_slow *slot = NULL;
		uint64_t ago = r->time_ns > x->start_ns ? r->time_ns - x->start_ns : 0;

		for (size_t k = 0; k < d->nslow && slot == NULL; k++)
			if (d->slow[k].id == x->id)
				slot = &d->slow[k];
		if (slot == NULL && d->nslow < PROTO_MAX_IPC_SLOW) {
			d->slow = xrealloc(d->slow, (d->nslow + 1) * sizeof *d->slow);
			slot = &d->slow[d->nslow++];
		} else if (slot == NULL) {
			if (x->id < d->slow[d->nslow - 1].id)
				continue;         /* older than all we keep */
			slot = &d->slow[d->nslow - 1];
			proto_ipc_slow_free(slot);
		} else {
			proto_ipc_slow_free(slot);
		}
		proto_ipc_slow_copy(slot, x);
		slot->time_ms = wall > ago / 1000000 ? wall - ago / 1000000 : 0;
		for (size_t k = 0; k < slot->stack.nframes; k++)
			ipc_demangle(&slot->stack.frames[k]);
		qsort(d->slow, d->nslow, sizeof *d->slow, ipc_slow_cmp);
	}
	ipc_rates(s, now_ns);
}

/* The agent sends everything again after its reset. */
static void
ipc_reset(struct daemon_session *s, uint64_t now_ns)
{
	uint64_t thr = s->ipc.threshold_ns;

	(void)now_ns;
	proto_ipc_free(&s->ipc);
	s->ipc.threshold_ns = thr;
	free(s->ipc_rate);
	s->ipc_rate = NULL;
}

/* A slow call on the UI thread is a "slow-ipc" issue; the same endpoint,
 * method and operation are the same issue. */
static void
ipc_detect(struct daemon_session *s, uint64_t now_ns)
{
	const struct proto_ipc *p = &s->ipc;

	for (size_t i = p->nslow; i-- > 0;) {           /* oldest first */
		const struct proto_ipc_slow *x = &p->slow[i];
		const struct proto_ipc_ep *e = daemon_ipc_ep_by_id(p, x->ep);
		char where[512], title[768], top[256];

		if (!x->ui || p->threshold_ns == 0)
			continue;
		snprintf(where, sizeof where, "%s %s%s%s %s", e ? e->kind : "?", e ? e->name : "?",
		    e && e->method[0] ? " " : "", e ? e->method : "", x->op);
		snprintf(title, sizeof title, "slow IPC on the UI thread: %s took %.0f ms in %s",
		    where, (double)x->dur_ns / 1e6, daemon_issue_where(top, sizeof top, &x->stack));
		const struct proto_issue_fig figs[] = {
			{ "dur", (double)x->dur_ns, "ns" },
			{ "threshold", (double)p->threshold_ns, "ns" },
			{ "peer_pid", e ? (double)e->peer_pid : 0, "" },
		};
		const struct daemon_issue_in in = {
			.type = "slow-ipc", .where = where, .title = title, .value = x->dur_ns,
			.threshold = p->threshold_ns, .unit = "ns", .occ = x->id, .tid = x->tid,
			.figs = figs, .nfigs = 3, .stack = &x->stack,
		};
		daemon_issue_raise(s, &in, now_ns);
	}
}

static void
ipc_free(struct daemon_session *s)
{
	proto_ipc_free(&s->ipc);
	free(s->ipc_rate);
	s->ipc_rate = NULL;
}

/* See daemon.h. */
const struct proto_ipc_ep *
daemon_ipc_ep_by_id(const struct proto_ipc *p, uint32_t id)
{
	for (size_t i = 0; i < p->neps; i++)
		if (p->eps[i].id == id)
			return &p->eps[i];
	return NULL;
}

/* See daemon.h: endpoints (most time blocked first), then the slow calls
 * with their stacks. */
char *
daemon_ipc_report(const struct daemon_session *s)
{
	const struct proto_ipc *p = &s->ipc;
	char clk[48], *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL)
		return xstrdup("IPC: (out of memory)\n");
	fprintf(m, "IPC\n\n");
	fprintf(m, "slow-call threshold %.1f ms; %" PRIu64 " slow calls since start or reset; "
	    "%zu endpoints\n", (double)p->threshold_ns / 1e6, p->slow_count, p->neps);
	fprintf(m, "\n%-10s %-40s %-36s %8s %8s %8s %10s %10s %10s %10s %6s %5s  %s\n", "kind",
	    "endpoint", "method", "sends", "recvs", "calls", "bytes out", "bytes in", "total",
	    "max", "ui", "slow", "peer");
	for (size_t i = 0; i < p->neps; i++) {
		const struct proto_ipc_ep *e = &p->eps[i];

		fprintf(m, "%-10s %-40s %-36s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %10" PRIu64
		    " %10" PRIu64 " %8.2fms %8.2fms %6" PRIu64 " %5" PRIu64 "  ", e->kind, e->name,
		    e->method[0] ? e->method : "-", e->sends, e->recvs, e->calls + e->connects,
		    e->bytes_out, e->bytes_in, (double)e->total_ns / 1e6, (double)e->max_ns / 1e6,
		    e->ui_calls, e->slow);
		if (e->peer_pid > 0)
			fprintf(m, "%s[%d]\n", e->peer_comm, (int)e->peer_pid);
		else
			fprintf(m, "-\n");
	}
	for (size_t i = 0; i < p->nslow; i++) {
		const struct proto_ipc_slow *x = &p->slow[i];
		const struct proto_ipc_ep *e = daemon_ipc_ep_by_id(p, x->ep);

		fprintf(m, "\nslow call %u at %s: %s %.1f ms on %s%s%s%s, thread %d%s\n", x->id,
		    daemon_clock_ms(clk, sizeof clk, x->time_ms), x->op, (double)x->dur_ns / 1e6,
		    e ? e->name : "?", e && e->method[0] ? " (" : "", e ? e->method : "",
		    e && e->method[0] ? ")" : "", (int)x->tid, x->ui ? " (UI thread)" : "");
		daemon_report_stack(m, &x->stack);
	}
	fprintf(m, "\n");
	fclose(m);
	return out;
}

static void
ipc_frame(struct daemon_session *s, struct proto_frame *f)
{
	f->ipc = s->ipc;
}

static const struct daemon_threshold ipc_thresholds[] = {
	{ .name = "ipc", .unit = "ms", .ns_per_unit = 1e6, .min = 1, .max = 3600e3,
	  .help = "IPC calls longer are slow (stack kept)" },
};

extern const struct report_section report_section_ipc;   /* report_ipc.c */

const struct daemon_collector daemon_collector_ipc = {
	.name = "ipc",
	.part = &proto_part_ipc,
	.on_record = daemon_session_ipc,
	.reset = ipc_reset,
	.detect = ipc_detect,
	.free = ipc_free,
	.fill_frame = ipc_frame,
	.report = &report_section_ipc,
	.thresholds = ipc_thresholds,
	.nthresholds = sizeof ipc_thresholds / sizeof ipc_thresholds[0],
};
