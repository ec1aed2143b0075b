/*
 * timing_int.h - data shared by the timing collector's hot path (timing_hot.c,
 * timing_site.c: runs in the target's threads) and its reporter side (timing.c,
 * timing_report.c).
 *
 * Each thread that makes a hooked call gets one tm_block, mmap'd on its first
 * call and reached through a single initial-exec TLS pointer.  Only the owner
 * thread writes a block's counters (relaxed atomic stores; the one exception
 * is the reporter zeroing max at a reset); the reporter reads them with
 * relaxed loads, so nothing on the hot path is shared or locked.
 *
 * In-flight time: when a function's outermost activation starts (active
 * 0 -> 1) the owner stores its start tick in the entry, then active with a
 * release store; the reporter loads active (acquire) and then start, so a
 * start it reads is never older than the activation it saw.  The figures a
 * call adds (calls, total, self, max, slow) are stored before active drops,
 * so once the reporter sees active 0 the returned call is in the figures.
 * Blocks are pushed once onto a global lock-free list; only the reporter
 * removes them (after the thread died) and unmaps them.
 */
#ifndef HOOKSCOPE_TIMING_INT_H
#define HOOKSCOPE_TIMING_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <msgpack.h>

#include "protocol.h"
#include "timing.h"

#define TM_SLOTS      4096                    /* hash slots per thread, power of 2 */
#define TM_MAX_FUNCS  (TM_SLOTS / 4 * 3)      /* keep probes short: 75% load */
#define TM_SCAN       8                       /* frames searched on a mismatched exit */
#define TM_IPS        64                      /* self-time samples a block holds */
#define TM_PSLOTS     8192                    /* call-path nodes' hash slots, power of 2 */
#define TM_MAX_PATHS  (TM_PSLOTS / 4 * 3)     /* call-path nodes per thread */
#define TM_PATH_DROP  UINT32_MAX              /* a frame whose path was not kept */

/* One function as seen by one thread (one cache line). */
struct tm_entry {
	uintptr_t fn;             /* key, 0 = empty; set once by the owner */
	uint64_t  calls;          /* calls that returned (or were unwound) */
	uint64_t  total;          /* inclusive ticks, outermost activations only */
	uint64_t  self;           /* exclusive ticks */
	uint64_t  max;            /* longest inclusive call; the reporter may zero it */
	uint64_t  slow;           /* calls longer than the slow threshold */
	uint32_t  active;         /* activations on the stack (release store) */
	uint32_t  sel;            /* -finstrument path: the selection generation
	                           * it was decided at | its TM_ST_* (owner only) */
	uint64_t  start;          /* ticks at the outermost activation's start */
};

/* One activation on the shadow stack (owner only): one cache line. */
struct tm_frame {
	struct tm_entry *e;       /* NULL when the table was full (call dropped) */
	uintptr_t fn;
	uint64_t  start;          /* ticks at the end of the enter hook */
	uint64_t  child_cost;     /* sum of the children's raw intervals and of
	                           * their hook ticks outside them (the parent's
	                           * self time subtracts both, so one sum) */
	uint64_t  child_corr;     /* sum of the children's corrected inclusive time */
	/* Hook-engine sites only (NULL/0 for -finstrument-functions frames):
	 * where the call's return address lives, what it was (so the exit
	 * stub can close this frame and return there) and what the stub put
	 * there instead (the site block's return point, for unwinders). */
	uintptr_t *slot;
	uintptr_t ret;
	uintptr_t tramp;
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct tm_frame) == 64, "a shadow-stack frame is one cache line");

/* One node of a thread's calling-context tree (timing_path.h, "call
 * paths"): a timed function reached through the path of its parent node.
 * Owner writes, relaxed; the reporter reads a node once its place in
 * porder is published (release). */
