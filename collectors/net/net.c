/*
 * net.c - the network collector (reporter thread): reads the shared rows
 * (minus the reset baseline), drains the event ring (stacks symbolized
 * here), and sends one "network" record when something changed: every row
 * with activity and the events not sent yet (all kept ones on a new
 * connection).  Always on (all levels).  Thresholds "net" (ns: slower
 * operations are events) and "net-large" (bytes: larger HTTP responses are
 * flagged).  HOOKSCOPE_NET_QUERY=1 keeps URL query strings.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols.h"
#include "collector.h"
#include "net_int.h"

#define NET_KEEP_EVENTS 16                /* events the agent keeps and resends */

static struct {                           /* counters at the last reset */
	uint64_t ep[NET_MAX_EP][NE_COUNT];
	uint64_t dns[NET_MAX_DNS][ND_COUNT];
	uint64_t http[NET_MAX_HTTP][NH_COUNT];
} net_base;
static uint64_t net_sent_sum;             /* a checksum of what the last record said */
static struct proto_net_event net_kept[NET_KEEP_EVENTS];   /* newest first */
static size_t net_nkept, net_nnew;
static uint32_t net_event_id;
static uint64_t net_event_count;
static bool net_cfg_changed = true;

static int net_init(void)
{
	const char *q = getenv("HOOKSCOPE_NET_QUERY");

	net_curl_set_query(q != NULL && strcmp(q, "1") == 0);
	net_event_init();
	return 0;
}

/* cur - base of n counters into out; whether any is non-zero. */
static bool net_delta(const uint64_t *cur, const uint64_t *base, uint64_t *out, int n)
{
	bool any = false;

	for (int i = 0; i < n; i++) {
		out[i] = NET_LOAD(&cur[i]) - base[i];
		any |= out[i] != 0;
	}
	return any;
}

/* Keep one drained event (symbolized now: the reporter owns the symbolizer). */
static void net_keep(const struct net_event_rec *r, void *arg)
{
	struct proto_net_event v = { .id = ++net_event_id, .tid = r->tid, .status = r->status,
		.large = r->large, .start_ns = r->start_ns, .dur_ns = r->dur_ns, .bytes = r->bytes };

	(void)arg;
	v.op = xstrdup(r->op < NET_OP_COUNT ? net_op_names[r->op] : "?");
	v.what = xstrdup(r->what);
	v.error = xstrdup(r->error);
	v.stack.samples = 1;
	v.stack.nframes = r->n;
	v.stack.frames = xcalloc(r->n ? r->n : 1, sizeof *v.stack.frames);
	for (uint32_t k = 0; k < r->n; k++)
		sym_frame_fill(r->pc[k], true, &v.stack.frames[k]);
	if (net_nkept == NET_KEEP_EVENTS)
		proto_net_event_free(&net_kept[--net_nkept]);
	memmove(&net_kept[1], &net_kept[0], net_nkept * sizeof net_kept[0]);
	net_kept[0] = v;
	net_nkept++;
	if (net_nnew < NET_KEEP_EVENTS)
		net_nnew++;
	net_event_count++;
}

static void net_harvest(void)
{
	net_event_drain(net_keep, NULL);
}

/* The text of an endpoint's last error (errno or TLS) into buf. */
static const char *net_ep_error(const struct net_ep *e, char *buf, size_t len)
{
	int err = NET_LOAD(&e->last_err);
	const char *tls = __atomic_load_n(&e->tls_err, __ATOMIC_RELAXED);

	if (err != 0)
		return net_errno_text(err, buf, len);
	return tls != NULL ? tls : "";
}

/* One "network" record when figures changed or events came (everything on
 * a new connection). */
