/*
 * functab.c - the function table of a session: a dense array in order of
 * first sight plus an open-addressing index by address.  Functions are never
 * removed one by one; the table dies with its session.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

/* Fibonacci hash of an address into nslots (a power of two). */
static size_t
functab_hash(uint64_t addr, size_t nslots)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & (nslots - 1);
}

/* The slot holding addr, or the empty slot where it would go. */
static size_t
functab_slot(const struct daemon_functab *t, uint64_t addr)
{
	size_t i = functab_hash(addr, t->nslots);

	while (t->slots[i] != 0 && t->v[t->slots[i] - 1].addr != addr)
		i = (i + 1) & (t->nslots - 1);
	return i;
}

/* Rebuild the index at twice the size (load stays under one half). */
static void
functab_grow_index(struct daemon_functab *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 64;

	free(t->slots);
	t->slots = xcalloc(n, sizeof *t->slots);
	t->nslots = n;
	for (size_t k = 0; k < t->n; k++)
		t->slots[functab_slot(t, t->v[k].addr)] = (uint32_t)(k + 1);
}

/* The function at addr, or NULL. */
struct daemon_func *
daemon_functab_find(const struct daemon_functab *t, uint64_t addr)
{
	size_t i;

	if (t->nslots == 0)
		return NULL;
	i = functab_slot(t, addr);
	return t->slots[i] ? &t->v[t->slots[i] - 1] : NULL;
}

/* The function at addr, added (zeroed) if new; NULL when full. */
struct daemon_func *
daemon_functab_get(struct daemon_functab *t, uint64_t addr)
{
	struct daemon_func *f = daemon_functab_find(t, addr);

	if (f != NULL)
		return f;
	if (t->n >= DAEMON_MAX_FUNCS) {
		t->refused++;
		return NULL;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	if ((t->n + 1) * 2 > t->nslots)
		functab_grow_index(t);
	f = &t->v[t->n];
	memset(f, 0, sizeof *f);
	f->addr = addr;
	t->slots[functab_slot(t, addr)] = (uint32_t)(t->n + 1);
	t->n++;
	assert(daemon_functab_find(t, addr) == f);
	return f;
}

/* Free the table and every name in it. */
void
daemon_functab_free(struct daemon_functab *t)
{
	for (size_t k = 0; k < t->n; k++) {
		free(t->v[k].name);
		free(t->v[k].module);
	}
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof *t);
}