struct tm_node {
	uintptr_t fn;             /* key with parent, 0 = empty; claimed once by the owner */
	uint32_t  parent;         /* the caller's node + 1; 0: an outermost timed call */
	uint32_t  pad_;
	uint64_t  calls;          /* calls through this path that returned */
	uint64_t  incl;           /* their inclusive ticks (overhead removed) */
	uint64_t  self;           /* their exclusive ticks */
};

enum { TM_LIVE = 0, TM_DEAD = 1 };

enum { TM_COST_ACCOUNT, TM_COST_PEEK, TM_COST_BASES };

struct tm_block {
	struct tm_block *next;    /* global list; written by the reporter after push */
	uint32_t  state;          /* TM_LIVE, TM_DEAD (release store at thread exit) */
	int32_t   tid;
	uint32_t  depth;          /* frames in use (owner only) */
	uint32_t  lost;           /* enters not pushed (stack full), exits pending */
	uint32_t  nentries;       /* order[] places taken (atomic add; may pass TM_MAX_FUNCS) */
	uint32_t  pad_;
	uint64_t  dropped;        /* calls not recorded (table or stack full) */
	uint16_t  order[TM_SLOTS];            /* used slot + 1 in insertion order; 0: being written */
	struct tm_frame stack[TM_STACK] __attribute__((aligned(64)));
	/* Here, in the padding before the aligned table, so the hot fields
	 * keep their offsets and alignment. */
	uint64_t  born;           /* ticks when the block was made: caps running time */
	uint64_t  cpu_end;        /* the thread's CPU time (ns) as it exited (tm_cost_retire) */
	/* Reporter only: the thread's CPU time and its timed and counted
	 * calls at the last look of each of the budget's two readers
	 * (timing_cost.c): the accounting and the peek between ticks. */
	struct tm_cost_base { uint64_t cpu_ns, calls, counts; } cost[TM_COST_BASES];
	uint64_t *sc;             /* the counted path's counts by site index (timing_count.c),
	                           * or NULL */
	uint32_t  pgen;           /* reporter only: the merged tree pids[] point into */
	/* Self-time samples (timing_ipsample.c): the interrupted pc of each
	 * tick of the thread's CPU timer, written by the owner's signal
	 * handler (head: release store), read by the reporter up to head. */
	uint32_t  ip_head;
	uint32_t  ip_tail;        /* reporter only: samples read */
	void     *ip_timer;       /* reporter only: its timer (timer_t), when ip_on */
	bool      ip_on;          /* reporter only */
	uintptr_t ips[TM_IPS];
	struct tm_entry table[TM_SLOTS] __attribute__((aligned(64)));
	/* Counted calls of table[i]'s function (the counted path: no frame,
	 * no clock); written by the owner only, like the entries. */
	uint64_t  counts[TM_SLOTS];
	/* Call paths: each frame's node + 1 (0: none, the frame's children are
	 * outermost; TM_PATH_DROP: not kept, nor are its children's), the
	 * nodes (a hash on fn and parent), their insertion order like
	 * order[], the calls whose path was not kept (the tree was full). */
	uint32_t  pnode[TM_STACK];
	uint32_t  npaths;         /* porder[] places taken (atomic add) */
	uint64_t  paths_dropped;
	uint16_t  porder[TM_PSLOTS];
	struct tm_node nodes[TM_PSLOTS];
	/* Reporter only: each node's merged path id + 1, by slot
	 * (timing_path.c); its pages are touched once the reporter merges. */
	uint32_t  pids[TM_PSLOTS];
	/* Reporter only: each entry's aggregate index + 1, by its place in
	 * order[] (timing_report.c), for the aggregates of generation
	 * agg_gen; its pages are touched as the entries are harvested. */
	uint32_t  agg_gen;
	uint32_t  aggs[TM_MAX_FUNCS];
};

/* A function's state in its entry's sel (the -finstrument path), and what
 * an engine site's switch does: the budget's modes as the hot path sees
 * them (a sampled function is timed in its windows, off between). */