static void net_encode(msgpack_sbuffer *sb, bool resend_all)
{
	uint32_t nep = __atomic_load_n(&net_tab.nep, __ATOMIC_ACQUIRE);
	uint32_t ndns = __atomic_load_n(&net_tab.ndns, __ATOMIC_ACQUIRE);
	uint32_t nhttp = __atomic_load_n(&net_tab.nhttp, __ATOMIC_ACQUIRE);
	struct proto_network p = { .threshold_ns = net_threshold_ns(), .large_bytes = net_large_bytes(),
		.event_count = net_event_count };
	char (*errs)[128] = xcalloc(nep ? nep : 1, sizeof *errs);
	uint64_t sum = 0;

	p.eps = xcalloc(nep ? nep : 1, sizeof *p.eps);
	p.dns = xcalloc(ndns ? ndns : 1, sizeof *p.dns);
	p.http = xcalloc(nhttp ? nhttp : 1, sizeof *p.http);
	for (uint32_t i = 0; i < nep; i++) {
		const struct net_ep *e = &net_tab.ep[i];
		uint64_t c[NE_COUNT];

		if (!net_delta(e->c, net_base.ep[i], c, NE_COUNT))
			continue;
		for (int k = 0; k < NE_COUNT; k++)
			sum = sum * 31 + c[k];
		p.eps[p.neps++] = (struct proto_net_ep){ .id = i, .proto = (char *)e->proto,
		    .addr = (char *)e->addr, .connects = c[NE_CONNECTS],
		    .connect_fails = c[NE_CONNECT_FAILS], .connect_ns = c[NE_CONNECT_NS],
		    .connect_max_ns = NET_LOAD(&e->connect_max_ns), .sends = c[NE_SENDS],
		    .recvs = c[NE_RECVS], .bytes_out = c[NE_BYTES_OUT], .bytes_in = c[NE_BYTES_IN],
		    .io_ns = c[NE_IO_NS], .errors = c[NE_ERRORS],
		    .error = (char *)net_ep_error(e, errs[i], sizeof errs[i]), .tls = c[NE_TLS],
		    .tls_fails = c[NE_TLS_FAILS], .tls_ns = c[NE_TLS_NS],
		    .tls_max_ns = NET_LOAD(&e->tls_max_ns), .slow = c[NE_SLOW] };
	}
	for (uint32_t i = 0; i < ndns; i++) {
		const struct net_dns *d = &net_tab.dns[i];
		const char *err = __atomic_load_n(&d->last_err, __ATOMIC_RELAXED);
		uint64_t c[ND_COUNT];

		if (!net_delta(d->c, net_base.dns[i], c, ND_COUNT))
			continue;
		for (int k = 0; k < ND_COUNT; k++)
			sum = sum * 31 + c[k];
		p.dns[p.ndns++] = (struct proto_net_dns){ .id = i, .name = (char *)d->name,
		    .calls = c[ND_CALLS], .fails = c[ND_FAILS], .total_ns = c[ND_TOTAL_NS],
		    .max_ns = NET_LOAD(&d->max_ns), .error = (char *)(err ? err : "") };
	}
	for (uint32_t i = 0; i < nhttp; i++) {
		const struct net_http *h = &net_tab.http[i];
		const char *err = __atomic_load_n(&h->last_err, __ATOMIC_RELAXED);
		uint64_t c[NH_COUNT];

		if (!net_delta(h->c, net_base.http[i], c, NH_COUNT))
			continue;
		for (int k = 0; k < NH_COUNT; k++)
			sum = sum * 31 + c[k];
		p.http[p.nhttp++] = (struct proto_net_http){ .id = i, .method = (char *)h->method,
		    .scheme = (char *)h->scheme, .host = (char *)h->host, .path = (char *)h->path,
		    .requests = c[NH_REQUESTS], .fails = c[NH_FAILS], .status_err = c[NH_STATUS_ERR],
		    .status = NET_LOAD(&h->status), .bytes_out = c[NH_BYTES_OUT],
		    .bytes_in = c[NH_BYTES_IN], .total_ns = c[NH_TOTAL_NS],
		    .max_ns = NET_LOAD(&h->max_ns), .dns_ns = c[NH_DNS_NS],
		    .connect_ns = c[NH_CONNECT_NS], .tls_ns = c[NH_TLS_NS], .ttfb_ns = c[NH_TTFB_NS],
		    .large = c[NH_LARGE], .error = (char *)(err ? err : "") };
	}
	sum = sum * 31 + p.neps * 7 + p.ndns * 5 + p.nhttp;
	if (resend_all || net_cfg_changed || net_nnew > 0 || sum != net_sent_sum) {
		p.nevents = resend_all ? net_nkept : net_nnew;
		p.events = net_kept;
		proto_agent_encode(sb, &(struct proto_agent_rec){ .type = PROTO_AG_NETWORK,
		    .time_ns = proto_now_ns(), .net = p });
		net_sent_sum = sum;
		net_nnew = 0;
		net_cfg_changed = false;
	}
	free(p.eps);
	free(p.dns);
	free(p.http);
	free(errs);
}

/* "net": the slow-operation threshold in ns (1 ms .. 1 h); "net-large": the
 * large-response threshold in bytes (1 .. 1 TiB). */
static int net_set_threshold(const char *name, int64_t value)
{
	if (strcmp(name, "net") == 0) {
		if (value < 1000000 || value > 3600000000000ll)
			return -1;
		net_set_threshold_ns((uint64_t)value);
	} else if (strcmp(name, "net-large") == 0) {
		if (value < 1 || value > (1ll << 40))
			return -1;
		net_set_large_bytes((uint64_t)value);
	} else {
		return 1;
	}
	net_cfg_changed = true;
	return 0;
}

/* Zero the figures: the current counters become the baseline. */
static void net_reset(void)
{
	for (uint32_t i = 0; i < NET_MAX_EP; i++) {
		for (int k = 0; k < NE_COUNT; k++)
			net_base.ep[i][k] = NET_LOAD(&net_tab.ep[i].c[k]);
		NET_STORE(&net_tab.ep[i].connect_max_ns, 0);
		NET_STORE(&net_tab.ep[i].tls_max_ns, 0);
	}
	for (uint32_t i = 0; i < NET_MAX_DNS; i++) {
		for (int k = 0; k < ND_COUNT; k++)
			net_base.dns[i][k] = NET_LOAD(&net_tab.dns[i].c[k]);
		NET_STORE(&net_tab.dns[i].max_ns, 0);
	}
	for (uint32_t i = 0; i < NET_MAX_HTTP; i++) {
		for (int k = 0; k < NH_COUNT; k++)
			net_base.http[i][k] = NET_LOAD(&net_tab.http[i].c[k]);
		NET_STORE(&net_tab.http[i].max_ns, 0);
	}
	for (size_t i = 0; i < net_nkept; i++)
		proto_net_event_free(&net_kept[i]);
	net_nkept = net_nnew = 0;
	net_event_count = 0;
	net_cfg_changed = true;
}

/* Fork child: a new session, which starts from zero. */
static void net_atfork_child(void)
{
	net_tab_atfork_child();
	net_reset();
}

const struct collector_ops net_collector = {
	.name          = "network",
	.init          = net_init,
	.set_threshold = net_set_threshold,
	.reset         = net_reset,
	.harvest       = net_harvest,
	.encode        = net_encode,
	.atfork_child  = net_atfork_child,
};
