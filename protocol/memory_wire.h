/*
 * memory_wire.h - the memory part of the wire: the native heap by
 * allocating stack ("memory").  Its row in the parts table (parts.h) is
 * defined in memory.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_MEMORY_WIRE_H
#define HOOKSCOPE_PROTOCOL_MEMORY_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "block_wire.h"

#define PROTO_MAX_MEM_SITES   16384       /* allocating stacks in one map */
#define PROTO_MAX_MEM_BLOCKS  64          /* biggest blocks in one map */
#define PROTO_MAX_MEM_HISTORY 600         /* heap-in-use samples (frames) */

/* One allocating stack and what it holds.  In sampled mode bytes and
 * blocks are estimates; allocs and frees are calls seen. */
struct proto_mem_site {
	uint32_t id;                      /* agent-assigned, stable */
	uint64_t bytes, blocks;           /* in use now */
	uint64_t alloc_bytes;             /* allocated since start or reset */
	uint64_t allocs, frees;
	double   alloc_rate;              /* frames: bytes allocated per second, last second */
	double   growth;                  /* frames: bytes in use gained per second over the leak window */
	bool     leak;                    /* frames: a suspected leak (steady growth over the window) */
	struct proto_block_stack stack;   /* innermost first; sent with the site's first figures */
};

/* One of the biggest live blocks. */
struct proto_mem_block {
	uint64_t addr, size;
	uint32_t site;
};

#define PROTO_MAX_MEM_LOST    256         /* lost-block groups in a leak scan's result */

/* Blocks a leak scan found lost, by allocating site. */
struct proto_mem_lost {
	uint32_t site;                    /* the memory site's id */
	uint64_t bytes, blocks;           /* definitely lost: no pointer to them anywhere */
	uint64_t indirect_bytes, indirect_blocks;   /* lost only through these blocks */
	struct proto_block_stack stack;   /* frames: the site's (the record has none) */
};

/* The last leak scan's result (seq 0: none run). */
struct proto_mem_leaks {
	uint32_t seq;                     /* scans run so far */
	char    *error;                   /* why there is no result; "" when there is */
	char    *note;                    /* what may make the result err; "" when nothing */
	uint64_t time_ns;                 /* agent clock at the scan */
	uint64_t stopped_ns;              /* how long the target's threads were stopped */
	uint32_t threads;                 /* threads stopped */
	uint64_t root_bytes, heap_bytes;  /* scanned: roots (stacks, data), live blocks */
	uint64_t lost_bytes, lost_blocks; /* definitely lost */
	uint64_t indirect_bytes, indirect_blocks;
	uint64_t possible_bytes, possible_blocks;   /* reached only by pointers inside them */
	uint64_t reachable_bytes, reachable_blocks;
	size_t   nlost;                   /* most bytes first */
	struct proto_mem_lost *lost;
};

/* The "memory" map. */
struct proto_memory {
	char    *mode;                    /* "full", "sampled", "off" or "replaced" (another allocator) */
	uint64_t sample_bytes;            /* sampled mode's mean interval */
	uint64_t leak_window_ns;          /* growth over this long flags a leak */
	uint64_t heap_bytes, heap_blocks; /* malloc family, in use */
	uint64_t alloc_bytes, allocs, frees;   /* since start or reset */
	uint64_t mmap_bytes, mmap_regions;     /* anonymous mappings in use */
	uint64_t untracked;               /* blocks the agent had no room to track */
	uint64_t unknown_frees;           /* frees of blocks allocated before tracking began */
	bool     exited;                  /* the target's final figures: what it never freed */
	double   allocs_per_s;            /* frames: over the last second */
	size_t   nsites;
	struct proto_mem_site *sites;
	size_t   nbig;                    /* biggest live blocks, biggest first */
	struct proto_mem_block *big;
	size_t   nhistory;                /* frames: heap in use (KiB) once a second, oldest first */
	uint32_t *history;
	struct proto_mem_leaks leaks;     /* after a leak scan */
};

void proto_mem_site_copy(struct proto_mem_site *dst, const struct proto_mem_site *src);
void proto_mem_site_free(struct proto_mem_site *s);
void proto_memory_free(struct proto_memory *m);

/* The field tables (memory.c). */
struct proto_struct;
extern const struct proto_struct proto_memory_desc, proto_mem_site_desc, proto_mem_block_desc,
    proto_mem_leaks_desc;

#endif
