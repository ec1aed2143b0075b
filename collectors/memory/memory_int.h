/*
 * memory_int.h - the memory collector's internals: the tables the
 * allocator wrappers (memory_hooks.c) write and the reporter
 * (memory.c) reads.
 *
 * Live blocks: one open-addressed table keyed by address (lock-free: a
 * block's key is claimed with a CAS, freed by storing a tombstone; an
 * address is live at most once, so no two threads ever insert the same
 * key).  Each block names its stack; stacks are stored once, in a dense
 * array indexed by id, found through a hash index of their frames.  A
 * stack's figures are monotonic counters (allocated and freed weights),
 * so the hot path only adds and the reporter subtracts.
 *
 * Weights: in full mode a block weighs its size and one block; sampled by
 * bytes (Poisson, mean interval I), an allocation of s bytes is kept with
 * probability p = 1 - exp(-s/I) and weighs s/p bytes and 1/p blocks (in
 * thousandths), the unbiased estimate (heapprofd's scheme).
 */
#ifndef HOOKSCOPE_MEMORY_INT_H
#define HOOKSCOPE_MEMORY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEM_FRAMES        32            /* frames of a stack, at most */
#define MEM_STACKS        (1u << 16)    /* distinct stacks, at most (id 0: unknown) */
#define MEM_BLOCKS_LOG    21            /* live-block table: 2M slots (virtual) */
#define MEM_PROBES        64            /* probes before a block is untracked */
#define MEM_BIG           16            /* biggest live blocks reported */
#define MEM_BIG_MIN       (64u << 10)   /* blocks this big are also listed apart ... */
#define MEM_BIG_SLOTS     1024          /* ... in a table this long (full: not listed) */
#define MEM_SAMPLE_DEFAULT (256u << 10) /* sampled mode's mean byte interval */
#define MEM_SAMPLE_MAX    (4u << 20)    /* the overhead budget widens it at most to this */
#define MEM_BUDGET_SHARE  5             /* recording samples may cost 1/this of the budget */

enum mem_mode { MEM_OFF, MEM_FULL, MEM_SAMPLED };

/* One distinct allocating stack and its figures (weights: see above). */
struct mem_stack {
	uint64_t hash;
	uint32_t depth;
	uintptr_t pc[MEM_FRAMES];             /* return addresses, innermost first */
	uint64_t alloc_bytes, free_bytes;     /* weights, monotonic */
	uint64_t alloc_mblocks, free_mblocks; /* thousandths of a block, monotonic */
	uint64_t allocs, frees;               /* calls, exact in both modes */
};

/* One live block: address, size and stack, and its weight. */
#define MEM_MAPPED  (1u << 23)            /* meta, id: an anonymous mapping, not a heap block */
#define MEM_ID(meta) ((uint32_t)(meta) & (MEM_STACKS - 1))
struct mem_block {
	uint64_t key;                         /* address; 0 empty, 1 tombstone */
	uint64_t meta;                        /* size << 24 | MEM_MAPPED? | stack id */
	uint32_t wbytes;                      /* weight: bytes (0: its size) ... */
	uint32_t wmblocks;                    /* ... and thousandths of a block (0: 1000) */
};

/* The collector's shared state (memory_table.c). */
struct mem_state {
	/* Read by every wrapper's call: first, one cache line with them. */
	bool     live;                        /* the tables exist (frees look blocks up) */
	bool     bound;                       /* attached: the binder installed the wrappers */
	int      mode;                        /* enum mem_mode, read on every call */
	int      probing;                     /* init: is the program's malloc ours? ... */
	uint64_t sample_bytes;                /* I */
	uint64_t sample_ns;                   /* time spent recording kept blocks (mem_note):
	                                       * what sampling costs, for the budget */
	struct mem_stack *stacks;             /* [MEM_STACKS], mapped */
	uint32_t nstacks;                     /* ids handed out, 1 + used */
	struct mem_block *blocks;             /* [1 << MEM_BLOCKS_LOG], mapped */
	uint64_t untracked;                   /* blocks the table had no room for */
	uint64_t unknown_frees;               /* frees of blocks never seen (before the agent) */
	uint64_t mmap_bytes, munmap_bytes, mmaps, munmaps;   /* anonymous mappings */
	uint64_t bypassed;                    /* allocations another allocator served */
	uint64_t probe_hits;                  /* ... the wrapper counts its calls meanwhile */
	bool     partial;                     /* some allocation was not tracked (not full mode
	                                         since start, or no room): a leak scan may err */
};
extern struct mem_state mem;

