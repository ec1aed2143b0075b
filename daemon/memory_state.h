/*
 * memory_state.h - the memory state of a session (memory.c), shared with its
 * report section (report_memory.c).
 */
#ifndef HOOKSCOPE_DAEMON_MEMORY_STATE_H
#define HOOKSCOPE_DAEMON_MEMORY_STATE_H

#include "daemon.h"

#define MEM_RING      33                  /* bytes-in-use samples per site over the window */
#define MEM_HISTORY   120                 /* heap-in-use samples kept (once a second) */
#define MEM_VIEW_TOP  20                  /* sites per ranking in frames */

/* One site as the daemon keeps it. */
struct mem_dsite {
	bool     seen;
	struct proto_mem_site w;          /* the agent's figures, its stack */
	uint64_t ring[MEM_RING];          /* bytes in use, one sample per step */
	uint32_t nring;                   /* samples taken (ring position: nring % MEM_RING) */
	uint64_t rate_bytes;              /* alloc_bytes at the last rate sample */
	bool     leak_raised;
};

struct mem_dstate {
	struct proto_memory m;            /* totals of the last record; frames: the view */
	struct mem_dsite *sites;          /* indexed by id */
	size_t   nsites;                  /* ids below this are slots */
	struct proto_mem_site *view;      /* the frame's sites (copies without ownership) */
	uint32_t history[MEM_HISTORY];
	size_t   nhistory;
	uint64_t hist_ns, step_ns, rate_ns;   /* last samples taken */
	uint64_t rate_allocs;
	uint64_t step_len_ns;             /* the ring's step for the current window */
	bool     leaks_stacks;            /* the leak scan's groups have their stacks */
};

/* The session's memory state (NULL-safe: allocated on first use). */
struct mem_dstate *daemon_memory_of(struct daemon_session *s);
/* Is site x a suspected leak now?  (Its ring shows steady growth over the window.) */
bool daemon_memory_leaking(const struct mem_dstate *d, const struct mem_dsite *x);

#endif
