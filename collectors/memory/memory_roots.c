/*
 * memory_roots.c - the leak scan's roots: which memory is read for
 * pointers into live blocks (memory_leaks.c has the scan and the reasons):
 * the stopped threads' live stacks, the modules' writable segments but the
 * agent's, and the private anonymous mappings that are not heap; less the
 * ranges skipped (the agent's tables, malloc's other arenas).
 */
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "memory_int.h"
#include "memory_leaks.h"

void lk_skip(struct lk_scan *s, uintptr_t lo, uintptr_t hi)
{
	if (s->nskip < LK_SKIP_MAX && lo < hi) {
		s->skip[s->nskip][0] = lo;
		s->skip[s->nskip][1] = hi;
		s->nskip++;
	}
}

/* Each module's writable PT_LOAD segments: the agent's are skipped, the
 * others' are roots.  (Before the stop: dl_iterate_phdr takes the loader's
 * lock.) */
int lk_mods_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lk_scan *s = arg;
	uintptr_t self = (uintptr_t)lk_mods_cb, page = (uintptr_t)getpagesize();
	bool agent = false;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_LOAD && self >= lo && self < lo + p->p_memsz)
			agent = true;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = (info->dlpi_addr + p->p_vaddr) & ~(page - 1);
		uintptr_t hi = (info->dlpi_addr + p->p_vaddr + p->p_memsz + page - 1) & ~(page - 1);

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_W))
			continue;
		if (agent)
			lk_skip(s, lo, hi);
		else if (s->nmods < sizeof s->mods / sizeof s->mods[0]) {
			s->mods[s->nmods][0] = lo;
			s->mods[s->nmods][1] = hi;
			s->nmods++;
		}
	}
	return 0;
}

/* A root: [lo, hi) less the skipped ranges from the k-th on. */
static void lk_root(struct lk_scan *s, uintptr_t lo, uintptr_t hi, size_t k)
{
	for (; k < s->nskip; k++) {
		uintptr_t a = s->skip[k][0], b = s->skip[k][1];

		if (a < hi && b > lo) {
			if (lo < a)
				lk_root(s, lo, a, k + 1);
			if (b < hi)
				lk_root(s, b, hi, k + 1);
			return;
		}
	}
	s->root_bytes += hi - lo;
	lk_mark_from(s, lo, hi);
}

/* /proc/self/maps into s->maps (read(2): no stdio buffer to allocate). */
int lk_read_maps(struct lk_scan *s)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while ((r = read(fd, s->maps + len, LK_MAPS_MAX - 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	s->maps[len] = '\0';
	return r < 0 || len >= LK_MAPS_MAX - 1 ? -1 : 0;
}

/* Does [lo, hi) hold the start of a heap block? */
static bool lk_holds_heap(const struct lk_scan *s, uintptr_t lo, uintptr_t hi)
{
	size_t a = 0, b = s->n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (s->b[mid].start < lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < s->n && s->b[a].start < hi; a++)
		if (!s->b[a].mapped)
			return true;
	return false;
}

/* Skip the heaps of malloc's other arenas inside [lo, hi) (the kernel
 * may have merged one with a neighbouring anonymous mapping).  glibc maps
 * them HEAP_MAX_SIZE-aligned (64 MiB on 64-bit targets), a heap_info
 * first: its arena (whose state follows the first heap's heap_info) and
 * the heap's size. */
static void lk_skip_arenas(struct lk_scan *s, uintptr_t lo, uintptr_t hi)
{
	const uintptr_t max = 64ull << 20;

	for (uintptr_t at = (lo + max - 1) & ~(max - 1); at < hi && at >= lo; at += max) {
		const uintptr_t *h = (const uintptr_t *)at;

		if (hi - at >= 4096 && h[0] != 0 && (h[0] & (max - 1)) < 256 && h[2] >= 4096 &&
		    h[2] <= hi - at)
			lk_skip(s, at, at + h[2]);
	}
}

/* One mapping of /proc/self/maps as a root. */
void lk_mapping(struct lk_scan *s, uintptr_t lo, uintptr_t hi, const char *perms,
    const char *path, const struct hook_stopped_thread *t, int n, uintptr_t me)
{
	uintptr_t from = hi;
	int k = -1;

	if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p')
		return;
	if (me >= lo && me < hi)
		return;                           /* this thread: agent code only */
	for (int i = 0; i < n; i++)
		if (t[i].sp >= lo && t[i].sp < hi && t[i].sp < from) {
			from = t[i].sp;
			k = i;
		}
	if (from < hi) {
		/* A stopped thread's stack: its live part, but the vector
		 * registers its signal frame holds, as valgrind reads the
		 * general registers only (a copy loop leaves stale pointers in
		 * vector registers, which would keep lost blocks reachable). */
		if (t[k].vec_lo < t[k].vec_hi && t[k].vec_lo >= from && t[k].vec_hi <= hi) {
			lk_root(s, from, t[k].vec_lo, 0);
			lk_root(s, t[k].vec_hi, hi, 0);
		} else {
			lk_root(s, from, hi, 0);
		}
		return;
	}
	if (path[0] == '/') {                     /* a file: only modules' data segments */
		for (size_t i = 0; i < s->nmods; i++) {
			uintptr_t a = s->mods[i][0] > lo ? s->mods[i][0] : lo;
			uintptr_t b = s->mods[i][1] < hi ? s->mods[i][1] : hi;

			if (a < b)
				lk_root(s, a, b, 0);
		}
		return;
	}
	if (strncmp(path, "[heap]", 6) == 0 || (path[0] && strncmp(path, "[anon", 5) != 0 &&
	    strncmp(path, "[stack", 6) != 0) || lk_holds_heap(s, lo, hi))
		return;
	lk_skip_arenas(s, lo, hi);
	lk_root(s, lo, hi, 0);
}
