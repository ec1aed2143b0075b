/*
 * report_net.c - the network section of reports and metrics.  Text: the
 * endpoints, names, requests and recent events with their stacks.  JSON:
 * the rows in their wire form (field tables), events with the report's
 * stacks.  Trace: each kept
 * event is a slice "net OP" on its thread.  Metrics: per endpoint and per
 * request row, the REPORT_METRICS_NET_TOP with the most time, the others
 * summed into one "other" series, so the label set stays bounded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "parts.h"
#include "daemon_net.h"

#define REPORT_METRICS_NET_TOP 10

static void
net_text(struct report_buf *b, const struct report_ctx *c)
{
	const struct proto_network *p = daemon_net_of(c->s);
	char clk[48], *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL) {
		report_add(b, "Network: (out of memory)\n");
		return;
	}
	fprintf(m, "Network\n\nslow threshold %.1f ms; large responses over %" PRIu64 " bytes; "
	    "%" PRIu64 " events since start or reset\n", (double)p->threshold_ns / 1e6,
	    p->large_bytes, p->event_count);
	fprintf(m, "\n%-5s %-40s %8s %6s %10s %8s %8s %12s %12s %6s %5s %5s  %s\n", "proto",
	    "endpoint", "connects", "failed", "connect", "sends", "recvs", "bytes out", "bytes in",
	    "errors", "tls", "tls!", "last error");
	for (size_t i = 0; i < p->neps; i++) {
		const struct proto_net_ep *e = &p->eps[i];
		uint64_t ok = e->connects > e->connect_fails ? e->connects - e->connect_fails : 0;

		fprintf(m, "%-5s %-40s %8" PRIu64 " %6" PRIu64 " %8.2fms %8" PRIu64 " %8" PRIu64
		    " %12" PRIu64 " %12" PRIu64 " %6" PRIu64 " %5" PRIu64 " %5" PRIu64 "  %s\n", e->proto,
		    e->addr, e->connects, e->connect_fails, ok ? (double)e->connect_ns / 1e6 / (double)ok : 0,
		    e->sends, e->recvs, e->bytes_out, e->bytes_in, e->errors, e->tls, e->tls_fails,
		    e->error[0] ? e->error : "-");
	}
	if (p->ndns > 0)
		fprintf(m, "\n%-48s %8s %6s %10s %10s  %s\n", "name resolved", "calls", "failed",
		    "avg", "max", "last error");
	for (size_t i = 0; i < p->ndns; i++) {
		const struct proto_net_dns *d = &p->dns[i];

		fprintf(m, "%-48s %8" PRIu64 " %6" PRIu64 " %8.2fms %8.2fms  %s\n", d->name, d->calls,
		    d->fails, d->calls ? (double)d->total_ns / 1e6 / (double)d->calls : 0,
		    (double)d->max_ns / 1e6, d->error[0] ? d->error : "-");
	}
	if (p->nhttp > 0)
		fprintf(m, "\n%-7s %-60s %8s %6s %6s %6s %12s %10s %10s %6s  %s\n", "method", "request",
		    "requests", "failed", ">=400", "status", "bytes in", "avg", "max", "large",
		    "last error");
	for (size_t i = 0; i < p->nhttp; i++) {
		const struct proto_net_http *h = &p->http[i];
		char url[512];

		snprintf(url, sizeof url, "%s://%s%s", h->scheme, h->host, h->path);
		fprintf(m, "%-7s %-60s %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6u %12" PRIu64
		    " %8.2fms %8.2fms %6" PRIu64 "  %s\n", h->method, url, h->requests, h->fails,
		    h->status_err, h->status, h->bytes_in,
		    h->requests ? (double)h->total_ns / 1e6 / (double)h->requests : 0,
		    (double)h->max_ns / 1e6, h->large, h->error[0] ? h->error : "-");
	}
	for (size_t i = 0; i < p->nevents; i++) {
		const struct proto_net_event *x = &p->events[i];

		fprintf(m, "\n%s %u at %s: %s %s %.1f ms, thread %d%s%s\n",
		    x->error[0] ? "failed" : x->large ? "large" : "slow", x->id,
		    daemon_clock_ms(clk, sizeof clk, x->time_ms), x->op, x->what,
		    (double)x->dur_ns / 1e6, (int)x->tid, x->error[0] ? ": " : "", x->error);
		daemon_report_stack(m, &x->stack);
	}
	fprintf(m, "\n");
	fclose(m);
	report_add_free(b, out);
}

/* The wire form of the rows (their field tables); events with the
 * report's stack form (rj_stack), as the other sections' stacks. */
