/*
 * issue.c - the issues of a session and the one interface collectors raise
 * them through (issue.h): identity, de-duplication of repeats, severity,
 * and the hand-over of new and changed issues to the sinks.  Its collector
 * row keeps the session's issues (the PROTO_MAX_ISSUES most recently seen),
 * puts them in frames with the sinks' state, and takes an agent's own
 * "issues" record as raises.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon_collector.h"
#include "issue.h"
#include "report.h"

struct issue_state {
	struct proto_issues v;            /* most recently seen first */
};

extern const struct daemon_collector daemon_collector_issues;

static struct issue_state *
issue_state(struct daemon_session *s)
{
	return daemon_session_state(s, &daemon_collector_issues);
}

/* See issue.h. */
const char *
daemon_issue_severity(double over)
{
	return over >= ISSUE_CRITICAL_OVER ? "critical" : over >= ISSUE_MAJOR_OVER ? "major" : "minor";
}

/* Frames of the C library, the loader and the agent's wrappers say little
 * about whose problem it is. */
static bool
issue_system_module(const char *m)
{
	return m == NULL || m[0] == '\0' || strncmp(m, "libc.so", 7) == 0 ||
	    strncmp(m, "ld-linux", 8) == 0 || strncmp(m, "libpthread", 10) == 0 ||
	    strncmp(m, "libhookscope", 12) == 0;
}

/* See issue.h. */
const char *
daemon_issue_where(char *buf, size_t len, const struct proto_block_stack *st)
{
	const struct proto_block_frame *f = NULL;

	for (size_t k = 0; st != NULL && k < st->nframes && f == NULL; k++)
		if (!issue_system_module(st->frames[k].module) && st->frames[k].func &&
		    st->frames[k].func[0])
			f = &st->frames[k];
	if (f == NULL && st != NULL && st->nframes > 0)
		f = &st->frames[0];
	if (f == NULL)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%s (%s)", f->func && f->func[0] ? f->func : "??",
		    f->module && f->module[0] ? f->module : "?");
	return buf;
}

/* FNV-1a, 64 bits, over one string and its terminating NUL. */
static uint64_t
issue_fnv(uint64_t h, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	do {
		h ^= *p;
		h *= 0x100000001b3ull;
	} while (*p++);
	return h;
}

/* See issue.h. */
void
daemon_issue_id(char *buf, size_t len, const char *type, const char *program, const char *where)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = issue_fnv(h, type);
	h = issue_fnv(h, program);
	h = issue_fnv(h, where);
	snprintf(buf, len, "%016" PRIx64, h);
}

