/*
 * report_startup.c - the startup section of reports and metrics.  Text:
 * the timeline (each point from the exec), each library's constructors,
 * each dlopen and what got slower than the previous run.  JSON: the part's
 * field table, plus its phases.  Trace: each phase, each library's
 * constructors and each dlopen as a slice (cat "startup").  Metrics: the
 * phases (a fixed set of labels) and the count of changes slower than the
 * previous run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "daemon_startup.h"

/* "+12.3 ms" of t after the origin, or "-" when t is unknown. */
static const char *
su_at(char *buf, size_t len, uint64_t t, uint64_t origin)
{
	char d[32];

	if (t == 0 || origin == 0 || t < origin)
		return "-";
	snprintf(buf, len, "+%s", report_dur(d, sizeof d, t - origin));
	return buf;
}

static void
su_text(struct report_buf *b, const struct report_ctx *c)
{
	const struct proto_startup *p = daemon_startup_of(c->s);
	uint64_t o = proto_startup_origin(p);
	struct proto_su_phase ph[PROTO_SU_NPHASES];
	char a[32], d[32], e[32], f[32];

	report_add(b, "Startup\n\n");
	if (p->time_ns == 0 || p->attached) {
		report_add(b, "%s\n\n", p->attached ? "the agent was loaded into the running "
		    "process: its start was not seen" : "no startup record");
		return;
	}
	report_add(b, "exec %s (%s)\n", p->exec_ns ? "+0" : "unknown",
	    strcmp(p->exec_from, "run") == 0 ? "hookscoped run" :
	    strcmp(p->exec_from, "stat") == 0 ? "/proc start time, 10 ms grain" : "-");
	report_add(b, "loaded %s  agent %s  constructors done %s  main %s\n",
	    su_at(a, sizeof a, p->loaded_ns, o), su_at(d, sizeof d, p->agent_ns, o),
	    su_at(e, sizeof e, p->ctors_ns, o), su_at(f, sizeof f, p->main_ns, o));
	report_add(b, "first wait %s%s%s%s  first frame %s\n",
	    su_at(a, sizeof a, p->wait_ns, o), p->wait_ns ? " (" : "", p->wait_call,
	    p->wait_ns ? ")" : "", su_at(d, sizeof d, p->frame_ns, o));
	proto_startup_phases(p, ph);
	report_add(b, "\nphases\n");
	for (int i = 0; i < PROTO_SU_NPHASES; i++)
		report_add(b, "  %-22s %s\n", ph[i].name, ph[i].end_ns ?
		    report_dur(d, sizeof d, ph[i].end_ns - ph[i].start_ns) : "-");
	report_add(b, "\nlibrary constructors (%zu timed, %" PRIu64 " not)\n", p->nlibs, p->libs_lost);
	for (size_t i = 0; i < p->nlibs; i++)
		report_add(b, "  %-10s at %-12s %s (%u)\n",
		    report_dur(d, sizeof d, p->libs[i].dur_ns), su_at(a, sizeof a, p->libs[i].start_ns, o),
		    p->libs[i].name, p->libs[i].funcs);
	report_add(b, "\ndlopen calls (%" PRIu64 ", the first %zu listed)\n", p->dlopens_total,
	    p->ndlopens);
	for (size_t i = 0; i < p->ndlopens; i++)
		report_add(b, "  %-10s at %-12s %s%s (thread %d)\n",
		    report_dur(d, sizeof d, p->dlopens[i].dur_ns),
		    su_at(a, sizeof a, p->dlopens[i].start_ns, o), p->dlopens[i].name,
		    p->dlopens[i].ok ? "" : " FAILED", (int)p->dlopens[i].tid);
	if (!p->baseline || !*p->baseline) {
		report_add(b, "\nno previous run of this program to compare with\n\n");
		return;
	}
	report_add(b, "\nslower than the previous run (%s; noise: %s or %u%%)\n%s",
	    p->baseline, report_dur(d, sizeof d, p->noise_ns), p->noise_pct,
	    p->nslower ? "" : "  nothing beyond the noise\n");
	for (size_t i = 0; i < p->nslower; i++)
		report_add(b, "  %-12s %-40s %s -> %s\n", p->slower[i].kind, p->slower[i].name,
		    report_dur(d, sizeof d, p->slower[i].before_ns),
		    report_dur(e, sizeof e, p->slower[i].now_ns));
	report_add(b, "\n");
}

