/*
 * report.h - reports and metrics of hookscoped: one table of per-collector
 * sections (report.c), each section one function per output format.
 *
 *   text     a readable summary (report.c header, then each section)
 *   json     one object per session, each section under its key
 *            (doc/report-schema.md, doc/report-schema.json)
 *   trace    Chrome trace event JSON: each section appends its events
 *   folded   folded stacks (flamegraph.pl, speedscope): "a;b;c N" lines
 *   metrics  Prometheus text exposition (metrics.c): each section owns its
 *            metric families
 *
 * A collector adds a report_section_NAME (its own daemon/report_NAME.c)
 * and names it in its collector row (daemon_collector.h); a format it has nothing
 * for stays NULL.
 */
#ifndef HOOKSCOPE_REPORT_H
#define HOOKSCOPE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "daemon.h"
#include "json.h"

enum report_format {
	REPORT_TEXT, REPORT_JSON, REPORT_TRACE, REPORT_FOLDED, REPORT_NFORMATS
};

#define REPORT_SCHEMA_VERSION  1     /* "version" of the JSON report */
#define REPORT_METRICS_TOP     10    /* functions in /metrics, by self time */
#define REPORT_METRICS_IPC_TOP 10    /* IPC endpoints in /metrics, by total time */

/* A growing text buffer: the protocol's, so the report's text and its JSON
 * share one (protocol/json.h). */
#define report_buf proto_buf

void report_add(struct report_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void report_addn(struct report_buf *b, const char *s, size_t n);
/* Append a heap string and free it (the sections' existing text). */
void report_add_free(struct report_buf *b, char *s);
/* "12.3 ms" etc. of ns nanoseconds into buf. */
const char *report_dur(char *buf, size_t len, uint64_t ns);

/* The report's JSON is the protocol's one writer (protocol/json.h):
 * UTF-8 checked, depth-checked; key is NULL inside arrays. */
#define report_json proto_json
#define rj_key     proto_json_key
#define rj_obj     proto_json_obj
#define rj_arr     proto_json_arr
#define rj_end_obj proto_json_end_obj
#define rj_end_arr proto_json_end_arr
#define rj_str     proto_json_str
#define rj_u64     proto_json_u64
#define rj_i64     proto_json_i64
#define rj_f64     proto_json_f64
#define rj_bool    proto_json_bool
#define rj_null    proto_json_null
/* ns as microseconds with three decimals (trace "ts" and "dur"). */
void rj_us(struct report_json *j, const char *key, uint64_t ns);
/* A symbolized stack as an array of frames {addr, func, off, module, file,
 * line}, innermost first (blocks, slow IPC calls). */
void rj_stack(struct report_json *j, const char *key, const struct proto_block_stack *st);

/* What every section function gets. */
struct report_ctx {
	struct daemon_session *s;
	uint64_t now_ns;                  /* daemon monotonic clock */
	uint64_t wall_ms;
	bool     multi;                   /* several sessions in one report */
};

/* Chrome trace: one event object opened (close it with rj_end_obj);
 * ts and dur in ns of the monotonic clock (agents and daemon share it). */
void report_trace_event(struct report_json *j, const char *ph, const char *name,
    const char *cat, int32_t pid, int32_t tid, uint64_t ts_ns);

/* A metadata event (complete): what is "process_name" or "thread_name". */
void report_trace_meta(struct report_json *j, const char *what, int32_t pid, int32_t tid,
    const char *name);

/* Folded stacks: frames root first, then the count. */
struct report_folded {
	struct report_buf *b;
	const char *root;                 /* "name-pid" prefix frame, or NULL */
};
void report_folded_line(struct report_folded *f, const char *const *frames,
    size_t n, uint64_t count);

/* Prometheus exposition: a section's family emits its samples of one
 * session with report_metric(); labels pid and target come first. */
struct report_metrics {
	struct report_buf *b;
	const char *family;
	const struct report_ctx *c;
};
struct report_metric_family {
	const char *name;                 /* hookscope_... */
	const char *type;                 /* "gauge" or "counter" */
	const char *help;
	void (*emit)(struct report_metrics *m, const struct report_ctx *c);
};
/* One sample: extra labels as name, value pairs ending with NULL. */
void report_metric(struct report_metrics *m, double value, ...)
    __attribute__((sentinel));

struct report_section {
	const char *name;                 /* the JSON key */
	void (*text)(struct report_buf *b, const struct report_ctx *c);
	void (*json)(struct report_json *j, const struct report_ctx *c);  /* the key's value */
	void (*trace)(struct report_json *j, const struct report_ctx *c); /* events */
	void (*folded)(struct report_folded *f, const struct report_ctx *c);
	const struct report_metric_family *metrics;
	size_t nmetrics;
};


/* The section of the i-th collector (daemon_collector.h), NULL if it has none
 * or i is past the table: report order. */
const struct report_section *report_section_at(size_t i);

/* "text" -> REPORT_TEXT; -1 when unknown. */
int  report_format_parse(const char *name);
const char *report_format_name(int fmt);
const char *report_format_ext(int fmt);     /* ".txt", ".json", ... */
/* The report of the given sessions in fmt (heap, *len bytes). */
char *report_build(struct daemon_session *const *v, size_t n, int fmt,
    uint64_t now_ns, uint64_t wall_ms, size_t *len);
/* Prometheus text exposition of every session (heap). */
char *report_metrics_build(const struct daemon_sessions *ss, uint64_t now_ns,
    uint64_t wall_ms, size_t *len);

/* paths.c: the session's call paths in the funcs section of each format. */
void daemon_paths_json(struct report_json *j, const struct daemon_session *s);
void daemon_paths_folded(struct report_folded *f, const struct daemon_session *s);
void daemon_paths_trace(struct report_json *j, const struct daemon_session *s, uint64_t now_ns);

#endif
