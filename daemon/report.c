/*
 * report.c - the report of one session or all ("dump"), in the format the
 * user picks (report.h): the table of per-collector sections, the shared
 * writers (text buffer, JSON, trace events, folded lines) and the header.
 * Writing the file is report_write.c; /metrics is metrics.c.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "daemon_collector.h"
#include "report.h"

/* See report.h: the sections in the collectors' order (daemon_collector.h). */
const struct report_section *
report_section_at(size_t i)
{
	return i < daemon_ncollectors ? daemon_collectors[i]->report : NULL;
}

static const struct {
	const char *name, *ext;
} report_formats[REPORT_NFORMATS] = {
	[REPORT_TEXT]   = { "text",   ".txt" },
	[REPORT_JSON]   = { "json",   ".json" },
	[REPORT_TRACE]  = { "trace",  ".trace.json" },
	[REPORT_FOLDED] = { "folded", ".folded" },
};

/* See report.h. */
int
report_format_parse(const char *name)
{
	for (int i = 0; i < REPORT_NFORMATS; i++)
		if (strcmp(report_formats[i].name, name) == 0)
			return i;
	return -1;
}

const char *
report_format_name(int fmt)
{
	return report_formats[fmt].name;
}

const char *
report_format_ext(int fmt)
{
	return report_formats[fmt].ext;
}

/* ---- text buffer ---- */

/* Append printf output. */
void
report_add(struct report_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	b->len += (size_t)n;
}

/* Append n bytes (NUL-terminated after). */
void
report_addn(struct report_buf *b, const char *s, size_t n)
{
	proto_buf_add(b, s, n);
}

void
report_add_free(struct report_buf *b, char *s)
{
	if (s != NULL)
		report_addn(b, s, strlen(s));
	free(s);
}

/* Human-readable duration of ns nanoseconds. */
const char *
report_dur(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

/* Local date and time of a wall-clock ms value. */
static const char *
report_date(char *buf, size_t len, uint64_t ms, const char *fmt)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL || strftime(buf, len, fmt, &tm) == 0)
		snprintf(buf, len, "%" PRIu64, ms / 1000);
	return buf;
}

/* ---- JSON ---- */

