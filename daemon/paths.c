/*
 * paths.c - the target's call paths (the timing collector's calling-context
 * tree, merged over its threads by the agent): kept per session by the
 * agent's path ids, and given to reports as JSON (the whole tree), folded
 * stacks (self time per path) and a Chrome trace (the tree laid out as a
 * flame chart).  Names come from the session's function table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const struct daemon_paths *paths_sort_p;   /* the qsort comparators' tree */

/* See daemon.h.  An agent's first record on a connection (baseline) starts
 * its ids afresh. */
void
daemon_paths_record(struct daemon_paths *p, const struct proto_agent_rec *r, bool baseline)
{
	if (baseline)
		p->n = 0;
	for (size_t i = 0; i < r->npaths; i++) {
		const struct proto_ag_path *g = &r->paths[i];
		struct daemon_path *d;

		if (g->id >= DAEMON_MAX_PATHS || g->parent > g->id)
			continue;         /* a parent comes before its children */
		if (g->id >= p->cap) {
			size_t cap = p->cap ? p->cap : 256;

			while (cap <= g->id)
				cap *= 2;
			p->v = xrealloc(p->v, cap * sizeof *p->v);
			p->cap = cap;
		}
		if (g->id >= p->n) {
			memset(&p->v[p->n], 0, (g->id + 1 - p->n) * sizeof *p->v);
			p->n = g->id + 1;
		}
		d = &p->v[g->id];
		d->parent = g->parent;
		d->addr = g->addr;
		d->calls = g->calls;
		d->incl_ns = g->incl_ns;
		d->self_ns = g->self_ns;
	}
	p->dropped = r->paths_dropped;
	p->off = r->paths_off;
}

/* See daemon.h. */
void
daemon_paths_reset(struct daemon_paths *p)
{
	for (size_t k = 0; k < p->n; k++)
		p->v[k].calls = p->v[k].incl_ns = p->v[k].self_ns = 0;
	p->dropped = 0;
}

/* See daemon.h. */
void
daemon_paths_free(struct daemon_paths *p)
{
	free(p->v);
	memset(p, 0, sizeof *p);
}

/* See daemon.h. */
const char *
daemon_path_name(const struct daemon_session *s, const struct daemon_path *x, char *buf,
    size_t len)
{
	const struct daemon_func *f = daemon_functab_find(&s->funcs, x->addr);

	if (f != NULL && f->name != NULL)
		return f->name;
	snprintf(buf, len, "0x%" PRIx64, x->addr);
	return buf;
}

/* ---- frames ---- */

static int
paths_by_incl_id(const void *a, const void *b)
{
	const struct daemon_path *x = &paths_sort_p->v[*(const uint32_t *)a];
	const struct daemon_path *y = &paths_sort_p->v[*(const uint32_t *)b];

	return x->incl_ns < y->incl_ns ? 1 : x->incl_ns > y->incl_ns ? -1 : 0;
}

/* See daemon.h: the top paths by inclusive time, their ancestors added,
 * in id order (a parent before its children); names borrowed. */
struct proto_path *
daemon_paths_frame(const struct daemon_session *s, size_t top, size_t *n, char (**hex)[24])
{
	const struct daemon_paths *p = &s->paths;
	uint32_t *ids = xcalloc(p->n ? p->n : 1, sizeof *ids);
	bool *keep = xcalloc(p->n ? p->n : 1, sizeof *keep);
	struct proto_path *out;
	size_t m = 0, k = 0;

	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].calls > 0 || p->v[i].incl_ns > 0)
			ids[m++] = (uint32_t)i;
	paths_sort_p = p;
	qsort(ids, m, sizeof *ids, paths_by_incl_id);
	for (size_t i = 0; i < m && i < top; i++)
		for (uint32_t id = ids[i] + 1; id != 0 && !keep[id - 1]; id = p->v[id - 1].parent)
			keep[id - 1] = true;
	for (size_t i = 0; i < p->n; i++)
		k += keep[i];
	out = xcalloc(k ? k : 1, sizeof *out);
	*hex = xcalloc(k ? k : 1, sizeof **hex);
	k = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct daemon_path *x = &p->v[i];

		if (!keep[i])
			continue;
		out[k] = (struct proto_path){
			.id = (uint32_t)i, .parent = x->parent, .calls = x->calls,
			.incl_ns = x->incl_ns, .self_ns = x->self_ns,
			.func = (char *)daemon_path_name(s, x, (*hex)[k], sizeof (*hex)[k]),
		};
		k++;
	}
	free(ids);
	free(keep);
	*n = k;
	return out;
}

/* ---- reports ---- */

/* JSON: every path with calls, and the ancestors of those still running
 * (a main that has not returned: no calls yet), so every parent id is
 * listed; parent by id ("parent": null at the top).  A parent's id is
 * below its children's: one pass down the ids marks the ancestors. */
