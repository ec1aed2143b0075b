/*
 * memory_leaks.h - the leak scan's state, shared by the scan
 * (memory_leaks.c: collect, mark, group) and its roots (memory_roots.c).
 * Every function here runs on the scanning thread; those reading the
 * target's memory only while the world is stopped.
 */
#ifndef HS_MEMORY_LEAKS_H
#define HS_MEMORY_LEAKS_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define LK_STOP_MAX_NS  (2ull * 1000000000)   /* the target stays stopped at most this long */
#define LK_MAPS_MAX     (8u << 20)            /* bytes of /proc/self/maps */
#define LK_SKIP_MAX     64                    /* ranges never read as roots */
#define LK_NONE         UINT32_MAX
#define LK_PM_PAGES     4096                  /* pagemap entries read at once */
#define LK_PM_MIN       (64u << 10)           /* ranges this long go by the pagemap */

enum { LK_UNREACHED, LK_POSSIBLE, LK_REACHED, LK_INDIRECT };

/* One live block. */
struct lk_blk {
	uintptr_t start, end;             /* end: start + the size asked for */
	uint32_t  id;                     /* its stack */
	uint32_t  owner;                  /* indirect: the lost block it hangs from */
	uint8_t   state;
	bool      mapped;                 /* an anonymous mapping: a root, never lost */
};

struct lk_scan {
	struct lk_blk *b;                 /* [n], sorted by start */
	size_t    n, cap;
	uint32_t *todo;                   /* blocks whose words are still to read */
	size_t    ntodo;
	char     *maps;                   /* /proc/self/maps */
	uint64_t *pm;                     /* [LK_PM_PAGES] of /proc/self/pagemap */
	int       pm_fd;                  /* -1: read every page */
	uintptr_t skip[LK_SKIP_MAX][2];
	size_t    nskip;
	uintptr_t mods[LK_SKIP_MAX * 8][2];   /* the modules' writable segments (not the agent's) */
	size_t    nmods;
	uintptr_t lo, hi;                 /* no block outside [lo, hi) */
	uint64_t  deadline, words;
	uint64_t  root_bytes, heap_bytes, stopped_ns;
	int       threads;
	const char *error;
};

/* memory_roots.c */
void lk_skip(struct lk_scan *s, uintptr_t lo, uintptr_t hi);
int  lk_mods_cb(struct dl_phdr_info *info, size_t size, void *arg);
int  lk_read_maps(struct lk_scan *s);
void lk_mapping(struct lk_scan *s, uintptr_t lo, uintptr_t hi, const char *perms,
    const char *path, const struct hook_stopped_thread *t, int n, uintptr_t me);

/* memory_leaks.c: mark what the words of [lo, hi) reach. */
void lk_mark_from(struct lk_scan *s, uintptr_t lo, uintptr_t hi);

#endif
