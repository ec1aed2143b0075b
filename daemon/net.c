/*
 * net.c - the network state of a session: each agent "network" record
 * carries every endpoint, name and request row with activity (cumulative:
 * they replace the last ones) and the events it has not sent yet (merged
 * by id, the newest PROTO_MAX_NET_EVENTS kept, wall-clock time set on
 * receipt, names demangled).  Failed and slow operations become issues;
 * frames carry it all as "network"; the report gets a network section
 * (report_net.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon_collector.h"
#include "daemon_net.h"
#include "issue.h"

extern const struct daemon_collector daemon_collector_network;

/* See daemon_net.h. */
struct proto_network *
daemon_net_of(struct daemon_session *s)
{
	return daemon_session_state(s, &daemon_collector_network);
}

/* Time spent on an endpoint: most first. */
static int
net_ep_cmp(const void *a, const void *b)
{
	const struct proto_net_ep *x = a, *y = b;
	uint64_t tx = x->connect_ns + x->io_ns + x->tls_ns, ty = y->connect_ns + y->io_ns + y->tls_ns;

	return tx > ty ? -1 : tx < ty;
}

static int
net_dns_cmp(const void *a, const void *b)
{
	const struct proto_net_dns *x = a, *y = b;

	return x->total_ns > y->total_ns ? -1 : x->total_ns < y->total_ns;
}

static int
net_http_cmp(const void *a, const void *b)
{
	const struct proto_net_http *x = a, *y = b;

	return x->total_ns > y->total_ns ? -1 : x->total_ns < y->total_ns;
}

/* Newest first (ids grow with time). */
static int
net_event_cmp(const void *a, const void *b)
{
	const struct proto_net_event *x = a, *y = b;

	return x->id > y->id ? -1 : x->id < y->id;
}

/* Replace d's rows and thresholds by the record's (the field table's copy
 * of the map without its events); d's events stay. */
static void
net_replace_rows(struct proto_network *d, const struct proto_network *in)
{
	struct proto_network tmp = *in, old = *d;

	tmp.nevents = 0;
	tmp.events = NULL;
	proto_struct_copy(&proto_network_desc, d, &tmp);
	free(d->events);                          /* the copy's empty array */
	d->nevents = old.nevents;
	d->events = old.events;
	old.nevents = 0;
	old.events = NULL;
	proto_network_free(&old);
	qsort(d->eps, d->neps, sizeof *d->eps, net_ep_cmp);
	qsort(d->dns, d->ndns, sizeof *d->dns, net_dns_cmp);
	qsort(d->http, d->nhttp, sizeof *d->http, net_http_cmp);
}

static void
net_on_record(struct daemon_session *s, const struct proto_agent_rec *r, uint64_t now_ns)
{
	struct proto_network *d = daemon_net_of(s);
	const struct proto_network *in = &r->net;
	uint64_t wall = proto_wall_ms();

	(void)now_ns;
	net_replace_rows(d, in);
	for (size_t i = 0; i < in->nevents; i++) {
		const struct proto_net_event *x = &in->events[i];
		struct proto_net_event *slot = NULL;
		uint64_t ago = r->time_ns > x->start_ns + x->dur_ns ? r->time_ns - x->start_ns - x->dur_ns : 0;

		for (size_t k = 0; k < d->nevents && slot == NULL; k++)
			if (d->events[k].id == x->id)
				slot = &d->events[k];
		if (slot == NULL && d->nevents < PROTO_MAX_NET_EVENTS) {
			d->events = xrealloc(d->events, (d->nevents + 1) * sizeof *d->events);
			slot = &d->events[d->nevents++];
		} else if (slot == NULL) {
			if (x->id < d->events[d->nevents - 1].id)
				continue;                 /* older than all we keep */
			slot = &d->events[d->nevents - 1];
			proto_net_event_free(slot);
		} else {
			proto_net_event_free(slot);
		}
		proto_net_event_copy(slot, x);
		slot->time_ms = wall > ago / 1000000 ? wall - ago / 1000000 : 0;
		for (size_t k = 0; k < slot->stack.nframes; k++) {
			char *plain = slot->stack.frames[k].func ? daemon_demangle(slot->stack.frames[k].func) : NULL;

			if (plain != NULL) {
				free(slot->stack.frames[k].func);
				slot->stack.frames[k].func = plain;
			}
		}
		qsort(d->events, d->nevents, sizeof *d->events, net_event_cmp);
	}
}

