/*
 * network.c - the "network" map, shared by the agent's "network" record
 * and the daemon's frames: the thresholds, the remote endpoints, the names
 * resolved, the libcurl requests and the recent slow or failed operations
 * with their stacks (doc/protocol.md, "Network").
 */
#include "protocol.h"
#include "field.h"
#include "parts.h"

#define E struct proto_net_ep
static const struct proto_field net_ep_fields[] = {
	PF_ROW("id", PF_U32, E, id, PF_REQUIRED),
	PF_ROW("proto", PF_STR, E, proto, 0),
	PF_ROW("addr", PF_STR, E, addr, 0),
	PF_ROW("connects", PF_U64, E, connects, 0),
	PF_ROW("connect_fails", PF_U64, E, connect_fails, 0),
	PF_ROW("connect_ns", PF_U64, E, connect_ns, 0),
	PF_ROW("connect_max_ns", PF_U64, E, connect_max_ns, 0),
	PF_ROW("sends", PF_U64, E, sends, 0),
	PF_ROW("recvs", PF_U64, E, recvs, 0),
	PF_ROW("bytes_out", PF_U64, E, bytes_out, 0),
	PF_ROW("bytes_in", PF_U64, E, bytes_in, 0),
	PF_ROW("io_ns", PF_U64, E, io_ns, 0),
	PF_ROW("errors", PF_U64, E, errors, 0),
	PF_ROW("error", PF_STR, E, error, 0),
	PF_ROW("tls", PF_U64, E, tls, 0),
	PF_ROW("tls_fails", PF_U64, E, tls_fails, 0),
	PF_ROW("tls_ns", PF_U64, E, tls_ns, 0),
	PF_ROW("tls_max_ns", PF_U64, E, tls_max_ns, 0),
	PF_ROW("slow", PF_U64, E, slow, 0),
};
#undef E
const struct proto_struct proto_net_ep_desc =
	PF_STRUCT("a network endpoint", struct proto_net_ep, net_ep_fields);

#define D struct proto_net_dns
static const struct proto_field net_dns_fields[] = {
	PF_ROW("id", PF_U32, D, id, PF_REQUIRED),
	PF_ROW("name", PF_STR, D, name, 0),
	PF_ROW("calls", PF_U64, D, calls, 0),
	PF_ROW("fails", PF_U64, D, fails, 0),
	PF_ROW("total_ns", PF_U64, D, total_ns, 0),
	PF_ROW("max_ns", PF_U64, D, max_ns, 0),
	PF_ROW("error", PF_STR, D, error, 0),
};
#undef D
const struct proto_struct proto_net_dns_desc =
	PF_STRUCT("a resolved name", struct proto_net_dns, net_dns_fields);

#define H struct proto_net_http
static const struct proto_field net_http_fields[] = {
	PF_ROW("id", PF_U32, H, id, PF_REQUIRED),
	PF_ROW("method", PF_STR, H, method, 0),
	PF_ROW("scheme", PF_STR, H, scheme, 0),
	PF_ROW("host", PF_STR, H, host, 0),
	PF_ROW("path", PF_STR, H, path, 0),
	PF_ROW("requests", PF_U64, H, requests, 0),
	PF_ROW("fails", PF_U64, H, fails, 0),
	PF_ROW("status_err", PF_U64, H, status_err, 0),
	PF_ROW("status", PF_U32, H, status, 0),
	PF_ROW("bytes_out", PF_U64, H, bytes_out, 0),
	PF_ROW("bytes_in", PF_U64, H, bytes_in, 0),
	PF_ROW("total_ns", PF_U64, H, total_ns, 0),
	PF_ROW("max_ns", PF_U64, H, max_ns, 0),
	PF_ROW("dns_ns", PF_U64, H, dns_ns, 0),
	PF_ROW("connect_ns", PF_U64, H, connect_ns, 0),
	PF_ROW("tls_ns", PF_U64, H, tls_ns, 0),
	PF_ROW("ttfb_ns", PF_U64, H, ttfb_ns, 0),
	PF_ROW("large", PF_U64, H, large, 0),
	PF_ROW("error", PF_STR, H, error, 0),
};
#undef H
const struct proto_struct proto_net_http_desc =
	PF_STRUCT("an HTTP request row", struct proto_net_http, net_http_fields);

#define V struct proto_net_event
static const struct proto_field net_event_fields[] = {
	PF_ROW("id", PF_U32, V, id, PF_REQUIRED),
	PF_ROW("op", PF_STR, V, op, 0),
	PF_ROW("what", PF_STR, V, what, 0),
	PF_ROW("error", PF_STR, V, error, 0),
	PF_ROW("status", PF_U32, V, status, 0),
	PF_ROW("large", PF_BOOL, V, large, 0),
	PF_ROW("tid", PF_PID, V, tid, 0),
	PF_ROW("start_ns", PF_U64, V, start_ns, 0),
	PF_ROW("time_ms", PF_U64, V, time_ms, 0),
	PF_ROW("dur_ns", PF_U64, V, dur_ns, 0),
	PF_ROW("bytes", PF_U64, V, bytes, 0),
	PF_OBJ_ROW("stack", V, stack, &proto_block_stack_desc),
};
#undef V
const struct proto_struct proto_net_event_desc =
	PF_STRUCT("a network event", struct proto_net_event, net_event_fields);

#define P struct proto_network
static const struct proto_field network_fields[] = {
	PF_ROW("threshold_ns", PF_U64, P, threshold_ns, 0),
	PF_ROW("large_bytes", PF_U64, P, large_bytes, 0),
	PF_ROW("event_count", PF_U64, P, event_count, 0),
	PF_ARR_ROW("endpoints", PF_OBJS, P, eps, neps, PROTO_MAX_NET_EPS, &proto_net_ep_desc),
	PF_ARR_ROW("dns", PF_OBJS, P, dns, ndns, PROTO_MAX_NET_DNS, &proto_net_dns_desc),
	PF_ARR_ROW("http", PF_OBJS, P, http, nhttp, PROTO_MAX_NET_HTTP, &proto_net_http_desc),
	PF_ARR_ROW("events", PF_OBJS, P, events, nevents, PROTO_MAX_NET_EVENTS, &proto_net_event_desc),
};
#undef P
const struct proto_struct proto_network_desc =
	PF_STRUCT("field \"network\"", struct proto_network, network_fields);

/* See network_wire.h. */
void proto_net_event_copy(struct proto_net_event *d, const struct proto_net_event *s)
{
	proto_struct_copy(&proto_net_event_desc, d, s);
}

/* See network_wire.h. */
void proto_net_event_free(struct proto_net_event *e)
{
	proto_struct_free(&proto_net_event_desc, e);
}

/* See network_wire.h. */
void proto_network_free(struct proto_network *p)
{
	proto_struct_free(&proto_network_desc, p);
}

/* Its row in the parts table (parts.h). */
const struct proto_part proto_part_network = {
	PROTO_PART_PLACE(network), .key = "network", .ag_time = true, .desc = &proto_network_desc,
};
