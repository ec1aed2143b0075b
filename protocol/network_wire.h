/*
 * network_wire.h - the network part of the wire ("network"): remote
 * endpoints (TCP, UDP: connects, bytes, errors, TLS handshakes), DNS names
 * resolved, HTTP requests made with libcurl, and the recent slow or failed
 * operations with their stacks.  Its row in the parts table (parts.h) is
 * defined in network.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_NETWORK_WIRE_H
#define HOOKSCOPE_PROTOCOL_NETWORK_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "block_wire.h"

#define PROTO_MAX_NET_EPS    256          /* remote endpoints of a target */
#define PROTO_MAX_NET_DNS    64           /* names resolved */
#define PROTO_MAX_NET_HTTP   64           /* request rows (method, scheme, host, path) */
#define PROTO_MAX_NET_EVENTS 32           /* slow or failed operations in one map: the most recent */

/* A remote address and port the target talks to (or, "<- ADDR", a local
 * address it accepted connections on). */
struct proto_net_ep {
	uint32_t id;                      /* agent-assigned, stable */
	char    *proto;                   /* "tcp", "udp" */
	char    *addr;                    /* "127.0.0.1:8000", "[::1]:443", "<- 0.0.0.0:80" */
	uint64_t connects, connect_fails; /* connect() calls; of them failed (now or when completed) */
	uint64_t connect_ns, connect_max_ns;   /* connect to established (completed ones) */
	uint64_t sends, recvs;            /* calls, failed ones included */
	uint64_t bytes_out, bytes_in;
	uint64_t io_ns;                   /* time in those calls */
	uint64_t errors;                  /* failed operations (refused, reset, timeout...) */
	char    *error;                   /* the last one's reason, "" when none */
	uint64_t tls, tls_fails, tls_ns, tls_max_ns;   /* TLS handshakes (OpenSSL) */
	uint64_t slow;                    /* operations longer than the threshold */
};

/* A host name the target resolved. */
struct proto_net_dns {
	uint32_t id;
	char    *name;
	uint64_t calls, fails;
	uint64_t total_ns, max_ns;
	char    *error;                   /* the last failure's reason, "" when none */
};

/* HTTP requests through libcurl with one method, scheme, host and path. */
struct proto_net_http {
	uint32_t id;
	char    *method, *scheme, *host, *path;   /* path without the query by default */
	uint64_t requests, fails;         /* fails: transfer errors (no status) */
	uint64_t status_err;              /* responses with status >= 400 */
	uint32_t status;                  /* the last response's status, 0 none */
	uint64_t bytes_out, bytes_in;     /* request and response bodies */
	uint64_t total_ns, max_ns;        /* curl's total time */
	uint64_t dns_ns, connect_ns, tls_ns, ttfb_ns;   /* sums of curl's phase times */
	uint64_t large;                   /* responses over the large-response threshold */
	char    *error;                   /* the last transfer error, "" when none */
};

/* One operation that was slow or failed, with the calling stack. */
struct proto_net_event {
	uint32_t id;                      /* agent-assigned, increasing */
	char    *op;                      /* "connect", "send", "recv", "dns", "tls", "http" */
	char    *what;                    /* "tcp 127.0.0.1:80", a host name, "GET http://host/path" */
	char    *error;                   /* the reason; "" when only slow (or large) */
	uint32_t status;                  /* http: the status, 0 none */
	bool     large;                   /* http: a large response */
	int32_t  tid;
	uint64_t start_ns;                /* agent monotonic clock */
	uint64_t time_ms;                 /* wall clock (frames only) */
	uint64_t dur_ns;
	uint64_t bytes;                   /* http: response bytes */
	struct proto_block_stack stack;   /* innermost first; samples = 1 */
};

/* The "network" map. */
struct proto_network {
	uint64_t threshold_ns;            /* slower operations are events */
	uint64_t large_bytes;             /* larger HTTP responses are flagged */
	uint64_t event_count;             /* events since start or reset */
	size_t   neps;
	struct proto_net_ep *eps;
	size_t   ndns;
	struct proto_net_dns *dns;
	size_t   nhttp;
	struct proto_net_http *http;
	size_t   nevents;
	struct proto_net_event *events;   /* newest first */
};

void proto_net_event_copy(struct proto_net_event *dst, const struct proto_net_event *src);
void proto_net_event_free(struct proto_net_event *e);
void proto_network_free(struct proto_network *p);

/* The field tables (network.c). */
struct proto_struct;
extern const struct proto_struct proto_network_desc, proto_net_ep_desc, proto_net_dns_desc,
    proto_net_http_desc, proto_net_event_desc;

#endif
