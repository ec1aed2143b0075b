/*
 * memory_leaks.c - the leak scan: a conservative reachability scan of the
 * live blocks, valgrind memcheck's leak check done in the running target.
 *
 * With every other thread stopped (the engine's stop: each parks in a
 * signal handler, its registers saved in the signal frame on its own
 * stack), the live blocks are copied out of the block table and sorted by
 * address; then every aligned pointer-sized word of the roots is read:
 *   - each stopped thread's stack, from inside its signal handler (its
 *     saved general registers; not the frame's vector state) to the end of
 *     the stack's mapping;
 *   - the writable segments of every loaded module but the agent;
 *   - every other private anonymous writable mapping (thread-local data,
 *     the loader's own allocations, the program's anonymous mappings) that
 *     is not heap: not the main arena ([heap]), not one of malloc's other
 *     arenas nor a mapping holding a tracked block (its mapped big blocks),
 *     whose freed chunks still hold stale pointers, not the agent's tables;
 * and every block a word points into is marked and its own words read in
 * turn.  As valgrind decides: a word equal to a block's start makes it
 * reachable, one inside it only "possibly" (a block reached only that way
 * is possibly lost); blocks reached from nowhere are lost.  Among those,
 * one pointed to from another lost block is "indirectly" lost, its bytes
 * counted with the block it hangs from (valgrind's cliques); the others are
 * "definitely" lost and grouped by allocating stack.
 *
 * Everything that reads the target's memory runs while it is stopped (a
 * block may be freed and its pages unmapped as soon as it runs), and no
 * lock a target thread may hold is taken meanwhile (the work arrays are
 * mapped beforehand; nothing allocates).  The stop is bounded: past
 * LK_STOP_MAX_NS the scan gives up and reports no result rather than a
 * partial one (unmarked blocks would be reported lost).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent.h"
#include "engine.h"
#include "protocol.h"
#include "memory_int.h"
#include "memory_leaks.h"

static void *lk_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	    -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The block holding address w, or LK_NONE. */
static uint32_t lk_find(const struct lk_scan *s, uintptr_t w)
{
	size_t lo = 0, hi = s->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->b[mid].start <= w)
			lo = mid;
		else
			hi = mid;
	}
	if (s->n == 0 || s->b[lo].start > w || (w >= s->b[lo].end && w != s->b[lo].start))
		return LK_NONE;
	return (uint32_t)lo;
}

/* Read the words of [lo, hi).  leader LK_NONE: marking from the roots;
 * else the lost blocks reached from lost block leader become indirect. */
static void lk_words(struct lk_scan *s, uintptr_t lo, uintptr_t hi, uint32_t leader)
{
	for (uintptr_t p = (lo + 7) & ~(uintptr_t)7; p + sizeof(uintptr_t) <= hi; p += sizeof(uintptr_t)) {
		uintptr_t w = *(const uintptr_t *)p;
		struct lk_blk *x;
		uint32_t k;
		int via;

		if ((++s->words & 0xffff) == 0 && proto_now_ns() > s->deadline)
			s->error = "the scan took too long with the target stopped";
		if (s->error != NULL)
			return;
		if (w < s->lo || w >= s->hi || (k = lk_find(s, w)) == LK_NONE || s->b[k].mapped)
			continue;
		x = &s->b[k];
		if (leader != LK_NONE) {
			if (k != leader && x->state == LK_UNREACHED) {
				x->state = LK_INDIRECT;
				x->owner = leader;
				s->todo[s->ntodo++] = k;
			}
			continue;
		}
		via = w == x->start ? LK_REACHED : LK_POSSIBLE;
		/* glibc's own pointer to the chunk after this block (the arena's
		 * top, a bin): that chunk's header overlaps the block's last
		 * word, so it looks interior, but it refers to no part of it */
		if (via == LK_POSSIBLE && w + sizeof(size_t) == x->start + malloc_usable_size((void *)x->start))
			continue;
		if (x->state == LK_UNREACHED || (x->state == LK_POSSIBLE && via == LK_REACHED)) {
			x->state = (uint8_t)via;
			s->todo[s->ntodo++] = k;
		}
	}
}

