/*
 * memory_table.c - the live-block table and the stack table (see
 * memory_int.h).  Both are mapped once (MAP_NORESERVE: pages are touched
 * as slots are used) and never grow: a block the table has no room for
 * within MEM_PROBES slots is counted as untracked, a stack past MEM_STACKS
 * is id 0 ("unknown").  A stack is recognised by a 64-bit hash of its
 * frames alone (a collision merges two stacks: 2^-64 per pair).
 */
#include <string.h>
#include <sys/mman.h>

#include "memory_int.h"

#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ADD(p, v)    __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define KEY_EMPTY    0
#define KEY_TOMB     1
#define STACK_IDX_LOG 18                  /* hash index: 4x the stacks */
#define MEM_MASK     ((1ull << MEM_BLOCKS_LOG) - 1)

struct mem_state mem __attribute__((aligned(64)));   /* its head: one cache line (memory_int.h) */

/* hash -> id + 1 (0: being filled). */
struct mem_stack_slot {
	uint64_t hash;                        /* 0 empty */
	uint32_t id;
};
static struct mem_stack_slot *mem_stack_idx;

/* The big blocks, listed apart so the reporter finds the biggest without
 * walking the whole table: address and meta, claimed and freed by CAS. */
struct mem_big_slot {
	uint64_t key;                         /* 0 free */
	uint64_t meta;
};
static struct mem_big_slot mem_big[MEM_BIG_SLOTS];

/* The counting filter (memory_int.h).  Counters saturate (never
 * decremented again: a lookup then). */
uint8_t mem_filter[MEM_FILTER];

