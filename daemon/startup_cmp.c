/*
 * startup_cmp.c - what got slower between two starts of one program: each
 * phase, each library's constructors (by path) and each dlopen (by name,
 * the k-th call of a name against the k-th), slower by more than the noise
 * (both more than noise_ns and more than noise_pct percent of the earlier
 * figure).  A library or dlopen the earlier run did not have counts from 0.
 * Phases are compared without the agent's own constructors.
 * Pure, for its unit test.
 */
#include <stdlib.h>
#include <string.h>
#include "daemon_startup.h"

struct su_cmp {
	const struct proto_startup *before;
	uint64_t noise_ns;
	uint32_t noise_pct;
	struct proto_su_change *v;
	size_t n;
};

/* Add kind/name when now_ns is slower than before_ns beyond the noise. */
static void
su_cmp_add(struct su_cmp *c, const char *kind, const char *name, uint64_t before_ns,
    uint64_t now_ns)
{
	uint64_t d = now_ns > before_ns ? now_ns - before_ns : 0;

	if (d <= c->noise_ns || d * 100 <= (uint64_t)c->noise_pct * before_ns)
		return;
	c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
	c->v[c->n++] = (struct proto_su_change){
		.kind = xstrdup(kind), .name = xstrdup(name), .before_ns = before_ns, .now_ns = now_ns,
	};
}

/* The earlier run's constructors of library name, 0 when it had none. */
static uint64_t
su_cmp_lib(const struct proto_startup *b, const char *name)
{
	for (size_t i = 0; i < b->nlibs; i++)
		if (strcmp(b->libs[i].name, name) == 0)
			return b->libs[i].dur_ns;
	return 0;
}

/* The earlier run's k-th dlopen of name (k from 0), 0 when none. */
static uint64_t
su_cmp_dlopen(const struct proto_startup *b, const char *name, size_t k)
{
	for (size_t i = 0; i < b->ndlopens; i++)
		if (strcmp(b->dlopens[i].name, name) == 0 && k-- == 0)
			return b->dlopens[i].dur_ns;
	return 0;
}

/* Largest slow-down first. */
static int
su_cmp_order(const void *a, const void *b)
{
	const struct proto_su_change *x = a, *y = b;
	uint64_t dx = x->now_ns - x->before_ns, dy = y->now_ns - y->before_ns;

	return dx < dy ? 1 : dx > dy ? -1 : strcmp(x->name, y->name);
}

/* The agent's own constructors: the library row whose constructors hold
 * the agent's constructor point; 0 when none. */
static uint64_t
su_cmp_agent(const struct proto_startup *s)
{
	for (size_t i = 0; i < s->nlibs; i++)
		if (s->agent_ns >= s->libs[i].start_ns &&
		    s->agent_ns <= s->libs[i].start_ns + s->libs[i].dur_ns)
			return s->libs[i].dur_ns;
	return 0;
}

/* Phase i of s as compared: without the agent's constructors when they lie
 * inside it (what watching costs varies with the machine's load and is not
 * the program's). */
static uint64_t
su_cmp_phase(const struct proto_startup *s, const struct proto_su_phase *p, int i)
{
	uint64_t d = p[i].end_ns - p[i].start_ns, a = su_cmp_agent(s);

	if (s->agent_ns < p[i].start_ns || s->agent_ns > p[i].end_ns || a > d)
		return d;
	return d - a;
}

/* See daemon_startup.h. */
size_t
daemon_startup_compare(const struct proto_startup *before, const struct proto_startup *now,
    uint64_t noise_ns, uint32_t noise_pct, struct proto_su_change **out)
{
	struct su_cmp c = { .before = before, .noise_ns = noise_ns, .noise_pct = noise_pct };
	struct proto_su_phase pb[PROTO_SU_NPHASES], pn[PROTO_SU_NPHASES];

	proto_startup_phases(before, pb);
	proto_startup_phases(now, pn);
	for (int i = 0; i < PROTO_SU_NPHASES; i++)
		if (pb[i].end_ns != 0 && pn[i].end_ns != 0)
			su_cmp_add(&c, "phase", pn[i].name, su_cmp_phase(before, pb, i),
			    su_cmp_phase(now, pn, i));
	for (size_t i = 0; i < now->nlibs; i++)
		su_cmp_add(&c, "constructors", now->libs[i].name,
		    su_cmp_lib(before, now->libs[i].name), now->libs[i].dur_ns);
	for (size_t i = 0; i < now->ndlopens; i++) {
		size_t k = 0;

		for (size_t j = 0; j < i; j++)
			k += strcmp(now->dlopens[j].name, now->dlopens[i].name) == 0;
		su_cmp_add(&c, "dlopen", now->dlopens[i].name,
		    su_cmp_dlopen(before, now->dlopens[i].name, k), now->dlopens[i].dur_ns);
	}
	if (c.n > 1)
		qsort(c.v, c.n, sizeof *c.v, su_cmp_order);
	if (c.n > PROTO_MAX_SU_CHANGES) {
		for (size_t i = PROTO_MAX_SU_CHANGES; i < c.n; i++) {
			free(c.v[i].kind);
			free(c.v[i].name);
		}
		c.n = PROTO_MAX_SU_CHANGES;
	}
	*out = c.v;
	return c.n;
}