/* The same, of the pages of [lo, hi) ever written (present or swapped
 * out, says /proc/self/pagemap): a page never touched is zeros, and
 * reading it would only fault in the zero page (the agent's sparse tables,
 * a program's big reservations). */
static void lk_read(struct lk_scan *s, uintptr_t lo, uintptr_t hi, uint32_t leader)
{
	uintptr_t page = 4096;

	if (s->pm_fd < 0 || hi - lo < LK_PM_MIN) {
		lk_words(s, lo, hi, leader);
		return;
	}
	for (uintptr_t at = lo & ~(page - 1); at < hi && s->error == NULL;) {
		size_t n = (hi - at + page - 1) / page;
		ssize_t r;

		n = n < LK_PM_PAGES ? n : LK_PM_PAGES;
		r = pread(s->pm_fd, s->pm, n * sizeof *s->pm, (off_t)(at / page * sizeof *s->pm));
		if (r <= 0) {
			lk_words(s, at > lo ? at : lo, hi, leader);
			return;
		}
		n = (size_t)r / sizeof *s->pm;
		for (size_t i = 0; i < n; i++, at += page)
			if (s->pm[i] >> 62)               /* present or swapped */
				lk_words(s, at > lo ? at : lo, at + page < hi ? at + page : hi, leader);
	}
}

/* Read the blocks still to read, and those they reach. */
static void lk_drain(struct lk_scan *s, uint32_t leader)
{
	while (s->ntodo > 0 && s->error == NULL) {
		const struct lk_blk *x = &s->b[s->todo[--s->ntodo]];

		if (leader == LK_NONE)
			s->heap_bytes += x->end - x->start;
		lk_read(s, x->start, x->end, leader);
	}
}

/* See memory_leaks.h. */
void lk_mark_from(struct lk_scan *s, uintptr_t lo, uintptr_t hi)
{
	lk_read(s, lo, hi, LK_NONE);
	lk_drain(s, LK_NONE);
}

/* Heapsort by start (qsort may allocate). */
static void lk_sift(struct lk_blk *b, size_t i, size_t n)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		struct lk_blk t;

		if (c + 1 < n && b[c + 1].start > b[c].start)
			c++;
		if (b[i].start >= b[c].start)
			return;
		t = b[i];
		b[i] = b[c];
		b[c] = t;
	}
}

static void lk_sort(struct lk_blk *b, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		lk_sift(b, i, n);
	for (size_t i = n; i-- > 1;) {
		struct lk_blk t = b[0];

		b[0] = b[i];
		b[i] = t;
		lk_sift(b, 0, i);
	}
}

/* The live blocks of table slots [from, to). */
static void lk_collect_slots(struct lk_scan *s, size_t from, size_t to)
{
	for (size_t i = from; i < to && s->n < s->cap; i++) {
		const struct mem_block *m = &mem.blocks[i];
		uint64_t key = __atomic_load_n(&m->key, __ATOMIC_ACQUIRE), meta;

		if (key <= 1)
			continue;
		meta = __atomic_load_n(&m->meta, __ATOMIC_RELAXED);
		s->b[s->n++] = (struct lk_blk){ .start = (uintptr_t)key, .end = (uintptr_t)key + (meta >> 24),
		    .id = MEM_ID(meta), .owner = LK_NONE, .mapped = (meta & MEM_MAPPED) != 0 };
	}
}

/* The live blocks out of the table (the slots starting in its pages ever
 * written only: most of its 2M slots never are). */
static void lk_collect(struct lk_scan *s)
{
	const size_t slots = 1ull << MEM_BLOCKS_LOG, sz = sizeof *mem.blocks;
	const size_t pages = (slots * sz + 4095) / 4096;
	uintptr_t base = (uintptr_t)mem.blocks;

	for (size_t p = 0; p < pages;) {
		size_t n = pages - p < LK_PM_PAGES ? pages - p : LK_PM_PAGES;
		ssize_t r = -1;

		if (s->pm_fd >= 0)
			r = pread(s->pm_fd, s->pm, n * sizeof *s->pm, (off_t)((base / 4096 + p) * sizeof *s->pm));
		if (r <= 0) {                     /* no pagemap: every slot */
			lk_collect_slots(s, (p * 4096 + sz - 1) / sz, slots);
			break;
		}
		n = (size_t)r / sizeof *s->pm;
		for (size_t k = 0; k < n; k++, p++)
			if (s->pm[k] >> 62)
				lk_collect_slots(s, (p * 4096 + sz - 1) / sz, ((p + 1) * 4096 + sz - 1) / sz);
	}
	lk_sort(s->b, s->n);
	s->lo = s->n ? s->b[0].start : 0;
	s->hi = s->n ? s->b[s->n - 1].end + 1 : 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->b[i].end + 1 > s->hi)
			s->hi = s->b[i].end + 1;
}