/* Count key in (d = 1) or out (d = -1), unless its counter saturated. */
static void mem_filter_add(uint64_t key, int d)
{
	uint8_t *c = mem_filter_at(key), v = LOAD(c);

	while (v != 255 && !__atomic_compare_exchange_n(c, &v, (uint8_t)(v + d), true,
	    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void mem_big_add(uint64_t key, uint64_t meta)
{
	for (uint32_t i = 0; i < MEM_BIG_SLOTS; i++) {
		uint64_t cur = LOAD(&mem_big[i].key);

		if (cur == 0 && __atomic_compare_exchange_n(&mem_big[i].key, &cur, key, false,
		    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_store_n(&mem_big[i].meta, meta, __ATOMIC_RELEASE);
			return;
		}
	}
}

static void mem_big_del(uint64_t key)
{
	for (uint32_t i = 0; i < MEM_BIG_SLOTS; i++)
		if (LOAD(&mem_big[i].key) == key) {
			__atomic_store_n(&mem_big[i].meta, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&mem_big[i].key, 0, __ATOMIC_RELEASE);
			return;
		}
}

static void *mem_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	    -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* See memory_int.h. */
int mem_table_init(void)
{
	mem.stacks = mem_map(MEM_STACKS * sizeof *mem.stacks);
	mem.blocks = mem_map((1ull << MEM_BLOCKS_LOG) * sizeof *mem.blocks);
	mem_stack_idx = mem_map((1ull << STACK_IDX_LOG) * sizeof *mem_stack_idx);
	if (mem.stacks == NULL || mem.blocks == NULL || mem_stack_idx == NULL)
		return -1;
	mem.nstacks = 1;                      /* id 0: unknown */
	__atomic_store_n(&mem.live, true, __ATOMIC_RELEASE);
	return 0;
}

/* A 64-bit mix of an address (splitmix64's finaliser). */
static inline uint64_t mem_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* See memory_int.h. */
uint32_t mem_stack_id(const uintptr_t *pc, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	uint64_t mask = (1ull << STACK_IDX_LOG) - 1;

	for (uint32_t i = 0; i < n; i++)
		h = mem_mix(h ^ pc[i]);
	h |= 2;                               /* never 0 */
	for (uint64_t i = h & mask, k = 0; k < 64; k++, i = (i + 1) & mask) {
		struct mem_stack_slot *s = &mem_stack_idx[i];
		uint64_t cur = __atomic_load_n(&s->hash, __ATOMIC_ACQUIRE);
		uint32_t id;

		if (cur == 0) {
			if (!__atomic_compare_exchange_n(&s->hash, &cur, h, false, __ATOMIC_ACQ_REL,
			    __ATOMIC_ACQUIRE)) {
				if (cur != h)
					continue;     /* another stack took the slot */
			} else {
				id = ADD(&mem.nstacks, 1);
				if (id >= MEM_STACKS) {
					STORE(&mem.nstacks, MEM_STACKS);
					__atomic_store_n(&s->id, 1, __ATOMIC_RELEASE);   /* unknown */
					return 0;
				}
				struct mem_stack *st = &mem.stacks[id];

				st->hash = h;
				st->depth = n;
				memcpy(st->pc, pc, n * sizeof *pc);
				__atomic_store_n(&s->id, id + 1, __ATOMIC_RELEASE);
				return id;
			}
		}
		if (cur != h)
			continue;
		/* Found, or being filled by another thread (a few stores). */
		for (int spin = 0; spin < 100000; spin++) {
			id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
			if (id != 0)
				return id - 1;
#if defined(__x86_64__)
			__builtin_ia32_pause();
#elif defined(__aarch64__)
			__asm__ volatile("yield");
#endif
		}
		return 0;
	}
	return 0;
}

/* See memory_int.h. */
void mem_block_add(void *p, size_t size, uint32_t id, uint64_t wbytes, uint64_t wmblocks)
{
	uint64_t key = (uint64_t)(uintptr_t)p;
	struct mem_stack *st = &mem.stacks[MEM_ID(id)];

	if (p == NULL)
		return;
	for (uint64_t i = mem_mix(key) & MEM_MASK, k = 0; k < MEM_PROBES; k++, i = (i + 1) & MEM_MASK) {
		struct mem_block *b = &mem.blocks[i];
		uint64_t cur = LOAD(&b->key);

		if (cur > KEY_TOMB || !__atomic_compare_exchange_n(&b->key, &cur, key, false,
		    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		STORE(&b->meta, (uint64_t)size << 24 | id);
		if (size >= MEM_BIG_MIN)
			mem_big_add(key, (uint64_t)size << 24 | id);
		mem_filter_add(key, 1);
		STORE(&b->wbytes, (uint32_t)(wbytes == size ? 0 : wbytes));
		STORE(&b->wmblocks, (uint32_t)(wmblocks == 1000 ? 0 : wmblocks));
		ADD(&st->alloc_bytes, wbytes);
		ADD(&st->alloc_mblocks, wmblocks);
		ADD(&st->allocs, 1);
		return;
	}
	ADD(&mem.untracked, 1);
	STORE(&mem.partial, true);
}

/* The slot of live block key, or NULL. */
static struct mem_block *mem_block_find(uint64_t key)
{
	for (uint64_t i = mem_mix(key) & MEM_MASK, k = 0; k < MEM_PROBES; k++, i = (i + 1) & MEM_MASK) {
		struct mem_block *b = &mem.blocks[i];
		uint64_t cur = __atomic_load_n(&b->key, __ATOMIC_ACQUIRE);

		if (cur == key)
			return b;
		if (cur == KEY_EMPTY)
			return NULL;
	}
	return NULL;
}

/* See memory_int.h. */
size_t mem_block_del(void *p)
{
	uint64_t key = (uint64_t)(uintptr_t)p;
	struct mem_block *b;
	uint64_t meta, size, wb, wm;
	struct mem_stack *st;

	if (p == NULL)
		return 0;
	if (LOAD(mem_filter_at(key)) == 0 || (b = mem_block_find(key)) == NULL) {
		if (LOAD(&mem.mode) == MEM_FULL)      /* sampled: most blocks are not kept */
			ADD(&mem.unknown_frees, 1);
		return 0;
	}
	meta = LOAD(&b->meta);
	wb = LOAD(&b->wbytes);
	wm = LOAD(&b->wmblocks);
	if (!__atomic_compare_exchange_n(&b->key, &key, KEY_TOMB, false, __ATOMIC_ACQ_REL,
	    __ATOMIC_RELAXED))
		return 0;                     /* a double free racing with itself */
	size = meta >> 24;
	if (size >= MEM_BIG_MIN)
		mem_big_del(key);
	mem_filter_add(key, -1);
	st = &mem.stacks[MEM_ID(meta)];
	ADD(&st->free_bytes, wb ? wb : size);
	ADD(&st->free_mblocks, wm ? wm : 1000);
	ADD(&st->frees, 1);
	return size;
}

/* See memory_int.h. */
size_t mem_block_size(const void *p)
{
	struct mem_block *b;

	if (LOAD(mem_filter_at((uint64_t)(uintptr_t)p)) == 0)
		return 0;
	b = mem_block_find((uint64_t)(uintptr_t)p);
	return b ? LOAD(&b->meta) >> 24 : 0;
}

/* See memory_int.h. */
void mem_big_each(void (*fn)(uintptr_t addr, size_t size, uint32_t id, void *arg), void *arg)
{
	for (uint32_t i = 0; i < MEM_BIG_SLOTS; i++) {
		uint64_t key = __atomic_load_n(&mem_big[i].key, __ATOMIC_ACQUIRE);
		uint64_t meta = __atomic_load_n(&mem_big[i].meta, __ATOMIC_ACQUIRE);

		if (key != 0 && meta != 0)
			fn((uintptr_t)key, meta >> 24, MEM_ID(meta), arg);
	}
}

/* See memory_int.h. */
size_t mem_table_ranges(uintptr_t (*r)[2], size_t max)
{
	const struct { const void *p; size_t len; } t[] = {
		{ mem.stacks, MEM_STACKS * sizeof *mem.stacks },
		{ mem.blocks, (1ull << MEM_BLOCKS_LOG) * sizeof *mem.blocks },
		{ mem_stack_idx, (1ull << STACK_IDX_LOG) * sizeof *mem_stack_idx },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof t / sizeof t[0] && n < max; i++, n++) {
		r[n][0] = (uintptr_t)t[i].p;
		r[n][1] = (uintptr_t)t[i].p + t[i].len;
	}
	return n;
}

/* See memory_int.h. */
void mem_table_atfork_child(void)
{
	mem.untracked = mem.unknown_frees = mem.bypassed = 0;
}