static void
net_json(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_network *p = daemon_net_of(c->s);

	rj_obj(j, NULL);
	rj_u64(j, "threshold_ns", p->threshold_ns);
	rj_u64(j, "large_bytes", p->large_bytes);
	rj_u64(j, "event_count", p->event_count);
	rj_arr(j, "endpoints");
	for (size_t i = 0; i < p->neps; i++)
		proto_struct_json(j, NULL, &proto_net_ep_desc, &p->eps[i]);
	rj_end_arr(j);
	rj_arr(j, "dns");
	for (size_t i = 0; i < p->ndns; i++)
		proto_struct_json(j, NULL, &proto_net_dns_desc, &p->dns[i]);
	rj_end_arr(j);
	rj_arr(j, "http");
	for (size_t i = 0; i < p->nhttp; i++)
		proto_struct_json(j, NULL, &proto_net_http_desc, &p->http[i]);
	rj_end_arr(j);
	rj_arr(j, "events");
	for (size_t i = 0; i < p->nevents; i++) {
		const struct proto_net_event *x = &p->events[i];

		rj_obj(j, NULL);
		rj_u64(j, "id", x->id);
		rj_str(j, "op", x->op);
		rj_str(j, "what", x->what);
		rj_str(j, "error", x->error);
		rj_u64(j, "status", x->status);
		rj_bool(j, "large", x->large);
		rj_i64(j, "tid", x->tid);
		rj_u64(j, "start_ns", x->start_ns);
		rj_u64(j, "time_ms", x->time_ms);
		rj_u64(j, "dur_ns", x->dur_ns);
		rj_u64(j, "bytes", x->bytes);
		rj_stack(j, "stack", &x->stack);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_end_obj(j);
}

/* Each kept event a slice "net OP" on its thread; args name what and why. */
static void
net_trace(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_network *p = daemon_net_of(c->s);
	char name[64];

	for (size_t i = p->nevents; i-- > 0;) {           /* oldest first */
		const struct proto_net_event *x = &p->events[i];

		if (x->start_ns == 0 || x->tid <= 0)
			continue;
		snprintf(name, sizeof name, "net %s", x->op);
		report_trace_event(j, "X", name, "network", c->s->pid, x->tid, x->start_ns);
		rj_us(j, "dur", x->dur_ns);
		rj_obj(j, "args");
		rj_u64(j, "id", x->id);
		rj_str(j, "what", x->what);
		rj_str(j, "error", x->error);
		rj_u64(j, "status", x->status);
		rj_bool(j, "large", x->large);
		rj_f64(j, "ms", (double)x->dur_ns / 1e6);
		rj_arr(j, "stack");
		for (size_t f = 0; f < x->stack.nframes; f++)
			rj_str(j, NULL, x->stack.frames[f].func[0] ? x->stack.frames[f].func : "??");
		rj_end_arr(j);
		rj_end_obj(j);
		rj_end_obj(j);
	}
}

/* Metrics series: a label value and figures, the top rows by time (the rows
 * are kept sorted so), the rest in "other". */
struct net_series {
	char     label[3][256];
	uint64_t v[5];
};

/* Add figures v into series k of out (n so far), or "other" past the top. */
static size_t
net_series_add(struct net_series *out, size_t n, const char *l0, const char *l1, const char *l2,
    const uint64_t v[5])
{
	size_t k = n < REPORT_METRICS_NET_TOP ? n : REPORT_METRICS_NET_TOP;
	const char *l[3] = { l0, l1, l2 };

	if (k == n) {                             /* a new series: a top row, or "other" */
		for (int i = 0; i < 3; i++)
			snprintf(out[k].label[i], sizeof out[k].label[i], "%s",
			    k < REPORT_METRICS_NET_TOP ? l[i] : "other");
		n++;
	}
	for (int i = 0; i < 5; i++)
		out[k].v[i] += v[i];
	return n;
}

/* The endpoint series (proto, endpoint): connects, failed connects, bytes
 * out, bytes in, errors. */
static size_t
net_ep_series(const struct proto_network *p, struct net_series *out)
{
	size_t n = 0;

	memset(out, 0, (REPORT_METRICS_NET_TOP + 1) * sizeof *out);
	for (size_t i = 0; i < p->neps; i++) {
		const struct proto_net_ep *e = &p->eps[i];
		const uint64_t v[5] = { e->connects, e->connect_fails, e->bytes_out, e->bytes_in,
			e->errors };

		n = net_series_add(out, n, e->proto, e->addr, "", v);
	}
	return n;
}

/* The request series (method, host, path): requests, failed, status >= 400,
 * response bytes, total time in ms. */
static size_t
net_http_series(const struct proto_network *p, struct net_series *out)
{
	size_t n = 0;

	memset(out, 0, (REPORT_METRICS_NET_TOP + 1) * sizeof *out);
	for (size_t i = 0; i < p->nhttp; i++) {
		const struct proto_net_http *h = &p->http[i];
		const uint64_t v[5] = { h->requests, h->fails, h->status_err, h->bytes_in,
			h->total_ns / 1000 };

		n = net_series_add(out, n, h->method, h->host, h->path, v);
	}
	return n;
}

static void
net_m_ep(struct report_metrics *m, const struct report_ctx *c, int what)
{
	struct net_series v[REPORT_METRICS_NET_TOP + 1];
	size_t n = net_ep_series(daemon_net_of(c->s), v);

	for (size_t i = 0; i < n; i++)
		report_metric(m, (double)v[i].v[what], "proto", v[i].label[0], "endpoint",
		    v[i].label[1], NULL);
}

static void
net_m_http(struct report_metrics *m, const struct report_ctx *c, int what)
{
	struct net_series v[REPORT_METRICS_NET_TOP + 1];
	size_t n = net_http_series(daemon_net_of(c->s), v);

	for (size_t i = 0; i < n; i++)
		report_metric(m, what == 4 ? (double)v[i].v[4] / 1e6 : (double)v[i].v[what], "method",
		    v[i].label[0], "host", v[i].label[1], "path", v[i].label[2], NULL);
}

static void net_m_connects(struct report_metrics *m, const struct report_ctx *c) { net_m_ep(m, c, 0); }
static void net_m_cfails(struct report_metrics *m, const struct report_ctx *c) { net_m_ep(m, c, 1); }
static void net_m_sent(struct report_metrics *m, const struct report_ctx *c) { net_m_ep(m, c, 2); }
static void net_m_recv(struct report_metrics *m, const struct report_ctx *c) { net_m_ep(m, c, 3); }
static void net_m_errors(struct report_metrics *m, const struct report_ctx *c) { net_m_ep(m, c, 4); }
static void net_m_requests(struct report_metrics *m, const struct report_ctx *c) { net_m_http(m, c, 0); }
static void net_m_rfails(struct report_metrics *m, const struct report_ctx *c) { net_m_http(m, c, 1); }
static void net_m_rstatus(struct report_metrics *m, const struct report_ctx *c) { net_m_http(m, c, 2); }
static void net_m_rbytes(struct report_metrics *m, const struct report_ctx *c) { net_m_http(m, c, 3); }
static void net_m_rsecs(struct report_metrics *m, const struct report_ctx *c) { net_m_http(m, c, 4); }

/* Names resolved and failed lookups (no per-name labels: names are unbounded). */
static void
net_m_dns(struct report_metrics *m, const struct report_ctx *c, bool fails)
{
	const struct proto_network *p = daemon_net_of(c->s);
	uint64_t n = 0;

	for (size_t i = 0; i < p->ndns; i++)
		n += fails ? p->dns[i].fails : p->dns[i].calls;
	report_metric(m, (double)n, NULL);
}
static void net_m_lookups(struct report_metrics *m, const struct report_ctx *c) { net_m_dns(m, c, false); }
static void net_m_lfails(struct report_metrics *m, const struct report_ctx *c) { net_m_dns(m, c, true); }

static const struct report_metric_family net_metrics[] = {
	{ "hookscope_net_connects_total", "counter",
	  "connect() calls per remote endpoint: the top 10 by time, the rest as endpoint=\"other\".",
	  net_m_connects },
	{ "hookscope_net_connect_failures_total", "counter",
	  "connect() calls that failed per remote endpoint.", net_m_cfails },
	{ "hookscope_net_sent_bytes_total", "counter", "Bytes sent per remote endpoint.", net_m_sent },
	{ "hookscope_net_received_bytes_total", "counter", "Bytes received per remote endpoint.",
	  net_m_recv },
	{ "hookscope_net_errors_total", "counter",
	  "Failed network operations (refused, reset, timed out, TLS) per remote endpoint.", net_m_errors },
	{ "hookscope_net_dns_lookups_total", "counter", "Name resolutions (getaddrinfo, gethostbyname*).",
	  net_m_lookups },
	{ "hookscope_net_dns_failures_total", "counter", "Name resolutions that failed.", net_m_lfails },
	{ "hookscope_net_http_requests_total", "counter",
	  "libcurl transfers per method, host and path: the top 10 by time, the rest as \"other\".",
	  net_m_requests },
	{ "hookscope_net_http_failures_total", "counter", "libcurl transfers that failed (no response).",
	  net_m_rfails },
	{ "hookscope_net_http_error_status_total", "counter", "libcurl responses with a status of 400 or more.",
	  net_m_rstatus },
	{ "hookscope_net_http_received_bytes_total", "counter", "Response bytes of libcurl transfers.",
	  net_m_rbytes },
	{ "hookscope_net_http_seconds_total", "counter", "Total time of libcurl transfers (curl's own timer).",
	  net_m_rsecs },
};

const struct report_section report_section_network = {
	.name = "network",
	.text = net_text,
	.json = net_json,
	.trace = net_trace,
	.metrics = net_metrics,
	.nmetrics = sizeof net_metrics / sizeof net_metrics[0],
};