enum { TM_ST_TIMED = 0, TM_ST_OFF = 1, TM_ST_COUNTED = 2, TM_ST_MASK = 3 };

/* Call-path nodes of b to read (like tm_block_count), and node k of their
 * insertion order, NULL while not yet published.  A parent is always
 * published before its children. */
static inline uint32_t tm_block_npaths(const struct tm_block *b)
{
	uint32_t n = __atomic_load_n(&b->npaths, __ATOMIC_ACQUIRE);

	return n < TM_MAX_PATHS ? n : TM_MAX_PATHS;
}

static inline struct tm_node *tm_block_node(struct tm_block *b, uint32_t k)
{
	uint16_t s = __atomic_load_n(&b->porder[k], __ATOMIC_ACQUIRE);

	return s != 0 ? &b->nodes[s - 1] : NULL;
}

/* Entries of b to read: the order[] places taken, at most TM_MAX_FUNCS. */
static inline uint32_t tm_block_count(const struct tm_block *b)
{
	uint32_t n = __atomic_load_n(&b->nentries, __ATOMIC_ACQUIRE);

	return n < TM_MAX_FUNCS ? n : TM_MAX_FUNCS;
}

/* Entry k (< tm_block_count) of b's insertion order; NULL while the owner
 * (interrupted, say, by a signal handler that inserted after it) has not
 * written that place yet: a later read has it. */
static inline struct tm_entry *tm_block_entry(struct tm_block *b, uint32_t k)
{
	uint16_t s = __atomic_load_n(&b->order[k], __ATOMIC_ACQUIRE);

	return s != 0 ? &b->table[s - 1] : NULL;
}

/* Read-mostly parameters of the hot path, on their own cache line. */
struct tm_params {
	uint32_t enabled;         /* level >= 1 */
	uint32_t sel_gen;         /* selection generation: a multiple of 4, moves by 4 */
	uint64_t o_in;            /* hook ticks inside a call's own interval */
	uint64_t o_out;           /* hook ticks outside it, charged to the caller */
	uint64_t o_in_site;       /* the same two for hook-engine site frames */
	uint64_t o_out_site;      /* (stubs, return trampoline: timing.c) */
	uint64_t slow_ticks;      /* "slow" threshold in ticks */
	uint32_t paths;           /* call paths tracked (the budget may turn them off) */
} __attribute__((aligned(64)));

/* Hidden: the hot files reach it pc-relative, not through the GOT. */
extern struct tm_params tm_params __attribute__((visibility("hidden")));
extern struct tm_block *tm_head;          /* list of all blocks */
extern uint32_t tm_threads;               /* threads that got a block */
extern uint64_t tm_failed;                /* threads that could not get one */

/* The tick source: TSC on x86-64, the virtual counter on arm64, else ns. */
static inline __attribute__((no_instrument_function, always_inline))
uint64_t tm_ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* The hooks (timing_hot.c); exported with default visibility. */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);


/* timing_select.c: the -finstrument-functions path's per-function switch
 * (the level's selection).  A selection: the sorted addresses of the
 * functions timed at a level below 4. */
struct tm_sel {
	size_t         n;
	uintptr_t     *fns;
	struct tm_sel *next;          /* retired list */
};
extern const struct tm_sel *tm_sel_now;   /* NULL: every function is on */
/* The budget's states of the functions not timed (sorted by fn; NULL:
 * every selected function is timed), published like tm_sel_now. */
struct tm_modes {
	size_t           n;
	uintptr_t       *fns;
	uint8_t         *st;            /* TM_ST_* of fns[k] */
	struct tm_modes *next;          /* retired list */
};
extern const struct tm_modes *tm_modes_now;
extern uint8_t tm_st_default;             /* the state of a function not in it */
/* The budget's modes changed (reporter): build the tables of the n
 * functions fns (any order) with their states outside a sampling window
 * (out) and in one (in), those in tm_st_default left out, and publish the
 * window's (win) or the other. */
