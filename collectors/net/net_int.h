/*
 * net_int.h - the network collector (internal): the tables of endpoints,
 * names and HTTP request rows (net_tab.c), the slow/failed event ring
 * (net_event.c), the socket side called from ipc's wrappers and the
 * getsockopt wrapper (net_sock.c), the resolver wrappers (net_dns.c), the
 * libcurl wrappers (net_curl.c), the OpenSSL handshake wrappers
 * (net_tls.c) and the collector (net.c).  doc/network.md.
 *
 * Figures are shared rows of relaxed atomic counters: every counted call is
 * a system call or a network round trip (a microsecond at least), beside
 * which one uncontended atomic add is noise; no per-thread block is needed.
 */
#ifndef HOOKSCOPE_NET_INT_H
#define HOOKSCOPE_NET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"
#include "net.h"

#define NET_MAX_EP        PROTO_MAX_NET_EPS    /* the last one is "other" */
#define NET_MAX_DNS       PROTO_MAX_NET_DNS
#define NET_MAX_HTTP      PROTO_MAX_NET_HTTP
#define NET_THRESHOLD_NS  500000000ull         /* slow operation: 500 ms */
#define NET_LARGE_BYTES   (1ull << 20)          /* large response: 1 MiB */
#define NET_FRAMES        PROTO_BLOCK_FRAMES

#define NET_ADD(p, v)  __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define NET_LOAD(p)    __atomic_load_n((p), __ATOMIC_RELAXED)
#define NET_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* Counters of an endpoint (one array, so reset baselines and sums loop). */
enum net_ep_ctr {
	NE_CONNECTS, NE_CONNECT_FAILS, NE_CONNECT_NS, NE_SENDS, NE_RECVS, NE_BYTES_OUT,
	NE_BYTES_IN, NE_IO_NS, NE_ERRORS, NE_TLS, NE_TLS_FAILS, NE_TLS_NS, NE_SLOW, NE_COUNT
};
enum net_dns_ctr { ND_CALLS, ND_FAILS, ND_TOTAL_NS, ND_COUNT };
enum net_http_ctr {
	NH_REQUESTS, NH_FAILS, NH_STATUS_ERR, NH_BYTES_OUT, NH_BYTES_IN, NH_TOTAL_NS, NH_DNS_NS,
	NH_CONNECT_NS, NH_TLS_NS, NH_TTFB_NS, NH_LARGE, NH_COUNT
};

/* Rows: the key is immutable once published (count, release). */
struct net_ep {
	uint32_t hash;
	char     proto[4];                 /* "tcp", "udp" */
	char     addr[56];
	uint64_t c[NE_COUNT];
	uint64_t connect_max_ns, tls_max_ns;
	int      last_err;                 /* errno of the last error, 0 none */
	const char *tls_err;               /* the last handshake failure (static text) */
};
struct net_dns {
	uint32_t hash;
	char     name[128];
	uint64_t c[ND_COUNT];
	uint64_t max_ns;
	const char *last_err;              /* gai_strerror / hstrerror text */
};
struct net_http {
	uint32_t hash;
	char     method[16], scheme[16], host[96], path[160];
	uint64_t c[NH_COUNT];
	uint64_t max_ns;
	uint32_t status;
	const char *last_err;              /* curl_easy_strerror text */
};

/* ---- net_tab.c ---- */
struct net_tabs {
	struct net_ep   ep[NET_MAX_EP];
	struct net_dns  dns[NET_MAX_DNS];
	struct net_http http[NET_MAX_HTTP];
	uint32_t nep, ndns, nhttp;        /* published rows (release) */
};
extern struct net_tabs net_tab;
/* The row of a key, created if new; the table's last row ("other") when full. */
uint16_t net_ep_get(const char *proto, const char *addr);
uint16_t net_dns_get(const char *name);
uint16_t net_http_get(const char *method, const char *scheme, const char *host, const char *path);
/* Raise *max to v. */
void net_max(uint64_t *max, uint64_t v);
void net_tab_atfork_child(void);

/* ---- net_event.c: slow or failed operations, with the calling stack ---- */
enum net_op { NET_OP_CONNECT, NET_OP_SEND, NET_OP_RECV, NET_OP_DNS, NET_OP_TLS, NET_OP_HTTP,
	NET_OP_COUNT };
extern const char *const net_op_names[NET_OP_COUNT];
struct net_event_in {
	enum net_op op;
	const char *what;                  /* endpoint, name or request */
	const char *error;                 /* NULL or "" when only slow or large */
	uint32_t status;
	bool     large;
	uint64_t t0, t1, bytes;
};
/* Record an event from the calling thread (takes its stack). */
void net_event(const struct net_event_in *in);
uint64_t net_now(void);
uint64_t net_threshold_ns(void);
uint64_t net_large_bytes(void);
void net_set_threshold_ns(uint64_t ns);
void net_set_large_bytes(uint64_t b);
void net_event_init(void);
/* Reporter: call fn for each event published since the last drain. */
struct net_event_rec;
void net_event_drain(void (*fn)(const struct net_event_rec *r, void *arg), void *arg);
struct net_event_rec {
	uint64_t seq;                      /* release-stored last; 0 = being written */
	uint8_t  op;
	bool     large;
	int32_t  tid;
	uint32_t status;
	uint64_t start_ns, dur_ns, bytes;
	char     what[192], error[128];
	uint32_t n;
	uintptr_t pc[NET_FRAMES];
};
/* An errno as "connection refused (ECONNREFUSED)" into buf. */
const char *net_errno_text(int err, char *buf, size_t len);
/* Is err a failure of the connection (not EAGAIN, EINTR, EINPROGRESS)? */
bool net_errno_fails(int err);
/* "tcp 127.0.0.1:80" of endpoint ep into buf. */
const char *net_ep_text(uint16_t ep, char *buf, size_t len);

/* ---- net_sock.c ---- */
/* The endpoint of a connected fd's peer (TLS); fd < 0 (an SSL object on a
 * custom BIO, as libcurl's): the endpoint of the calling thread's last
 * socket call, which is the handshake's own socket on a thread doing it. */
uint16_t net_fd_peer_ep(int fd);

/* ---- net_curl.c ---- */
void net_curl_set_query(bool keep);   /* HOOKSCOPE_NET_QUERY */
/* Split url into scheme, host (with any port, no user name) and path
 * ("/" at least; without the query and fragment unless keep_query). */
void net_url_split(const char *url, bool keep_query, char *scheme, size_t sl, char *host,
    size_t hl, char *path, size_t pl);

#endif
