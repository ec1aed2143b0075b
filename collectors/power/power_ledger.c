/*
 * power_ledger.c - the held resources, one entry per (category, tag).
 *
 * Power APIs are called rarely (a wakelock a second is a busy program), so
 * the ledger is one array under one mutex, written by the calling thread
 * and copied by the reporter; none of it runs on the timing hot path.
 * Semantics (doc/power.md): a reference-counted resource is held while its
 * count is above 0; a plain one from its first acquire to its first release
 * (acquires while held are counted, the hold goes on).  A timed acquire
 * sets the auto-release deadline (a later timed acquire moves it); a
 * deadline that passes ends the hold at the deadline itself and counts a
 * timeout.  A release of a resource not held is counted as unmatched.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "power_int.h"
#include "protocol.h"

#define POWER_RES_MAX 256

static pthread_mutex_t power_mu = PTHREAD_MUTEX_INITIALIZER;
static struct power_res power_res[POWER_RES_MAX];
static size_t   power_nres;
static uint64_t power_changes, power_lost;

/* The entry of (row's category, name), made when new; NULL if full. */
static struct power_res *power_find(const struct power_row *r, const char *name)
{
	struct power_res *p;

	for (size_t i = 0; i < power_nres; i++)
		if (strcmp(power_res[i].name, name) == 0 &&
		    strcmp(power_res[i].category, r->category) == 0)
			return &power_res[i];
	if (power_nres == POWER_RES_MAX) {
		power_lost++;
		return NULL;
	}
	p = &power_res[power_nres++];
	memset(p, 0, sizeof *p);
	strcpy(p->category, r->category);
	strncpy(p->name, name, sizeof p->name - 1);
	strcpy(p->item, r->item);
	p->refcount = r->refcount;
	p->ma = -1;
	return p;
}

/* End p's hold at t. */
static void power_end(struct power_res *p, uint64_t t)
{
	uint64_t d = t > p->since_ns ? t - p->since_ns : 0;

	p->total_ns += d;
	if (d > p->longest_ns)
		p->longest_ns = d;
	p->held = false;
	p->refs = 0;
	p->deadline_ns = 0;
	power_changes++;
}

/* Auto-release every timed hold whose deadline is due by now. */
static void power_due(uint64_t now)
{
	for (size_t i = 0; i < power_nres; i++)
		if (power_res[i].held && power_res[i].deadline_ns != 0 &&
		    power_res[i].deadline_ns <= now) {
			power_end(&power_res[i], power_res[i].deadline_ns);
			power_res[i].timeouts++;
		}
}

/* See power.h. */
void power_ledger_acquire(const struct power_row *r, const char *name, double ma,
    uint64_t timeout_ns, const struct power_stack *st, uint64_t now)
{
	struct power_res *p;

	pthread_mutex_lock(&power_mu);
	power_due(now);
	if ((p = power_find(r, name)) != NULL) {
		p->acquires++;
		if (!p->held) {
			p->held = true;
			p->since_ns = now;
			p->holder = *st;
			p->holder_tid = (int32_t)gettid();
			strcpy(p->api, r->symbol);
			if (ma >= 0)
				p->ma = ma;
		}
		p->refs = p->refcount ? p->refs + 1 : 1;
		if (timeout_ns != 0 && (p->deadline_ns == 0 || now + timeout_ns > p->deadline_ns ||
		    !p->refcount))
			p->deadline_ns = now + timeout_ns;
		else if (timeout_ns == 0 && !p->refcount)
			p->deadline_ns = 0;     /* a plain acquire holds until released */
		power_changes++;
	}
	pthread_mutex_unlock(&power_mu);
}

/* See power_int.h. */
void power_ledger_held_before(const struct power_row *r, const char *name, uint64_t now)
{
	static const struct power_stack none;

	power_ledger_acquire(r, name, -1, 0, &none, now);
	pthread_mutex_lock(&power_mu);
	for (size_t i = 0; i < power_nres; i++)
		if (strcmp(power_res[i].name, name) == 0 &&
		    strcmp(power_res[i].category, r->category) == 0) {
			snprintf(power_res[i].api, sizeof power_res[i].api, "%s", POWER_BEFORE_ATTACH);
			power_res[i].holder_tid = 0;
		}
	pthread_mutex_unlock(&power_mu);
}

/* See power.h. */
void power_ledger_release(const struct power_row *r, const char *name,
    const struct power_stack *st, uint64_t now)
{
	struct power_res *p;

	pthread_mutex_lock(&power_mu);
	power_due(now);
	if ((p = power_find(r, name)) != NULL) {
		p->releaser = *st;
		p->releaser_tid = (int32_t)gettid();
		if (!p->held) {
			p->unmatched++;
		} else {
			p->releases++;
			if (--p->refs <= 0)
				power_end(p, now);
		}
		power_changes++;
	}
	pthread_mutex_unlock(&power_mu);
}

/* See power.h. */
void power_ledger_oneshot(const struct power_row *r, const char *name,
    const struct power_stack *st, uint64_t now)
{
	struct power_res *p;

	pthread_mutex_lock(&power_mu);
	if ((p = power_find(r, name)) != NULL) {
		p->oneshots++;
		p->holder = *st;
		p->holder_tid = (int32_t)gettid();
		strcpy(p->api, r->symbol);
		(void)now;
		power_changes++;
	}
	pthread_mutex_unlock(&power_mu);
}

/* See power.h. */
uint64_t power_ledger_snapshot(struct power_res **out, size_t *n, uint64_t now)
{
	uint64_t c;

	pthread_mutex_lock(&power_mu);
	power_due(now);
	*n = power_nres;
	*out = xcalloc(power_nres + 1, sizeof **out);
	memcpy(*out, power_res, power_nres * sizeof **out);
	c = power_changes;
	pthread_mutex_unlock(&power_mu);
	return c;
}

/* See power.h: counts start again; what is held stays held from now. */
void power_ledger_reset(void)
{
	uint64_t now = proto_now_ns();

	pthread_mutex_lock(&power_mu);
	for (size_t i = 0; i < power_nres; i++) {
		struct power_res *p = &power_res[i];

		p->acquires = p->releases = p->timeouts = p->unmatched = p->oneshots = 0;
		p->total_ns = p->longest_ns = 0;
		if (p->held)
			p->since_ns = now;
	}
	power_changes++;
	pthread_mutex_unlock(&power_mu);
}

/* See power.h. */
void power_ledger_clear(void)
{
	pthread_mutex_init(&power_mu, NULL);
	power_nres = 0;
	power_changes++;
}
