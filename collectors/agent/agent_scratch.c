/*
 * agent_scratch.c - large blocks the agent frees again, mapped by the agent
 * itself rather than allocated with malloc.
 *
 * glibc serves a request of 128 KB or more with a mapping of its own, and
 * when such a chunk is freed it raises that threshold to the chunk's size
 * (up to 32 MB), for the rest of the process.  A quarter-MB table the agent
 * allocates and frees while it starts would leave the program's own large
 * callocs carved from the heap and cleared page by page instead of mapped
 * fresh: python3 -c pass took 90 page faults more for it, about a millisecond
 * here.  Watching a program must not change how it allocates, so the agent's
 * large scratch tables come from here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "agent.h"

/* Out of memory: as xmalloc, say so and abort. */
static void agent_scratch_fail(size_t n)
{
	fprintf(stderr, "hookscope: out of memory mapping %zu bytes\n", n);
	abort();
}

/* See agent.h. */
void *agent_scratch_new(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		agent_scratch_fail(n);
	return p;
}

/* See agent.h. */
void *agent_scratch_grow(void *p, size_t old, size_t n)
{
	void *q;

	if (p == NULL)
		return agent_scratch_new(n);
	q = mremap(p, old ? old : 1, n ? n : 1, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		agent_scratch_fail(n);
	return q;
}

/* See agent.h. */
void agent_scratch_free(void *p, size_t n)
{
	if (p != NULL)
		munmap(p, n ? n : 1);
}