/* With the world stopped: collect, mark from the roots, find the cliques. */
static void lk_stopped(const struct hook_stopped_thread *t, int n, void *arg)
{
	struct lk_scan *s = arg;
	uint64_t t0 = proto_now_ns();
	uintptr_t me = (uintptr_t)&s;
	char *line, *next;

	s->deadline = t0 + LK_STOP_MAX_NS;
	s->threads = n;
	lk_collect(s);
	if (lk_read_maps(s) < 0) {
		s->error = "cannot read /proc/self/maps";
		goto out;
	}
	for (line = s->maps; *line && s->error == NULL; line = next) {
		char *e, perms[5] = "", *path;
		uintptr_t lo, hi;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		lo = strtoull(line, &e, 16);
		if (*e != '-')
			continue;
		hi = strtoull(e + 1, &e, 16);
		while (*e == ' ')
			e++;
		memcpy(perms, e, 4);
		/* skip perms, offset, device, inode */
		path = e;
		for (int f = 0; f < 4 && path < next; f++) {
			while (path < next && *path != ' ' && *path != '\n')
				path++;
			while (path < next && *path == ' ')
				path++;
		}
		if (next[-1] == '\n')
			next[-1] = '\0';
		lk_mapping(s, lo, hi, perms, path, t, n, me);
	}
	for (size_t i = 0; i < s->n && s->error == NULL; i++) {
		if (s->b[i].state != LK_UNREACHED || s->b[i].mapped)
			continue;
		s->todo[s->ntodo++] = (uint32_t)i;
		lk_drain(s, (uint32_t)i);
	}
out:
	s->stopped_ns = proto_now_ns() - t0;
}

/* Lost blocks by stack: definitely lost, and what hangs from them. */
struct lk_group {
	uint64_t bytes, blocks, ibytes, iblocks;
};

static int lk_cmp_lost(const void *a, const void *b)
{
	const struct proto_mem_lost *x = a, *y = b;

	return x->bytes + x->indirect_bytes > y->bytes + y->indirect_bytes ? -1 :
	    x->bytes + x->indirect_bytes < y->bytes + y->indirect_bytes ? 1 : (x->site > y->site) - (x->site < y->site);
}

/* After the scan (the target runs again): the figures and the groups. */
static void lk_results(const struct lk_scan *s, struct proto_mem_leaks *out)
{
	struct lk_group *g = xcalloc(MEM_STACKS, sizeof *g);
	size_t ng = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct lk_blk *x = &s->b[i];
		uint64_t size = x->end - x->start;
		uint32_t o = (uint32_t)i;

		switch (x->mapped ? -1 : x->state) {
		case LK_REACHED:
			out->reachable_bytes += size;
			out->reachable_blocks++;
			break;
		case LK_POSSIBLE:
			out->possible_bytes += size;
			out->possible_blocks++;
			break;
		case LK_UNREACHED:
			out->lost_bytes += size;
			out->lost_blocks++;
			ng += g[x->id].blocks == 0 && g[x->id].iblocks == 0;
			g[x->id].bytes += size;
			g[x->id].blocks++;
			break;
		case LK_INDIRECT:
			out->indirect_bytes += size;
			out->indirect_blocks++;
			for (size_t hop = 0; s->b[o].state == LK_INDIRECT && hop < s->n; hop++)
				o = s->b[o].owner;
			ng += g[s->b[o].id].blocks == 0 && g[s->b[o].id].iblocks == 0;
			g[s->b[o].id].ibytes += size;
			g[s->b[o].id].iblocks++;
			break;
		}
	}
	out->lost = xcalloc(ng ? ng : 1, sizeof *out->lost);
	for (uint32_t id = 0; id < MEM_STACKS; id++)
		if (g[id].blocks || g[id].iblocks)
			out->lost[out->nlost++] = (struct proto_mem_lost){ .site = id, .bytes = g[id].bytes,
			    .blocks = g[id].blocks, .indirect_bytes = g[id].ibytes,
			    .indirect_blocks = g[id].iblocks };
	qsort(out->lost, out->nlost, sizeof *out->lost, lk_cmp_lost);
	if (out->nlost > PROTO_MAX_MEM_LOST)
		out->nlost = PROTO_MAX_MEM_LOST;
	free(g);
}

