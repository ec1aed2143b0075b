/*
 * hook_pages.c - the pages of live code a batch of entry writes touches,
 * made writable for the batch and given their protection back after it.
 *
 * Only the pages holding the entries written, not the module's whole text:
 * a level change or a sampling window rewrites a few dozen entries, and an
 * mprotect of a large text segment walks every one of its page-table
 * entries, twice (measured on python3's 3 MB of text: the largest part of
 * the agent's reporter time while the budget is sampling).  The batch's
 * pages are gathered first and opened in runs: pages of one segment at
 * most HOOK_PAGES_GAP apart take one mprotect (the pages between cost a
 * page-table walk, far less than a call that splits the text's mapping and
 * merges it back), so the first patching of a module, which touches most of
 * its text, takes a few calls instead of two per page (python3: about 700
 * pages, 1,400 calls).
 *
 * Where the kernel allows it, a batch is written through /proc/self/mem
 * instead, and no page's protection changes: the kernel breaks the pages'
 * copy-on-write sharing itself, without a fault per page and without the
 * mprotect calls' page-table walks and TLB shootdowns (measured on 600
 * pages of python3's text: 4.1 ms against 8.2-12 ms).  Kernels built to
 * refuse forced writes to read-only mappings fail the first write, a probe:
 * the batch then takes the mprotect way.  The file is opened per batch, so
 * a fork child never writes through its parent's.  A back-end whose live
 * writes must be single aligned stores (code_swap: arm64) takes the
 * mprotect way always.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent.h"
#include "hook.h"
#include "hook_int.h"

#define HOOK_PAGES_GAP 16       /* pages not written between two of a run, at most */

static struct hook_pages *hook_pages_cur;       /* the open batch */

/* Writes gathered into one span of a page (hook_code_gather), with the
 * code's own bytes between them: one pwrite instead of one per entry. */
static struct {
	uintptr_t lo, hi;               /* [lo, hi); hi == 0: nothing gathered */
	uint8_t buf[4096];
} hook_gathered;

/* The segment of m holding address a, or -1. */
static int hook_pages_seg(const struct hook_mod *m, uintptr_t a)
{
	for (int i = 0; i < m->nsegs; i++)
		if (a >= (m->segs[i].start & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1)) &&
		    a < m->segs[i].end)
			return i;
	return -1;
}

/* See hook_int.h. */
void hook_pages_add(struct hook_pages *ps, const struct hook_mod *m, uintptr_t a, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (uintptr_t p = a & ~(pg - 1); p < a + len; p += pg) {
		if (ps->n > 0 && ps->p[ps->n - 1].page == p)
			continue;               /* the previous entry's page (the common repeat) */
		if (ps->n == ps->cap) {
			ps->cap = ps->cap ? ps->cap * 2 : 16;
			ps->p = xrealloc(ps->p, ps->cap * sizeof *ps->p);
		}
		ps->p[ps->n].page = p;
		ps->p[ps->n].len = pg;
		ps->p[ps->n].seg = hook_pages_seg(m, p);
		ps->p[ps->n].prot = ps->p[ps->n].seg >= 0 ? m->segs[ps->p[ps->n].seg].prot :
		    PROT_READ | PROT_EXEC;
		ps->p[ps->n++].mod = m;
	}
}

static int hook_pages_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;   /* page: first */

	return x < y ? -1 : x > y;
}

/* Write through /proc/self/mem: true when every byte went. */
static bool hook_pages_pwrite(int fd, void *dst, const void *src, size_t n)
{
	while (n > 0) {
		ssize_t k = pwrite(fd, src, n, (off_t)(uintptr_t)dst);

		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			return false;
		}
		dst = (uint8_t *)dst + k;
		src = (const uint8_t *)src + k;
		n -= (size_t)k;
	}
	return true;
}

/* Open ps through /proc/self/mem: the first page's first byte written back
 * as it is tells whether the kernel lets the process write its own code. */
static bool hook_pages_open_mem(struct hook_pages *ps)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	uint8_t b;

	if (fd < 0)
		return false;
	hook_backend.code_copy(&b, (const void *)ps->p[0].page, 1);
	if (!hook_pages_pwrite(fd, (void *)ps->p[0].page, &b, 1)) {
		close(fd);
		return false;
	}
	ps->mem = fd + 1;
	return true;
}

