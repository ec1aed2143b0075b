/*
 * issue.h - problems the daemon's collectors detect, raised through one
 * interface and delivered to the issue sinks.
 *
 * A collector row's detect op (daemon_collector.h) looks at its state after
 * each record and tick and calls daemon_issue_raise for what is past a
 * threshold.  An issue is identified by its type, the program (build-id,
 * else executable) and its place (where: the top frame, the endpoint, the
 * resource): the same problem raised again adds to its count and last-seen
 * time instead of making a new issue.  An occurrence that was already
 * counted (the same block seen in the next record) is recognised by its
 * occurrence number, which grows with each new occurrence of one issue.
 *
 * New issues go to every sink (issue_sinks.c: the local store, syslog, the
 * upload); repeats update the store's copy.
 */
#ifndef HOOKSCOPE_DAEMON_ISSUE_H
#define HOOKSCOPE_DAEMON_ISSUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include "daemon.h"

/* Severity from over = value / threshold. */
#define ISSUE_MAJOR_OVER     2.0      /* twice the threshold or more */
#define ISSUE_CRITICAL_OVER  5.0      /* five times or more */

/* What a collector raises. */
struct daemon_issue_in {
	const char *type;                 /* "ui-block", ... (doc/issues.md) */
	const char *where;                /* the place: same type + program + where = same issue */
	const char *title;                /* one line for people */
	uint64_t value, threshold;        /* the measure and its threshold */
	const char *unit;                 /* of value and threshold: "ns", "count" */
	uint64_t occ;                     /* occurrence number, growing per issue */
	bool     cumulative;              /* occ is a running count of occurrences */
	int32_t  tid;
	const char *thread;
	const struct proto_issue_fig *figs;
	size_t   nfigs;
	const struct proto_block_stack *stack;   /* NULL: none */
};

/* Raise one issue of session s (see above). */
void daemon_issue_raise(struct daemon_session *s, const struct daemon_issue_in *in,
    uint64_t now_ns);

/* The place of a stack: its innermost frame outside libc and the loader,
 * "func (module)", into buf; "?" when it has none. */
const char *daemon_issue_where(char *buf, size_t len, const struct proto_block_stack *st);

/* "minor", "major" or "critical" for value / threshold. */
const char *daemon_issue_severity(double over);
/* The issue id, 16 hex digits, into buf (17 bytes at least). */
void daemon_issue_id(char *buf, size_t len, const char *type, const char *program,
    const char *where);
/* The session's issues, most recently seen first (borrowed). */
const struct proto_issues *daemon_issues_of(struct daemon_session *s);

/* ---- the issue as text (issue_format.c) ---- */

struct proto_buf;
/* The issue as one JSON object (the store's file, the "json" upload). */
void issue_format_json(struct proto_buf *b, const struct proto_issue *i);
/* The issue as an OTLP/HTTP JSON logs request (ExportLogsServiceRequest). */
void issue_format_otlp(struct proto_buf *b, const struct proto_issue *i, const char *host);
/* The issue as one RFC 5424 syslog message (no newline); pid is the
 * sender's PROCID. */
void issue_format_syslog(struct proto_buf *b, const struct proto_issue *i, const char *host,
    int pid);

/* ---- the sinks (issue_sinks.c, issue_store.c, issue_syslog.c, issue_upload.c) ---- */

#define ISSUE_DEFAULT_MAX_FILES   1000
#define ISSUE_DEFAULT_MAX_BYTES   (16ull << 20)
#define ISSUE_DEFAULT_QUEUE       1000
#define ISSUE_DEFAULT_BACKOFF_S   60
#define ISSUE_SYSLOG_SOCKET       "/dev/log"

/* Start the sinks o configures (a store's existing issues are loaded, an
 * upload's queue resumed).  0, or -1 with err. */
int  daemon_issue_sinks_start(const struct daemon_issue_opts *o, char *err, size_t errlen);
void daemon_issue_sinks_stop(void);
/* The sinks' state for frames (borrowed until the next call). */
const struct proto_issue_sink *daemon_issue_sinks_state(size_t *n);

/* One sink: a row of the sink table (issue_sinks.c). */
struct issue_sink {
	const char *name;
	bool (*wanted)(const struct daemon_issue_opts *o);
	int  (*start)(const struct daemon_issue_opts *o, char *err, size_t errlen);
	/* a new issue (first raise) */
	void (*publish)(const struct proto_issue *i);
	/* a raised issue changed (count, last seen, worse figures); NULL: ignored */
	void (*update)(const struct proto_issue *i);
	void (*state)(struct proto_issue_sink *out);   /* fill counts (strings borrowed) */
	void (*stop)(void);
};

/* The store (issue_store.c): files DIR/SEQ-ID.json within the limits. */
struct issue_store;
struct issue_store *issue_store_open(const char *dir, uint64_t max_files, uint64_t max_bytes,
    char *err, size_t errlen);
/* Write the issue's file, or rewrite it (only when the store still has it,
 * unless create), dropping the oldest files first to stay within the
 * limits.  0, or -1 with errno (the issue alone is too big: EFBIG). */
int  issue_store_put(struct issue_store *st, const struct proto_issue *i, bool create);
/* Files and bytes in the store; the highest seq seen (files on disk at open
 * included). */
void issue_store_usage(const struct issue_store *st, uint64_t *files, uint64_t *bytes);
uint64_t issue_store_max_seq(const struct issue_store *st);
/* What the store knows of issue id of process pid from an earlier run:
 * 0 and *count, *occ, *first_ms, *seq; -1 when unknown. */
int  issue_store_find(const struct issue_store *st, int32_t pid, const char *id,
    uint64_t *count, uint64_t *occ, uint64_t *first_ms, uint64_t *seq);
void issue_store_close(struct issue_store *st);

/* The store the store sink opened (the upload queue lives in it, a restart
 * reads it); NULL when none. */
struct issue_store *issue_store_current(void);
/* The store's directory. */
const char *issue_store_dir(const struct issue_store *st);

extern const struct issue_sink issue_sink_store, issue_sink_syslog, issue_sink_upload;
/* issue_sinks.c: a new (fresh) or changed issue to every sink started. */
void issue_sinks_deliver(const struct proto_issue *i, bool fresh);
/* The next raise order number (after the store's highest). */
uint64_t issue_sinks_next_seq(void);

/* Options (issue_opts.c): the long options, their help, their parser. */
extern const struct option issue_longopts[];
extern const size_t issue_nlongopts;
void issue_opts_usage(FILE *f);
/* An issue option (its code from issue_longopts) into o; 0 or -1 with err. */
int  issue_opts_value(struct daemon_issue_opts *o, int c, const char *arg, char *err,
    size_t errlen);
/* Defaults and cross checks after parsing; 0 or -1 with err. */
int  issue_opts_finish(struct daemon_issue_opts *o, const char *report_dir, char *err,
    size_t errlen);
void issue_opts_free(struct daemon_issue_opts *o);

#endif
