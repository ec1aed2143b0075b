/*
 * net_tls.c - TLS handshakes through OpenSSL: the agent's SSL_connect and
 * SSL_do_handshake time a handshake from its first call to the call that
 * ends it (a non-blocking one returns SSL_ERROR_WANT_READ/WRITE in
 * between: its start waits in a small direct-mapped table keyed by the SSL
 * object), and count it on the endpoint of the SSL object's socket; a
 * failure keeps OpenSSL's reason (the certificate check's, else the error
 * queue's first entry, read without taking it) and its stack.  The types
 * are OpenSSL's ABI, declared here: no build dependency on libssl.
 */
#include <errno.h>
#include <stdio.h>

#include "agent.h"
#include "net_int.h"

#define API __attribute__((visibility("default")))
#define NET_TLS_SLOTS 64

/* ssl.h: SSL_get_error results that mean "call again". */
#define SSL_ERR_WANT(e) ((e) == 2 || (e) == 3 || (e) == 4 || (e) == 7 || ((e) >= 9 && (e) <= 12))
#define SSL_ERR_SYSCALL 5

static struct { void *ssl; uint64_t t0; } net_tls_pend[NET_TLS_SLOTS];
static __thread int net_tls_depth;

/* An OpenSSL function by name (libssl or libcrypto), NULL if absent. */
#define NET_SSL_FN(var, name, ...) \
	static void *var##_slot; \
	__typeof__(__VA_ARGS__) var = (__typeof__(__VA_ARGS__))AGENT_REAL(var##_slot, name, true)

/* The reason a handshake failed into buf; OpenSSL's static text of it (or
 * NULL) into *st, for the endpoint's last error. */
static void net_tls_reason(void *ssl, int e, char *buf, size_t len, const char **st)
{
	NET_SSL_FN(verify, "SSL_get_verify_result", long (*)(const void *));
	NET_SSL_FN(vtext, "X509_verify_cert_error_string", const char *(*)(long));
	NET_SSL_FN(peek, "ERR_peek_error", unsigned long (*)(void));
	NET_SSL_FN(rtext, "ERR_reason_error_string", const char *(*)(unsigned long));
	long v = verify ? verify(ssl) : 0;
	unsigned long q = peek ? peek() : 0;
	const char *t;

	*st = NULL;
	if (v != 0 && vtext != NULL && (t = vtext(v)) != NULL) {
		snprintf(buf, len, "certificate verify failed: %s", t);
		*st = t;
	} else if (q != 0 && rtext != NULL && (t = rtext(q)) != NULL) {
		snprintf(buf, len, "%s", t);
		*st = t;
	} else if (e == SSL_ERR_SYSCALL && errno != 0) {
		net_errno_text(errno, buf, len);
	} else {
		snprintf(buf, len, "handshake failed (SSL_get_error %d)", e);
	}
}

/* After a handshake call on ssl returned r: go on waiting, or count it. */
static void net_tls_after(void *ssl, int r, uint64_t t0)
{
	NET_SSL_FN(geterr, "SSL_get_error", int (*)(const void *, int));
	NET_SSL_FN(getfd, "SSL_get_fd", int (*)(const void *));
	unsigned i = (unsigned)(((uintptr_t)ssl >> 4) % NET_TLS_SLOTS);
	int e = r == 1 ? 0 : geterr ? geterr(ssl, r) : 1, saved = errno;
	uint64_t t1 = net_now(), d;
	struct net_ep *ep;
	uint16_t epi;
	char why[160], what[80];

	if (NET_LOAD(&net_tls_pend[i].ssl) == ssl) {
		t0 = NET_LOAD(&net_tls_pend[i].t0);
		if (r != 1 && SSL_ERR_WANT(e))
			return;
	} else if (r != 1 && SSL_ERR_WANT(e)) {
		NET_STORE(&net_tls_pend[i].t0, t0);
		NET_STORE(&net_tls_pend[i].ssl, ssl);
		return;
	}
	NET_STORE(&net_tls_pend[i].ssl, NULL);
	epi = net_fd_peer_ep(getfd ? getfd(ssl) : -1);
	ep = &net_tab.ep[epi];
	d = t1 > t0 ? t1 - t0 : 0;
	NET_ADD(&ep->c[NE_TLS], 1);
	NET_ADD(&ep->c[NE_TLS_NS], d);
	net_max(&ep->tls_max_ns, d);
	if (r == 1 && d < net_threshold_ns()) {
		errno = saved;
		return;
	}
	if (r != 1) {
		NET_ADD(&ep->c[NE_TLS_FAILS], 1);
		const char *st;

		NET_ADD(&ep->c[NE_ERRORS], 1);
		net_tls_reason(ssl, e, why, sizeof why, &st);
		__atomic_store_n(&ep->tls_err, st ? st : "TLS handshake failed", __ATOMIC_RELAXED);
		NET_STORE(&ep->last_err, 0);
	} else {
		NET_ADD(&ep->c[NE_SLOW], 1);
	}
	net_event(&(struct net_event_in){ .op = NET_OP_TLS, .what = net_ep_text(epi, what, sizeof what),
	    .error = r != 1 ? why : NULL, .t0 = t0, .t1 = t1 });
	errno = saved;
}

/* The wrapper of a handshake function, whose real one is fn. */
static int net_tls_call(void *fn, void *ssl)
{
	int (*real)(void *) = (int (*)(void *))fn;
	uint64_t t0 = net_now();
	int r;

	if (real == NULL)
		return -1;
	net_tls_depth++;
	r = real(ssl);
	net_tls_depth--;
	if (net_tls_depth == 0 && ssl != NULL)
		net_tls_after(ssl, r, t0);
	return r;
}

API int SSL_connect(void *ssl)
{
	static void *slot;

	return net_tls_call(AGENT_REAL(slot, "SSL_connect", false), ssl);
}

API int SSL_do_handshake(void *ssl)
{
	static void *slot;

	return net_tls_call(AGENT_REAL(slot, "SSL_do_handshake", false), ssl);
}