/* The agent sends everything again after its reset. */
static void
net_reset(struct daemon_session *s, uint64_t now_ns)
{
	struct proto_network *d = daemon_net_of(s);
	uint64_t thr = d->threshold_ns, large = d->large_bytes;

	(void)now_ns;
	proto_network_free(d);
	d->threshold_ns = thr;
	d->large_bytes = large;
}

/* A failed operation is a "network-failure" issue, a slow one (or a large
 * response) a "slow-network" one; the same operation on the same endpoint,
 * name or request is the same issue. */
static void
net_detect(struct daemon_session *s, uint64_t now_ns)
{
	const struct proto_network *p = daemon_net_of(s);

	for (size_t i = p->nevents; i-- > 0;) {           /* oldest first */
		const struct proto_net_event *x = &p->events[i];
		bool failed = x->error[0] != '\0';
		char where[256], title[640], top[256];

		snprintf(where, sizeof where, "%s %s", x->op, x->what);
		if (failed)
			snprintf(title, sizeof title, "network %s failed: %s: %s (in %s)", x->op, x->what,
			    x->error, daemon_issue_where(top, sizeof top, &x->stack));
		else
			snprintf(title, sizeof title, "%s network %s: %s took %.0f ms%s (in %s)",
			    x->large ? "large" : "slow", x->op, x->what, (double)x->dur_ns / 1e6,
			    x->large ? ", large response" : "", daemon_issue_where(top, sizeof top, &x->stack));
		const struct proto_issue_fig figs[] = {
			{ "dur", (double)x->dur_ns, "ns" },
			{ "threshold", (double)p->threshold_ns, "ns" },
			{ "status", (double)x->status, "" },
			{ "bytes", (double)x->bytes, "bytes" },
		};
		const struct daemon_issue_in in = {
			.type = failed ? "network-failure" : "slow-network", .where = where, .title = title,
			.value = x->large && !failed ? x->bytes : failed ? 1 : x->dur_ns,
			.threshold = x->large && !failed ? p->large_bytes : failed ? 1 : p->threshold_ns,
			.unit = x->large && !failed ? "bytes" : failed ? "count" : "ns",
			.occ = x->id, .tid = x->tid, .figs = figs, .nfigs = 4, .stack = &x->stack,
		};
		daemon_issue_raise(s, &in, now_ns);
	}
}

static void
net_free(struct daemon_session *s)
{
	proto_network_free(daemon_net_of(s));
}

static void
net_frame(struct daemon_session *s, struct proto_frame *f)
{
	f->net = *daemon_net_of(s);
}

static const struct daemon_threshold net_thresholds[] = {
	{ .name = "net", .unit = "ms", .ns_per_unit = 1e6, .min = 1, .max = 3600e3,
	  .help = "network operations and requests longer are slow (stack kept)" },
	{ .name = "net-large", .unit = "KiB", .ns_per_unit = 1024, .min = 1, .max = 1073741824.0,
	  .help = "HTTP responses larger are flagged" },
};

extern const struct report_section report_section_network;   /* report_net.c */

const struct daemon_collector daemon_collector_network = {
	.name = "network",
	.part = &proto_part_network,
	.on_record = net_on_record,
	.reset = net_reset,
	.detect = net_detect,
	.free = net_free,
	.fill_frame = net_frame,
	.report = &report_section_network,
	.thresholds = net_thresholds,
	.nthresholds = sizeof net_thresholds / sizeof net_thresholds[0],
	.state_size = sizeof(struct proto_network),
};