/* Sampled mode keeps few blocks but sees every free: a counting filter
 * over the kept blocks' addresses (64 KiB, cache-resident) tells most frees
 * at once that their block was not kept, without a probe into the block
 * table. */
#define MEM_FILTER (1u << 16)
extern uint8_t mem_filter[MEM_FILTER];
static inline uint8_t *mem_filter_at(uint64_t key)
{
	return &mem_filter[(key >> 4 ^ key >> 20) & (MEM_FILTER - 1)];
}
/* May p be a kept block? */
static inline bool mem_maybe_kept(const void *p)
{
	return __atomic_load_n(mem_filter_at((uint64_t)(uintptr_t)p), __ATOMIC_RELAXED) != 0;
}

/* memory_table.c: the tables (any thread, lock-free). */
int  mem_table_init(void);
/* The id of the stack pc[0..n) (inserted when new); 0 if the table is full. */
uint32_t mem_stack_id(const uintptr_t *pc, uint32_t n);
/* Record block p of size bytes from stack id (| MEM_MAPPED) with its weight. */
void mem_block_add(void *p, size_t size, uint32_t id, uint64_t wbytes, uint64_t wmblocks);
/* Forget block p; its size, or 0 when it was not tracked. */
size_t mem_block_del(void *p);
/* The tracked size of live block p, 0 if none. */
size_t mem_block_size(const void *p);
/* Visit every live block of MEM_BIG_MIN bytes or more (reporter: a
 * snapshot, racing allocations may be seen or not). */
void mem_big_each(void (*fn)(uintptr_t addr, size_t size, uint32_t id, void *arg), void *arg);
/* Fork child: keep the blocks (they are the child's too), zero the rest. */
void mem_table_atfork_child(void);
/* The tables' own mappings, [lo, hi) each (a leak scan skips them). */
size_t mem_table_ranges(uintptr_t (*r)[2], size_t max);

/* memory_hooks.c: the wrappers' bind table (mem.bound: the binder
 * installed it, an attached agent). */
struct bind_table;
extern const struct bind_table mem_bind;

/* memory_leaks.c: the reachability scan (reporter thread). */
struct proto_mem_leaks;
/* Scan now and fill out (owns its array); the error is set when there is
 * no result. */
void mem_leaks_scan(struct proto_mem_leaks *out);

/* memory_stack.c: the caller's stack from the wrapper's frame (frame
 * pointers, bounded by the thread's stack; libunwind when they end at once). */
uint32_t mem_stack_capture(void *frame, uintptr_t *pc, uint32_t max);
extern bool mem_unwind_fallback;

/* memory_sample.c: should an allocation of size bytes be kept, and with
 * what weight?  mem_sample_skip is the fast path, inlined in the wrappers:
 * true when the allocation holds no sample point (most do not). */
struct mem_sampler {
	int64_t  left;                        /* bytes to the next sample point */
	uint64_t rng;                         /* xorshift64*, 0: not seeded */
};
extern __thread struct mem_sampler mem_smp __attribute__((tls_model("initial-exec")));
static inline bool mem_sample_skip(size_t size)
{
	struct mem_sampler *s = &mem_smp;

	if (s->left > (int64_t)size) {
		s->left -= (int64_t)size;
		return true;
	}
	return false;
}
bool mem_sample(size_t size, uint64_t *wbytes, uint64_t *wmblocks);
/* The interval after one that cost cost_ppm of the CPU, against a share of
 * share_ppm: over it, widened (doubled, up to MEM_SAMPLE_MAX) until the
 * cost it projects (inversely proportional) is within the share; under a
 * quarter of it, halved back towards base (the user's or the default);
 * else kept.  Each sample's weight follows the interval it was drawn at,
 * so the estimates stay unbiased across changes. */
uint64_t mem_sample_adapt(uint64_t cur, uint64_t base, double cost_ppm, double share_ppm);

#endif
