/*
 * threads_rep.h - the threads collector's reporter-side state, shared by
 * threads.c (harvest) and threads_encode.c (the record).  Reporter thread
 * only: no atomics.
 */
#ifndef HOOKSCOPE_THREADS_REP_H
#define HOOKSCOPE_THREADS_REP_H

#include <msgpack.h>

#include "protocol.h"
#include "threads_int.h"

/* Threads made by one start routine from one calling address. */
struct thr_site {
	uint32_t  id;                      /* index + 1 */
	uintptr_t start, caller;           /* start routine, calling function */
	uint64_t  created, live;
	uint32_t  nstack;
	uintptr_t stack[THR_STACK];        /* of its first thread */
	bool      noted;                   /* start routine given to select.c */
	bool      named;                   /* frames below are filled */
	struct proto_thr_frame fstart, fstack[THR_STACK];
};

/* The reporter's view of one record. */
struct thr_seen {
	uint32_t site;                     /* site id, 0 = none */
	uint64_t cpu_ns, prev_ns;          /* last sample and when */
	double   pct;                      /* CPU share over the last interval */
	char     comm[16];                 /* name at the last sample */
};

struct thr_state {
	uint32_t low, nrecs;               /* settled below low; records seen */
	uint64_t now_ns;                   /* time of the last harvest */
	uint64_t other_live;               /* tasks no record accounts for */
	uint64_t agent_cpu_live, agent_cpu_done;
	/* The daemon's reset: counts from these baselines, ended threads from
	 * record reset_rec on (live ones stay). */
	uint64_t base_created, base_exited;
	uint32_t reset_rec;
	struct thr_site *sites;
	size_t   nsites, capsites;
	struct thr_seen *seen;
	size_t   capseen;
};
extern struct thr_state thr_st;

/* threads_encode.c */
void threads_encode(msgpack_sbuffer *sb, bool resend_all);
/* Free the sites and their names (fork child). */
void threads_encode_forget(void);

#endif
