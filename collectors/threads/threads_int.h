/*
 * threads_int.h - the threads collector (internal): thread records written by
 * the pthread wrappers (threads_hooks.c), pool figures written by the GLib
 * and libuv wrappers (threads_pools.c), read by the reporter (threads.c).
 *
 * Records live in chunks that are mmap'd on demand and never freed, so a
 * pointer to one stays valid for the life of the process; a record is
 * claimed with one atomic add on the shared index (thread creation costs a
 * clone(), so one shared atomic there is noise) and published with a
 * release store of its state.  Every field is written by one thread at a
 * time (creator, then the thread itself, then the joiner) with relaxed or
 * release atomics; the reporter reads with acquire and tolerates being one
 * report behind.  No locks on these paths.
 */
#ifndef HOOKSCOPE_THREADS_INT_H
#define HOOKSCOPE_THREADS_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THR_STACK        14            /* creation stack frames kept */
#define THR_CHUNK        256           /* records per chunk */
#define THR_MAX_CHUNKS   1024          /* records: 262,144 */
#define THR_MAX_POOLS    32

/* Record flags (atomic bit set). */
enum {
	THR_F_PUBLISHED = 1,               /* creation fields are valid */
	THR_F_STARTED   = 2,               /* tid and start_ns are valid */
	THR_F_ENDED     = 4,               /* end_ns and cpu_ns are valid */
	THR_F_JOINED    = 8,
	THR_F_DETACHED  = 16,
	THR_F_AGENT     = 32,              /* one of the agent's own threads */
	THR_F_FAILED    = 64,              /* the real create failed: no thread */
	THR_F_EXIT      = 128,             /* ended through pthread_exit */
	THR_F_BEFORE    = 256,             /* created before the agent was attached (from /proc) */
};

struct thr_rec {
	uint32_t  flags;                   /* THR_F_* */
	int32_t   tid;                     /* set by the thread */
	int32_t   creator;                 /* tid of the creating thread */
	uint32_t  pool;                    /* last pool whose task it ran */
	pthread_t handle;
	void   *(*start)(void *);          /* the real start routine */
	void     *arg;
	int     (*c11_start)(void *);      /* thrd_create's routine, or NULL */
	uintptr_t caller;                  /* return address into the creator */
	uint32_t  nstack;
	uintptr_t stack[THR_STACK];        /* caller first */
	uint64_t  create_ns, start_ns, end_ns;
	uint64_t  cpu_ns;                  /* final user+sys, at the end */
	uint64_t  name[2];                 /* comm as named through our wrappers */
};

/* threads_hooks.c: the wrappers' state, read by the reporter. */
extern struct thr_rec *thr_chunks[THR_MAX_CHUNKS];
extern uint32_t thr_next;              /* records claimed (index of the next) */
extern uint64_t thr_created, thr_exited, thr_dropped;   /* target threads */
extern uint64_t thr_agent_created, thr_agent_exited;
int  threads_hooks_init(void);
/* The record of index i, or NULL when not claimed or not published. */
struct thr_rec *threads_rec(uint32_t i);
/* This thread's record, or NULL (main, or a thread created before us). */
struct thr_rec *threads_self(void);
/* Attached: record 0 is the main thread, and every other thread of
 * /proc/self/task gets a record marked THR_F_BEFORE (no start routine, no
 * creation site: only what /proc says). */
void threads_hooks_adopt(void);
/* Fork child: only the forking thread survives. */
void threads_hooks_atfork_child(void);

/* threads_pools.c: one pool's figures (atomics). */
struct thr_pool {
	uint32_t id;                       /* index + 1 */
	const char *kind;                  /* "gthreadpool", "libuv" */
	uintptr_t func;                    /* task function (GLib) */
	int64_t  size;                     /* max threads, -1 unlimited */
	uint64_t pushed, done, wait_ns, wait_max_ns, run_ns, run_max_ns;
	uint32_t freed;
	void    *handle;                   /* the library's pool pointer */
	void    *real_func, *real_data;    /* GLib: the user's task function and data */
	void    *real_cmp, *real_cmp_data; /* GLib: the user's sort function */
	void    *real_free;                /* GLib: item free function */
};
extern struct thr_pool *thr_pools[THR_MAX_POOLS];
extern uint32_t thr_npools;
void threads_pools_atfork_child(void);


#endif
