/*
 * net_curl.c - HTTP requests made with libcurl: the agent's
 * curl_easy_perform (the easy interface) and curl_multi_info_read (the
 * multi interface: each CURLMSG_DONE message is one finished transfer) read
 * the finished transfer's figures from curl itself (curl_easy_getinfo: URL,
 * method, status, sizes, total time and phase times), count them per
 * method, scheme, host and path (the query and any user name left out,
 * unless HOOKSCOPE_NET_QUERY=1 keeps the query), and make an event of a
 * failed, slow or large one.  The types are libcurl's ABI, declared here:
 * no build dependency on libcurl.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "net_int.h"

#define API __attribute__((visibility("default")))

/* curl.h's ABI: CURLINFO type bases and numbers, CURLMSG_DONE. */
#define CI_STRING 0x100000
#define CI_LONG   0x200000
#define CI_OFF_T  0x600000
enum {
	CI_EFFECTIVE_URL = CI_STRING + 1, CI_RESPONSE_CODE = CI_LONG + 2,
	CI_SIZE_UPLOAD_T = CI_OFF_T + 7, CI_SIZE_DOWNLOAD_T = CI_OFF_T + 8,
	CI_TOTAL_TIME_T = CI_OFF_T + 50, CI_NAMELOOKUP_TIME_T = CI_OFF_T + 51,
	CI_CONNECT_TIME_T = CI_OFF_T + 52, CI_PRETRANSFER_TIME_T = CI_OFF_T + 53,
	CI_STARTTRANSFER_TIME_T = CI_OFF_T + 54, CI_APPCONNECT_TIME_T = CI_OFF_T + 56,
	CI_EFFECTIVE_METHOD = CI_STRING + 58,
};
#define NET_CURLMSG_DONE 1
struct net_curlmsg {                      /* struct CURLMsg */
	int   msg;
	void *easy_handle;
	union { void *whatever; int result; } data;
};

static __thread int net_curl_depth;       /* inside curl_easy_perform */
static bool net_keep_query;

/* See net_int.h. */
void net_curl_set_query(bool keep)
{
	net_keep_query = keep;
}

/* See net_int.h. */
void net_url_split(const char *url, bool keep_query, char *scheme, size_t sl, char *host,
    size_t hl, char *path, size_t pl)
{
	const char *p = strstr(url, "://"), *h, *end, *at;
	size_t n;

	if (p != NULL)
		snprintf(scheme, sl, "%.*s", (int)(p - url), url);
	else if (sl > 0)
		scheme[0] = '\0';
	h = p ? p + 3 : url;
	end = h + strcspn(h, "/?#");
	at = memchr(h, '@', (size_t)(end - h));
	if (at != NULL)
		h = at + 1;
	snprintf(host, hl, "%.*s", (int)(end - h), h);
	n = strcspn(end, keep_query ? "#" : "?#");
	if (n > 0 && end[0] == '/')
		snprintf(path, pl, "%.*s", (int)n, end);
	else
		snprintf(path, pl, "/%.*s", (int)n, end);
}

/* One finished transfer of handle h with result res; t0 its start when
 * known (the easy interface), else 0. */
