/*
 * issue_format.c - an issue as text for the sinks: its JSON object (the
 * store's file and the "json" upload: the wire's field table, so the keys
 * are the frames' keys), an OTLP/HTTP JSON logs request (the "otlp"
 * upload), and an RFC 5424 syslog message.
 *
 * OTLP (opentelemetry-proto, logs/v1 and its JSON mapping): field names in
 * lowerCamelCase; 64-bit integers (timeUnixNano, intValue) as decimal
 * strings; severityNumber as the enum's number; one ResourceLogs with the
 * process as its resource, one ScopeLogs "hookscope", one LogRecord.
 *
 * Syslog (RFC 5424): <PRI>1 TIMESTAMP HOST hookscoped PROCID TYPE
 * [hookscope@32473 id=... ...] TITLE.  32473 is the enterprise number RFC 5612
 * reserves for examples; SD-PARAM values escape '"', '\' and ']'.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "issue.h"
#include "report.h"

#define ISSUE_SD_ID "hookscope@32473"

/* See issue.h. */
void
issue_format_json(struct proto_buf *b, const struct proto_issue *i)
{
	struct proto_json j = { .b = b, .digits = 15 };

	proto_struct_json(&j, NULL, &proto_issue_desc, i);
}

/* OTLP severity: WARN for minor, ERROR for major, FATAL for critical. */
static int
issue_otlp_severity(const char *sev)
{
	return strcmp(sev, "critical") == 0 ? 21 : strcmp(sev, "major") == 0 ? 17 : 13;
}

/* An attribute, {"key": k, "value": {...}}, opened: the caller writes the
 * AnyValue's one member, then otlp_end. */
static void
otlp_kv(struct proto_json *j, const char *k)
{
	proto_json_obj(j, NULL);
	proto_json_str(j, "key", k);
	proto_json_obj(j, "value");
}

static void
otlp_end(struct proto_json *j)
{
	proto_json_end_obj(j);
	proto_json_end_obj(j);
}

static void
otlp_str(struct proto_json *j, const char *k, const char *v)
{
	otlp_kv(j, k);
	proto_json_str(j, "stringValue", v);
	otlp_end(j);
}

/* An int64 attribute: intValue is a decimal string in OTLP JSON. */
static void
otlp_int(struct proto_json *j, const char *k, int64_t v)
{
	char num[32];

	snprintf(num, sizeof num, "%" PRId64, v);
	otlp_kv(j, k);
	proto_json_str(j, "intValue", num);
	otlp_end(j);
}

static void
otlp_double(struct proto_json *j, const char *k, double v)
{
	otlp_kv(j, k);
	proto_json_f64(j, "doubleValue", v);
	otlp_end(j);
}

