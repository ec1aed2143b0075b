/*
 * threads_wire.h - the threads part of the wire: threads, creation sites and
 * thread pools ("threading").
 * Its row in the parts table (parts.h) is defined in threads.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_THREADS_WIRE_H
#define HOOKSCOPE_PROTOCOL_THREADS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_MAX_THREADS   512         /* thread entries in one map */
#define PROTO_MAX_TSITES    128         /* creation sites in one map */
#define PROTO_MAX_POOLS     32          /* pools in one map */
#define PROTO_MAX_STACK     16          /* frames of a creation stack */
#define PROTO_THR_HISTORY   60          /* live-thread samples, one per second */

/* A code address with its name: "name+off (module)". */
struct proto_thr_frame {
	uint64_t addr;
	char    *name;                    /* function, "" when unknown */
	char    *module;                  /* basename, "" when unknown */
	uint64_t off;                     /* addr - the function's first byte */
};

/* One thread of the target (not the agent's). */
struct proto_thr_thread {
	uint32_t id;                      /* agent record index; 0 = main */
	int32_t  tid;                     /* 0 until it ran */
	int32_t  creator;                 /* tid of the creating thread */
	uint32_t site;                    /* creation site id, 0 = none (main) */
	uint32_t pool;                    /* id of the pool whose tasks it ran, 0 */
	char    *name;                    /* comm */
	char    *state;                   /* running, detached, exited, joined, leaked */
	uint64_t start_ns, end_ns;        /* agent monotonic; end 0 while alive */
	uint64_t cpu_ns;                  /* user+sys */
	double   cpu_pct;                 /* over the agent's last interval */
};

/* Threads created by one start routine from one call site. */
struct proto_thr_site {
	uint32_t id;
	struct proto_thr_frame start;     /* start routine */
	uint64_t created, live;
	size_t   nstack;                  /* creation stack, caller first */
	struct proto_thr_frame *stack;
};

/* A thread pool: "gthreadpool", "libuv". */
struct proto_thr_pool {
	uint32_t id;
	char    *kind;
	struct proto_thr_frame func;      /* the task function (GLib), addr 0 */
	int64_t  size;                    /* max threads, -1 unlimited */
	uint64_t workers;                 /* live threads that ran its tasks */
	uint64_t pushed, done;            /* tasks queued, tasks finished */
	uint64_t wait_ns, wait_max_ns;    /* queue wait: sum, longest */
	uint64_t run_ns, run_max_ns;      /* run time: sum, longest */
	bool     freed;                   /* g_thread_pool_free was called */
};

struct proto_threads {
	uint64_t time_ns;                 /* agent monotonic clock of the figures */
	uint64_t created, exited, live;   /* target threads; live includes main */
	uint64_t other_live;              /* live tasks of unknown origin */
	uint64_t agent_created, agent_live, agent_cpu_ns;  /* the agent's own */
	uint64_t dropped;                 /* threads past the agent's record cap */
	double   created_per_s;           /* daemon: over the last second */
	size_t   nhistory;                /* daemon: live per second, oldest first */
	uint32_t *history;
	size_t   nthreads;
	struct proto_thr_thread *threads;
	size_t   nsites;
	struct proto_thr_site *sites;
	size_t   npools;
	struct proto_thr_pool *pools;
};

void proto_threads_copy(struct proto_threads *dst, const struct proto_threads *src);
void proto_threads_free(struct proto_threads *t);

/* The field tables (threads.c). */
struct proto_struct;
extern const struct proto_struct proto_threads_desc, proto_thr_thread_desc, proto_thr_site_desc,
    proto_thr_pool_desc, proto_thr_frame_desc;

#endif
