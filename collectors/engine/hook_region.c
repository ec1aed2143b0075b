/*
 * hook_region.c - trampoline regions near a module, the same for every
 * back-end.
 *
 * A region holds one HOOK_BLK_SIZE block per site (code, read+exec once
 * written) followed by the data: the common stubs' addresses, then two
 * words per site (its switch and its function).  Every byte of it lies
 * within the back-end's branch reach (HOOK_REACH, hook_layout.h) of every
 * byte of its module, because the entry's branch and the relocated
 * prologue's PC-relative forms span the two.  It is found with
 * MAP_FIXED_NOREPLACE hints stepping away from the module, below it first
 * (above a PIE executable is where the brk heap grows), and populated
 * (every byte is written at once; a fault per page cost twice as much).
 * "The module" is the part of one that a region serves (hook_patch.c gives
 * a module larger than half the reach one region per such part).  A
 * back-end with a far entry form (HOOK_PATCH_MAX > HOOK_PATCH_LEN) can
 * also use a region mapped anywhere (hook_tramp_map_any) when none fits
 * near; so can import sites on every back-end (their GOT entry holds the
 * block's address).  The blocks' contents and the sealing are the
 * back-end's (hook_tramp.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hook.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define HOOK_STEP    ((uintptr_t)0x100000)     /* 1 MB between hints */

/* Round up to a multiple of the page size. */
static size_t hook_region_pages(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

/* Try to map len bytes exactly at hint; true on success. */
static bool hook_region_try(uintptr_t hint, size_t len, uint8_t **out)
{
	void *p = mmap((void *)hint, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		return false;
	if ((uintptr_t)p != hint) {     /* a kernel without NOREPLACE took it as a hint */
		munmap(p, len);
		return false;
	}
	*out = p;
	return true;
}

/* The code part's and the whole mapping's length for nblk blocks. */
static size_t hook_region_len(size_t nblk, size_t *code)
{
	*code = hook_region_pages(nblk * HOOK_BLK_SIZE);
	return *code + hook_region_pages((nblk + 2) * 2 * sizeof(uintptr_t));
}

/* Region r was mapped at base: fill its code part with traps. */
static void hook_region_found(struct hook_region *r, uint8_t *base, size_t nblk)
{
	uint32_t fill = HOOK_FILL;

	r->base = base;
	r->len = hook_region_len(nblk, &r->code_len);
	r->nblk = nblk;
	for (size_t i = 0; i < r->code_len; i += sizeof fill)  /* a trap in every unused byte */
		memcpy(r->base + i, &fill, sizeof fill);
}

/* See hook.h. */
int hook_tramp_map_any(size_t nblk, struct hook_region *r)
{
	size_t code, len = hook_region_len(nblk, &code);
	void *p;

	memset(r, 0, sizeof *r);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	hook_region_found(r, p, nblk);
	return 0;
}

/* See hook.h. */
int hook_tramp_map(uintptr_t lo, uintptr_t hi, size_t nblk, struct hook_region *r)
{
	size_t code, len = hook_region_len(nblk, &code);
	uintptr_t step = HOOK_STEP, span = (len + step - 1) & ~(step - 1), hint;
	uint8_t *base;

	memset(r, 0, sizeof *r);
	if (hi - lo + len >= HOOK_REACH)
		return -1;
	lo &= ~(step - 1);
	/* Below the module: [hint, hint + len) with hi - hint < reach. */
	if (lo > span + step)
		for (hint = lo - span; hint > step && hi - hint < HOOK_REACH; hint -= step)
			if (hook_region_try(hint, len, &base))
				goto found;
	/* Above it: hint + len - lo < reach. */
	for (hint = (hi + step - 1) & ~(step - 1); hint + len - lo < HOOK_REACH; hint += step)
		if (hook_region_try(hint, len, &base))
			goto found;
	errno = ENOMEM;
	return -1;
found:
	hook_region_found(r, base, nblk);
	return 0;
}

/* See hook.h. */
uint8_t *hook_tramp_blk(const struct hook_region *r, size_t i)
{
	return r->base + i * HOOK_BLK_SIZE;
}

/* See hook.h.  The data part starts with the addresses of the three common
 * stubs (for the blocks' indirect branches) and a spare word, then two
 * words per block: its switch and its function (HOOK_SW_FN). */
uintptr_t *hook_tramp_switch(const struct hook_region *r, size_t i)
{
	return (uintptr_t *)(r->base + r->code_len) + 4 + 2 * i;
}
