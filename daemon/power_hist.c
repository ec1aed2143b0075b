/*
 * power_hist.c - held power resources over time, for the trace report's
 * "held resources" counter: the agent's power record says what is held
 * now, not when it changed, so the daemon keeps a sample per category each
 * time a count changes and a second after the last sample (the agent sends
 * a record at least once a second while something is held), timed by the
 * record (agent and daemon share the monotonic clock).
 */
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

#define PWR_HIST_EVERY_NS 1000000000ull

/* Index of category name in h, added if new; -1 when h is full. */
static int
pwr_hist_cat(struct daemon_pwr_hist *h, const char *name)
{
	for (size_t i = 0; i < h->ncats; i++)
		if (strcmp(h->cats[i], name) == 0)
			return (int)i;
	if (h->ncats == PROTO_MAX_PWR_CATS)
		return -1;
	h->cats[h->ncats] = xstrdup(name);
	return (int)h->ncats++;
}

/* See daemon.h. */
void
daemon_power_hist_add(struct daemon_session *s, uint64_t at_ns)
{
	struct daemon_pwr_hist *h = s->power_hist;
	uint16_t held[PROTO_MAX_PWR_CATS] = { 0 };
	size_t last;
	int k;

	if (h == NULL)
		h = s->power_hist = xcalloc(1, sizeof *h);
	for (size_t i = 0; i < s->power.ncats; i++) {
		const struct proto_pwr_cat *c = &s->power.cats[i];

		if ((k = pwr_hist_cat(h, c->category)) >= 0)
			held[k] = c->held > UINT16_MAX ? UINT16_MAX : (uint16_t)c->held;
	}
	if (h->n > 0) {
		last = (h->head + DAEMON_PWR_HIST - 1) % DAEMON_PWR_HIST;
		if (at_ns < h->at_ns[last])
			at_ns = h->at_ns[last];   /* keep the samples in order */
		if (memcmp(held, h->held[last], sizeof held) == 0 &&
		    at_ns < h->at_ns[last] + PWR_HIST_EVERY_NS)
			return;
	}
	h->at_ns[h->head] = at_ns;
	memcpy(h->held[h->head], held, sizeof held);
	h->head = (h->head + 1) % DAEMON_PWR_HIST;
	if (h->n < DAEMON_PWR_HIST)
		h->n++;
}

/* See daemon.h. */
void
daemon_power_hist_free(struct daemon_session *s)
{
	if (s->power_hist == NULL)
		return;
	for (size_t i = 0; i < s->power_hist->ncats; i++)
		free(s->power_hist->cats[i]);
	free(s->power_hist);
	s->power_hist = NULL;
}
