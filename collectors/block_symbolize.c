/*
 * block_symbolize.c - addresses of a block's stacks as function + offset
 * (the agent's symbol catalogue, symbols.h) and file:line (libdw, when the
 * module or its debug file has line information), on the reporter thread.
 * An address inside one of the hook engine's trampoline blocks is taken
 * back to the function whose site the block is.  Results are cached per
 * address (a block samples the same addresses again and again).
 */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block.h"
#include "hook_int.h"
#include "symbols.h"

#define BLOCK_SYM_CACHE 4096              /* addresses cached (a hash, overwritten) */

struct block_sym_ent {
	uintptr_t addr;                   /* 0 = empty */
	bool      ret;
	uintptr_t key;
	struct proto_block_frame f;
};

static struct block_sym_ent *block_cache;
static Dwfl *block_dwfl;
static size_t block_dwfl_mods;            /* sym_modules_count when reported */

/* Debug files by build-id under the standard directory only (libc6-dbg
 * style; a -g file has its own): dwfl_standard_find_debuginfo would also
 * ask debuginfod, which loads libcurl and OpenSSL into the target. */
static const Dwfl_Callbacks block_dwfl_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
};

/* The site function of a trampoline block holding addr, or 0. */
static uintptr_t block_sym_tramp(uintptr_t addr)
{
	for (size_t i = 0; i < hook_g.nsites; i++) {
		const struct hook_site *s = hook_g.sites[i];

		if (s != NULL && s->blk != NULL && addr >= (uintptr_t)s->blk &&
		    addr < (uintptr_t)s->blk + HOOK_BLK_SIZE)
			return s->fn;
	}
	return 0;
}

/* libdw's view of this process, made again when modules came or went. */
static Dwfl *block_sym_dwfl(void)
{
	size_t mods = sym_modules_count();

	if (block_dwfl != NULL && mods == block_dwfl_mods)
		return block_dwfl;
	if (block_dwfl != NULL)
		dwfl_end(block_dwfl);
	block_dwfl_mods = mods;
	block_dwfl = dwfl_begin(&block_dwfl_cb);
	if (block_dwfl == NULL)
		return NULL;
	dwfl_report_begin(block_dwfl);
	if (dwfl_linux_proc_report(block_dwfl, getpid()) != 0) {
		dwfl_report_end(block_dwfl, NULL, NULL);
		dwfl_end(block_dwfl);
		return block_dwfl = NULL;
	}
	dwfl_report_end(block_dwfl, NULL, NULL);
	return block_dwfl;
}

/* file:line of addr, when there is line information. */
static void block_sym_line(uintptr_t addr, struct proto_block_frame *f)
{
	Dwfl *d = block_sym_dwfl();
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	Dwfl_Line *l = m ? dwfl_module_getsrc(m, addr) : NULL;
	const char *file;
	int line = 0;

	if (l == NULL || (file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL)) == NULL)
		return;
	free(f->file);
	f->file = xstrdup(file);
	f->line = line > 0 ? (uint32_t)line : 0;
}

/* Resolve addr (uncached). */
static void block_sym_fill(uintptr_t addr, bool ret, struct block_sym_ent *e)
{
	uintptr_t look = ret && addr > 0 ? addr - 1 : addr, fn = block_sym_tramp(addr);
	struct sym_info si;
	const char *base;

	if (fn != 0)
		look = fn;                /* our trampoline: the real function's entry */
	memset(&si, 0, sizeof si);
	memset(&e->f, 0, sizeof e->f);
	e->addr = addr;
	e->ret = ret;
	e->f.addr = addr;
	e->key = look;
	if (sym_resolve(look, &si) == 0) {
		e->f.func = xstrdup(si.name);
		e->f.off = fn != 0 ? 0 : addr - (look - (si.offset - si.start));
		e->key = look - (si.offset - si.start);
	} else {
		e->f.func = xstrdup("");
		e->key = 0;               /* unnamed code (the vDSO): one key for all */
	}
	base = strrchr(si.module ? si.module : "", '/');
	e->f.module = xstrdup(base ? base + 1 : si.module ? si.module : "");
	e->f.file = xstrdup("");
	if (fn == 0)
		block_sym_line(look, &e->f);
}

/* The cache entry of addr, resolved on first use. */
static struct block_sym_ent *block_sym_get(uintptr_t addr, bool ret)
{
	struct block_sym_ent *e;

	if (block_cache == NULL)
		block_cache = xcalloc(BLOCK_SYM_CACHE, sizeof *block_cache);
	e = &block_cache[((addr >> 2) * 2654435761u + ret) % BLOCK_SYM_CACHE];
	if (e->addr == addr && e->ret == ret)
		return e;
	if (e->addr != 0) {
		free(e->f.func);
		free(e->f.module);
		free(e->f.file);
	}
	block_sym_fill(addr, ret, e);
	return e;
}

/* See block.h. */
uintptr_t block_sym_key(uintptr_t pc, bool ret)
{
	return block_sym_get(pc, ret)->key;
}

/* See block.h. */
void block_sym_frame(uintptr_t pc, bool ret, struct proto_block_frame *out)
{
	const struct block_sym_ent *e = block_sym_get(pc, ret);

	*out = e->f;
	out->func = xstrdup(e->f.func);
	out->module = xstrdup(e->f.module);
	out->file = xstrdup(e->f.file);
}

/* See block.h. */
void block_sym_forget(void)
{
	for (size_t i = 0; block_cache != NULL && i < BLOCK_SYM_CACHE; i++)
		if (block_cache[i].addr != 0) {
			free(block_cache[i].f.func);
			free(block_cache[i].f.module);
			free(block_cache[i].f.file);
		}
	free(block_cache);
	block_cache = NULL;
	if (block_dwfl != NULL)
		dwfl_end(block_dwfl);
	block_dwfl = NULL;
}
