/*
 * issue_wire.h - the issues part of the wire: problems the daemon's
 * collectors detected (a UI block, a frozen frame, a leaked wakelock, ...),
 * each once with a count of its repeats, and the state of the issue sinks
 * ("issues").  Its row in the parts table (parts.h) is defined in issue.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_ISSUE_WIRE_H
#define HOOKSCOPE_PROTOCOL_ISSUE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "block_wire.h"

#define PROTO_MAX_ISSUES      64          /* issues of a target in one map: the newest */
#define PROTO_ISSUE_FIGS      8           /* figures of one issue */
#define PROTO_MAX_ISSUE_SINKS 4           /* sinks in one map */

/* A figure that made it an issue: "dur" 523e6 "ns". */
struct proto_issue_fig {
	char    *name;
	double   value;
	char    *unit;                    /* "ns", "count", "", ... */
};

/* One problem, raised by a collector; repeats add to count. */
struct proto_issue {
	char    *id;                      /* 16 hex digits: type, program and place, stable */
	uint64_t seq;                     /* the daemon's raise order (the local store's too) */
	char    *type;                    /* "ui-block", "frozen-frame", ... */
	char    *severity;                /* "minor", "major", "critical" */
	double   over;                    /* value / threshold */
	uint64_t value, threshold;        /* the measure and its threshold, in unit */
	char    *unit;
	uint64_t count;                   /* occurrences */
	uint64_t occ;                     /* the collector's number of the last one counted */
	uint64_t first_ms, last_ms;       /* wall clock */
	int32_t  pid;
	char    *exe;
	char    *build_id;                /* hex, "" when unknown */
	int32_t  tid;                     /* 0 when not one thread's */
	char    *thread;                  /* thread name, "" when unknown */
	char    *title;                   /* one line for people */
	char    *where;                   /* the place that makes it the same issue */
	size_t   nfigs;
	struct proto_issue_fig *figs;
	struct proto_block_stack stack;   /* symbolized, innermost first; may be empty */
};

/* A sink's state: what it has queued, sent, failed or dropped. */
struct proto_issue_sink {
	char    *name;                    /* "store", "syslog", "upload" */
	char    *dest;                    /* directory, socket, URL */
	uint64_t queued, sent, failed, dropped;
	char    *error;                   /* the last failure, "" none */
};

/* The "issues" map: a target's issues (the most recently seen first) and
 * the daemon's sinks. */
struct proto_issues {
	uint64_t raised;                  /* distinct issues of the target since start or reset */
	size_t   nlist;
	struct proto_issue *list;
	size_t   nsinks;
	struct proto_issue_sink *sinks;
};

void proto_issue_copy(struct proto_issue *dst, const struct proto_issue *src);
void proto_issue_free(struct proto_issue *i);
void proto_issues_free(struct proto_issues *l);

/* The field tables (issue.c). */
struct proto_struct;
extern const struct proto_struct proto_issues_desc, proto_issue_desc, proto_issue_fig_desc,
    proto_issue_sink_desc;

#endif
