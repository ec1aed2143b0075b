/*
 * daemon_collector.h - the daemon's side of the collectors: one row per
 * collector (defined in its own daemon file, listed in collector.c) with
 * the agent records it consumes and what it does to a session.  The agent
 * dispatch, the session's reset and free, the periodic tick, the frame
 * fill, the report sections, /metrics and the threshold names all loop
 * over the table; none of them names a collector.  A row that detects
 * problems raises them from its detect op through issue.h.
 *
 * Reset (the "reset" command) means the same for every row: the agent
 * zeroes its counters and sends its current state again; the daemon, at
 * the same moment, drops what it accumulated from earlier records (counts,
 * lists, rings, histories, rates) and keeps the settings the agent does not
 * resend (thresholds, frame budget) and the last absolute snapshot (sites,
 * threads, power) until the next record replaces it.  A record stamped
 * before the reset (time_ns) is dropped for DAEMON_RESET_GRACE_NS.
 */
#ifndef HOOKSCOPE_DAEMON_COLLECTOR_H
#define HOOKSCOPE_DAEMON_COLLECTOR_H

#include "daemon.h"

struct report_section;

/* A threshold a client may set ("threshold NAME VALUE"). */
struct daemon_threshold {
	const char *name;
	const char *agent;        /* the name the agent knows; NULL: the same */
	const char *unit;         /* what the client gives */
	double      ns_per_unit;  /* the agent gets nanoseconds */
	double      min, max;     /* in the client's unit */
	const char *help;
};

#define DAEMON_COLLECTOR_RECORDS 4

struct daemon_collector {
	const char *name;
	/* its wire part (parts.h): it consumes that part's agent record; NULL: none */
	const struct proto_part *part;
	/* other agent record types it consumes, 0-terminated */
	enum proto_agent_type records[DAEMON_COLLECTOR_RECORDS];
	void (*on_record)(struct daemon_session *s, const struct proto_agent_rec *r,
	    uint64_t now_ns);
	/* bring the state up to now (periodically, and before a frame, a
	 * report or /metrics reads it) */
	void (*tick)(struct daemon_session *s, uint64_t now_ns);
	void (*reset)(struct daemon_session *s, uint64_t now_ns);   /* see above */
	void (*free)(struct daemon_session *s);
	/* raise the problems its state shows (issue.h: daemon_issue_raise),
	 * after each record and tick; an occurrence raised before is recognised
	 * there, so this may look at the same state again */
	void (*detect)(struct daemon_session *s, uint64_t now_ns);
	/* point the frame's part at the session's state (borrowed) */
	void (*fill_frame)(struct daemon_session *s, struct proto_frame *f);
	const struct report_section *report;  /* its report section, or NULL */
	const struct daemon_threshold *thresholds;
	size_t nthresholds;
	/* bytes of per-session state kept for it (daemon_session_state), 0:
	 * none; freed after its free op */
	size_t state_size;
};

/* The rows, in report order (collector.c). */
extern const struct daemon_collector *const daemon_collectors[];
extern const size_t daemon_ncollectors;

/* The row consuming records of type, or NULL. */
const struct daemon_collector *daemon_collector_of(enum proto_agent_type type);
/* The threshold called name, or NULL. */
const struct daemon_threshold *daemon_threshold_find(const char *name);
/* The row's state in session s (state_size zeroed bytes on first use), so a
 * collector keeps its state in its own file. */
void *daemon_session_state(struct daemon_session *s, const struct daemon_collector *c);

#endif