/* Open ps by making its pages writable, in runs. */
static int hook_pages_open_prot(struct hook_pages *ps)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	size_t runs = 0;

	qsort(ps->p, ps->n, sizeof *ps->p, hook_pages_cmp);
	for (size_t k = 0; k < ps->n; k++) {
		/* Pages between two of a run take the run's protection for the
		 * batch and get it back after: only within one segment. */
		if (runs > 0 && ps->p[runs - 1].mod == ps->p[k].mod && ps->p[runs - 1].seg == ps->p[k].seg &&
		    ps->p[runs - 1].page + ps->p[runs - 1].len + (ps->p[k].seg >= 0 ? HOOK_PAGES_GAP * pg : 0) >=
		    ps->p[k].page) {
			uintptr_t end = ps->p[k].page + ps->p[k].len;

			if (end > ps->p[runs - 1].page + ps->p[runs - 1].len)
				ps->p[runs - 1].len = end - ps->p[runs - 1].page;
			continue;
		}
		ps->p[runs++] = ps->p[k];
	}
	ps->n = runs;
	for (size_t k = 0; k < ps->n; k++)
		if (mprotect((void *)ps->p[k].page, ps->p[k].len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
			int e = errno;

			ps->failed = ps->p[k].mod;
			ps->n = k;      /* close gives back those opened */
			hook_pages_close(ps);
			errno = e;
			return -1;
		}
	return 0;
}

/* See hook_int.h. */
int hook_pages_open(struct hook_pages *ps)
{
	assert(hook_pages_cur == NULL);
	hook_pages_cur = ps;
	if (ps->n == 0 || (hook_backend.code_swap == NULL && hook_pages_open_mem(ps)))
		return 0;
	return hook_pages_open_prot(ps);
}

/* See hook_int.h. */
void hook_code_write(void *dst, const void *src, size_t n)
{
	struct hook_pages *ps = hook_pages_cur;

	assert(ps != NULL);
	if (ps->lost)
		return;
	if (ps->mem == 0) {
		hook_backend.code_copy(dst, src, n);
		return;
	}
	if (hook_pages_pwrite(ps->mem - 1, dst, src, n)) {
		__builtin___clear_cache((char *)dst, (char *)dst + n);
		return;
	}
	/* The probe passed, so this should not happen; the rest of the batch
	 * takes the mprotect way. */
	agent_warn("hook: cannot write the code at %p through /proc/self/mem (%s); making its "
	    "pages writable instead", dst, strerror(errno));
	close(ps->mem - 1);
	ps->mem = 0;
	if (hook_pages_open_prot(ps) < 0) {
		/* Never a store to a page that cannot take it: the target would
		 * crash.  What the batch was to write stays as it was. */
		agent_warn("hook: cannot write the code of %s: %s; the rest of this batch is dropped",
		    ps->failed->path, strerror(errno));
		hook_pages_cur = ps;    /* closed (empty); its caller closes it again */
		ps->lost = true;
		return;
	}
	hook_backend.code_copy(dst, src, n);
}

/* See hook_int.h. */
void hook_code_flush(void)
{
	if (hook_gathered.hi == 0)
		return;
	hook_code_write((void *)hook_gathered.lo, hook_gathered.buf, hook_gathered.hi - hook_gathered.lo);
	hook_gathered.hi = 0;
}

/* See hook_int.h. */
void hook_code_gather(void *dst, const void *src, size_t n)
{
	struct hook_pages *ps = hook_pages_cur;
	uintptr_t a = (uintptr_t)dst, pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo = hook_gathered.lo;

	assert(ps != NULL);
	if (ps->mem == 0 || ps->lost || pg > sizeof hook_gathered.buf) {
		hook_code_write(dst, src, n);   /* a store each: nothing to save */
		return;
	}
	if (hook_gathered.hi != 0 && a >= hook_gathered.hi && a + n <= (lo & ~(pg - 1)) + pg) {
		hook_backend.code_copy(hook_gathered.buf + (hook_gathered.hi - lo),
		    (const void *)hook_gathered.hi, a - hook_gathered.hi);
	} else {
		hook_code_flush();
		hook_gathered.lo = lo = a;
	}
	memcpy(hook_gathered.buf + (a - lo), src, n);
	hook_gathered.hi = a + n;
}

/* See hook_int.h. */
void hook_code_put1(void *dst, uint8_t v)
{
	if (hook_pages_cur != NULL && (hook_pages_cur->mem != 0 || hook_pages_cur->lost))
		hook_code_write(dst, &v, 1);
	else
		hook_backend.code_store1(dst, v);
}

/* See hook_int.h. */
void hook_pages_close(struct hook_pages *ps)
{
	hook_code_flush();
	hook_pages_cur = NULL;
	ps->lost = false;
	if (ps->mem != 0) {
		close(ps->mem - 1);
		ps->mem = 0;
		ps->n = 0;      /* no page's protection changed */
	}
	for (size_t k = 0; k < ps->n; k++)
		if (mprotect((void *)ps->p[k].page, ps->p[k].len, ps->p[k].prot) != 0)
			agent_warn("hook: cannot restore the protection of %s: %s",
			    ps->p[k].mod->path, strerror(errno));
	free(ps->p);
	ps->p = NULL;
	ps->n = ps->cap = 0;
}