/* See issue.h. */
void
issue_format_otlp(struct proto_buf *b, const struct proto_issue *i, const char *host)
{
	struct proto_json j = { .b = b, .digits = 15 };
	char ns[32], obs[32], key[96], frame[512];

	snprintf(ns, sizeof ns, "%" PRIu64 "000000", i->first_ms);
	snprintf(obs, sizeof obs, "%" PRIu64 "000000", i->last_ms);
	proto_json_obj(&j, NULL);
	proto_json_arr(&j, "resourceLogs");
	proto_json_obj(&j, NULL);
	proto_json_obj(&j, "resource");
	proto_json_arr(&j, "attributes");
	otlp_str(&j, "service.name", "hookscope");
	otlp_str(&j, "host.name", host);
	otlp_int(&j, "process.pid", i->pid);
	otlp_str(&j, "process.executable.path", i->exe);
	if (i->build_id && i->build_id[0])
		otlp_str(&j, "process.executable.build_id.gnu", i->build_id);
	proto_json_end_arr(&j);
	proto_json_end_obj(&j);
	proto_json_arr(&j, "scopeLogs");
	proto_json_obj(&j, NULL);
	proto_json_obj(&j, "scope");
	proto_json_str(&j, "name", "hookscope");
	proto_json_str(&j, "version", HS_VERSION);
	proto_json_end_obj(&j);
	proto_json_arr(&j, "logRecords");
	proto_json_obj(&j, NULL);
	proto_json_str(&j, "timeUnixNano", ns);
	proto_json_str(&j, "observedTimeUnixNano", obs);
	proto_json_u64(&j, "severityNumber", (uint64_t)issue_otlp_severity(i->severity));
	proto_json_str(&j, "severityText", i->severity);
	proto_json_str(&j, "eventName", "hookscope.issue");
	proto_json_obj(&j, "body");
	proto_json_str(&j, "stringValue", i->title);
	proto_json_end_obj(&j);
	proto_json_arr(&j, "attributes");
	otlp_str(&j, "hookscope.issue.id", i->id);
	otlp_str(&j, "hookscope.issue.type", i->type);
	otlp_str(&j, "hookscope.issue.where", i->where);
	otlp_int(&j, "hookscope.issue.seq", (int64_t)i->seq);
	otlp_int(&j, "hookscope.issue.count", (int64_t)i->count);
	otlp_int(&j, "hookscope.issue.value", (int64_t)i->value);
	otlp_int(&j, "hookscope.issue.threshold", (int64_t)i->threshold);
	otlp_str(&j, "hookscope.issue.unit", i->unit);
	otlp_double(&j, "hookscope.issue.over", i->over);
	otlp_int(&j, "thread.id", i->tid);
	if (i->thread && i->thread[0])
		otlp_str(&j, "thread.name", i->thread);
	for (size_t k = 0; k < i->nfigs; k++) {
		snprintf(key, sizeof key, "hookscope.issue.figure.%s", i->figs[k].name);
		otlp_double(&j, key, i->figs[k].value);
	}
	if (i->stack.nframes > 0) {
		otlp_kv(&j, "hookscope.issue.stack");
		proto_json_obj(&j, "arrayValue");
		proto_json_arr(&j, "values");
		for (size_t k = 0; k < i->stack.nframes; k++) {
			const struct proto_block_frame *f = &i->stack.frames[k];

			int n = snprintf(frame, sizeof frame, "%s+0x%" PRIx64 " (%s)", f->func &&
			    f->func[0] ? f->func : "??", f->off, f->module && f->module[0] ?
			    f->module : "?");

			if (f->file && f->file[0] && n > 0 && (size_t)n < sizeof frame)
				snprintf(frame + n, sizeof frame - (size_t)n, " %s:%u", f->file, f->line);
			proto_json_obj(&j, NULL);
			proto_json_str(&j, "stringValue", frame);
			proto_json_end_obj(&j);
		}
		proto_json_end_arr(&j);
		proto_json_end_obj(&j);
		otlp_end(&j);
	}
	proto_json_end_arr(&j);
	proto_json_end_obj(&j);
	proto_json_end_arr(&j);
	proto_json_end_obj(&j);
	proto_json_end_arr(&j);
	proto_json_end_obj(&j);
	proto_json_end_arr(&j);
	proto_json_end_obj(&j);
}

/* An SD-PARAM value: '"', '\' and ']' escaped with '\'; control bytes
 * (a newline would end the line for a reader) as '?'. */
static void
sd_param(struct proto_buf *b, const char *name, const char *v)
{
	report_add(b, " %s=\"", name);
	for (const char *p = v ? v : ""; *p; p++) {
		if (*p == '"' || *p == '\\' || *p == ']')
			report_add(b, "\\%c", *p);
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			report_addn(b, "?", 1);
		else
			report_addn(b, p, 1);
	}
	report_addn(b, "\"", 1);
}

/* See issue.h. */
void
issue_format_syslog(struct proto_buf *b, const struct proto_issue *i, const char *host, int pid)
{
	/* facility daemon (3); severity crit (2), err (3), warning (4) */
	int sev = strcmp(i->severity, "critical") == 0 ? 2 : strcmp(i->severity, "major") == 0 ? 3 : 4;
	time_t t = (time_t)(i->last_ms / 1000);
	struct tm tm;
	char ts[40], num[64];

	gmtime_r(&t, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
	report_add(b, "<%d>1 %s.%03uZ %s hookscoped %d %s [" ISSUE_SD_ID, 3 * 8 + sev, ts,
	    (unsigned)(i->last_ms % 1000), host && host[0] ? host : "-", pid, i->type);
	sd_param(b, "id", i->id);
	sd_param(b, "type", i->type);
	sd_param(b, "severity", i->severity);
	snprintf(num, sizeof num, "%d", (int)i->pid);
	sd_param(b, "pid", num);
	sd_param(b, "exe", i->exe);
	if (i->build_id && i->build_id[0])
		sd_param(b, "build_id", i->build_id);
	snprintf(num, sizeof num, "%d", (int)i->tid);
	sd_param(b, "tid", num);
	sd_param(b, "where", i->where);
	snprintf(num, sizeof num, "%" PRIu64, i->value);
	sd_param(b, "value", num);
	snprintf(num, sizeof num, "%" PRIu64, i->threshold);
	sd_param(b, "threshold", num);
	sd_param(b, "unit", i->unit);
	snprintf(num, sizeof num, "%" PRIu64, i->count);
	sd_param(b, "count", num);
	snprintf(num, sizeof num, "%" PRIu64, i->seq);
	sd_param(b, "seq", num);
	report_add(b, "] ");
	/* MSG: the title, one line */
	for (const char *p = i->title ? i->title : ""; *p; p++)
		report_addn(b, (unsigned char)*p < 0x20 ? " " : p, 1);
}
