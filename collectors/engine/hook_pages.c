/*
 * hook_pages.c - the pages of live code a batch of entry writes touches,
 * made writable for the batch and given their protection back after it.
 *
 * Only the pages holding the entries written, not the module's whole text:
 * a level change or a sampling window rewrites a few dozen entries, and an
 * mprotect of a large text segment walks every one of its page-table
 * entries, twice (measured on python3's 3 MB of text: the largest part of
 * the agent's reporter time while the budget is sampling).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent.h"
#include "hook.h"
#include "hook_int.h"

/* The protection of the executable segment of m holding address a (else
 * read+exec). */
static int hook_pages_prot(const struct hook_mod *m, uintptr_t a)
{
	for (int i = 0; i < m->nsegs; i++)
		if (a >= (m->segs[i].start & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1)) &&
		    a < m->segs[i].end)
			return m->segs[i].prot;
	return PROT_READ | PROT_EXEC;
}

/* See hook_int.h. */
int hook_pages_open(struct hook_pages *ps, const struct hook_mod *m, uintptr_t a, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (uintptr_t p = a & ~(pg - 1); p < a + len; p += pg) {
		size_t k;

		for (k = 0; k < ps->n && ps->p[k].page != p; k++)
			;
		if (k < ps->n)
			continue;
		if (mprotect((void *)p, pg, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
			return -1;
		if (ps->n == ps->cap) {
			ps->cap = ps->cap ? ps->cap * 2 : 16;
			ps->p = xrealloc(ps->p, ps->cap * sizeof *ps->p);
		}
		ps->p[ps->n].page = p;
		ps->p[ps->n].prot = hook_pages_prot(m, p);
		ps->p[ps->n++].mod = m;
	}
	return 0;
}

/* See hook_int.h: an entry (at most HOOK_PATCH_MAX bytes) spans two pages
 * at most. */
void hook_pages_reserve(struct hook_pages *ps, size_t n)
{
	if (ps->cap >= 2 * n)
		return;
	ps->cap = 2 * n;
	ps->p = xrealloc(ps->p, ps->cap * sizeof *ps->p);
}

/* See hook_int.h. */
void hook_pages_close(struct hook_pages *ps)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (size_t k = 0; k < ps->n; k++)
		if (mprotect((void *)ps->p[k].page, pg, ps->p[k].prot) != 0)
			agent_warn("hook: cannot restore the protection of %s: %s",
			    ps->p[k].mod->path, strerror(errno));
	free(ps->p);
	memset(ps, 0, sizeof *ps);
}