/* Most recently seen first; ties: the later raised first. */
static int
issue_cmp(const void *a, const void *b)
{
	const struct proto_issue *x = a, *y = b;

	if (x->last_ms != y->last_ms)
		return x->last_ms > y->last_ms ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/* The figures, severity, thread and stack of in (the worst occurrence). */
static void
issue_set_figures(struct proto_issue *d, const struct daemon_issue_in *in)
{
	struct proto_issue tmp = { 0 };

	free(d->severity);
	free(d->unit);
	free(d->thread);
	free(d->title);
	proto_struct_release(&proto_block_stack_desc, &d->stack);
	for (size_t k = 0; k < d->nfigs; k++)
		proto_struct_release(&proto_issue_fig_desc, &d->figs[k]);
	free(d->figs);
	d->value = in->value;
	d->threshold = in->threshold;
	d->over = in->threshold ? (double)in->value / (double)in->threshold : 0;
	d->severity = xstrdup(daemon_issue_severity(d->over));
	d->unit = xstrdup(in->unit ? in->unit : "");
	d->tid = in->tid;
	d->thread = xstrdup(in->thread ? in->thread : "");
	d->title = xstrdup(in->title ? in->title : in->type);
	/* the figures and the stack through the field tables' deep copy */
	tmp.nfigs = in->nfigs < PROTO_ISSUE_FIGS ? in->nfigs : PROTO_ISSUE_FIGS;
	tmp.figs = (struct proto_issue_fig *)in->figs;
	if (in->stack != NULL)
		tmp.stack = *in->stack;
	if (tmp.stack.nframes > PROTO_BLOCK_FRAMES)
		tmp.stack.nframes = PROTO_BLOCK_FRAMES;
	d->nfigs = tmp.nfigs;
	d->figs = xcalloc(tmp.nfigs ? tmp.nfigs : 1, sizeof *d->figs);
	for (size_t k = 0; k < tmp.nfigs; k++)
		proto_struct_copy(&proto_issue_fig_desc, &d->figs[k], &tmp.figs[k]);
	proto_struct_copy(&proto_block_stack_desc, &d->stack, &tmp.stack);
}

/* A slot for a new issue: a free one, or the least recently seen. */
static struct proto_issue *
issue_slot(struct proto_issues *l)
{
	if (l->nlist < PROTO_MAX_ISSUES) {
		l->list = xrealloc(l->list, (l->nlist + 1) * sizeof *l->list);
		memset(&l->list[l->nlist], 0, sizeof *l->list);
		return &l->list[l->nlist++];
	}
	proto_issue_free(&l->list[l->nlist - 1]);     /* sorted: the oldest seen */
	return &l->list[l->nlist - 1];
}

/* See issue.h. */
void
daemon_issue_raise(struct daemon_session *s, const struct daemon_issue_in *in, uint64_t now_ns)
{
	struct issue_state *st = issue_state(s);
	const char *program = s->build_id && s->build_id[0] ? s->build_id : s->exe;
	struct proto_issue *d = NULL;
	uint64_t wall = proto_wall_ms(), more, seq = 0, count = 0, occ = 0, first = 0;
	bool fresh = false, worse;
	char id[24];

	(void)now_ns;
	daemon_issue_id(id, sizeof id, in->type, program, in->where);
	for (size_t k = 0; k < st->v.nlist && d == NULL; k++)
		if (strcmp(st->v.list[k].id, id) == 0)
			d = &st->v.list[k];
	if (d == NULL) {
		/* raised by an earlier run of the daemon for this process: the
		 * store's copy says what was counted already */
		struct issue_store *store = issue_store_current();
		bool known = store != NULL &&
		    issue_store_find(store, s->pid, id, &count, &occ, &first, &seq) == 0;

		if (known && in->occ <= occ)
			more = 0;
		else
			more = !known ? (in->cumulative ? in->occ : 1) :
			    in->cumulative ? in->occ - occ : 1;
		d = issue_slot(&st->v);
		d->id = xstrdup(id);
		d->type = xstrdup(in->type);
		d->where = xstrdup(in->where ? in->where : "");
		d->pid = s->pid;
		d->exe = xstrdup(s->exe ? s->exe : "");
		d->build_id = xstrdup(s->build_id ? s->build_id : "");
		d->first_ms = known ? first : wall;
		d->seq = known ? seq : issue_sinks_next_seq();
		d->count = count + more;
		d->occ = in->occ > occ ? in->occ : occ;
		d->last_ms = wall;
		issue_set_figures(d, in);
		fresh = !known;
		st->v.raised++;
		if (!fresh && more == 0)
			goto sort;
	} else {
		if (in->occ < d->occ || (in->occ == d->occ && (!in->threshold ||
		    strcmp(daemon_issue_severity((double)in->value / (double)in->threshold),
		    d->severity) == 0)))
			return;           /* counted already, and no worse */
		if (in->occ == d->occ) {  /* the same occurrence grew worse */
			issue_set_figures(d, in);
			issue_sinks_deliver(d, false);
			return;
		}
		d->count += in->cumulative ? in->occ - d->occ : 1;
		d->occ = in->occ;
		d->last_ms = wall;
		worse = in->threshold && (double)in->value / (double)in->threshold > d->over;
		if (worse)
			issue_set_figures(d, in);
	}
	daemon_log(fresh ? DLOG_NOTICE : DLOG_DEBUG, "issue %s %s (%s, x%" PRIu64 "): %s", d->id,
	    d->type, d->severity, d->count, d->title);
	issue_sinks_deliver(d, fresh);
sort:
	qsort(st->v.list, st->v.nlist, sizeof *st->v.list, issue_cmp);
	s->gen++;
}

/* See issue.h. */
const struct proto_issues *
daemon_issues_of(struct daemon_session *s)
{
	return &issue_state(s)->v;
}

/* An agent's own issues: raised like the collectors'. */
static void
issue_record(struct daemon_session *s, const struct proto_agent_rec *r, uint64_t now_ns)
{
	for (size_t k = 0; k < r->issues.nlist; k++) {
		const struct proto_issue *i = &r->issues.list[k];
		struct daemon_issue_in in = {
			.type = i->type, .where = i->where, .title = i->title, .value = i->value,
			.threshold = i->threshold, .unit = i->unit, .occ = i->occ ? i->occ : i->count,
			.cumulative = i->occ == 0, .tid = i->tid, .thread = i->thread,
			.figs = i->figs, .nfigs = i->nfigs, .stack = &i->stack,
		};

		if (i->type == NULL || i->type[0] == '\0')
			continue;
		daemon_issue_raise(s, &in, now_ns);
	}
}

/* The session's list goes (reset rule); the store keeps what it has. */
static void
issue_reset(struct daemon_session *s, uint64_t now_ns)
{
	(void)now_ns;
	proto_issues_free(&issue_state(s)->v);
}

static void
issue_free(struct daemon_session *s)
{
	proto_issues_free(&issue_state(s)->v);
}

static void
issue_frame(struct daemon_session *s, struct proto_frame *f)
{
	size_t n;

	f->issues = issue_state(s)->v;
	f->issues.sinks = (struct proto_issue_sink *)daemon_issue_sinks_state(&n);
	f->issues.nsinks = n;
}

extern const struct report_section report_section_issues;   /* report_issues.c */

const struct daemon_collector daemon_collector_issues = {
	.name = "issues",
	.part = &proto_part_issues,
	.on_record = issue_record,
	.reset = issue_reset,
	.free = issue_free,
	.fill_frame = issue_frame,
	.report = &report_section_issues,
	.state_size = sizeof(struct issue_state),
};