static void
su_json(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_startup *p = daemon_startup_of(c->s);
	struct proto_su_phase ph[PROTO_SU_NPHASES];

	rj_obj(j, NULL);
	proto_struct_json_fields(j, &proto_startup_desc, p);
	proto_startup_phases(p, ph);
	rj_arr(j, "phases");
	for (int i = 0; i < PROTO_SU_NPHASES; i++) {
		rj_obj(j, NULL);
		rj_str(j, "name", ph[i].name);
		if (ph[i].end_ns) {
			rj_u64(j, "start_ns", ph[i].start_ns);
			rj_u64(j, "dur_ns", ph[i].end_ns - ph[i].start_ns);
		} else {
			rj_null(j, "start_ns");
			rj_null(j, "dur_ns");
		}
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_end_obj(j);
}

/* One slice of the start. */
static void
su_slice(struct report_json *j, const struct report_ctx *c, const char *name, int32_t tid,
    uint64_t start, uint64_t dur)
{
	report_trace_event(j, "X", name, "startup", c->s->pid, tid, start);
	rj_us(j, "dur", dur);
	rj_end_obj(j);
}

static void
su_trace(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_startup *p = daemon_startup_of(c->s);
	struct proto_su_phase ph[PROTO_SU_NPHASES];
	char name[300];

	proto_startup_phases(p, ph);
	for (int i = 0; i < PROTO_SU_NPHASES; i++)
		if (ph[i].end_ns)
			su_slice(j, c, ph[i].name, c->s->pid, ph[i].start_ns,
			    ph[i].end_ns - ph[i].start_ns);
	for (size_t i = 0; i < p->nlibs; i++) {
		const char *base = strrchr(p->libs[i].name, '/');

		snprintf(name, sizeof name, "constructors %s", base ? base + 1 : p->libs[i].name);
		su_slice(j, c, name, c->s->pid, p->libs[i].start_ns, p->libs[i].dur_ns);
	}
	for (size_t i = 0; i < p->ndlopens; i++) {
		snprintf(name, sizeof name, "dlopen %s", p->dlopens[i].name);
		su_slice(j, c, name, p->dlopens[i].tid, p->dlopens[i].start_ns, p->dlopens[i].dur_ns);
	}
}

/* Each phase known, in seconds. */
static void
su_m_phase(struct report_metrics *m, const struct report_ctx *c)
{
	const struct proto_startup *p = daemon_startup_of(c->s);
	struct proto_su_phase ph[PROTO_SU_NPHASES];

	proto_startup_phases(p, ph);
	for (int i = 0; i < PROTO_SU_NPHASES; i++)
		if (ph[i].end_ns)
			report_metric(m, (double)(ph[i].end_ns - ph[i].start_ns) / 1e9,
			    "phase", ph[i].name, NULL);
}

static void
su_m_slower(struct report_metrics *m, const struct report_ctx *c)
{
	const struct proto_startup *p = daemon_startup_of(c->s);

	if (p->baseline && *p->baseline)
		report_metric(m, (double)p->nslower, NULL);
}

static const struct report_metric_family su_metrics[] = {
	{ "hookscope_startup_phase_seconds", "gauge",
	  "Length of each phase of the target's start (load, constructors, program "
	  "constructors, to main, to first wait, to first frame).", su_m_phase },
	{ "hookscope_startup_slower", "gauge",
	  "Phases, library constructors and dlopen calls slower than in the previous run "
	  "of the program, beyond the noise.", su_m_slower },
};

const struct report_section report_section_startup = {
	.name = "startup",
	.text = su_text,
	.json = su_json,
	.trace = su_trace,
	.metrics = su_metrics,
	.nmetrics = sizeof su_metrics / sizeof su_metrics[0],
};