static void net_curl_done(void *h, int res, uint64_t t0)
{
	static void *gslot, *sslot;
	int (*getinfo)(void *, int, ...) = (int (*)(void *, int, ...))AGENT_REAL(gslot,
	    "curl_easy_getinfo", true);
	const char *(*strerr)(int) = (const char *(*)(int))AGENT_REAL(sslot,
	    "curl_easy_strerror", true);
	const char *url = NULL, *method = NULL, *err = NULL;
	long status = 0;
	int64_t up = 0, down = 0, tt = 0, tdns = 0, tcon = 0, tapp = 0, tpre = 0, tstart = 0;
	char scheme[16], host[96], path[160], what[300], why[64];
	uint64_t t1 = net_now(), total;
	struct net_http *r;
	bool large;
	int e = errno;

	if (getinfo == NULL)
		return;
	getinfo(h, CI_EFFECTIVE_URL, &url);
	getinfo(h, CI_EFFECTIVE_METHOD, &method);
	getinfo(h, CI_RESPONSE_CODE, &status);
	getinfo(h, CI_SIZE_UPLOAD_T, &up);
	getinfo(h, CI_SIZE_DOWNLOAD_T, &down);
	if (getinfo(h, CI_TOTAL_TIME_T, &tt) != 0)
		tt = t0 ? (int64_t)(t1 - t0) / 1000 : 0;
	getinfo(h, CI_NAMELOOKUP_TIME_T, &tdns);
	getinfo(h, CI_CONNECT_TIME_T, &tcon);
	getinfo(h, CI_APPCONNECT_TIME_T, &tapp);
	getinfo(h, CI_PRETRANSFER_TIME_T, &tpre);
	getinfo(h, CI_STARTTRANSFER_TIME_T, &tstart);
	net_url_split(url ? url : "", net_keep_query, scheme, sizeof scheme, host, sizeof host, path, sizeof path);
	if (method == NULL || method[0] == '\0')
		method = "GET";
	r = &net_tab.http[net_http_get(method, scheme, host, path)];
	total = (uint64_t)(tt > 0 ? tt : 0) * 1000;
	NET_ADD(&r->c[NH_REQUESTS], 1);
	NET_ADD(&r->c[NH_BYTES_OUT], (uint64_t)(up > 0 ? up : 0));
	NET_ADD(&r->c[NH_BYTES_IN], (uint64_t)(down > 0 ? down : 0));
	NET_ADD(&r->c[NH_TOTAL_NS], total);
	net_max(&r->max_ns, total);
	NET_ADD(&r->c[NH_DNS_NS], (uint64_t)(tdns > 0 ? tdns : 0) * 1000);
	NET_ADD(&r->c[NH_CONNECT_NS], (uint64_t)(tcon > tdns ? tcon - tdns : 0) * 1000);
	NET_ADD(&r->c[NH_TLS_NS], (uint64_t)(tapp > tcon ? tapp - tcon : 0) * 1000);
	NET_ADD(&r->c[NH_TTFB_NS], (uint64_t)(tstart > tpre ? tstart - tpre : 0) * 1000);
	NET_STORE(&r->status, (uint32_t)(status > 0 ? status : 0));
	if (res != 0) {
		err = strerr ? strerr(res) : "transfer failed";
		NET_ADD(&r->c[NH_FAILS], 1);
		__atomic_store_n(&r->last_err, err, __ATOMIC_RELAXED);
	} else if (status >= 400) {
		NET_ADD(&r->c[NH_STATUS_ERR], 1);
		snprintf(why, sizeof why, "HTTP status %ld", status);
		err = why;
	}
	large = (uint64_t)(down > 0 ? down : 0) > net_large_bytes();
	if (large)
		NET_ADD(&r->c[NH_LARGE], 1);
	if (err != NULL || large || total >= net_threshold_ns()) {
		snprintf(what, sizeof what, "%s %s://%s%s", method, scheme, host, path);
		net_event(&(struct net_event_in){ .op = NET_OP_HTTP, .what = what, .error = err,
		    .status = (uint32_t)(status > 0 ? status : 0), .large = large,
		    .bytes = (uint64_t)(down > 0 ? down : 0), .t0 = t0 ? t0 : t1 - total, .t1 = t1 });
	}
	errno = e;
}

API int curl_easy_perform(void *h)
{
	static void *slot;
	int (*real)(void *) = (int (*)(void *))AGENT_REAL(slot, "curl_easy_perform", false);
	uint64_t t0 = net_now();
	int r;

	if (real == NULL)
		return 2;                         /* CURLE_FAILED_INIT */
	net_curl_depth++;
	r = real(h);
	net_curl_depth--;
	if (net_curl_depth == 0)
		net_curl_done(h, r, t0);
	return r;
}

API struct net_curlmsg *curl_multi_info_read(void *m, int *left)
{
	static void *slot;
	struct net_curlmsg *(*real)(void *, int *) = (struct net_curlmsg *(*)(void *, int *))
	    AGENT_REAL(slot, "curl_multi_info_read", false);
	struct net_curlmsg *msg;

	if (real == NULL) {
		if (left != NULL)
			*left = 0;
		return NULL;
	}
	msg = real(m, left);
	if (msg != NULL && msg->msg == NET_CURLMSG_DONE && net_curl_depth == 0)
		net_curl_done(msg->easy_handle, msg->data.result, 0);
	return msg;
}