void
daemon_paths_json(struct report_json *j, const struct daemon_session *s)
{
	const struct daemon_paths *p = &s->paths;
	bool *keep = xcalloc(p->n ? p->n : 1, sizeof *keep);
	char buf[32];

	for (size_t k = p->n; k-- > 0;) {
		const struct daemon_path *x = &p->v[k];

		keep[k] |= x->calls > 0 || x->incl_ns > 0;
		if (keep[k] && x->parent != 0)
			keep[x->parent - 1] = true;
	}
	rj_u64(j, "paths_dropped", p->dropped);
	rj_bool(j, "paths_off", p->off);
	rj_arr(j, "paths");
	for (size_t k = 0; k < p->n; k++) {
		const struct daemon_path *x = &p->v[k];

		if (!keep[k])
			continue;
		rj_obj(j, NULL);
		rj_u64(j, "id", k);
		if (x->parent == 0)
			rj_null(j, "parent");
		else
			rj_u64(j, "parent", x->parent - 1);
		rj_str(j, "func", daemon_path_name(s, x, buf, sizeof buf));
		rj_u64(j, "calls", x->calls);
		rj_u64(j, "incl_ns", x->incl_ns);
		rj_u64(j, "self_ns", x->self_ns);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	free(keep);
}

/* Folded: one line per path with self time, its functions root first,
 * weighted in microseconds of self time. */
void
daemon_paths_folded(struct report_folded *f, const struct daemon_session *s)
{
	const struct daemon_paths *p = &s->paths;
	const char *frames[DAEMON_PATH_DEPTH];
	char bufs[DAEMON_PATH_DEPTH][32];

	for (size_t k = 0; k < p->n; k++) {
		size_t n = 0, id = k;

		if (p->v[k].self_ns < 500)
			continue;         /* under a microsecond: no line */
		for (;;) {            /* leaf up, then reversed below */
			const struct daemon_path *x = &p->v[id];

			if (n == DAEMON_PATH_DEPTH)
				break;
			frames[n] = daemon_path_name(s, x, bufs[n], sizeof bufs[n]);
			n++;
			if (x->parent == 0)
				break;
			id = x->parent - 1;
		}
		for (size_t i = 0; i < n / 2; i++) {
			const char *t = frames[i];

			frames[i] = frames[n - 1 - i];
			frames[n - 1 - i] = t;
		}
		report_folded_line(f, frames, n, (p->v[k].self_ns + 500) / 1000);
	}
}

/* The children of every path, heaviest first: first[k]..first[k+1] index
 * kids (k = id + 1; 0 holds the outermost paths). */
struct paths_kids {
	size_t *first, *kids;
};

static int
paths_by_incl(const void *a, const void *b)
{
	uint64_t x = paths_sort_p->v[*(const size_t *)a].incl_ns;
	uint64_t y = paths_sort_p->v[*(const size_t *)b].incl_ns;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void
paths_kids_build(const struct daemon_paths *p, struct paths_kids *c)
{
	size_t *fill = xcalloc(p->n + 2, sizeof *fill);

	c->first = xcalloc(p->n + 2, sizeof *c->first);
	c->kids = xcalloc(p->n ? p->n : 1, sizeof *c->kids);
	for (size_t k = 0; k < p->n; k++)
		c->first[p->v[k].parent + 1]++;
	for (size_t k = 1; k < p->n + 2; k++)
		c->first[k] += c->first[k - 1];
	memcpy(fill, c->first, (p->n + 2) * sizeof *fill);
	for (size_t k = 0; k < p->n; k++)
		c->kids[fill[p->v[k].parent]++] = k;
	paths_sort_p = p;
	for (size_t k = 0; k < p->n + 1; k++)
		qsort(c->kids + c->first[k], c->first[k + 1] - c->first[k], sizeof *c->kids,
		    paths_by_incl);
	free(fill);
}

/* Lay the paths under parent (id + 1) out from ts; depth bounds the
 * recursion (the agent's stacks are bounded too). */
static void
paths_trace_level(struct report_json *j, const struct daemon_session *s,
    const struct paths_kids *c, size_t parent, uint64_t ts, unsigned depth)
{
	const struct daemon_paths *p = &s->paths;
	char buf[32];

	if (depth >= DAEMON_PATH_DEPTH)
		return;
	for (size_t i = c->first[parent]; i < c->first[parent + 1]; i++) {
		const struct daemon_path *x = &p->v[c->kids[i]];

		if (x->incl_ns < 1000)
			continue;
		report_trace_event(j, "X", daemon_path_name(s, x, buf, sizeof buf), "paths",
		    s->pid, 0, ts);
		rj_us(j, "dur", x->incl_ns);
		rj_obj(j, "args");
		rj_u64(j, "calls", x->calls);
		rj_u64(j, "self_ns", x->self_ns);
		rj_end_obj(j);
		rj_end_obj(j);
		paths_trace_level(j, s, c, c->kids[i] + 1, ts, depth + 1);
		ts += x->incl_ns;
	}
}

/* Trace: the tree as a flame chart on a track of its own ("call paths"),
 * each path an event as long as its inclusive time, children inside their
 * parent heaviest first, the whole ending at now. */
void
daemon_paths_trace(struct report_json *j, const struct daemon_session *s, uint64_t now_ns)
{
	const struct daemon_paths *p = &s->paths;
	struct paths_kids c;
	uint64_t total = 0;

	if (p->n == 0)
		return;
	paths_kids_build(p, &c);
	for (size_t i = c.first[0]; i < c.first[1]; i++)
		total += p->v[c.kids[i]].incl_ns;
	report_trace_meta(j, "thread_name", s->pid, 0,
	    "call paths (all threads; length = inclusive time)");
	paths_trace_level(j, s, &c, 0, now_ns > total ? now_ns - total : 0, 0);
	free(c.first);
	free(c.kids);
}