/* See report.h: microseconds with ns precision, exactly. */
void
rj_us(struct report_json *j, const char *key, uint64_t ns)
{
	char s[32];

	snprintf(s, sizeof s, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	proto_json_raw(j, key, s);
}

/* See report.h. */
void
rj_stack(struct report_json *j, const char *key, const struct proto_block_stack *st)
{
	char addr[32];

	rj_arr(j, key);
	for (size_t f = 0; f < st->nframes; f++) {
		const struct proto_block_frame *fr = &st->frames[f];

		snprintf(addr, sizeof addr, "0x%" PRIx64, fr->addr);
		rj_obj(j, NULL);
		rj_str(j, "addr", addr);
		rj_str(j, "func", fr->func);
		rj_u64(j, "off", fr->off);
		rj_str(j, "module", fr->module);
		rj_str(j, "file", fr->file);
		rj_u64(j, "line", fr->line);
		rj_end_obj(j);
	}
	rj_end_arr(j);
}

/* See report.h. */
void
report_trace_event(struct report_json *j, const char *ph, const char *name,
    const char *cat, int32_t pid, int32_t tid, uint64_t ts_ns)
{
	rj_obj(j, NULL);
	rj_str(j, "ph", ph);
	rj_str(j, "name", name);
	if (cat != NULL)
		rj_str(j, "cat", cat);
	rj_i64(j, "pid", pid);
	rj_i64(j, "tid", tid);
	rj_us(j, "ts", ts_ns);
}

/* See report.h. */
void
report_trace_meta(struct report_json *j, const char *what, int32_t pid, int32_t tid,
    const char *name)
{
	report_trace_event(j, "M", what, NULL, pid, tid, 0);
	rj_obj(j, "args");
	rj_str(j, "name", name);
	rj_end_obj(j);
	rj_end_obj(j);
}

/* ---- folded stacks ---- */

/* One frame: ';' separates frames and a newline ends the line, so both
 * become ':' and ' ' inside names. */
static void
report_folded_frame(struct report_buf *b, const char *s)
{
	for (const char *p = s && *s ? s : "??"; *p; p++)
		report_addn(b, *p == ';' ? ":" : *p == '\n' || *p == '\r' ? " " : p, 1);
}

/* See report.h. */
void
report_folded_line(struct report_folded *f, const char *const *frames, size_t n,
    uint64_t count)
{
	bool first = true;

	if (count == 0)
		return;
	if (f->root != NULL) {
		report_folded_frame(f->b, f->root);
		first = false;
	}
	for (size_t i = 0; i < n; i++, first = false) {
		if (!first)
			report_addn(f->b, ";", 1);
		report_folded_frame(f->b, frames[i]);
	}
	report_add(f->b, " %" PRIu64 "\n", count);
}

/* ---- the report ---- */

/* Header lines of the text report: who, what state, how long, how costly. */
static void
report_text_header(struct report_buf *b, const struct report_ctx *c)
{
	const struct daemon_session *s = c->s;
	char t1[64], t2[64], st[96], sites[512];
	uint64_t end = s->ended_ms ? s->ended_ms : c->wall_ms;
	uint64_t up = end > s->started_ms ? end - s->started_ms : 0;

	if (s->exit_status >= 0) {
		daemon_run_status_str(s->exit_status, t1, sizeof t1);
		snprintf(st, sizeof st, "%s (%s)", proto_target_state_name(s->state), t1);
	} else {
		snprintf(st, sizeof st, "%s", proto_target_state_name(s->state));
	}
	report_add(b, "hookscope report\n\n");
	report_add(b, "target:    %s (pid %d)\n", s->name ? s->name : "?", (int)s->pid);
	report_add(b, "exe:       %s\n", s->exe && *s->exe ? s->exe : "?");
	if (s->cmdline && *s->cmdline)
		report_add(b, "cmdline:   %s\n", s->cmdline);
	if (s->build_id && *s->build_id)
		report_add(b, "build-id:  %s\n", s->build_id);
	report_add(b, "level:     %u\n", (unsigned)s->level);
	report_add(b, "state:     %s\n", st);
	report_add(b, "started:   %s\n", report_date(t1, sizeof t1,
	    s->started_ms, "%Y-%m-%d %H:%M:%S"));
	report_add(b, "uptime:    %s\n", report_dur(t2, sizeof t2, up * 1000000));
	report_add(b, "threads:   %u\n", (unsigned)s->threads);
	report_add(b, "dropped:   %" PRIu64 " events\n", s->dropped);
	report_add(b, "sites:     %s\n", daemon_sites_line(s->sites, s->nsites, sites,
	    sizeof sites));
	report_add(b, "written:   %s\n", report_date(t1, sizeof t1, c->wall_ms,
	    "%Y-%m-%d %H:%M:%S"));
}

/* The JSON session's own fields (the sections follow). */
static void
report_json_session(struct report_json *j, const struct report_ctx *c)
{
	const struct daemon_session *s = c->s;

	rj_i64(j, "pid", s->pid);
	rj_str(j, "name", s->name);
	rj_str(j, "exe", s->exe);
	rj_str(j, "cmdline", s->cmdline);
	rj_str(j, "build_id", s->build_id);
	rj_u64(j, "level", s->level);
	rj_str(j, "state", proto_target_state_name(s->state));
	if (s->exit_status >= 0)
		rj_i64(j, "exit_status", s->exit_status);
	else
		rj_null(j, "exit_status");
	rj_u64(j, "started_ms", s->started_ms);
	rj_u64(j, "ended_ms", s->ended_ms);
	rj_u64(j, "overhead_ps", s->overhead_ps);
	rj_u64(j, "dropped", s->dropped);
	rj_u64(j, "threads_seen", s->threads);
	rj_arr(j, "sites");
	for (size_t i = 0; i < s->nsites; i++) {
		rj_obj(j, NULL);
		rj_str(j, "backend", s->sites[i].backend);
		rj_u64(j, "active", s->sites[i].active);
		rj_u64(j, "disabled", s->sites[i].disabled);
		rj_u64(j, "skipped", s->sites[i].skipped);
		rj_end_obj(j);
	}
	rj_end_arr(j);
}

/* The trace's process name and sort order. */
static void
report_trace_process(struct report_json *j, const struct report_ctx *c)
{
	char name[256];

	snprintf(name, sizeof name, "%s (pid %d)", c->s->name ? c->s->name : "?",
	    (int)c->s->pid);
	report_trace_meta(j, "process_name", c->s->pid, c->s->pid, name);
}

/* One session in fmt. */
static void
report_session(struct report_buf *b, struct report_json *j, const struct report_ctx *c,
    int fmt)
{
	char root[160];
	struct report_folded f = { .b = b };
	const struct report_section *sec;

	switch (fmt) {
	case REPORT_TEXT:
		report_text_header(b, c);
		for (size_t i = 0; i < daemon_ncollectors; i++)
			if ((sec = report_section_at(i)) != NULL && sec->text != NULL) {
				report_add(b, "\n");
				sec->text(b, c);
			}
		break;
	case REPORT_JSON:
		rj_obj(j, NULL);
		report_json_session(j, c);
		for (size_t i = 0; i < daemon_ncollectors; i++)
			if ((sec = report_section_at(i)) != NULL && sec->json != NULL) {
				rj_key(j, sec->name);
				sec->json(j, c);
			}
		rj_end_obj(j);
		break;
	case REPORT_TRACE:
		report_trace_process(j, c);
		for (size_t i = 0; i < daemon_ncollectors; i++)
			if ((sec = report_section_at(i)) != NULL && sec->trace != NULL)
				sec->trace(j, c);
		break;
	case REPORT_FOLDED:
		if (c->multi) {
			snprintf(root, sizeof root, "%s-%d", c->s->name ? c->s->name : "?",
			    (int)c->s->pid);
			f.root = root;
		}
		for (size_t i = 0; i < daemon_ncollectors; i++)
			if ((sec = report_section_at(i)) != NULL && sec->folded != NULL)
				sec->folded(&f, c);
		break;
	}
}

/* See report.h. */
char *
report_build(struct daemon_session *const *v, size_t n, int fmt, uint64_t now_ns,
    uint64_t wall_ms, size_t *len)
{
	struct report_buf b = { 0 };
	struct report_json j = { .b = &b };

	report_addn(&b, "", 0);
	if (fmt == REPORT_JSON) {
		rj_obj(&j, NULL);
		rj_str(&j, "schema", "hookscope-report");
		rj_u64(&j, "version", REPORT_SCHEMA_VERSION);
		rj_str(&j, "hookscope", HS_VERSION);
		rj_u64(&j, "generated_ms", wall_ms);
		rj_arr(&j, "sessions");
	} else if (fmt == REPORT_TRACE) {
		rj_obj(&j, NULL);
		rj_str(&j, "displayTimeUnit", "ms");
		rj_obj(&j, "otherData");
		rj_str(&j, "generator", "hookscope " HS_VERSION);
		rj_u64(&j, "generated_ms", wall_ms);
		rj_end_obj(&j);
		rj_arr(&j, "traceEvents");
	}
	for (size_t i = 0; i < n; i++) {
		struct report_ctx c = { .s = v[i], .now_ns = now_ns, .wall_ms = wall_ms,
		    .multi = n > 1 };

		daemon_session_tick(v[i], now_ns);
		if (fmt == REPORT_TEXT && i > 0)
			report_add(&b, "\n\f\n");
		report_session(&b, &j, &c, fmt);
	}
	if (fmt == REPORT_TEXT && n == 0)
		report_add(&b, "hookscope report\n\n(no targets)\n");
	if (fmt == REPORT_JSON || fmt == REPORT_TRACE) {
		rj_end_arr(&j);
		rj_end_obj(&j);
		report_add(&b, "\n");
	}
	*len = b.len;
	return b.p;
}

/* See daemon.h: the text report of one session. */
char *
daemon_report_format(struct daemon_session *s, uint64_t now_ns, uint64_t wall_ms,
    size_t *len)
{
	return report_build(&s, 1, REPORT_TEXT, now_ns, wall_ms, len);
}