/* See memory_int.h. */
void mem_leaks_scan(struct proto_mem_leaks *out)
{
	struct lk_scan *s = xcalloc(1, sizeof *s);
	size_t tables_len = 0, todo_len, blk_len;
	uintptr_t t[4][2];
	char err[256];

	out->time_ns = proto_now_ns();
	if (!mem.live || __atomic_load_n(&mem.mode, __ATOMIC_RELAXED) != MEM_FULL) {
		out->error = xstrdup("the leak scan needs full tracking (every live block known): "
		    "`:threshold memory 0`, level 3 or 4, or HOOKSCOPE_MEMORY=full");
		free(s);
		return;
	}
	s->cap = 1ull << MEM_BLOCKS_LOG;
	blk_len = s->cap * sizeof *s->b;
	todo_len = 2 * s->cap * sizeof *s->todo;
	s->b = lk_map(blk_len);
	s->todo = lk_map(todo_len);
	s->maps = lk_map(LK_MAPS_MAX);
	s->pm = lk_map(LK_PM_PAGES * sizeof *s->pm);
	s->pm_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (s->b == NULL || s->todo == NULL || s->maps == NULL || s->pm == NULL) {
		out->error = xstrdup("no memory for the leak scan's tables");
		goto done;
	}
	lk_skip(s, (uintptr_t)s->b, (uintptr_t)s->b + blk_len);
	lk_skip(s, (uintptr_t)s->todo, (uintptr_t)s->todo + todo_len);
	lk_skip(s, (uintptr_t)s->maps, (uintptr_t)s->maps + LK_MAPS_MAX);
	tables_len = mem_table_ranges(t, 4);
	for (size_t i = 0; i < tables_len; i++)
		lk_skip(s, t[i][0], t[i][1]);
	dl_iterate_phdr(lk_mods_cb, s);
	if (hook_engine_stopped(lk_stopped, s, err, sizeof err) < 0) {
		char msg[320];

		snprintf(msg, sizeof msg, "cannot stop the target's threads: %s", err);
		out->error = xstrdup(msg);
		goto done;
	}
	out->stopped_ns = s->stopped_ns;
	out->threads = (uint32_t)s->threads;
	if (s->error != NULL) {
		char msg[320];

		snprintf(msg, sizeof msg, "%s (%.0f ms, limit %.0f ms; %zu live blocks): no result",
		    s->error, (double)s->stopped_ns / 1e6, (double)LK_STOP_MAX_NS / 1e6, s->n);
		out->error = xstrdup(msg);
		goto done;
	}
	out->root_bytes = s->root_bytes;
	out->heap_bytes = s->heap_bytes;
	lk_results(s, out);
	if (__atomic_load_n(&mem.partial, __ATOMIC_RELAXED))
		out->note = xstrdup("some blocks were allocated while not every allocation was tracked "
		    "(sampled or off mode, or a full table): pointers held in them are not seen, so "
		    "some blocks reported lost may be reachable");
done:
	if (out->error == NULL)
		out->error = xstrdup("");
	if (out->note == NULL)
		out->note = xstrdup("");
	if (s->b != NULL)
		munmap(s->b, blk_len);
	if (s->todo != NULL)
		munmap(s->todo, todo_len);
	if (s->maps != NULL)
		munmap(s->maps, LK_MAPS_MAX);
	if (s->pm != NULL)
		munmap(s->pm, LK_PM_PAGES * sizeof *s->pm);
	if (s->pm_fd >= 0)
		close(s->pm_fd);
	free(s);
}
