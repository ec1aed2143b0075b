/*
 * net_event.c - slow and failed network operations: the thread that saw
 * one takes its stack with agent_backtrace() right there (after a failure or a
 * call over the threshold, about 10 us) and writes it into a shared ring
 * of NET_RING slots (a slot claimed with one atomic add, published with a
 * release store of its sequence number); the reporter drains the ring.
 * Also the thresholds and the errno texts.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "net_int.h"

#define NET_RING 64

static struct net_event_rec net_ring[NET_RING];
static uint64_t net_ring_next;             /* slots claimed */
static uint64_t net_ring_taken;            /* reporter: drained up to */
static uint64_t net_thr_ns = NET_THRESHOLD_NS, net_large = NET_LARGE_BYTES;
static void *net_self_base;                /* the agent's load address (dladdr) */

const char *const net_op_names[NET_OP_COUNT] = {
	[NET_OP_CONNECT] = "connect", [NET_OP_SEND] = "send", [NET_OP_RECV] = "recv",
	[NET_OP_DNS] = "dns", [NET_OP_TLS] = "tls", [NET_OP_HTTP] = "http",
};

/* See net_int.h. */
uint64_t net_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t net_threshold_ns(void) { return NET_LOAD(&net_thr_ns); }
uint64_t net_large_bytes(void) { return NET_LOAD(&net_large); }
void net_set_threshold_ns(uint64_t ns) { NET_STORE(&net_thr_ns, ns); }
void net_set_large_bytes(uint64_t b) { NET_STORE(&net_large, b); }

/* See net_int.h: the agent's base. */
void net_event_init(void)
{
	Dl_info di;

	if (dladdr((void *)net_event_init, &di) != 0)
		net_self_base = di.dli_fbase;
}

/* A frame of the agent or of a sanitizer runtime's interceptors. */
static bool net_is_ours(void *pc)
{
	Dl_info di;

	if (dladdr(pc, &di) == 0)
		return false;
	return di.dli_fbase == net_self_base || (di.dli_fname != NULL &&
	    (strstr(di.dli_fname, "/libasan.") || strstr(di.dli_fname, "/libtsan.") ||
	     strstr(di.dli_fname, "/libubsan.")));
}

/* See net_int.h. */
void net_event(const struct net_event_in *in)
{
	void *buf[NET_FRAMES + 10];
	uint64_t seq = NET_ADD(&net_ring_next, 1) + 1;
	struct net_event_rec *r = &net_ring[seq % NET_RING];
	int n = agent_backtrace(buf, NET_FRAMES + 10), k = 0;

	NET_STORE(&r->seq, 0);
	while (k < n && net_is_ours(buf[k]))
		k++;
	r->n = 0;
	for (uint32_t i = 0; k < n && i < NET_FRAMES; k++, i++) {
		NET_STORE(&r->pc[i], (uintptr_t)buf[k]);
		r->n = i + 1;
	}
	r->op = (uint8_t)in->op;
	r->large = in->large;
	r->tid = (int32_t)gettid();
	r->status = in->status;
	r->start_ns = in->t0;
	r->dur_ns = in->t1 > in->t0 ? in->t1 - in->t0 : 0;
	r->bytes = in->bytes;
	snprintf(r->what, sizeof r->what, "%s", in->what ? in->what : "");
	snprintf(r->error, sizeof r->error, "%s", in->error ? in->error : "");
	__atomic_store_n(&r->seq, seq, __ATOMIC_RELEASE);
}

/* See net_int.h: slots whose sequence changed while read are dropped (a
 * writer lapped the ring). */
void net_event_drain(void (*fn)(const struct net_event_rec *r, void *arg), void *arg)
{
	uint64_t top = NET_LOAD(&net_ring_next), from = net_ring_taken + 1;

	if (top >= NET_RING && from + NET_RING <= top)
		from = top - NET_RING + 1;
	for (uint64_t q = from; q <= top; q++) {
		const struct net_event_rec *src = &net_ring[q % NET_RING];
		struct net_event_rec r;

		uint64_t s = __atomic_load_n(&src->seq, __ATOMIC_ACQUIRE);

		if (s > q) {                         /* lapped: lost */
			net_ring_taken = q;
			continue;
		}
		if (s != q)
			break;                       /* claimed, not yet written: next time */
		memcpy(&r, src, sizeof r);
#ifndef __SANITIZE_THREAD__                  /* TSan refuses fences (-Wtsan) */
		__atomic_thread_fence(__ATOMIC_ACQUIRE); /* the copy before the second look */
#endif
		if (__atomic_load_n(&src->seq, __ATOMIC_ACQUIRE) != q)
			continue;
		r.what[sizeof r.what - 1] = r.error[sizeof r.error - 1] = '\0';
		if (r.n > NET_FRAMES)
			r.n = NET_FRAMES;
		fn(&r, arg);
		net_ring_taken = q;
	}
	if (net_ring_taken + NET_RING < top)
		net_ring_taken = top - NET_RING;
}

/* See net_int.h. */
const char *net_errno_text(int err, char *buf, size_t len)
{
	const char *name = strerrorname_np(err);
	char msg[96];

	snprintf(buf, len, "%s (%s)", strerror_r(err, msg, sizeof msg), name ? name : "?");
	return buf;
}

/* See net_int.h. */
bool net_errno_fails(int err)
{
	return err != 0 && err != EAGAIN && err != EWOULDBLOCK && err != EINTR &&
	    err != EINPROGRESS && err != EALREADY;
}

/* See net_int.h. */
const char *net_ep_text(uint16_t ep, char *buf, size_t len)
{
	if (ep >= NET_MAX_EP)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%s %s", net_tab.ep[ep].proto, net_tab.ep[ep].addr);
	return buf;
}