void tm_select_states(const uintptr_t *fns, const uint8_t *out, const uint8_t *in, size_t n,
    bool win);
/* A window opens or closes: publish its table or the other. */
void tm_select_window(bool win);
/* No budget states (every function in tm_st_default). */
void tm_select_states_off(void);
/* The level changed: publish its selection. */
void tm_select_level(int level);
/* Reporter cycle: rebuild the selection if modules were loaded since. */
void tm_select_sync(void);
/* Binary search of fn in s (the hot path's too: integer code only). */
static inline bool tm_sel_find(const struct tm_sel *s, uintptr_t fn)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->fns[mid] == fn)
			return true;
		if (s->fns[mid] < fn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* fn's state in m, or def when m has none for it (integer code only). */
static inline uint8_t tm_modes_find(const struct tm_modes *m, uintptr_t fn, uint8_t def)
{
	size_t lo = 0, hi = m != NULL ? m->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->fns[mid] == fn)
			return m->st[mid];
		if (m->fns[mid] < fn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return def;
}

/* timing_vec.c: call fn with the whole vector state saved around it
 * (x86-64; see the file), after tm_vec_init (from tm_hot_init). */
void  tm_vec_init(void);
void *tm_vec_call(void *(*fn)(void));

/* The calling thread's block (timing_hot.c), or one of two sentinels:
 * agent code running on this thread / never time this thread. */
extern __thread struct tm_block *tm_tls __attribute__((tls_model("initial-exec")));
#define TM_GUARD ((struct tm_block *)1)
#define TM_OFF   ((struct tm_block *)2)
#define TM_REAL(b) ((uintptr_t)(b) > (uintptr_t)TM_OFF)

/* The calling thread's counts by site index, which counted sites' blocks
 * increment (timing_count.c): its block's while tm_tls is a real block,
 * else NULL. */
extern __thread uint64_t *tm_sc __attribute__((tls_model("initial-exec")));

/* Set the calling thread's block pointer, and the counts that go with it. */
static inline __attribute__((no_instrument_function, always_inline))
void tm_tls_set(struct tm_block *b)
{
	tm_sc = TM_REAL(b) ? b->sc : NULL;
	tm_tls = b;
}

/* timing_count.c: a block's counts (allocated with it, freed with it;
 * zeroed in a fork child), and the reporter's reads of them: fn called with
 * each noted site's function and count when not 0; their sum. */
void tm_sc_alloc(struct tm_block *b);
void tm_sc_free(struct tm_block *b);
void tm_sc_zero(struct tm_block *b);
void tm_sc_each(const struct tm_block *b, void (*fn)(uintptr_t f, uint64_t n, void *arg), void *arg);
uint64_t tm_sc_sum(const struct tm_block *b);
void tm_sc_atfork_child(void);

/* timing_hot.c */
int  tm_hot_init(void);                   /* create the thread-exit key */
struct tm_block *tm_block_new(void);      /* mmap a zeroed, unlisted block */
void tm_block_free(struct tm_block *b);
/* timing_shadow.c */
struct tm_block *tm_tls_swap(struct tm_block *b); /* for calibration */
/* An unlinked block to unmap, now or once no outside walk holds one
 * (NULL: only the pending ones); reporter thread. */
void tm_shadow_retire(struct tm_block *b);
void tm_hot_atfork_child(void);           /* keep only the caller's block, zeroed */
void tm_ip_record(uintptr_t pc);          /* a self-time sample (signal handler) */


/* timing.c: the tick clock seen from the reporter */
extern double tm_ns_per_tick;             /* refreshed by tm_clock_update() */
void tm_clock_update(void);               /* ns_per_tick and slow_ticks */

/* The figures of one function (ticks); max is a maximum, the rest are
 * sums.  running is the time so far of calls in flight (live threads
 * only); counts the counted calls (no time); mode the budget's, for the
 * record's change test (timing_account.c). */
struct tm_fig {
	uint64_t calls, total, self, max, slow, running, counts, mode;
};

/* timing_report.c: per-function totals over all threads (reporter only) */
/* timing.c: turn call paths on or off (reporter thread; on only if
 * HOOKSCOPE_PATHS did not turn them off), the hooks' calibrated cost with
 * them; is it on, and what one call's path costs (ps). */
void tm_paths_set(bool on);
bool tm_paths_on(void);
uint64_t tm_paths_ps(void);

/* timing_path.c: the merged calling-context tree (reporter thread).  fold
 * a dead thread's nodes into the retired figures; reset: the baseline;
 * encode: put the changed paths (all with all) into last, the record
 * tm_encode_funcs sends last, and as many records before it as they need;
 * forget: a fork child's fresh start. */
#define TM_PATHS_MERGED   65536               /* paths of the merged tree, at most */
#define TM_PATH_REC_ITEMS 4096                /* paths per record */
void tm_path_fold(struct tm_block *b);
void tm_path_reset(void);
void tm_path_encode(msgpack_sbuffer *sb, struct proto_agent_rec *last, bool all);
void tm_path_forget(void);
void tm_report_harvest(void);
void tm_report_reset(void);
void tm_report_encode(msgpack_sbuffer *sb, bool resend_all);
void tm_report_forget(void);
const struct tm_fig *tm_report_cur(size_t k);  /* k < tm_report_count(): its sums now */
const char *tm_report_name(size_t k);          /* its name (resolved once) */
size_t tm_report_find(uintptr_t fn);           /* fn's k, or SIZE_MAX if not seen */

/* timing_budget.c: the overhead budget (reporter only; doc/architecture.md) */
void tm_budget_init(void);                /* HOOKSCOPE_BUDGET, HOOKSCOPE_MODE */
void tm_budget_forget(void);              /* fork child */
void tm_budget_rec(struct proto_agent_rec *rec);  /* cost_ppm, budget_ppm */
/* timing_account.c: the figures under the budget's modes */
void tm_budget_account(void);             /* after each harvest */
void tm_budget_reset(void);               /* the figures' reset */
/* Function k's figures since the reset as shown (now: exact, in ticks;
 * replaced where the budget estimates), its mode fields in f. */
void tm_budget_fig(size_t k, struct tm_fig *now, struct proto_ag_func *f);

/* timing_cost.c: per live thread, the hook cost (timed calls x ct, counted
 * x cc, ps) and CPU time (ns) since the last call with the same base
 * (TM_COST_ACCOUNT, which moves TM_COST_PEEK's too, or TM_COST_PEEK);
 * their sums. */
void tm_cost_threads(int base, double ct, double cc, double *cost_ps, double *cpu_ns);
/* A thread's block retired (reporter): what it did since each base's last
 * look, to its end, counts at that base's next look. */
void tm_cost_retire(struct tm_block *b);

/* timing_ipsample.c: self time by sampling the pc on each thread's CPU
 * clock, while the budget demotes functions (reporter only). */
#define TM_IP_PERIOD_NS 10000000ull           /* CPU time per sample */
void tm_ip_set(bool on);                  /* start or stop every live thread's timer */
void tm_ip_drain(void (*add)(uintptr_t fn, void *arg), void *arg);  /* each new sample's function */
/* The recent samples and those whose pc was the agent's own code (its
 * text, a site's block): halved whenever they pass TM_IP_RECENT, none
 * while sampling is off. */
#define TM_IP_RECENT 2000                     /* about 20 s of a thread's CPU */
void tm_ip_share(uint32_t *n, uint32_t *agent);
void tm_ip_block_gone(struct tm_block *b);   /* before a block is freed */
/* timing.c: the counted path's calibrated cost, ps per call (0: unknown). */
extern uint64_t tm_count_ps;

#endif
