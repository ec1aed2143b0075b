/*
 * threads.c - the threads state of a session: each agent "threads" record
 * replaces the previous one (its figures are absolute), with C++ names
 * demangled on receipt; the daemon adds the thread count over time (live
 * threads, one sample per second for the last minute) and creations per
 * second; frames carry it as "threading"; the report prints the threads,
 * the creation sites that created the most threads and the pools.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon_collector.h"
#include "report.h"
#include "issue.h"

#define THR_SAMPLE_NS 1000000000ull

/* Replace a mangled name by its demangled form. */
static void
thr_demangle(struct proto_thr_frame *f)
{
	char *plain = f->name != NULL ? daemon_demangle(f->name) : NULL;

	if (plain != NULL) {
		free(f->name);
		f->name = plain;
	}
}

/* One history sample per second: live threads and threads created. */
static void
thr_history(struct daemon_thr_hist *h, const struct proto_threads *t, uint64_t now_ns)
{
	if (h->n > 0 && now_ns < h->last_ns + THR_SAMPLE_NS)
		return;
	if (h->n == PROTO_THR_HISTORY) {
		memmove(h->live, h->live + 1, (h->n - 1) * sizeof *h->live);
		memmove(h->created, h->created + 1, (h->n - 1) * sizeof *h->created);
		memmove(h->at_ns, h->at_ns + 1, (h->n - 1) * sizeof *h->at_ns);
		h->n--;
	}
	h->live[h->n] = (uint32_t)(t->live > UINT32_MAX ? UINT32_MAX : t->live);
	h->created[h->n] = t->created;
	h->at_ns[h->n] = now_ns;
	h->n++;
	h->last_ns = now_ns;
}

/* The history is the session's (borrowed by the snapshot): not freed. */
static void
thr_free(struct daemon_session *s)
{
	s->thr.history = NULL;
	s->thr.nhistory = 0;
	proto_threads_free(&s->thr);
}

/* See daemon.h. */
void
daemon_session_threads(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns)
{
	struct proto_threads copy, *t = &copy;
	struct daemon_thr_hist *h = &s->thr_hist;

	proto_threads_copy(t, &r->thr);

	for (size_t i = 0; i < t->nsites; i++) {
		thr_demangle(&t->sites[i].start);
		for (size_t k = 0; k < t->sites[i].nstack; k++)
			thr_demangle(&t->sites[i].stack[k]);
	}
	for (size_t i = 0; i < t->npools; i++)
		thr_demangle(&t->pools[i].func);
	free(t->history);
	t->history = NULL;
	t->nhistory = 0;
	thr_history(h, t, now_ns);
	t->created_per_s = 0;
	for (size_t i = h->n; i-- > 0;)       /* the newest sample at least 1 s old */
		if (now_ns >= h->at_ns[i] + THR_SAMPLE_NS && t->created >= h->created[i]) {
			t->created_per_s = (double)(t->created - h->created[i]) * 1e9 /
			    (double)(now_ns - h->at_ns[i]);
			break;
		}
	thr_free(s);
	s->thr = copy;
	s->thr.history = h->live;              /* borrowed: frames only read it */
	s->thr.nhistory = h->n;
}

/* "name+0x1a (module)" of a code address. */
static const char *
thr_where(char *buf, size_t len, const struct proto_thr_frame *f)
{
	if (f->name != NULL && *f->name)
		snprintf(buf, len, "%s+%#" PRIx64 " (%s)", f->name, f->off, f->module);
	else
		snprintf(buf, len, "%#" PRIx64 " (%s)", f->addr, *f->module ? f->module : "?");
	return buf;
}

/* Start routine of a site id: the name, or "main" for site 0. */
static const char *
thr_site_start(const struct proto_threads *t, uint32_t site)
{
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].id == site)
			return *t->sites[i].start.name ? t->sites[i].start.name : "?";
	return site == 0 ? "main" : "?";
}

/* The report's sites and pools paragraphs. */
static void
thr_report_sites(FILE *m, const struct proto_threads *t)
{
	char w[512];

	fprintf(m, "\ncreation sites (most threads first; two or more threads from one "
	    "site: an inferred pool)\n");
	for (size_t i = 0; i < t->nsites; i++) {
		const struct proto_thr_site *s = &t->sites[i];

		fprintf(m, "  site %u: %" PRIu64 " created, %" PRIu64 " live%s, start %s\n", s->id,
		    s->created, s->live, s->created >= 2 ? " (pool)" : "",
		    thr_where(w, sizeof w, &s->start));
		for (size_t k = 0; k < s->nstack; k++)
			fprintf(m, "    %s\n", thr_where(w, sizeof w, &s->stack[k]));
	}
	for (size_t i = 0; i < t->npools; i++) {
		const struct proto_thr_pool *p = &t->pools[i];

		fprintf(m, "  pool %u: %s%s%s, size %" PRId64 ", workers %" PRIu64 ", tasks pushed %"
		    PRIu64 ", done %" PRIu64 ", wait avg %.3f ms max %.3f ms, run avg %.3f ms max "
		    "%.3f ms%s\n", p->id, p->kind, p->func.addr ? " " : "",
		    p->func.addr ? thr_where(w, sizeof w, &p->func) : "", p->size, p->workers,
		    p->pushed, p->done, p->done ? (double)p->wait_ns / (double)p->done / 1e6 : 0.0,
		    (double)p->wait_max_ns / 1e6,
		    p->done ? (double)p->run_ns / (double)p->done / 1e6 : 0.0,
		    (double)p->run_max_ns / 1e6, p->freed ? " (freed)" : "");
	}
}

