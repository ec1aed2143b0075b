/*
 * net_tab.c - the network collector's three append-only tables: remote
 * endpoints, resolved names and HTTP request rows.  A row's key is written
 * once, under the mutex, before the row count is published (release); the
 * wrappers look rows up without a lock and add to their counters with
 * relaxed atomics.  A full table counts into its last row, "other".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "net_int.h"

struct net_tabs net_tab;
static pthread_mutex_t net_tab_lock = PTHREAD_MUTEX_INITIALIZER;

/* FNV-1a over the NUL-separated key parts. */
static uint32_t net_hash(const char *const *parts, int n)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < n; i++) {
		for (const char *p = parts[i]; *p; p++)
			h = (h ^ (uint8_t)*p) * 16777619u;
		h = (h ^ 0xff) * 16777619u;
	}
	return h;
}

/* Copy s into dst of cap bytes, cut if needed. */
static void net_cpy(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s);
}

/* See net_int.h. */
void net_max(uint64_t *max, uint64_t v)
{
	uint64_t m = NET_LOAD(max);

	while (v > m && !__atomic_compare_exchange_n(max, &m, v, true, __ATOMIC_RELAXED,
	    __ATOMIC_RELAXED))
		;
}

/* The generic lookup: row i of n published matching (hash, eq), else a new
 * one made by fill under the lock; the last row when full. */
#define NET_GET(tab, cnt, max, h, EQ, FILL)                                         \
	do {                                                                      \
		uint32_t n_ = __atomic_load_n(&(cnt), __ATOMIC_ACQUIRE);            \
		for (uint32_t i = 0; i < n_; i++)                                   \
			if ((tab)[i].hash == (h) && (EQ))                           \
				return (uint16_t)i;                                 \
		pthread_mutex_lock(&net_tab_lock);                                 \
		n_ = (cnt);                                                         \
		for (uint32_t i = 0; i < n_; i++)                                   \
			if ((tab)[i].hash == (h) && (EQ)) {                         \
				pthread_mutex_unlock(&net_tab_lock);               \
				return (uint16_t)i;                                 \
			}                                                           \
		if (n_ >= (max) - 1) {                                              \
			uint32_t i = (max) - 1;                                     \
			if (n_ == (max) - 1) {                                      \
				(tab)[i].hash = 0;                                  \
				FILL;                                               \
				__atomic_store_n(&(cnt), (max), __ATOMIC_RELEASE);  \
			}                                                           \
			pthread_mutex_unlock(&net_tab_lock);                       \
			return (uint16_t)i;                                         \
		} else {                                                            \
			uint32_t i = n_;                                            \
			(tab)[i].hash = (h);                                        \
			FILL;                                                       \
			__atomic_store_n(&(cnt), n_ + 1, __ATOMIC_RELEASE);         \
			pthread_mutex_unlock(&net_tab_lock);                       \
			return (uint16_t)i;                                         \
		}                                                                   \
	} while (0)

/* See net_int.h. */
uint16_t net_ep_get(const char *proto, const char *addr)
{
	const char *k[] = { proto, addr };
	uint32_t h = net_hash(k, 2) | 1;      /* never 0: 0 is "other" */

	NET_GET(net_tab.ep, net_tab.nep, NET_MAX_EP, h,
	    strcmp(net_tab.ep[i].addr, addr) == 0 && strcmp(net_tab.ep[i].proto, proto) == 0,
	    (net_cpy(net_tab.ep[i].proto, sizeof net_tab.ep[i].proto, net_tab.ep[i].hash ? proto : "any"),
	     net_cpy(net_tab.ep[i].addr, sizeof net_tab.ep[i].addr, net_tab.ep[i].hash ? addr : "other")));
}

/* See net_int.h. */
uint16_t net_dns_get(const char *name)
{
	const char *k[] = { name };
	uint32_t h = net_hash(k, 1) | 1;

	NET_GET(net_tab.dns, net_tab.ndns, NET_MAX_DNS, h,
	    strcmp(net_tab.dns[i].name, name) == 0,
	    net_cpy(net_tab.dns[i].name, sizeof net_tab.dns[i].name,
	        net_tab.dns[i].hash ? name : "other"));
}

/* See net_int.h. */
uint16_t net_http_get(const char *method, const char *scheme, const char *host, const char *path)
{
	const char *k[] = { method, scheme, host, path };
	uint32_t h = net_hash(k, 4) | 1;
	struct net_http *t = net_tab.http;

	NET_GET(t, net_tab.nhttp, NET_MAX_HTTP, h,
	    strcmp(t[i].path, path) == 0 && strcmp(t[i].host, host) == 0 &&
	    strcmp(t[i].method, method) == 0 && strcmp(t[i].scheme, scheme) == 0,
	    (net_cpy(t[i].method, sizeof t[i].method, t[i].hash ? method : "other"),
	     net_cpy(t[i].scheme, sizeof t[i].scheme, t[i].hash ? scheme : ""),
	     net_cpy(t[i].host, sizeof t[i].host, t[i].hash ? host : "other"),
	     net_cpy(t[i].path, sizeof t[i].path, t[i].hash ? path : "")));
}

/* See net_int.h: the child is single-threaded; a lock held at the fork is free. */
void net_tab_atfork_child(void)
{
	pthread_mutex_init(&net_tab_lock, NULL);
}
