/*
 * net_dns.c - name resolution: the agent's getaddrinfo, gethostbyname,
 * gethostbyname2, gethostbyname_r and gethostbyname2_r time the real call
 * and count it per name (calls, failures with the resolver's reason,
 * time); a failed or slow one is an event with its stack.  Calls without a
 * name (getaddrinfo(NULL, port): a local address) are not counted.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>

#include "agent.h"
#include "net_int.h"

#define API __attribute__((visibility("default")))

/* The real function NAME, of the type given last, into real_; without it
 * the call fails with FAIL and ENOSYS. */
#define NET_REAL(name, fail, ...)                                                \
	static void *slot_;                                                      \
	__typeof__(__VA_ARGS__) real_ = (__typeof__(__VA_ARGS__))AGENT_REAL(slot_, name, false); \
	if (real_ == NULL) {                                                     \
		errno = ENOSYS;                                                  \
		return fail;                                                     \
	}

/* Count one resolution of name that took t0..now; err NULL when it succeeded. */
static void net_dns_done(const char *name, const char *err, uint64_t t0)
{
	uint64_t t1 = net_now(), d = t1 > t0 ? t1 - t0 : 0;
	int e = errno;
	struct net_dns *r;

	if (name == NULL)
		return;
	r = &net_tab.dns[net_dns_get(name)];
	NET_ADD(&r->c[ND_CALLS], 1);
	NET_ADD(&r->c[ND_TOTAL_NS], d);
	net_max(&r->max_ns, d);
	if (err != NULL) {
		NET_ADD(&r->c[ND_FAILS], 1);
		__atomic_store_n(&r->last_err, err, __ATOMIC_RELAXED);
	}
	if (err != NULL || d >= net_threshold_ns())
		net_event(&(struct net_event_in){ .op = NET_OP_DNS, .what = name, .error = err,
		    .t0 = t0, .t1 = t1 });
	errno = e;
}

API int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
    struct addrinfo **res)
{
	NET_REAL("getaddrinfo", EAI_SYSTEM,
	    int (*)(const char *, const char *, const struct addrinfo *, struct addrinfo **));
	uint64_t t0 = net_now();
	int r = real_(node, service, hints, res);

	net_dns_done(node, r == 0 ? NULL : gai_strerror(r), t0);
	return r;
}

API struct hostent *gethostbyname(const char *name)
{
	NET_REAL("gethostbyname", NULL, struct hostent *(*)(const char *));
	uint64_t t0 = net_now();
	struct hostent *h = real_(name);

	net_dns_done(name, h != NULL ? NULL : hstrerror(h_errno), t0);
	return h;
}

API struct hostent *gethostbyname2(const char *name, int af)
{
	NET_REAL("gethostbyname2", NULL, struct hostent *(*)(const char *, int));
	uint64_t t0 = net_now();
	struct hostent *h = real_(name, af);

	net_dns_done(name, h != NULL ? NULL : hstrerror(h_errno), t0);
	return h;
}

/* The _r variants: 0 and *result set on success; the reason in *herr. */
static const char *net_dns_r_err(int r, struct hostent **result, int *herr)
{
	if (r == 0 && result != NULL && *result != NULL)
		return NULL;
	if (r == ERANGE)
		return NULL;                      /* buffer too small: the caller retries */
	return hstrerror(herr != NULL ? *herr : HOST_NOT_FOUND);
}

API int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t len,
    struct hostent **result, int *herr)
{
	NET_REAL("gethostbyname_r", ENOSYS,
	    int (*)(const char *, struct hostent *, char *, size_t, struct hostent **, int *));
	uint64_t t0 = net_now();
	int r = real_(name, ret, buf, len, result, herr);

	if (r != ERANGE)
		net_dns_done(name, net_dns_r_err(r, result, herr), t0);
	return r;
}

API int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *buf, size_t len,
    struct hostent **result, int *herr)
{
	NET_REAL("gethostbyname2_r", ENOSYS,
	    int (*)(const char *, int, struct hostent *, char *, size_t, struct hostent **, int *));
	uint64_t t0 = net_now();
	int r = real_(name, af, ret, buf, len, result, herr);

	if (r != ERANGE)
		net_dns_done(name, net_dns_r_err(r, result, herr), t0);
	return r;
}
