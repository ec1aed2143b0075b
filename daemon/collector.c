/*
 * collector.c - the table of the daemon's collectors (daemon_collector.h) and the
 * loops over it: a record to the row that consumes it, and a session's
 * tick, reset, frame and free.  A new collector adds its row here.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "daemon_collector.h"

/* Every collector, in report order: a new one adds its name here (its row
 * is daemon_collector_NAME, in its own file). */
#define COLLECTORS(X) X(funcs) X(sites) X(fps) X(threads) X(blocks) X(ipc) X(power) X(memory) X(network) \
	X(startup) X(issues)

#define COLLECTOR_DECL(n) extern const struct daemon_collector daemon_collector_##n;
#define COLLECTOR_ROW(n) &daemon_collector_##n,
COLLECTORS(COLLECTOR_DECL)
const struct daemon_collector *const daemon_collectors[] = { COLLECTORS(COLLECTOR_ROW) };
const size_t daemon_ncollectors = sizeof daemon_collectors / sizeof daemon_collectors[0];

/* See daemon_collector.h. */
const struct daemon_collector *
daemon_collector_of(enum proto_agent_type type)
{
	for (size_t i = 0; i < daemon_ncollectors; i++) {
		if (daemon_collectors[i]->part != NULL && daemon_collectors[i]->part->ag_type == type)
			return daemon_collectors[i];
		for (size_t k = 0; k < DAEMON_COLLECTOR_RECORDS &&
		    daemon_collectors[i]->records[k] != 0; k++)
			if (daemon_collectors[i]->records[k] == type)
				return daemon_collectors[i];
	}
	return NULL;
}

/* See daemon_collector.h. */
const struct daemon_threshold *
daemon_threshold_find(const char *name)
{
	for (size_t i = 0; i < daemon_ncollectors; i++)
		for (size_t k = 0; k < daemon_collectors[i]->nthresholds; k++)
			if (strcmp(daemon_collectors[i]->thresholds[k].name, name) == 0)
				return &daemon_collectors[i]->thresholds[k];
	return NULL;
}

/* See daemon.h. */
int
daemon_session_record(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns)
{
	const struct daemon_collector *c = daemon_collector_of(r->type);

	if (c == NULL)
		return -1;
	/* Sent before the agent saw our reset: it would bring the old figures
	 * back.  Its agent-side time tells (the same monotonic clock). */
	if (s->reset_ns != 0 && now_ns - s->reset_ns < DAEMON_RESET_GRACE_NS &&
	    r->time_ns != 0 && r->time_ns < s->reset_ns) {
		daemon_log(DLOG_DEBUG, "pid %d: dropped a %s record from before the "
		    "reset", (int)s->pid, c->name);
		return 0;
	}
	c->on_record(s, r, now_ns);
	if (c->detect != NULL)
		c->detect(s, now_ns);
	s->gen++;
	return 0;
}

/* See daemon.h. */
void
daemon_session_tick(struct daemon_session *s, uint64_t now_ns)
{
	for (size_t i = 0; i < daemon_ncollectors; i++) {
		if (daemon_collectors[i]->tick != NULL)
			daemon_collectors[i]->tick(s, now_ns);
		if (daemon_collectors[i]->detect != NULL)
			daemon_collectors[i]->detect(s, now_ns);
	}
}

/* See daemon.h. */
void
daemon_session_reset(struct daemon_session *s, uint64_t now_ns)
{
	for (size_t i = 0; i < daemon_ncollectors; i++)
		if (daemon_collectors[i]->reset != NULL)
			daemon_collectors[i]->reset(s, now_ns);
	s->reset_ns = now_ns;
	s->gen++;
}

/* See daemon.h. */
void
daemon_session_frame(struct daemon_session *s, struct proto_frame *f)
{
	for (size_t i = 0; i < daemon_ncollectors; i++)
		if (daemon_collectors[i]->fill_frame != NULL)
			daemon_collectors[i]->fill_frame(s, f);
}

/* See daemon_collector.h: the row's slot, taken on first use. */
void *
daemon_session_state(struct daemon_session *s, const struct daemon_collector *c)
{
	size_t i;

	assert(c->state_size > 0);
	for (i = 0; i < DAEMON_MAX_COLLECTORS && s->cstate[i].c != NULL; i++)
		if (s->cstate[i].c == c)
			return s->cstate[i].p;
	assert(i < DAEMON_MAX_COLLECTORS);        /* more rows than slots */
	s->cstate[i].c = c;
	s->cstate[i].p = xcalloc(1, c->state_size);
	return s->cstate[i].p;
}

/* See daemon.h: each row frees what it holds, then the slots go. */
void
daemon_session_collectors_free(struct daemon_session *s)
{
	for (size_t i = 0; i < daemon_ncollectors; i++) {
		assert(daemon_collectors[i]->on_record != NULL);
		if (daemon_collectors[i]->free != NULL)
			daemon_collectors[i]->free(s);
	}
	for (size_t i = 0; i < DAEMON_MAX_COLLECTORS && s->cstate[i].c != NULL; i++) {
		free(s->cstate[i].p);
		s->cstate[i] = (struct daemon_cstate){ 0 };
	}
}