/* See daemon.h: the report's threads section. */
char *
daemon_threads_report(const struct daemon_session *s)
{
	const struct proto_threads *t = &s->thr;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL)
		return xstrdup("threads: (out of memory)\n");
	fprintf(m, "threads\n\n");
	fprintf(m, "created %" PRIu64 "   exited %" PRIu64 "   live %" PRIu64 " (with main)   "
	    "of unknown origin %" PRIu64 "   created/s %.1f   not recorded %" PRIu64 "\n",
	    t->created, t->exited, t->live, t->other_live, t->created_per_s, t->dropped);
	fprintf(m, "agent's own threads: created %" PRIu64 ", live %" PRIu64 ", CPU %.3f ms\n",
	    t->agent_created, t->agent_live, (double)t->agent_cpu_ns / 1e6);
	fprintf(m, "\n%8s %8s %8s %-10s %-9s %10s %6s  %s\n", "id", "tid", "creator", "name",
	    "state", "cpu", "cpu%", "start routine");
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct proto_thr_thread *h = &t->threads[i];

		fprintf(m, "%8u %8d %8d %-10s %-9s %8.2fms %6.1f  %s\n", h->id, (int)h->tid,
		    (int)h->creator, h->name, h->state, (double)h->cpu_ns / 1e6, h->cpu_pct,
		    thr_site_start(t, h->site));
	}
	thr_report_sites(m, t);
	fprintf(m, "\n");
	fclose(m);
	return out;
}

/* The count over time restarts; the snapshot stays until the next record. */
static void
thr_reset(struct daemon_session *s, uint64_t now_ns)
{
	(void)now_ns;
	memset(&s->thr_hist, 0, sizeof s->thr_hist);
	s->thr.nhistory = 0;
	s->thr.created_per_s = 0;
}

static void
thr_frame(struct daemon_session *s, struct proto_frame *f)
{
	f->thr = s->thr;
}

extern const struct report_section report_section_threads;   /* report_threads.c */

/* A thread the agent calls leaked (ended and never joined, or still
 * running at exit undetached) is a "thread-leak" issue of its creation
 * site; the leaked threads of a site are its occurrences (thread ids). */
static void
thr_detect(struct daemon_session *s, uint64_t now_ns)
{
	const struct proto_threads *t = &s->thr;

	for (size_t i = 0; i < t->nthreads; i++) {
		const struct proto_thr_thread *th = &t->threads[i];
		const struct proto_thr_site *site = NULL;
		struct proto_block_frame fr[PROTO_MAX_STACK];
		struct proto_block_stack st = { .frames = fr };
		char where[256], title[512];
		uint64_t leaked = 0;

		if (th->state == NULL || strcmp(th->state, "leaked") != 0)
			continue;
		for (size_t k = 0; k < t->nsites && site == NULL; k++)
			if (t->sites[k].id == th->site)
				site = &t->sites[k];
		for (size_t k = 0; k < t->nthreads; k++)
			leaked += t->threads[k].site == th->site && t->threads[k].state &&
			    strcmp(t->threads[k].state, "leaked") == 0;
		for (size_t k = 0; site != NULL && k < site->nstack && k < PROTO_MAX_STACK; k++) {
			const struct proto_thr_frame *f = &site->stack[site->nstack - 1 - k];

			fr[st.nframes++] = (struct proto_block_frame){ .addr = f->addr,
			    .func = f->name, .off = f->off, .module = f->module, .file = "" };
		}
		snprintf(where, sizeof where, "%s", site && site->start.name[0] ?
		    site->start.name : th->name);
		snprintf(title, sizeof title, "leaked thread %s (%s): never joined nor detached; "
		    "%" PRIu64 " leaked from this site", th->name, where, leaked);
		const struct proto_issue_fig figs[] = {
			{ "leaked", (double)leaked, "count" },
			{ "created", site ? (double)site->created : 0, "count" },
		};
		const struct daemon_issue_in in = {
			.type = "thread-leak", .where = where, .title = title, .value = leaked,
			.threshold = 1, .unit = "count", .occ = th->id + 1ull, .tid = th->tid,
			.thread = th->name, .figs = figs, .nfigs = 2, .stack = st.nframes ? &st : NULL,
		};
		daemon_issue_raise(s, &in, now_ns);
	}
}

const struct daemon_collector daemon_collector_threads = {
	.name = "threads",
	.part = &proto_part_threads,
	.on_record = daemon_session_threads,
	.reset = thr_reset,
	.detect = thr_detect,
	.free = thr_free,
	.fill_frame = thr_frame,
	.report = &report_section_threads,
};
